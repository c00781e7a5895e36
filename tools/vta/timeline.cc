// vta timeline: what each stage does over a captured run, recorded by the tsim or estimated from the
// program (fsim), as Chrome/Perfetto trace-event JSON or an SVG (docs/TIMELINE.md).

#include "vta/driver/timeline.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "commands.h"
#include "vta/driver/build_config.h"
#include "vta/driver/energy.h"
#ifdef VTA_HAVE_TSIM
#include "vta/tsim/simulator.h"
#endif

namespace vta::cli {
namespace {

struct TimelineOptions {
  std::vector<std::string> files;
  std::string output;
  std::string target = "tsim";
  int width = 1200;
  int compute_issue = 0;  // the configuration's
  bool any_disjoint = false;
  size_t window = 1;
};

// Each stage's energy from a run's statistics (the counters are the same on every backend).
std::array<double, Timeline::kLanes> stage_energy(const Stats& stats, const Config& config) {
  std::array<double, Timeline::kLanes> pj{};
  const auto stages = estimate_energy_by_stage(stats, config, EnergyTable::from_environment());
  for (size_t i = 0; i < pj.size(); ++i) pj[i] = stages[i].total();
  return pj;
}

Timeline timeline_of(const std::string& path, const TimelineOptions& o) {
  const Capture capture = Capture::load(path);
  Timeline t;
  if (o.target == "fsim") {
    const Isa isa(capture.config());
    const std::vector<RawInsn> insns = capture.instructions();
    // the micro-ops as the run found them in memory (the footprints of a two-instruction compute stage)
    const auto uop_loads = read_uop_loads(isa, insns, [&](uint64_t addr, size_t bytes) -> const uint8_t* {
      const CapturedRegion* r = capture.region_at(addr, bytes);
      return r == nullptr ? nullptr : r->before.data() + (addr - r->phys);
    });
    EstimateOptions eo;
    eo.compute_issue = o.compute_issue;
    eo.uop_loads = &uop_loads;
    eo.banks = o.any_disjoint ? AccBanks::kAnyDisjoint : AccBanks::kHalves;
    eo.window = o.window;
    t = estimate_timeline(isa, insns, capture.tokens_before, eo);
    t.energy_pj = stage_energy(capture.result.stats, capture.config());  // what the captured run counted
  } else {
    // (the tsim runs the stage its RTL was built with, in program order)
    if ((o.compute_issue != 0 && o.compute_issue != build_config().compute_issue()) || o.any_disjoint ||
        o.window != 1) {
      throw std::invalid_argument("--compute-issue " + std::to_string(o.compute_issue) +
                                  ", --any-disjoint and --window estimate a compute stage this build's tsim does not "
                                  "have (COMPUTE_ISSUE " +
                                  std::to_string(build_config().compute_issue()) +
                                  ", a window of 1): use --target fsim");
    }
#ifdef VTA_HAVE_TSIM
    std::optional<Timeline> recorded;
    ReplayOptions ro;
    ro.make_device = [&](const Config& config, Dram& dram) {
      (void)config;  // make_tsim_device checks it is the build's through the capture's replay
      tsim::Simulator::Options so = tsim::Simulator::Options::from_env();
      so.dram_memory = &dram;
      so.on_timeline = [&](const Timeline& run) { recorded = run; };  // the captured run is the last
      return tsim::make_tsim_device(so);
    };
    if (capture.config().bitstream_name() != build_config().bitstream_name()) {
      throw std::invalid_argument(path + " was captured on configuration " + capture.config().bitstream_name() +
                                  "; this build's tsim is " + build_config().bitstream_name() + " (use --target fsim)");
    }
    const ReplayResult r = replay(capture, ro);
    if (r.result.status != RunStatus::kOk) {
      std::fprintf(stderr, "vta timeline: the replay of %s failed (the timeline shows it up to there):\n%s",
                   path.c_str(), r.result.error.c_str());
    }
    if (!recorded) throw std::runtime_error(path + ": the tsim recorded no timeline");
    t = std::move(*recorded);
    t.energy_pj = stage_energy(r.result.stats, capture.config());
#else
    throw std::invalid_argument("this build has no tsim: use --target fsim for an estimated timeline");
#endif
  }
  t.title = std::filesystem::path(path).filename().string();
  return t;
}

}  // namespace

void add_timeline_command(CLI::App& app, Commands& commands) {
  static TimelineOptions o;
  CLI::App* t = app.add_subcommand(
      "timeline", "what load, compute and store do over a captured run, as Perfetto JSON or an SVG picture");
  t->add_option("files", o.files, "captures (.vtacap); several are stacked on one time axis (SVG)")
      ->required()
      ->check(CLI::ExistingFile);
  t->add_option("-o,--output", o.output, "out.json (Chrome/Perfetto trace events) or out.svg")
      ->required()
      ->check(CLI::Validator(
          [](const std::string& out) {
            return out.ends_with(".json") || out.ends_with(".svg") ? std::string() : "must end in .json or .svg";
          },
          "FILE.json|FILE.svg"));
  t->add_option("-t,--target", o.target, "tsim: recorded cycle by cycle; fsim: estimated from the program")
      ->check(CLI::IsMember({"tsim", "fsim"}));
  t->add_option("--width", o.width, "SVG width in pixels")->check(CLI::Range(300, 20000));
  t->add_option("--compute-issue", o.compute_issue,
                "with --target fsim: 1 estimates the compute stage that runs one instruction at a time, 2 the one that "
                "runs an ALU instruction or a load beside a GEMM (vta/driver/compute_issue.h); by default the "
                "capture's configuration's (COMPUTE_ISSUE)")
      ->check(CLI::IsMember({0, 1, 2}));
  t->add_flag("--any-disjoint", o.any_disjoint,
              "with --compute-issue 2: any two instructions with disjoint accumulator footprints overlap, not only "
              "footprints in different halves (a bound: as if every virtual thread's tiles had a half of their own)");
  t->add_option("--window", o.window,
                "with --compute-issue 2: the dispatch window (1: in program order; W: an instruction may start before "
                "up to W - 1 older ones of the other slot, vta/driver/compute_issue.h)")
      ->check(CLI::Range(1, 64));
  t->footer(
      "Examples:\n  vta timeline caps/conv.vtacap -o conv.json      # open in ui.perfetto.dev or chrome://tracing\n"
      "  vta timeline vt1.vtacap vt2.vtacap -o overlap.svg");
  commands.add(t, [] {
    const bool json = o.output.ends_with(".json");
    if (!json && !o.output.ends_with(".svg")) throw std::invalid_argument("--output must end in .json or .svg");
    if (json && o.files.size() != 1) throw std::invalid_argument("a .json trace holds one run: give one capture");
    std::vector<Timeline> timelines;
    for (const auto& f : o.files) timelines.push_back(timeline_of(f, o));
    std::ofstream out(o.output, std::ios::trunc);
    if (!out) throw std::runtime_error("cannot create " + o.output);
    out << (json ? timelines[0].to_trace_json() : timelines_to_svg(timelines, o.width));
    out.close();
    if (!out) throw std::runtime_error("cannot write " + o.output);
    for (const auto& tl : timelines) {
      std::printf("%s%s: %llu cycles;", tl.title.c_str(), tl.estimated ? " (estimated)" : "",
                  static_cast<unsigned long long>(tl.cycles));
      for (int lane = 0; lane < Timeline::kLanes; ++lane) {
        const double c = double(std::max<uint64_t>(tl.cycles, 1));
        std::printf(" %s busy %.0f%% memory %.0f%% token %.0f%%", to_string(kStageOrder[lane]),
                    100.0 * double(tl.total(lane, Activity::kBusy)) / c,
                    100.0 * double(tl.total(lane, Activity::kMemory)) / c,
                    100.0 * double(tl.total(lane, Activity::kToken)) / c);
        if (tl.energy_pj) std::printf(" energy %.3f uJ", (*tl.energy_pj)[size_t(lane)] * 1e-6);
        std::printf("%s", lane + 1 < Timeline::kLanes ? ";" : "\n");
      }
    }
    std::printf("wrote %s\n", o.output.c_str());
    return 0;
  });
}

}  // namespace vta::cli
