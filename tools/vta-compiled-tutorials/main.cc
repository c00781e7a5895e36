// vta-compiled-tutorials: the seeds' tutorials compiled from their schedules (matrix_multiply_opt.cc,
// convolution_opt.cc), run on the runtime's backend, every output verified, the statistics printed
// next to the seeds'. With --print, the lowered program after each tutorial step. `resnet18` compiles
// and runs every ResNet-18 convolution layer (default 1x16 configuration) and prints a line per layer:
// micro-ops, bytes moved and, on the tsim, cycles against the compute and memory bounds.
// Exit status 0 only when every output is right (and, for the tutorials, every statistic equals the
// seed's); 2 for a schedule error, 3 for an internal compiler error, 77 when resnet18 is asked of a
// configuration other than 1x16.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "vta/compiler/build.h"
#include "vta/compiler/ir.h"
#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/guarded_main.h"
#include "vta/rpc/remote_device.h"
#include "vta/rpc/session.h"
#include "vta/tools/compiler_errors.h"
#include "vta/tools/target_option.h"
#include "vta/workloads/compiled.h"

namespace {

constexpr int kNotThisConfiguration = 77;  // ctest's SKIP_RETURN_CODE

// Every ResNet-18 convolution compiled, run and verified; one line each.
bool resnet18(uint32_t seed, int only, vta::tutorials::ModuleRunner& runner) {
  const auto& cfg = vta::build_config();
  std::printf("%-22s %9s %10s %10s %12s %11s %11s %8s %s\n", "layer", "outputs", "gemm_uops", "alu_uops", "bytes_moved",
              "cycles", "bound", "over", "");
  bool ok = true;
  uint64_t total_cycles = 0, total_gemm = 0;
  const auto layers = vta::tutorials::resnet18_convolutions();
  for (size_t i = 0; i < layers.size(); ++i) {
    if (only != 0 && size_t(only) != i + 1) continue;
    const auto& [name, shape] = layers[i];
    const vta::tutorials::Result r = vta::tutorials::compiled_convolution(seed, nullptr, shape, runner);
    const vta::Stats& s = r.stats;
    const auto bounds = vta::tutorials::cycle_bounds(s, cfg);
    std::string cycles = "-", over = "-";
    if (s.cycle_count) {
      cycles = std::to_string(*s.cycle_count);
      over = std::to_string(std::lround(bounds.over_percent(*s.cycle_count))) + "%";
      total_cycles += *s.cycle_count;
    }
    total_gemm += s.gemm_counter;
    std::printf(
        "%-22s %9zu %10llu %10llu %12llu %11s %11.0f %8s %s\n", name, r.outputs,
        static_cast<unsigned long long>(s.gemm_counter), static_cast<unsigned long long>(s.alu_counter),
        static_cast<unsigned long long>(s.bytes_moved()), cycles.c_str(), bounds.larger(), over.c_str(),
        r.ok() ? "verified" : ("FAILED: " + (r.ran ? std::to_string(r.mismatches) + " mismatches" : r.error)).c_str());
    ok &= r.ok();
  }
  if (total_cycles > 0) {
    std::printf("all layers: %llu cycles, %llu GEMM micro-ops (%.1f%% of the cycles)\n",
                static_cast<unsigned long long>(total_cycles), static_cast<unsigned long long>(total_gemm),
                100.0 * double(total_gemm) / double(total_cycles));
  }
  return ok;
}

// Saves every module it runs as DIR/<name>.vtam (then <name>-2.vtam, ...) (Module::save) before running it with
// `inner`.
class SavingRunner final : public vta::tutorials::ModuleRunner {
 public:
  SavingRunner(vta::tutorials::ModuleRunner& inner, std::string dir) : inner_(inner), dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
  }
  std::string name = "module";
  std::vector<int8_t> run(const vta::compiler::Module& module, const std::vector<std::vector<int8_t>>& inputs,
                          vta::Stats& stats) override {
    const int n = ++count_[name];  // resnet18 runs a module per layer
    const std::string path = dir_ + "/" + name + (n == 1 ? "" : "-" + std::to_string(n)) + ".vtam";
    module.save(path);
    std::fprintf(stderr, "saved %s\n", path.c_str());
    return inner_.run(module, inputs, stats);
  }

 private:
  vta::tutorials::ModuleRunner& inner_;
  std::string dir_;
  std::map<std::string, int> count_;
};

}  // namespace

static int run(int argc, char** argv) {
  CLI::App app{"The VTA tutorials compiled from their schedules, run on the VTA runtime"};
  std::string which = "all";
  uint32_t seed = 0;
  std::string target;
  bool print = false;
  int layer = 0;
  app.add_option("workload", which, "matmul, conv, all (the two tutorials) or resnet18 (every ResNet-18 convolution)")
      ->check(CLI::IsMember({"matmul", "conv", "all", "resnet18"}));
  app.add_option("--seed", seed, "seed of the random int8 inputs");
  app.add_option("--target", target, vta::tools::kTargetHelp)->check(vta::tools::target_validator());
  app.add_option("--layer", layer, "resnet18: run only this layer (1 to 10)")->check(CLI::Range(1, 10));
  app.add_flag("--print", print, "print the lowered program after each schedule step");
  std::string remote_address;
  vta::tools::add_remote_option(app, remote_address,
                                "as the tutorials' RPC setup does (upload, load_module, remote tensors)");
  int virtual_threads = 2;
  app.add_option("--virtual-threads", virtual_threads,
                 "conv: virtual threads of the schedule (the tutorial: 2; with another number the statistics are "
                 "not the seeds')")
      ->check(CLI::Range(1, 4));
  std::string save_dir;
  app.add_option("--save-modules", save_dir,
                 "save every built module in this directory (Module::save; run one again with `vta run FILE`)");
  VTA_CLI_PARSE(app, argc, argv);
  if (!remote_address.empty() && remote_address != "local" && !target.empty()) {
    std::fprintf(stderr,
                 "vta-compiled-tutorials: error: with --remote HOST:PORT the server's backend runs the modules "
                 "(vta-device-server --target); --target applies to --remote local only\n");
    return 2;
  }
  if (layer != 0 && which != "resnet18") {
    std::fprintf(stderr, "vta-compiled-tutorials: error: --layer selects a ResNet-18 layer; it does not apply to %s\n",
                 which.c_str());
    return 2;
  }
  if (!target.empty()) setenv("VTA_TARGET", target.c_str(), 1);
  std::ostream* steps = print ? &std::cout : nullptr;
  bool ok = true;
  std::optional<vta::rpc::Remote> remote;
  std::unique_ptr<vta::tutorials::ModuleRunner> remote_runner;
  uint64_t trips_before = 0;
  std::string where;                          // of the runs, when not this process's backend
  auto round_trips = [&](const char* what) {  // the round trips to the server since the last report
    if (!remote) return;
    std::printf("remote: %s took %llu round trips\n", what,
                static_cast<unsigned long long>(remote->round_trips() - trips_before));
    trips_before = remote->round_trips();
  };
  if (remote_address == "local") {
    remote.emplace(vta::rpc::local_session());
  } else if (!remote_address.empty()) {
    const auto [host, port] = vta::rpc::parse_address(remote_address);
    remote.emplace(vta::rpc::connect(host, port));
  }
  if (remote) {
    remote_runner = vta::tutorials::remote_runner(*remote);
    where = remote->target() + " through the device server at " + remote->where();
    round_trips("the handshake");
  }
  vta::tutorials::ModuleRunner& inner = remote ? *remote_runner : vta::tutorials::local_runner();
  std::optional<SavingRunner> saver;
  if (!save_dir.empty()) saver.emplace(inner, save_dir);
  vta::tutorials::ModuleRunner& runner = saver ? static_cast<vta::tutorials::ModuleRunner&>(*saver) : inner;
  auto name_next = [&](const char* name) {
    if (saver) saver->name = name;
  };
  if (which == "matmul" || which == "all") {
    name_next("matmul");
    ok &= vta::tutorials::report("Matrix multiply blocking, compiled (1x1024 x 1024x1024)",
                                 vta::tutorials::compiled_matrix_multiply(seed, steps, {}, runner),
                                 vta::tutorials::matrix_multiply_seed_stats(),
                                 "Successful blocked matrix multiply test!", where);
    round_trips("the matrix multiply");
  }
  if (which == "conv" || which == "all") {
    name_next("conv");
    vta::tutorials::ConvShape shape;
    shape.virtual_threads = virtual_threads;
    const vta::tutorials::Result r = vta::tutorials::compiled_convolution(seed, steps, shape, runner);
    const std::string title =
        "2D convolution, compiled (ResNet-18 layer, " + std::to_string(virtual_threads) + " virtual threads)";
    // the seeds' statistics are for the tutorial's 2 virtual threads; otherwise the outputs are checked
    ok &= vta::tutorials::report(title.c_str(), r,
                                 virtual_threads == 2 ? vta::tutorials::convolution_seed_stats() : r.stats,
                                 "Successful 2D convolution test!", where);
    round_trips("the convolution");
  }
  if (which == "resnet18") {
    const auto& cfg = vta::build_config();
    if (cfg.batch() != 1 || cfg.block_in() != 16 || cfg.block_out() != 16) {
      std::fprintf(stderr,
                   "resnet18: the layer tilings are for the 1x16 configuration (this build: %dx%d); "
                   "nothing run\n",
                   cfg.batch(), cfg.block_in());
      return kNotThisConfiguration;
    }
    name_next("resnet18");
    ok &= resnet18(seed, layer, runner);
    round_trips("resnet18");
  }
  vta::tutorials::print_clocked_speed();
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  return vta::guarded_main("vta-compiled-tutorials", [&] {
    return vta::tools::compiler_errors_as_status("vta-compiled-tutorials", [&] { return run(argc, argv); });
  });
}
