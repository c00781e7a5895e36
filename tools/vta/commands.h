#pragma once
// The subcommands of the `vta` command (docs/CLI.md). Each add_* declares its subcommands on the
// application; a subcommand's callback does the work and sets the exit status.

#include <CLI/CLI.hpp>
#include <string>

#include "vta/capture.h"
#include "vta/device.h"

namespace vta::cli {

/// The exit status the command will return (set by the subcommand that ran).
int& exit_status();

/// A file a subcommand reads: a capture (vta/capture.h), a built module (vta-module JSON) or, for
/// disasm, a raw instruction stream.
enum class FileKind { kCapture, kModule, kRaw };
FileKind file_kind(const std::string& path);

/// Prints the seven statistics (and cycles with their bounds) as the seeds' table, or as JSON.
void print_stats(const Stats& stats, const Config& config, bool as_json);

void add_run_commands(CLI::App& app);      // run, replay, capture
void add_inspect_commands(CLI::App& app);  // disasm, stats, config
void add_timeline_command(CLI::App& app);  // timeline
void add_estimate_command(CLI::App& app);  // estimate

}  // namespace vta::cli
