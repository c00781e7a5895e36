// vta-tutorials: runs the seeds' tutorial workloads on the VTA runtime (backend from VTA_TARGET),
// verifies every output and prints the statistics in the seeds' format next to the seeds' numbers.
// Exit status 0 only when every output is right and every statistic equals the seed's.

#include <CLI/CLI.hpp>
#include <cstdlib>

#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/guarded_main.h"
#include "vta/tools/target_option.h"
#include "vta/workloads/tutorials.h"

static int run(int argc, char** argv) {
  CLI::App app{"The VTA tutorials (matrix multiply blocking, 2D convolution) on the VTA runtime"};
  std::string which = "all";
  uint32_t seed = 0;
  std::string target;
  app.add_option("workload", which, "matmul, conv or all")->check(CLI::IsMember({"matmul", "conv", "all"}));
  app.add_option("--seed", seed, "seed of the random int8 inputs");
  app.add_option("--target", target, vta::tools::kTargetHelp)->check(vta::tools::target_validator());
  VTA_CLI_PARSE(app, argc, argv);
  if (!target.empty()) setenv("VTA_TARGET", target.c_str(), 1);
  bool ok = true;
  if (which == "matmul" || which == "all") {
    ok &= vta::tutorials::report("Matrix multiply blocking (1x1024 x 1024x1024)", vta::tutorials::matrix_multiply(seed),
                                 vta::tutorials::matrix_multiply_seed_stats(),
                                 "Successful blocked matrix multiply test!");
  }
  if (which == "conv" || which == "all") {
    ok &=
        vta::tutorials::report("2D convolution (ResNet-18 layer, 2 virtual threads)", vta::tutorials::convolution(seed),
                               vta::tutorials::convolution_seed_stats(), "Successful 2D convolution test!");
  }
  vta::tutorials::print_clocked_speed();
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  return vta::guarded_main("vta-tutorials", [&] { return run(argc, argv); });
}
