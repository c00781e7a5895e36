// vta-onnx: a model of the user's own, end to end (docs/MODELS.md). Imports an ONNX file, quantizes it
// with power-of-two scales calibrated on sample inputs, places each operator on VTA or the host (and
// says why), compiles the VTA steps, and runs inputs on the chosen backend: every step of every run
// checked bit for bit against the int8 reference, top-1 accuracy beside the float model's when labels
// are given, cycles per inference and GEMM utilisation on clocked backends. Exit status: 0 every run
// verified, 1 a mismatch or a run error, 2 a usage, model or schedule error, 3 an internal compiler error.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "vta/compiler/ir.h"
#include "vta/driver/build_config.h"
#include "vta/driver/energy.h"
#include "vta/driver/format.h"
#include "vta/driver/guarded_main.h"
#include "vta/network/executor.h"
#include "vta/network/npy.h"
#include "vta/network/onnx.h"
#include "vta/network/plan.h"
#include "vta/network/target.h"
#include "vta/tools/compiler_errors.h"
#include "vta/tools/jobs_option.h"
#include "vta/tools/target_option.h"
#include "vta/tools/tiling_options.h"

namespace {

namespace net = vta::network;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Row `i` of an (N, ...) array whose rows have the model input's size.
std::vector<float> row(const net::NpyFloatArray& a, int64_t i, int64_t size) {
  return {a.values.begin() + i * size, a.values.begin() + (i + 1) * size};
}

int64_t argmax(std::span<const float> v) { return std::max_element(v.begin(), v.end()) - v.begin(); }

// The inputs a source gives, passed on; the first kept (the default input) and counted.
// (and says on stderr how far the calibration is, every 5 s: a large model's float reference takes
// about 0.3 s per input)
struct KeepFirst final : net::CalibrationSource {
  KeepFirst(net::CalibrationSource& source, int64_t most) : inner(source), limit(most) {}
  std::optional<std::vector<float>> next() override {
    if (count > 0 && since(last) >= 5) {
      std::fprintf(stderr, "calibrating: %lld of at most %lld inputs in %.0f s\n", static_cast<long long>(count),
                   static_cast<long long>(limit), since(start));
      last = Clock::now();
    }
    auto x = inner.next();
    if (x && count++ == 0) first = *x;
    return x;
  }
  net::CalibrationSource& inner;
  int64_t limit;
  std::vector<float> first;
  int64_t count = 0;
  Clock::time_point start = Clock::now(), last = start;
};

int run(int argc, char** argv) {
  CLI::App app{"An ONNX model on VTA: imported, quantized (power-of-two scales), placed, compiled, run and verified"};
  std::string model, calibration_file, inputs_file, labels_file, target;
  int64_t calibrate = net::kDefaultCalibrationInputs, images = -1;
  bool report = false, host_only = false, float_reference = true, round_down = false;
  double max_drop = -1;
  app.add_option("model", model, "the .onnx file")->required()->check(CLI::ExistingFile);
  app.add_option("--calibration", calibration_file,
                 "calibration inputs (.npy, N x the model's input), or random:N for N inputs uniform in [-1, 1]")
      ->required();
  app.add_option("--calibrate", calibrate, "how many calibration inputs to use")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--inputs", inputs_file,
                 "inputs to run (.npy, N x the model's input; default: the first calibration input)")
      ->check(CLI::ExistingFile);
  app.add_option("--labels", labels_file, "the inputs' classes (.npy, N integers): top-1 accuracy")
      ->check(CLI::ExistingFile);
  app.add_option("--images", images, "run only the first N inputs")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  app.add_option("--target", target, vta::tools::kTargetHelp)->check(vta::tools::target_validator());
  app.add_option(
         "--max-accuracy-drop", max_drop,
         "fail (exit 1) when the quantized model's top-1 accuracy is more than this many points below the float "
         "model's")
      ->check(CLI::Validator(
          [](const std::string& v) {
            const double d = std::strtod(v.c_str(), nullptr);
            return d >= 0.0 && d <= 100.0 ? std::string() : "must be a number from 0 to 100, not " + v;  // (NaN too)
          },
          "0-100"));
  unsigned jobs = 1;
  vta::tools::add_jobs_option(app, jobs);
  app.add_flag("--report", report, "print each activation's scale, shift, saturated and zeroed fractions");
  app.add_flag("--round-down", round_down,
               "requantize by the shift alone (rounding down, as the hand-built ResNet-18) instead of to nearest");
  app.add_flag("--host-only", host_only, "place every operator on the host (the int8 reference alone)");
  int weight_bits = 0, activation_bits = 0;  // (0: the configuration's widths)
  app.add_option("--weight-bits", weight_bits,
                 "bits of the weights of the convolutions VTA can run (4: in [-7, 7]; the host's layers keep 8); "
                 "default: the configuration's weight width")
      ->check(CLI::IsMember({4, 8}));
  app.add_option("--activation-bits", activation_bits,
                 "bits of every requantized activation (4: in [-8, 7]; the input keeps 8); default: the "
                 "configuration's input width")
      ->check(CLI::IsMember({4, 8}));
  bool per_channel = false, bias_correction = true;
  app.add_flag("--per-channel-weights", per_channel,
               "below 8 bits: a weight scale per output channel of each VTA convolution (MUL by a loaded vector)");
  app.add_flag("!--no-bias-correction", bias_correction,
               "below 8 bits: leave the biases as they are (by default each is corrected by the mean error its "
               "rounded weights make on the calibration inputs)");
  bool nearest_weights = false;
  app.add_flag("--nearest-weights", nearest_weights,
               "below 8 bits: round each weight to its nearest step (by default the weights are rounded by their "
               "effect on the convolution's output on the calibration inputs)");
  int eight_bit_layers = 0;
  app.add_option("--eight-bit-layers", eight_bit_layers,
                 "below 8 bits: keep the weights of this many VTA convolutions at 8 bits, those whose rounding "
                 "changes their output most (on 4-bit weight lanes they run on the host)")
      ->check(CLI::NonNegativeNumber);
  std::vector<std::string> eight_bit_nodes;
  app.add_option("--eight-bit-node", eight_bit_nodes,
                 "below 8 bits: a Conv node (its ONNX name) whose weights stay 8 bits (repeatable)");
  app.add_flag("!--no-float", float_reference, "skip the float model (its accuracy beside the int8 one)");
  std::string save_outputs;
  app.add_option("--save-outputs", save_outputs,
                 "write the first input's outputs, every one of the model's, as the float model's values: "
                 "DIR/output0.npy, output1.npy, ... in the model's order (float32)");
  vta::tools::FastForwardOptions ff;
  vta::tools::add_fast_forward_options(app, ff, "the names listed after compiling");
  vta::tools::TilingOptions tiling;
  vta::tools::add_tiling_options(app, tiling);
  VTA_CLI_PARSE(app, argc, argv);
  if (!target.empty()) setenv("VTA_TARGET", target.c_str(), 1);
  if (const std::string refusal = ff.steps.empty() ? "" : vta::network::fast_forward_refusal(ff.target);
      !refusal.empty()) {
    std::fprintf(stderr, "vta-onnx: error: --tsim-steps: %s\n", refusal.c_str());
    return 2;
  }
  // (a tilings file for another configuration is refused before anything is imported)
  const net::PlanOptions plan = vta::tools::plan_options(tiling, vta::build_config());

  auto t = Clock::now();
  const net::FloatGraph fg = net::import_onnx(model);
  std::printf("imported %s: %zu operators, input %s, in %.2f s\n", model.c_str(), fg.ops.size(), fg.input.c_str(),
              since(t));
  const int64_t input_size = fg.elements(fg.input);

  // random:N or an .npy file (vta/network/calibration.h); the first input is --inputs' default
  const auto source = net::calibration_from_spec(calibration_file, fg, 1, calibrate, "--calibration");
  KeepFirst cal(*source, calibrate);
  t = Clock::now();
  net::QuantizeOptions qo;
  qo.use_vta = !host_only;
  qo.round_to_nearest = !round_down;
  qo.weight_bits = weight_bits, qo.activation_bits = activation_bits;
  qo.per_channel_weights = per_channel, qo.bias_correction = bias_correction;
  qo.weight_rounding_by_output = !nearest_weights;
  qo.eight_bit_layers = eight_bit_layers, qo.eight_bit_nodes = eight_bit_nodes;
  const vta::Config& config = vta::build_config();
  const net::QuantizedModel qm = net::quantize(fg, cal, config, qo);
  const int64_t cal_rows = cal.count;
  std::printf("quantized with %lld calibration inputs in %.2f s: input 2^-%d, output scale %.3g\n",
              static_cast<long long>(cal_rows), since(t), qm.input.frac_bits, qm.output.scale());
  if (report) {
    std::printf("%-28s %-24s %5s %5s %6s %10s %8s  %s\n", "tensor", "node", "frac", "wfrac", "shift", "saturated",
                "zero", "scale from");
    for (const auto& l : qm.layers) {
      std::printf("%-28s %-24s %5d %5d %6d %9.3f%% %7.1f%%  %s\n", l.tensor.c_str(), l.op.c_str(), l.params.frac_bits,
                  l.weight_frac_bits, l.shift, 100 * l.clipped, 100 * l.zero, l.scale_from.c_str());
    }
  }
  std::printf("placement:\n");
  for (const auto& p : qm.placements) {
    std::printf("  %-30s %-16s %-4s %s\n", p.op.c_str(), net::to_string(qm.graph.producer(p.op).kind),
                net::to_string(p.placement), p.reason.c_str());
  }
  const net::MacCount macs = net::count_macs(qm.graph);
  std::printf("multiply-accumulates: %.1f M on VTA (%.1f %%), %.1f M on the host\n", double(macs.vta) / 1e6,
              100 * macs.vta_share(), double(macs.host) / 1e6);

  t = Clock::now();
  std::set<std::string> detailed;
  if (!ff.steps.empty()) {
    try {
      detailed = net::vta_step_names(qm.graph, ff.steps);
    } catch (const net::GraphError& e) {
      std::fprintf(stderr, "vta-onnx: error: --tsim-steps: %s\n", e.what());
      return 2;
    }
  }
  net::Executor ex(qm.graph, config, detailed.empty() ? nullptr : net::fast_forward_target(ff.target, detailed), plan);
  vta::tools::save_tilings_if_asked(tiling, ex, config);
  std::printf("compiled %zu steps in %.2f s (backend %s):\n", ex.steps().size(), since(t),
              vta::default_target().c_str());
  for (const auto& s : ex.steps()) {
    std::printf("  %-30s %-4s %s\n", s.name.c_str(),
                detailed.count(s.name) != 0 ? ff.target.c_str() : net::to_string(s.placement), s.description.c_str());
  }
  std::printf("%s\n", vta::tools::estimate_line(ex, tiling).c_str());
  if (!detailed.empty()) {
    std::printf("fast-forward: %zu VTA step(s) on %s, cycle by cycle; the others on %s; one device memory\n",
                detailed.size(), ff.target.c_str(), vta::default_target().c_str());
  }

  const net::NpyFloatArray in =
      inputs_file.empty() ? net::NpyFloatArray{{1}, cal.first} : net::read_npy_floats(inputs_file);
  int64_t n = inputs_file.empty() ? 1 : net::input_rows(in, input_size, "--inputs");
  if (images > 0) n = std::min(n, images);
  net::NpyFloatArray labels;
  if (!labels_file.empty()) {
    labels = net::read_npy_floats(labels_file);
    if (int64_t(labels.values.size()) < n) throw net::ImportError("--labels: fewer labels than inputs");
  }
  int64_t verified = 0, right_vta = 0, right_float = 0, agree_float = 0;
  net::NetworkRun first;  // the first input's run: its steps' counters
  uint64_t cycles = 0, gemm = 0;
  bool clocked = false;
  double run_seconds = 0;
  t = Clock::now();
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<float> x = row(in, i, input_size);
    const std::vector<int8_t> q = qm.quantize_input(x);
    const net::Values ref = net::run_reference(qm.graph, q);
    net::RunOptions run_options;
    run_options.jobs = jobs;
    net::NetworkRun r = ex.run(q, run_options, &ref);
    run_seconds += r.seconds;
    if (i == 0) first = r;
    verified += r.verified();
    if (r.vta.cycle_count) clocked = true, cycles += *r.vta.cycle_count;
    gemm += r.vta.gemm_counter;
    const std::vector<float> y = qm.dequantize_output(r.output);
    const int64_t top = argmax(y);
    if (!labels.values.empty()) right_vta += top == int64_t(labels.values[size_t(i)]);
    if (float_reference) {
      const net::FloatValues fv = net::run_float(fg, x);
      const int64_t ftop = argmax(fv.at(fg.output));
      agree_float += ftop == top;
      if (!labels.values.empty()) right_float += ftop == int64_t(labels.values[size_t(i)]);
    }
    // the model's further outputs as its float values, when they are shown or saved
    std::vector<std::vector<float>> extras;
    if (n == 1 || (i == 0 && !save_outputs.empty())) {
      for (size_t k = 0; k < qm.extra_outputs.size(); ++k) {
        extras.push_back(qm.dequantize_extra_output(k, r.extra_outputs.at(qm.graph.extra_outputs()[k])));
      }
    }
    if (i == 0 && !save_outputs.empty()) {
      std::filesystem::create_directories(save_outputs);
      auto save = [&](size_t k, const std::string& name, const std::vector<float>& values) {
        const std::filesystem::path file =
            std::filesystem::path(save_outputs) / ("output" + std::to_string(k) + ".npy");
        net::write_npy(file, qm.graph.tensor(name).shape, values);
        std::printf("output %zu (%s) saved in %s\n", k, name.c_str(), file.c_str());
      };
      save(0, qm.graph.output_name(), y);
      for (size_t k = 0; k < extras.size(); ++k) save(k + 1, qm.graph.extra_outputs()[k], extras[k]);
    }
    if (n == 1) {
      for (size_t k = 0; k < extras.size(); ++k) {  // (the model's further outputs, before the first's)
        std::printf("output %zu (%s):", k + 1, qm.graph.extra_outputs()[k].c_str());
        for (size_t j = 0; j < std::min<size_t>(extras[k].size(), 16); ++j) std::printf(" %.4g", double(extras[k][j]));
        std::printf("%s\n", extras[k].size() > 16 ? " ..." : "");
      }
      std::printf("output:");
      const int64_t row = qm.graph.tensor(qm.graph.output_name()).shape.back();
      const std::vector<float> shown = qm.softmax ? net::softmax(y, int64_t(y.size()) / row) : y;
      for (size_t k = 0; k < std::min<size_t>(shown.size(), 16); ++k) std::printf(" %.4g", double(shown[k]));
      std::printf("%s (top class %lld)\n", shown.size() > 16 ? " ..." : "", static_cast<long long>(top));
    }
  }
  const double total = since(t);
  const vta::EnergyTable& energy_table = vta::EnergyTable::from_environment();
  if (first.vta.cycle_count) {  // the steps of the first run on a clocked backend
    std::printf("%-32s %-48s %10s %10s %10s %6s %10s\n", "step (first input)", "operators", "gemm_uops", "cycles",
                "bound", "over", "energy uJ");
    for (const auto& s : first.steps) {
      if (s.step->placement != net::Placement::kVta) continue;
      const vta::CycleBounds b = vta::cycle_bounds(s.stats, config);
      std::string step_cycles = "-", over = "-";
      if (s.stats.cycle_count) {
        step_cycles = std::to_string(*s.stats.cycle_count);
        over = vta::format("%+.0f%%", b.over_percent(*s.stats.cycle_count));
      }
      std::printf("%-32s %-48s %10llu %10s %10.0f %6s %10.2f\n", s.step->name.c_str(), s.step->description.c_str(),
                  static_cast<unsigned long long>(s.stats.gemm_counter), step_cycles.c_str(), b.larger(), over.c_str(),
                  vta::estimate_energy(s.stats, config, energy_table).total() * 1e-6);
    }
  }
  const std::string at_once = jobs > 1 ? ", " + std::to_string(jobs) + " steps at once" : "";
  std::printf(
      "ran %lld inputs in %.2f s (%.2f ms per inference on %s%s, reference and float model included: %.2f ms)\n",
      static_cast<long long>(n), run_seconds, 1e3 * run_seconds / double(n), vta::default_target().c_str(),
      at_once.c_str(), 1e3 * total / double(n));
  if (clocked && !detailed.empty()) {
    std::printf("fast-forward: the %zu step(s) on %s took %.0f cycles per inference\n", detailed.size(),
                ff.target.c_str(), double(cycles) / double(n));
  } else if (clocked) {
    std::printf("VTA: %.0f cycles per inference, GEMM utilisation %.1f %%", double(cycles) / double(n),
                cycles ? 100.0 * double(gemm) / double(cycles) : 0.0);
    // (the first input's steps' bounds summed: every input runs the same programs)
    if (const double bound = first.bound(config); bound > 0) {
      std::printf(" (the steps' bounds: %.0f cycles, %.1f %% at most on this configuration)", bound,
                  100.0 * double(first.vta.gemm_counter) / bound);
    }
    std::printf("\n");
  }
  if (first.vta.gemm_counter + first.vta.alu_counter > 0 && detailed.empty()) {
    std::printf("VTA, first input: %s\n",
                vta::energy_line(vta::estimate_energy(first.vta, config, energy_table), first.vta.cycle_count,
                                 config.hw_freq_mhz(), energy_table.name)
                    .c_str());
  }
  if (!labels.values.empty()) {
    // "int8", or the narrower precision the quantization chose ("w4a8": 4-bit weights, 8-bit activations)
    const std::string precision = qm.weight_bits == 8 && qm.activation_bits == 8
                                      ? "int8"
                                      : "w" + std::to_string(qm.weight_bits) + "a" + std::to_string(qm.activation_bits);
    std::printf("top-1 accuracy: %s on VTA %.2f %% (%lld of %lld)", precision.c_str(),
                100.0 * double(right_vta) / double(n), static_cast<long long>(right_vta), static_cast<long long>(n));
    if (float_reference)
      std::printf(", float %.2f %% (%lld)", 100.0 * double(right_float) / double(n),
                  static_cast<long long>(right_float));
    std::printf("\n");
  }
  if (float_reference) {
    std::printf("top class equal to the float model's: %.2f %%\n", 100.0 * double(agree_float) / double(n));
  }
  if (max_drop >= 0 && (labels.values.empty() || !float_reference)) {
    std::fprintf(stderr, "vta-onnx: error: --max-accuracy-drop needs --labels and the float model\n");
    return 2;
  }
  const double drop = 100.0 * double(right_float - right_vta) / double(n);
  if (max_drop >= 0 && drop > max_drop) {
    std::printf("FAILED: the quantized model's accuracy is %.2f points below float (at most %.2f allowed)\n", drop,
                max_drop);
    return 1;
  }
  if (verified != n) {
    std::printf("FAILED: %lld of %lld runs differ from the int8 reference\n", static_cast<long long>(n - verified),
                static_cast<long long>(n));
    return 1;
  }
  std::printf("verified: every step of all %lld runs equals the int8 reference bit for bit (%zu steps each)\n",
              static_cast<long long>(n), ex.steps().size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return vta::guarded_main("vta-onnx", [&] {
    try {
      return vta::tools::compiler_errors_as_status("vta-onnx", [&] { return run(argc, argv); });
    } catch (const vta::network::GraphError& e) {
      std::fprintf(stderr, "vta-onnx: error: %s\n", e.what());
      return 2;
    } catch (const vta::network::NpyError& e) {
      std::fprintf(stderr, "vta-onnx: error: %s\n", e.what());
      return 2;
    }
  });
}
