#pragma once
// The `main` of every shipped program: runs `run` and turns any exception that escapes it into one
// line on stderr ("NAME: error: WHAT") and exit status 1.

#include <cstdio>
#include <exception>

namespace vta {

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
