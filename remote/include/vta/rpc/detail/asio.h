#pragma once
// Boost.Asio as Debian 12 ships it (Boost 1.74): its awaitable.hpp uses std::exchange without including
// <utility>, which GCC 12 in C++20 mode no longer brings in indirectly. Include Asio through here.

// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on
