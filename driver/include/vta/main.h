#pragma once
// The `main` of every shipped program: runs `run` and turns any exception that escapes it into one
// line on stderr ("NAME: error: WHAT") and exit status 1. A usage error is exit status 2
// (VTA_CLI_PARSE).

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
