// vta-compiled-tutorials: the seeds' tutorials compiled from their schedules (matrix_multiply_opt.cc,
// convolution_opt.cc), run on the runtime's backend, every output verified, the statistics printed
// next to the seeds'. With --print, the lowered program after each tutorial step.
// Exit status 0 only when every output is right and every statistic equals the seed's.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "compiled.h"
#include "vta/compiler/ir.h"
#include "vta/device.h"
#ifdef VTA_HAVE_TSIM
#include "vta/tsim.h"
#endif

int main(int argc, char** argv) {
  CLI::App app{"The VTA tutorials compiled from their schedules, run on the VTA runtime"};
  std::string which = "all";
  uint32_t seed = 0;
  std::string target;
  bool print = false;
  app.add_option("workload", which, "matmul, conv or all")->check(CLI::IsMember({"matmul", "conv", "all"}));
  app.add_option("--seed", seed, "seed of the random int8 inputs");
  app.add_option("--target", target, "backend: fsim or tsim (default: VTA_TARGET, else fsim)")
      ->check(CLI::IsMember(vta::backend_names()));
  app.add_flag("--print", print, "print the lowered program after each schedule step");
  CLI11_PARSE(app, argc, argv);
  if (!target.empty()) setenv("VTA_TARGET", target.c_str(), 1);
  std::ostream* steps = print ? &std::cout : nullptr;
  bool ok = true;
  try {
    if (which == "matmul" || which == "all") {
      ok &= vta::tutorials::report("Matrix multiply blocking, compiled (1x1024 x 1024x1024)",
                                   vta::tutorials::compiled_matrix_multiply(seed, steps),
                                   vta::tutorials::matrix_multiply_seed_stats(), "Successful blocked matrix multiply test!");
    }
    if (which == "conv" || which == "all") {
      ok &= vta::tutorials::report("2D convolution, compiled (ResNet-18 layer, 2 virtual threads)",
                                   vta::tutorials::compiled_convolution(seed, steps),
                                   vta::tutorials::convolution_seed_stats(), "Successful 2D convolution test!");
    }
  } catch (const vta::compiler::ScheduleError& e) {
    std::fprintf(stderr, "schedule error: %s\n", e.what());
    return 2;
  } catch (const vta::compiler::InternalError& e) {
    std::fprintf(stderr, "internal compiler error: %s\n", e.what());
    return 3;
  }
#ifdef VTA_HAVE_TSIM
  if (const auto speed = vta::tsim::speed_totals(); speed.cycles > 0) {
    std::printf("tsim: %llu cycles simulated in %.2f s (%.0f cycles/s)\n",
                static_cast<unsigned long long>(speed.cycles), speed.seconds, speed.cycles_per_second());
  }
#endif
  return ok ? 0 : 1;
}
