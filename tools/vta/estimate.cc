// vta estimate: what a built module should cost (compiler::estimate_cycles), beside the bounds its
// statistics allow, and, with --measure, beside what a backend measures.

#include "vta/compiler/estimate.h"

#include <cinttypes>
#include <cstdio>

#include "commands.h"
#include "vta/driver/build_config.h"
#include "vta/tools/target_option.h"

namespace vta::cli {
namespace {

struct EstimateCommand {
  std::string file;
  std::string measure;
  bool json = false;
  int compute_issue = 0;  // the configuration's
  bool any_disjoint = false;
  size_t window = 1;
};

void estimate_module(const EstimateCommand& o) {
  const compiler::Module module = compiler::Module::load(o.file);
  const Config& config = build_config();  // Module::load refuses a module built for another one
  // the statistics (for the bounds) from the fsim, or from the backend that measures
  const std::string target = o.measure.empty() ? "fsim" : o.measure;
  vta::EstimateOptions eo;
  eo.compute_issue = o.compute_issue;
  eo.banks = o.any_disjoint ? AccBanks::kAnyDisjoint : AccBanks::kHalves;
  eo.window = o.window;
  // (the micro-op loads only for the two-slot stage's footprints; issue() resolves the configuration's)
  const compiler::RecordedCall call =
      compiler::record_call(module, config, compiler::backend_device(target), eo.issue(config) == 2);
  uint64_t estimate = 0;
  std::vector<uint64_t> runs;
  for (const Timeline& t : compiler::estimate_timelines(call, config, eo)) {
    runs.push_back(t.cycles);
    estimate += t.cycles;
  }
  const CycleBounds bounds = cycle_bounds(call.stats, config);
  const double error =
      call.stats.cycle_count && *call.stats.cycle_count > 0
          ? 100.0 * (double(estimate) - double(*call.stats.cycle_count)) / double(*call.stats.cycle_count)
          : 0.0;
  if (o.json) {
    std::printf("{\"estimated_cycles\": %" PRIu64 ", \"runs\": [", estimate);
    for (size_t i = 0; i < runs.size(); ++i) std::printf("%s%" PRIu64, i == 0 ? "" : ", ", runs[i]);
    std::printf("], \"compute_bound\": %.0f, \"memory_bound\": %.0f, \"stats\": %s", bounds.compute, bounds.memory,
                call.stats.to_json().c_str());
    if (call.stats.cycle_count) {
      std::printf(", \"measured_on\": \"%s\", \"measured_cycles\": %" PRIu64 ", \"error_percent\": %.2f",
                  target.c_str(), *call.stats.cycle_count, error);
    }
    std::printf("}\n");
    return;
  }
  std::printf("%s: %zu device run%s, estimated %" PRIu64 " cycles (compute bound %.0f, memory bound %.0f",
              o.file.c_str(), runs.size(), runs.size() == 1 ? "" : "s", estimate, bounds.compute, bounds.memory);
  if (bounds.larger() > 0) std::printf(": %+.1f %% over the larger", bounds.over_percent(estimate));
  std::printf(")\n");
  for (size_t i = 0; i < runs.size() && runs.size() > 1; ++i) {
    std::printf("  run %zu: %zu instructions, estimated %" PRIu64 " cycles\n", i, call.streams[i].size(), runs[i]);
  }
  if (call.stats.cycle_count) {
    std::printf("measured on %s: %" PRIu64 " cycles; the estimate is %+.1f %% off\n", target.c_str(),
                *call.stats.cycle_count, error);
  }
}

}  // namespace

void add_estimate_command(CLI::App& app, Commands& commands) {
  static EstimateCommand o;
  CLI::App* e = app.add_subcommand(
      "estimate", "estimate the cycles of a built module from its instruction streams, beside its bounds");
  e->add_option("file", o.file, "a module (vta-module JSON, Module::save)")->required()->check(CLI::ExistingFile);
  e->add_option("--measure", o.measure, "also run it on this backend (tsim, systemc) and print the estimate's error")
      ->check(vta::tools::target_validator())
      ->check(CLI::Validator(
          [](const std::string& t) {
            return t == "fsim" || t == "sim" ? "the fsim counts no cycles: measure on tsim, systemc or a device server"
                                             : std::string();
          },
          "CLOCKED TARGET"));
  e->add_flag("--json", o.json, "as one JSON object");
  e->add_option("--compute-issue", o.compute_issue,
                "1 estimates the compute stage that runs one instruction at a time, 2 the one that runs an ALU "
                "instruction or a load beside a GEMM (vta/driver/compute_issue.h); by default this build's "
                "(COMPUTE_ISSUE), the stage --measure measures")
      ->check(CLI::IsMember({0, 1, 2}));
  e->add_flag("--any-disjoint", o.any_disjoint,
              "with --compute-issue 2: any two disjoint accumulator footprints overlap (a bound, docs/TIMELINE.md)");
  e->add_option("--window", o.window,
                "with --compute-issue 2: the dispatch window (1: in program order; W: an instruction may start before "
                "up to W - 1 older ones of the other slot, vta/driver/compute_issue.h)")
      ->check(CLI::Range(1, 64));
  e->footer(
      "The estimate is compiler::estimate_cycles (the fsim's order, the token rules, bus and latency costs); the\n"
      "bounds come from the statistics of a run on the fsim (zero-filled inputs).\n"
      "Example:\n  vta estimate conv.vtam --measure tsim");
  commands.add(e, [] {
    if (file_kind(o.file) != FileKind::kModule)
      throw std::invalid_argument(o.file + " is not a module (vta-module JSON)");
    estimate_module(o);
    return 0;
  });
}

}  // namespace vta::cli
