#pragma once
/// \file vta/driver/guarded_main.h
/// The `main` of every shipped program: runs `run` and turns any exception that escapes it into one
/// line on stderr ("NAME: error: WHAT") and exit status 1. A usage error is exit status 2
/// (VTA_CLI_PARSE).

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>

namespace vta {

namespace detail {
inline const char* g_program_name = "vta";
extern "C" inline void on_interrupt(int sig) {
  // async-signal-safe: write and _exit only
  const char* what = sig == SIGINT ? ": interrupted by SIGINT\n" : ": interrupted by SIGTERM\n";
  (void)!::write(STDERR_FILENO, g_program_name, std::strlen(g_program_name));
  (void)!::write(STDERR_FILENO, what, std::strlen(what));
  ::_exit(128 + sig);
}
}  // namespace detail

/// SIGINT and SIGTERM end the program with one line on stderr ("NAME: interrupted by SIGTERM") and
/// status 128 + the signal, instead of silently. (The clocked backends stop a run in progress on these
/// signals with a diagnostic of their own, and put this handler back after it.)
inline void report_interrupts(const char* name) {
  detail::g_program_name = name;
  struct sigaction sa = {};
  sa.sa_handler = detail::on_interrupt;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

template <class Run>
int guarded_main(const char* name, Run run) noexcept {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: error: an unknown exception\n", name);
  }
  return 1;
}

}  // namespace vta

/// In a program's run function, instead of CLI11_PARSE (whose exit statuses are CLI11's error numbers,
/// 100 and up): parses the command line; on --help returns 0, on a usage error prints it and returns 2.
/// Needs <CLI/CLI.hpp>.
#define VTA_CLI_PARSE(app, argc, argv)   \
  do {                                   \
    try {                                \
      (app).parse((argc), (argv));       \
    } catch (const CLI::ParseError& e) { \
      return (app).exit(e) == 0 ? 0 : 2; \
    }                                    \
  } while (false)
