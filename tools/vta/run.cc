// vta run, vta replay, vta capture.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>  // environ

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "commands.h"
#include "vta/compiler/build.h"
#include "vta/compiler/seeded_run.h"
#include "vta/driver/build_config.h"
#include "vta/driver/file.h"
#include "vta/tools/target_option.h"

namespace vta::cli {
namespace {

struct RunOptions {
  std::string file;
  std::string target;
  uint64_t budget = 0;
  bool json = false;
  std::string wave;
  uint64_t from = 0;
  uint64_t to = UINT64_MAX;
  uint32_t seed = 0;
  bool ignore_cycles = false;
};

void add_run_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("file", o.file, "a captured run (.vtacap) or, for run, a built module (Module::save)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-t,--target", o.target, vta::tools::kTargetHelp)->check(vta::tools::target_validator());
  cmd->add_option("--budget", o.budget,
                  "bound of the run in the backend's unit (cycles; fsim: work units); 0 = as captured")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 62));
  cmd->add_flag("--json", o.json, "print the outcome and statistics as one JSON object");
  cmd->add_option("--wave", o.wave, "write a waveform of the run (.fst or .vcd; tsim and systemc)");
  cmd->add_option("--from", o.from, "first cycle in the waveform")->needs("--wave");
  cmd->add_option("--to", o.to, "cycle the waveform stops before")->needs("--wave");
}

// The target asked for.
std::string target_of(const RunOptions& o) { return o.target.empty() ? default_target() : o.target; }

// The device options of a run: the environment's, with the waveform the command line asks for.
DeviceOptions device_options(const RunOptions& o, const std::string& target) {
  DeviceOptions d = DeviceOptions::from_env();
  if (!o.wave.empty()) {
    if (target != "tsim" && target != "systemc") {
      throw std::invalid_argument("--wave needs a clocked backend (tsim or systemc), not " + target);
    }
    if (o.to <= o.from) throw std::invalid_argument("--to must be larger than --from");
    d.clocked->wave = o.wave;
    d.clocked->wave_start = o.from;
    d.clocked->wave_stop = o.to;
  }
  return d;
}

const char* status_text(RunStatus s) {
  return s == RunStatus::kOk ? "ok" : s == RunStatus::kTimeout ? "timeout" : "error";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

void print_outcome(const std::string& target, const CapturedResult& r, const Config& config, bool as_json,
                   const ReplayResult* replay) {
  if (as_json) {
    std::printf("{\"target\": %s, \"status\": \"%s\", \"error_kind\": \"%s\", \"error\": %s, \"stats\": %s",
                json_string(target).c_str(), status_text(r.status), to_string(r.kind), json_string(r.error).c_str(),
                r.stats.to_json().c_str());
    if (replay != nullptr) {
      std::printf(", \"matches\": %s, \"differences\": [", replay->matches() ? "true" : "false");
      for (size_t i = 0; i < replay->differences.size(); ++i) {
        std::printf("%s%s", i == 0 ? "" : ", ", json_string(replay->differences[i]).c_str());
      }
      std::printf("]");
    }
    std::printf("}\n");
    return;
  }
  if (r.status != RunStatus::kOk) {  // the failure on stderr (docs/CLI.md), the statistics on stdout
    const bool newline = !r.error.empty() && r.error.back() == '\n';
    std::fprintf(stderr, "vta: error: %s%s", r.error.c_str(), newline ? "" : "\n");
  }
  std::printf("Execution statistics (%s):\n", target.c_str());
  print_stats(r.stats, config, false);
}

int run_capture(const RunOptions& o, bool compare) {
  const Capture capture = Capture::load(o.file);
  ReplayOptions ro;
  ro.target = target_of(o);
  ro.clocked = device_options(o, ro.target).clocked;
  ro.budget = o.budget;
  ro.compare_cycles = !o.ignore_cycles;
  ReplayResult r;
  try {
    r = replay(capture, ro);
  } catch (const CaptureError& e) {
    throw CaptureError(o.file + ": " + e.what());  // which file a message is about
  }
  for (const auto& w : r.warnings) std::fprintf(stderr, "vta: warning: %s\n", w.c_str());
  print_outcome(ro.target, r.result, capture.config(), o.json, compare ? &r : nullptr);
  if (compare) {
    if (!o.json) {
      if (r.matches()) {
        std::printf("replay on %s matches the capture (%s on %s): outcome, statistics%s and %zu memory regions\n",
                    ro.target.c_str(), o.file.c_str(), capture.target.c_str(),
                    capture.result.stats.cycle_count && capture.result.stats.cycle_count == r.result.stats.cycle_count
                        ? ", cycles"
                        : "",
                    capture.regions.size());
      } else {
        std::printf("replay on %s DIFFERS from the capture (%s on %s):\n", ro.target.c_str(), o.file.c_str(),
                    capture.target.c_str());
        for (const auto& d : r.differences) std::printf("  %s\n", d.c_str());
      }
    }
    return r.matches() ? 0 : 1;
  }
  return r.result.status == RunStatus::kOk ? 0 : 1;
}

// A built module: every argument but the last filled with seeded random values, one call on the
// runtime's device, the statistics and a checksum of the output (the last argument).
int run_module(const RunOptions& o) {
  if (o.budget != 0) throw std::invalid_argument("--budget applies to captured runs; a module runs with the runtime's");
  const std::string target = target_of(o);
  const compiler::Module module = compiler::Module::load(o.file);
  if (module.args().empty()) throw std::invalid_argument(o.file + ": the module has no arguments");
  const compiler::SeededRun r =
      compiler::run_seeded(module, make_device(target, build_config(), device_options(o, target)), o.seed);
  print_outcome(target, r.result, build_config(), o.json, nullptr);
  if (r.result.status == RunStatus::kOk && !o.json) {
    std::printf("output %s: %zu elements, fnv1a64 %016llx (inputs from --seed %u)\n", r.output_name.c_str(),
                r.output_elements, static_cast<unsigned long long>(r.checksum()), o.seed);
  }
  return r.result.status == RunStatus::kOk ? 0 : 1;
}

struct CaptureOptions {
  std::string dir = "vta-captures";
  std::vector<std::string> command;
};

// Runs a program with VTA_CAPTURE set and lists the runs it captured.
int capture_command(const CaptureOptions& o) {
  namespace fs = std::filesystem;
  std::set<std::string> before;
  if (fs::is_directory(o.dir)) {
    for (const auto& e : fs::directory_iterator(o.dir)) before.insert(e.path().string());
  }
  // the program's environment: ours with VTA_CAPTURE naming the directory
  const std::string capture_var = "VTA_CAPTURE=" + o.dir;
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "VTA_CAPTURE=", 12) != 0) envp.push_back(*e);
  }
  envp.push_back(const_cast<char*>(capture_var.c_str()));
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int err = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()); err != 0) {
    throw std::runtime_error("cannot start " + o.command[0] + ": " + std::strerror(err));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waiting for the program: ") + std::strerror(errno));
  }
  std::vector<std::string> made;
  if (fs::is_directory(o.dir)) {
    for (const auto& e : fs::directory_iterator(o.dir)) {
      if (e.path().extension() == ".vtacap" && !before.contains(e.path().string())) made.push_back(e.path().string());
    }
  }
  std::sort(made.begin(), made.end());
  std::fprintf(stderr, "vta capture: %zu run%s captured in %s/\n", made.size(), made.size() == 1 ? "" : "s",
               o.dir.c_str());
  for (const auto& path : made) {
    const Capture c = Capture::load(path);
    std::fprintf(stderr, "  %s: %u instructions on %s, %s, %zu regions\n", path.c_str(), c.insn_count, c.target.c_str(),
                 c.result.status == RunStatus::kOk ? "ok" : to_string(c.result.kind), c.regions.size());
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  std::fprintf(stderr, "vta capture: %s ended by signal %d\n", o.command[0].c_str(), WTERMSIG(status));
  return 128 + WTERMSIG(status);
}

}  // namespace

FileKind file_kind(const std::string& path) {
  require_regular_file(path);  // a FIFO named by mistake is refused, not waited on
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  char head[8] = {};
  in.read(head, sizeof head);
  const std::string_view s(head, size_t(in.gcount()));
  if (s == "VTACAP1\n") return FileKind::kCapture;
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && s[first] == '{') return FileKind::kModule;
  return FileKind::kRaw;
}

void add_run_commands(CLI::App& app, Commands& commands) {
  static RunOptions run, replay_opts;
  CLI::App* r = app.add_subcommand("run", "run a captured program or a built module and print its statistics");
  add_run_options(r, run);
  r->add_option("--seed", run.seed, "seed of a module's random inputs");
  r->footer(
      "Examples:\n  vta run caps/conv-1234-000000.vtacap --target tsim --wave conv.fst --from 1000 --to 5000\n"
      "  vta run matmul.vtam --target systemc --json");
  commands.add(r, [] {
    switch (file_kind(run.file)) {
      case FileKind::kCapture: return run_capture(run, false);
      case FileKind::kModule: return run_module(run);
      case FileKind::kRaw: break;
    }
    throw std::invalid_argument(run.file + " is neither a capture (VTACAP1) nor a module (vta-module JSON)");
  });

  CLI::App* p = app.add_subcommand(
      "replay", "re-run a captured program and compare its outcome, statistics and memory with the capture");
  add_run_options(p, replay_opts);
  p->add_flag("--ignore-cycles", replay_opts.ignore_cycles, "do not compare cycle counts");
  p->footer(
      "Exit status 0 when the replay matches, 1 when it differs (each difference printed).\n"
      "Example:\n  vta replay caps/conv-1234-000001.vtacap --target tsim");
  commands.add(p, [] {
    if (file_kind(replay_opts.file) != FileKind::kCapture) {
      throw std::invalid_argument(replay_opts.file + " is not a capture file (VTACAP1)");
    }
    return run_capture(replay_opts, true);
  });

  static CaptureOptions cap;
  CLI::App* c = app.add_subcommand("capture", "run a program with VTA_CAPTURE set: every device run becomes a file");
  c->add_option("-o,--dir", cap.dir, "where the .vtacap files go (created when missing)");
  c->add_option("command", cap.command, "the program and its arguments (after --)")->required();
  c->footer("Example:\n  vta capture -o caps -- ./build/tools/vta-tutorials conv --target tsim");
  commands.add(c, [] { return capture_command(cap); });
}

}  // namespace vta::cli
