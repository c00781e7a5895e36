#pragma once
// The subcommands of the `vta` command (docs/CLI.md). Each add_* declares its subcommands on the
// application and registers what each one runs; main runs the one the command line chose and exits
// with the status it returns.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "vta/driver/capture.h"
#include "vta/driver/device.h"

namespace vta::cli {

/// The subcommands' actions, each returning the command's exit status.
class Commands {
 public:
  void add(CLI::App* subcommand, std::function<int()> run) { list_.emplace_back(subcommand, std::move(run)); }
  /// Runs the subcommand the parsed command line chose; its exit status.
  int run_parsed() const {
    for (const auto& [app, run] : list_) {
      if (app->parsed()) return run();
    }
    return 2;  // (CLI11 requires a subcommand: not reached)
  }

 private:
  std::vector<std::pair<CLI::App*, std::function<int()>>> list_;
};

/// A file a subcommand reads: a capture (vta/driver/capture.h), a built module (vta-module JSON) or, for
/// disasm, a raw instruction stream.
enum class FileKind { kCapture, kModule, kRaw };
FileKind file_kind(const std::string& path);

/// Prints the seven statistics (and cycles with their bounds) as the seeds' table, or as JSON.
void print_stats(const Stats& stats, const Config& config, bool as_json);

void add_run_commands(CLI::App& app, Commands& commands);      // run, replay, capture
void add_inspect_commands(CLI::App& app, Commands& commands);  // disasm, stats, config
void add_timeline_command(CLI::App& app, Commands& commands);  // timeline
void add_estimate_command(CLI::App& app, Commands& commands);  // estimate

}  // namespace vta::cli
