#pragma once
/// \file vta/driver/guarded_main.h
/// The `main` of every shipped program: runs `run` and turns any exception that escapes it into one
/// line on stderr ("NAME: error: WHAT") and exit status 1. A usage error is exit status 2
/// (VTA_CLI_PARSE). SIGINT and SIGTERM end it with one line and status 128 + the signal, with every
/// partial file removed (vta/driver/file.h), whether they come while the program waits on a run (which
/// then stops cleanly, vta/driver/interrupt.h) or at any other moment.

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "vta/driver/file.h"
#include "vta/driver/interrupt.h"

namespace vta {

namespace detail {
inline const char* g_program_name = "vta";
extern "C" inline void on_interrupt(int sig) {
  // async-signal-safe: kill, unlink, write and _exit only
  stop_children();
  remove_partial_files();
  const char* what = sig == SIGINT ? ": interrupted by SIGINT\n" : ": interrupted by SIGTERM\n";
  (void)!::write(STDERR_FILENO, g_program_name, std::strlen(g_program_name));
  (void)!::write(STDERR_FILENO, what, std::strlen(what));
  ::_exit(128 + sig);
}
}  // namespace detail

/// SIGINT and SIGTERM end the program with one line on stderr ("NAME: interrupted by SIGTERM") and
/// status 128 + the signal, instead of silently, after ending the converters it waits for and removing
/// every partial file. (The clocked
/// backends stop a run in progress on these signals with a diagnostic of their own, and put this
/// handler back after it.) guarded_main installs it.
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
  report_interrupts(name);
  // a run stopped by a signal ends the program as the signal would have: 128 + the signal
  auto interrupted = [&](const char* what) {
    const int sig = process_stop_signal();
    if (sig == 0) return false;
    std::fprintf(stderr, "%s: interrupted by %s: %s\n", name, sig == SIGINT ? "SIGINT" : "SIGTERM", what);
    return true;
  };
  try {
    const int status = run();
    if (status != 0 && interrupted("stopped")) return 128 + process_stop_signal();
    return status;
  } catch (const std::exception& e) {
    if (interrupted(e.what())) return 128 + process_stop_signal();
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
  } catch (...) {
    if (interrupted("an unknown exception")) return 128 + process_stop_signal();
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
