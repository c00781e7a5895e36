// vta-resnet18: the quantized ResNet-18 end to end (docs/NETWORK.md). conv1, the max-pool, the average
// pool and the classifier on the host; layers 1 to 4 (19 convolutions with their requantization, ReLU
// and residual additions) compiled into VTA programs and run on the chosen backend (or, with --remote,
// uploaded once to a device server), activations kept in device memory between them. One line per step, the totals, and
// every step's output checked bit for bit against the plain C++ reference of the whole network. Exit status: 0
// verified, 1 a mismatch or a run error, 2 a usage or schedule error, 3 an internal compiler error.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <utility>

#include "vta/compiler/ir.h"
#include "vta/driver/build_config.h"
#include "vta/driver/energy.h"
#include "vta/driver/format.h"
#include "vta/driver/guarded_main.h"
#include "vta/network/executor.h"
#include "vta/network/plan.h"
#include "vta/network/remote.h"
#include "vta/network/resnet18.h"
#include "vta/network/target.h"
#include "vta/rpc/remote_device.h"
#include "vta/tools/compiler_errors.h"
#include "vta/tools/jobs_option.h"
#include "vta/tools/target_option.h"
#include "vta/tools/tiling_options.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int run(int argc, char** argv) {
  CLI::App app{"Quantized ResNet-18 on VTA: host conv1/pools/classifier, layers 1-4 on the accelerator, verified"};
  std::string target, weights, save_weights, layers;
  uint32_t seed = 1;
  int64_t image = 224;
  int64_t batch = 0;
  bool verify = true, shifts = false, vta_pool = false;
  app.add_option("--target", target, vta::tools::kTargetHelp)->check(vta::tools::target_validator());
  app.add_option("--weights", weights, "a folder of .npy weights with manifest.json (default: generated, calibrated)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--save-weights", save_weights, "write the weights used (and their shifts) to this folder");
  app.add_option("--layers", layers,
                 "run a slice: FIRST:LAST step names (e.g. layer2.0.conv1.q:layer2.1), inputs from the reference");
  app.add_option("--seed", seed, "seed of the generated weights and input image");
  namespace net = vta::network;
  app.add_option("--image", image, "input height and width (a multiple of 32; ResNet-18: 224)")
      ->check(CLI::Range(net::kMinResNetImage, net::kMaxResNetImage))
      ->check(CLI::Validator(
          [](const std::string& v) { return std::stoll(v) % 32 == 0 ? std::string() : "not a multiple of 32: " + v; },
          "MULTIPLE OF 32"));
  app.add_option("--batch", batch, "images per inference (default: the configuration's BATCH)")
      ->check(CLI::Range(int64_t{1}, net::kMaxResNetBatch));
  app.add_flag("!--no-verify", verify, "skip the reference and the per-step comparison");
  unsigned jobs = 1;
  vta::tools::add_jobs_option(app, jobs);
  app.add_flag("--vta-max-pool", vta_pool, "run the max pool after conv1 on VTA's ALU (default: on the host)");
  app.add_flag("--shifts", shifts, "print each shift with the fraction of values it saturates and zeroes");
  vta::tools::TilingOptions tiling;
  vta::tools::add_tiling_options(app, tiling);
  vta::tools::FastForwardOptions ff;
  vta::tools::add_fast_forward_options(app, ff, "layer3.0.conv1.q:layer3.1");
  std::string remote_address;
  vta::tools::add_remote_option(
      app, remote_address,
      "through the module-level client (programs uploaded once, activations kept in the server's memory)");
  VTA_CLI_PARSE(app, argc, argv);
  const vta::network::PlanOptions plan = vta::tools::plan_options(tiling, vta::build_config());
  if (!remote_address.empty() && remote_address != "local" && !target.empty()) {
    std::fprintf(stderr,
                 "vta-resnet18: error: with --remote HOST:PORT the server's backend runs the programs "
                 "(vta-device-server --target); --target applies to --remote local only\n");
    return 2;
  }
  if (!ff.steps.empty() && !remote_address.empty()) {
    std::fprintf(stderr, "vta-resnet18: error: --tsim-steps runs in this process's memory: drop --remote\n");
    return 2;
  }
  if (!target.empty()) setenv("VTA_TARGET", target.c_str(), 1);
  if (const std::string refusal = ff.steps.empty() ? "" : vta::network::fast_forward_refusal(ff.target);
      !refusal.empty()) {
    std::fprintf(stderr, "vta-resnet18: error: --tsim-steps: %s\n", refusal.c_str());
    return 2;
  }
  const auto [first, last] = vta::network::parse_step_range(layers);
  const auto [detailed_first, detailed_last] = vta::network::parse_step_range(ff.steps);

  vta::network::ResNet18Options o;
  o.image = image, o.seed = seed, o.max_pool_on_vta = vta_pool;
  o.batch = batch > 0 ? batch : vta::build_config().batch();
  vta::network::Graph g = vta::network::resnet18(o);
  for (const auto& [option, name] :
       {std::pair{"--layers", first}, std::pair{"--layers", last}, std::pair{"--tsim-steps", detailed_first},
        std::pair{"--tsim-steps", detailed_last}}) {
    if (!name.empty() && (!g.has_tensor(name) || name == g.input_name())) {
      std::fprintf(stderr,
                   "vta-resnet18: error: %s: %s is not a tensor ResNet-18 computes (e.g. layer2.0.conv1.q, layer2.0)\n",
                   option, name.c_str());
      return 2;
    }
  }
  std::set<std::string> detailed;
  if (!ff.steps.empty()) {
    try {
      detailed = vta::network::vta_step_names(g, detailed_first, detailed_last);
    } catch (const vta::network::GraphError& e) {
      std::fprintf(stderr, "vta-resnet18: error: --tsim-steps: %s\n", e.what());
      return 2;
    }
  }
  const std::vector<int8_t> input = vta::network::generated_input(g, seed);
  auto t = Clock::now();
  std::vector<vta::network::ShiftReport> reports;
  if (weights.empty()) {
    reports = vta::network::calibrate_shifts(g, input);
    std::printf("weights: generated (seed %u), shifts calibrated in %.2f s\n", seed, since(t));
  } else {
    vta::network::load_weights(g, weights);
    std::printf("weights: %s\n", weights.c_str());
    if (shifts) reports = vta::network::shift_reports(g, input);
  }
  if (!save_weights.empty()) {
    vta::network::save_weights(g, save_weights);
    std::printf("weights saved to %s\n", save_weights.c_str());
  }
  if (shifts) {
    for (const auto& r : reports) {
      std::printf("  %-28s shift %2d  saturated %6.3f %%  zero %5.1f %%\n", r.op.c_str(), r.shift, 100 * r.clipped,
                  100 * r.zero);
    }
  }
  vta::network::RunOptions ro;
  ro.verify = verify;
  ro.first = first, ro.last = last;
  ro.jobs = jobs;
  vta::network::Values reference;
  if (vta::network::needs_reference(ro)) {  // (to verify, or the inputs of a slice or of steps at once)
    t = Clock::now();
    reference = vta::network::run_reference(g, input);
    std::printf("reference (plain C++): %.2f s\n", since(t));
  }
  std::shared_ptr<vta::rpc::Remote> remote;
  if (remote_address == "local") {
    remote = std::make_shared<vta::rpc::Remote>(vta::rpc::local_session());
  } else if (!remote_address.empty()) {
    const auto [host, port] = vta::rpc::parse_address(remote_address);
    remote = std::make_shared<vta::rpc::Remote>(vta::rpc::connect(host, port));
  }
  t = Clock::now();
  std::shared_ptr<vta::network::Target> exec_target;
  if (remote) exec_target = vta::network::remote_target(remote);
  if (!detailed.empty()) exec_target = vta::network::fast_forward_target(ff.target, detailed);
  vta::network::Executor ex(g, vta::build_config(), exec_target, plan);
  vta::tools::save_tilings_if_asked(tiling, ex, vta::build_config());
  const std::string where =
      remote ? remote->target() + " through the device server at " + remote->where() : vta::default_target();
  std::printf("compiled %zu steps in %.2f s (backend %s)\n", ex.steps().size(), since(t), where.c_str());
  std::printf("%s\n", vta::tools::estimate_line(ex, tiling).c_str());
  if (!detailed.empty()) {
    std::printf(
        "fast-forward: %zu VTA step(s) from %s to %s on %s, cycle by cycle; the others on %s; one device "
        "memory\n",
        detailed.size(), detailed_first.c_str(), detailed_last.c_str(), ff.target.c_str(), where.c_str());
  }
  const uint64_t trips_before = remote ? remote->round_trips() : 0;
  const vta::network::NetworkRun r = ex.run(input, ro, vta::network::needs_reference(ro) ? &reference : nullptr);

  const vta::Config& config = vta::build_config();
  const vta::EnergyTable& energy_table = vta::EnergyTable::from_environment();
  std::printf("%-20s %-42s %-5s %10s %11s %11s %11s %7s %9s %s\n", "step", "operators", "where", "gemm_uops", "bytes",
              "cycles", "bound", "over", "energy uJ", verify ? "check" : "");
  for (const auto& s : r.steps) {
    const bool vta_step = s.step->placement == vta::network::Placement::kVta;
    std::string cycles = "-", bound = "-", over = "-";
    if (vta_step) {
      const auto b = vta::cycle_bounds(s.stats, config);
      bound = std::to_string(std::llround(b.larger()));
      if (s.stats.cycle_count) {
        cycles = std::to_string(*s.stats.cycle_count);
        over = std::to_string(std::lround(b.over_percent(*s.stats.cycle_count))) + "%";
      }
    }
    const std::string check = s.mismatches < 0    ? ""
                              : s.mismatches == 0 ? "ok"
                                                  : std::to_string(s.mismatches) + " differ";
    const char* place = !vta_step ? "host" : detailed.count(s.step->name) != 0 ? ff.target.c_str() : "vta";
    const std::string energy =
        vta_step ? vta::format("%.2f", vta::estimate_energy(s.stats, config, energy_table).total() * 1e-6) : "-";
    std::printf("%-20s %-42s %-5s %10s %11s %11s %11s %7s %9s %s\n", s.step->name.c_str(), s.step->description.c_str(),
                place, vta_step ? std::to_string(s.stats.gemm_counter).c_str() : "-",
                vta_step ? std::to_string(s.stats.bytes_moved()).c_str() : "-", cycles.c_str(), bound.c_str(),
                over.c_str(), energy.c_str(), check.c_str());
  }
  double vta_seconds = 0, host_seconds = 0;
  for (const auto& s : r.steps)
    (s.step->placement == vta::network::Placement::kVta ? vta_seconds : host_seconds) += s.seconds;
  // (the bound of a run: its steps' bounds summed, as vta-onnx's)
  const double bound = r.bound(config);
  std::printf("VTA: %llu GEMM micro-ops, %llu ALU micro-ops, %llu bytes moved",
              static_cast<unsigned long long>(r.vta.gemm_counter), static_cast<unsigned long long>(r.vta.alu_counter),
              static_cast<unsigned long long>(r.vta.bytes_moved()));
  if (r.vta.cycle_count && detailed.empty()) {
    std::printf(", %llu cycles (bound %.0f, %+.1f %%; GEMM utilisation %.1f %%)",
                static_cast<unsigned long long>(*r.vta.cycle_count), bound,
                vta::percent_over(*r.vta.cycle_count, bound),
                100.0 * double(r.vta.gemm_counter) / double(*r.vta.cycle_count));
  }
  if (!detailed.empty()) {
    vta::Stats sampled;
    double seconds = 0;
    for (const auto& s : r.steps) {
      if (detailed.count(s.step->name) == 0) continue;
      sampled += s.stats;
      seconds += s.seconds;
    }
    const uint64_t cycles = sampled.cycle_count.value_or(0);
    const double sampled_bound = r.bound(config, &detailed);
    std::printf(
        "\nfast-forward: the %zu step(s) on %s took %llu cycles (bound %.0f, %+.1f %%; GEMM utilisation "
        "%.1f %%) in %.3f s",
        detailed.size(), ff.target.c_str(), static_cast<unsigned long long>(cycles), sampled_bound,
        vta::percent_over(cycles, sampled_bound),
        cycles > 0 ? 100.0 * double(sampled.gemm_counter) / double(cycles) : 0.0, seconds);
  }
  if (detailed.empty()) {
    std::printf("\nVTA %s", vta::energy_line(vta::estimate_energy(r.vta, config, energy_table), r.vta.cycle_count,
                                             config.hw_freq_mhz(), energy_table.name)
                                .c_str());
  }
  if (jobs > 1) {  // (the steps' times overlap)
    std::printf(
        "\nwall time: %.3f s, %u steps at once (VTA programs %.3f s, host operators %.3f s, summed over the "
        "threads)\n",
        r.seconds, jobs, vta_seconds, host_seconds);
  } else {
    std::printf("\nwall time: %.3f s (VTA programs %.3f s, host operators %.3f s, copies and the rest %.3f s)\n",
                r.seconds, vta_seconds, host_seconds, r.seconds - vta_seconds - host_seconds);
  }
  if (remote) {
    std::printf("remote: the inference took %llu round trips\n",
                static_cast<unsigned long long>(remote->round_trips() - trips_before));
  }
  if (!verify) return 0;
  if (!r.verified()) {
    std::printf("FAILED: outputs differ from the reference\n");
    return 1;
  }
  std::printf("verified: every step's output equals the reference bit for bit (%zu steps)", r.steps.size());
  if (layers.empty()) {
    const size_t classes = size_t(o.classes);
    std::printf("; the top class is");
    for (size_t n = 0; n * classes < r.output.size(); ++n) {
      const auto row = r.output.begin() + std::ptrdiff_t(n * classes);
      std::printf("%s %td", n > 0 ? "," : "", std::max_element(row, row + std::ptrdiff_t(classes)) - row);
    }
  }
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return vta::guarded_main("vta-resnet18", [&] {
    return vta::tools::compiler_errors_as_status("vta-resnet18", [&] { return run(argc, argv); });
  });
}
