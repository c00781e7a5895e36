// One task's workload run in this process (docs/SWEEP.md "workloads"): the compiled tutorials,
// ResNet-18, tilings tuned, an ONNX model, a suite of modules and captures, the random differential
// programs, a synthesis; each verified, its statistics in the result.

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <span>

#include "internal.h"
#include "vta/compiler/seeded_run.h"
#include "vta/driver/build_config.h"
#include "vta/driver/capture.h"
#include "vta/driver/energy.h"
#include "vta/driver/random_program.h"
#include "vta/network/calibration.h"
#include "vta/network/executor.h"
#include "vta/network/float_reference.h"
#include "vta/network/npy.h"
#include "vta/network/onnx.h"
#include "vta/network/resnet18.h"
#include "vta/workloads/compiled.h"

namespace vta::sweep {
namespace {

json stats_json(const Stats& s) { return json::parse(s.to_json()); }

// A run's energy by component in picojoules and its average power (docs/ENERGY.md), on this build's
// configuration: the merged reports' energy column.
json energy_json(const Stats& s) {
  const Config& config = build_config();
  const EnergyTable& table = EnergyTable::from_environment();
  const Energy e = estimate_energy(s, config, table);
  json j = {{"table", table.name}, {"mac_pj", e.mac},   {"alu_pj", e.alu},       {"sram_pj", e.sram},
            {"dram_pj", e.dram},   {"idle_pj", e.idle}, {"total_pj", e.total()}, {"power_mw", nullptr}};
  if (s.cycle_count) j["power_mw"] = e.average_mw(*s.cycle_count, config.hw_freq_mhz());
  return j;
}

// This build's configuration synthesized by Yosys (the build's vta_synth target, docs/SYNTHESIS.md);
// the result's fields: its utilisation, verified when Yosys ran clean.
json synthesize() {
  const fs::path tree = self_path().parent_path().parent_path();  // <tree>/tools/vta-sweep
  const fs::path log = tree / "synth" / "vta_synth.log";
  fs::create_directories(log.parent_path());
  run_logged("cmake", {"--build", tree.string(), "--target", "vta_synth"}, log, std::chrono::hours(1), {},
             "synthesis (Yosys)");
  return {{"verified", true},
          {"error", ""},
          {"utilization", read_json(tree / "synth" / "utilization.json", "Yosys's figures")}};
}

// ResNet-18 as a resnet18 or tune workload builds it, calibrated.
network::Graph resnet18_of(const json& w, uint32_t seed, std::vector<int8_t>& input) {
  network::ResNet18Options o;
  o.image = w.value("image", int64_t{64}), o.width = w.value("width", int64_t{16}), o.seed = seed;
  o.batch = build_config().batch();
  network::Graph g = network::resnet18(o);
  input = network::generated_input(g, seed);
  network::calibrate_shifts(g, input);
  return g;
}

// Tunes ResNet-18's tilings for this configuration: every ranked candidate of each convolution built
// and estimated (compiler::estimate_cycles), the chosen tilings run on this backend and verified,
// each step's estimate against its measured cycles; the tilings written to <dir>/tilings/<index>.json
// (vta-resnet18 --tilings). The result's fields.
json tune(const json& w, const fs::path& dir, int index) {
  std::vector<int8_t> input;
  const network::Graph g = resnet18_of(w, w.value("seed", uint32_t{1}), input);
  network::PlanOptions wide;
  wide.candidates = w.value("candidates", size_t{64}), wide.tried = int(wide.candidates);
  const network::Executor plain(g, build_config());  // the default search, for its estimates
  network::Executor tuned(g, build_config(), nullptr, wide);
  const network::Values ref = network::run_reference(g, input);
  const network::NetworkRun run = tuned.run(input, {}, &ref);
  json steps = json::array();
  uint64_t default_estimate = 0, tuned_estimate = 0, measured = 0;
  for (size_t i = 0; i < run.steps.size(); ++i) {
    const network::Step& s = *run.steps[i].step;
    if (!s.module || !run.steps[i].stats.cycle_count) continue;
    const uint64_t cycles = *run.steps[i].stats.cycle_count;
    default_estimate += plain.steps()[i].estimated_cycles, tuned_estimate += s.estimated_cycles, measured += cycles;
    steps.push_back({{"step", s.name},
                     {"tiling", s.tiling.to_string()},
                     {"default_tiling", plain.steps()[i].tiling.to_string()},
                     {"default_estimate", plain.steps()[i].estimated_cycles},
                     {"estimate", s.estimated_cycles},
                     {"measured", cycles}});
  }
  fs::create_directories(dir / "tilings");
  const fs::path file = dir / "tilings" / (std::to_string(index) + ".json");
  network::save_tilings(file, tuned.tilings(), build_config());
  json tuning = {{"steps", steps},
                 {"tilings_file", fs::absolute(file).string()},
                 {"default_estimate", default_estimate},
                 {"estimate", tuned_estimate}};
  if (measured) {
    tuning["measured"] = measured;
    tuning["estimate_error_percent"] = 100.0 * (double(tuned_estimate) - double(measured)) / double(measured);
  }
  return {{"verified", run.verified()},
          {"error", ""},
          {"stats", stats_json(run.vta)},
          {"energy", energy_json(run.vta)},
          {"tuning", tuning}};
}

// Runs a regression suite on this process's backend: each captured run replayed against its capture
// (outcome, statistics, memory; cycles when both have them), each built module run with inputs from
// the seed here and on the fsim (outputs and counters equal). The result's fields: every kernel's
// verdict, the statistics of this backend summed.
json run_suite(const json& w) {
  const std::string target = default_target();
  const auto seed = w.value("seed", uint32_t{1});
  json kernels = json::array();
  Stats total;
  std::string failed;  // the kernels that differ, by file name
  for (const fs::path& file : suite_files(w.at("dir").get<std::string>())) {
    json k = {{"file", file.filename().string()}};
    std::vector<std::string> problems;
    try {
      if (file.extension() == ".vtacap") {
        ReplayOptions ro;
        ro.target = target;
        const ReplayResult r = replay(Capture::load(file.string()), ro);
        problems = r.differences;
        total += r.result.stats;
      } else {
        const compiler::Module m = compiler::Module::load(file.string());
        const compiler::SeededRun here = compiler::run_seeded(m, make_device(target, build_config()), seed);
        const compiler::SeededRun fsim = compiler::run_seeded(m, make_device("fsim", build_config()), seed);
        total += here.result.stats;
        if (here.result.status != RunStatus::kOk) problems.push_back(target + " failed: " + here.result.error);
        if (fsim.result.status != RunStatus::kOk) problems.push_back("fsim failed: " + fsim.result.error);
        if (problems.empty() && !here.result.stats.counters_equal(fsim.result.stats)) {
          problems.push_back("statistics differ from the fsim's");
        }
        if (problems.empty() && here.output != fsim.output) problems.push_back("output differs from the fsim's");
      }
    } catch (const std::exception& e) {
      problems.push_back(e.what());
    }
    k["verified"] = problems.empty();
    if (!problems.empty()) {
      k["problems"] = problems;
      failed += (failed.empty() ? "" : "; ") + file.filename().string();
    }
    kernels.push_back(k);
  }
  return {{"verified", failed.empty()},
          {"error", failed.empty() ? "" : "kernels that differ: " + failed},
          {"stats", stats_json(total)},
          {"energy", energy_json(total)},
          {"kernels", kernels}};
}

// Runs the workload on this process's device; the result's fields.
json run_workload(const json& w, const fs::path& dir, int index) {
  const std::string kind = w.at("kind").get<std::string>();
  if (kind == "synthesis") return synthesize();
  if (kind == "tune") return tune(w, dir, index);
  if (kind == "suite") return run_suite(w);
  if (kind == "random") {  // the random programs on this backend against the fsim (vta/driver/random_program.h)
    auto reference = make_device("fsim", build_config());
    auto dut = make_device(default_target(), build_config());
    const DifferentialResult r = differential(build_config(), *reference, *dut, default_target(),
                                              w.at("first").get<uint64_t>(), w.value("count", uint64_t{100}));
    json mismatches = json::array();
    for (const auto& m : r.mismatches) mismatches.push_back({{"seed", m.seed}, {"why", m.why}});
    std::string error;
    if (!r.mismatches.empty()) {
      error = "seed " + std::to_string(r.mismatches[0].seed) + ": " + r.mismatches[0].why;
    }
    return {{"verified", r.mismatches.empty()}, {"error", error},         {"stats", stats_json(r.stats)},
            {"energy", energy_json(r.stats)},   {"programs", r.programs}, {"instructions", r.instructions},
            {"mismatches", mismatches}};
  }
  const auto seed = w.value("seed", uint32_t{1});
  if (kind == "tutorial") {
    const tutorials::Result r =
        w.at("name") == "matmul" ? tutorials::compiled_matrix_multiply(seed) : tutorials::compiled_convolution(seed);
    return {{"verified", r.ok()}, {"error", r.error}, {"stats", stats_json(r.stats)}, {"energy", energy_json(r.stats)}};
  }
  network::NetworkRun run;
  json accuracy;          // (onnx with inputs and labels)
  bool every_run = true;  // (onnx: every input's run verified, not only the first's)
  if (kind == "resnet18") {
    std::vector<int8_t> input;
    const network::Graph g = resnet18_of(w, seed, input);
    network::Executor ex(g, build_config());
    const network::Values ref = network::run_reference(g, input);
    run = ex.run(input, {}, &ref);
  } else {  // onnx (docs/SWEEP.md): quantized on its calibration at the widths asked (by default the
            // configuration's), every step of every input verified; the statistics are the first input's
    const network::FloatGraph fg = network::import_onnx(w.at("model").get<std::string>());
    const auto calibration = network::calibration_from_spec(onnx_calibration(w, "onnx workload"), fg, seed,
                                                            w.value("calibrate", network::kDefaultCalibrationInputs),
                                                            "onnx workload: calibration");
    network::QuantizeOptions qo;
    qo.weight_bits = w.value("weight_bits", 0), qo.activation_bits = w.value("activation_bits", 0);
    qo.eight_bit_layers = w.value("eight_bit_layers", 0);
    const network::QuantizedModel q = network::quantize(fg, *calibration, build_config(), qo);
    network::Executor ex(q.graph, build_config());
    const int64_t size = fg.elements(fg.input);
    std::unique_ptr<network::CalibrationSource> inputs = network::random_calibration(fg, 1, seed + 1000);
    network::NpyFloatArray labels;
    if (w.contains("inputs")) {
      network::NpyFloatArray in = network::read_npy_floats(w.at("inputs").get<std::string>());
      labels = network::read_npy_floats(w.at("labels").get<std::string>());
      const int64_t n =
          std::min(network::input_rows(in, size, "onnx workload: inputs"), w.value("images", int64_t{100}));
      if (int64_t(labels.values.size()) < n) {
        throw SweepError("onnx workload: labels: " + std::to_string(labels.values.size()) + " labels for " +
                         std::to_string(n) + " inputs");
      }
      inputs = network::array_calibration(std::move(in), size, n, "onnx workload: inputs");
    }
    const auto top = [](std::span<const float> v) { return std::max_element(v.begin(), v.end()) - v.begin(); };
    int64_t n = 0, right = 0, right_float = 0;
    while (const auto x = inputs->next()) {
      const std::vector<int8_t> qx = q.quantize_input(*x);
      const network::Values ref = network::run_reference(q.graph, qx);
      network::NetworkRun r = ex.run(qx, {}, &ref);
      every_run = every_run && r.verified();
      if (!labels.values.empty()) {
        const auto label = int64_t(labels.values[size_t(n)]);
        right += top(q.dequantize_output(r.output)) == label;
        right_float += top(network::run_float(fg, *x).at(fg.output)) == label;
      }
      if (n++ == 0) run = std::move(r);
    }
    if (!labels.values.empty()) {
      accuracy = {{"images", n},
                  {"top1_percent", 100.0 * double(right) / double(n)},
                  {"float_top1_percent", 100.0 * double(right_float) / double(n)},
                  {"weight_bits", q.weight_bits},
                  {"activation_bits", q.activation_bits},
                  {"eight_bit_layers", qo.eight_bit_layers}};
    }
  }
  json out = {{"verified", every_run && run.verified()},
              {"error", every_run ? "" : "an input's run differs from the reference"},
              {"stats", stats_json(run.vta)},
              {"energy", energy_json(run.vta)}};
  if (!accuracy.is_null()) out["accuracy"] = accuracy;
  return out;
}

}  // namespace

// Runs `t` in this process (its configuration is this build's) and writes its result.
int run_here(const fs::path& dir, const Task& t) {
  if (t.config_hash != this_build_hash()) {
    throw SweepError("task " + std::to_string(t.index) + " is for configuration " + t.config_hash + ", this build is " +
                     this_build_hash());
  }
  if (t.backend != "yosys") {  // (before this process's runtime first opens a device; synthesis opens none)
    ::setenv("VTA_TARGET", t.backend.c_str(), 1);
  }
  if (t.coverage) {  // the tsim writes this process's counts there at exit (tsim/src/coverage.h)
    ::setenv("VTA_COVERAGE_DIR", (dir / "coverage" / "raw").c_str(), 1);
  }
  json result = task_json(t);
  result["run"] = t.run;
  result["command"] = "vta-sweep task " + fs::absolute(dir).string() + " " + std::to_string(t.index);
  const auto start = std::chrono::steady_clock::now();
  try {
    result.update(run_workload(json::parse(t.workload), dir, t.index));
  } catch (const std::exception& e) {
    result["verified"] = false;
    result["error"] = e.what();
  }
  result["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_json(dir / "results" / (std::to_string(t.index) + ".json"), result);
  return result.at("verified").get<bool>() ? 0 : 1;
}

int run_task_here(const fs::path& dir, int index) { return run_here(dir, task_at(read_tasks(dir), dir, index)); }

}  // namespace vta::sweep
