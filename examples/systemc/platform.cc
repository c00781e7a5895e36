// vta-sc-platform: a SystemC virtual platform with VTA in it (docs/SYSTEMC.md walks through this
// file). A clock and a reset, one or two vta::sc::Accelerators, a TLM memory (vta::sc::Memory, with
// configurable latencies), an address router, and one host thread per accelerator that runs both
// tutorials on it through its registers: the VTA runtime on a vta::sc::HostDevice, the programs and
// data written into the platform's memory by the runtime, the run started through the control
// registers, the end awaited on the interrupt. Every output is verified and the statistics compared
// with the seeds'. Exit status 0 only when every run on every accelerator is right.
//
//   memory map of the hosts' bus:  0x0000_0000 .. 0xEFFF_FFFF  memory (physical addresses)
//                                  0xF000_0000 + 0x1000 * i    accelerator i's registers (4 KiB)

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "router.h"
#include "vta/driver/build_config.h"
#include "vta/driver/guarded_main.h"
#include "vta/runtime/context.h"
#include "vta/sc/accelerator.h"
#include "vta/sc/host_device.h"
#include "vta/sc/memory.h"
#include "vta/workloads/tutorials.h"

namespace {

using vta::sc::clock_period;

constexpr uint64_t kRegisters = 0xf0000000;  // accelerator i at kRegisters + 0x1000 * i

// A host CPU, as far as VTA sees it: a thread that runs programs on one accelerator.
struct Host : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Host> socket;

  SC_HAS_PROCESS(Host);
  Host(const sc_core::sc_module_name& name, int index, vta::sc::Accelerator& acc, const sc_core::sc_signal<bool>& irq,
       sc_core::sc_signal<bool>& rst_n, uint32_t seed)
      : sc_module(name), socket("socket"), index_(index), acc_(acc), irq_(irq), rst_n_(rst_n), seed_(seed) {
    SC_THREAD(run);
  }
  bool done = false, ok = false;

 private:
  void run() {
    // The runtime on this accelerator: its device drives the registers from this thread
    // (HostDevice's constructor resets the accelerator).
    auto device = std::make_unique<vta::sc::HostDevice>(socket, irq_, rst_n_, acc_,
                                                        kRegisters + 0x1000u * unsigned(index_), vta::Dram::global());
    vta::runtime::Context runtime(std::move(device), vta::Dram::global());
    vta::runtime::Context::Scope use(runtime);
    const std::string where = "the virtual platform, accelerator " + std::to_string(index_);
    ok = vta::tutorials::report("Matrix multiply blocking (1x1024 x 1024x1024)", vta::tutorials::matrix_multiply(seed_),
                                vta::tutorials::matrix_multiply_seed_stats(),
                                "Successful blocked matrix multiply test!", where);
    ok &= vta::tutorials::report("2D convolution (ResNet-18 layer, 2 virtual threads)",
                                 vta::tutorials::convolution(seed_), vta::tutorials::convolution_seed_stats(),
                                 "Successful 2D convolution test!", where);
    done = true;
  }
  int index_;
  vta::sc::Accelerator& acc_;
  const sc_core::sc_signal<bool>& irq_;
  sc_core::sc_signal<bool>& rst_n_;
  uint32_t seed_;
};

// Stops the simulation when every host is done.
struct Supervisor : sc_core::sc_module {
  SC_HAS_PROCESS(Supervisor);
  Supervisor(const sc_core::sc_module_name& name, std::vector<std::unique_ptr<Host>>& hosts)
      : sc_module(name), hosts_(hosts) {
    SC_THREAD(watch);
  }

 private:
  void watch() {
    for (;;) {
      wait(clock_period() * 10000.0);
      bool all = true;
      for (const auto& h : hosts_) all &= h->done;
      if (all) sc_core::sc_stop();
    }
  }
  std::vector<std::unique_ptr<Host>>& hosts_;
};

int run(int argc, char** argv) {
  CLI::App app{"A SystemC virtual platform with VTA: both tutorials on each accelerator through TLM"};
  int accelerators = 1;
  uint32_t read_latency = 32, write_latency = 16, seed = 0;
  app.add_option("--accelerators", accelerators, "accelerators on the one memory, each with its own host")
      ->check(CLI::Range(1, 2));
  app.add_option("--read-latency", read_latency, "memory read latency, clock cycles")->check(CLI::Range(0, 65536));
  app.add_option("--write-latency", write_latency, "memory write latency, clock cycles")->check(CLI::Range(0, 65536));
  app.add_option("--seed", seed, "seed of the random inputs");
  VTA_CLI_PARSE(app, argc, argv);

  const vta::Config& cfg = vta::build_config();
  sc_core::sc_clock clock("clock", clock_period());
  vta::sc::Memory memory("memory", vta::Dram::global(), read_latency, write_latency, unsigned(cfg.bus_width() / 8));
  vta::examples::Router bus("bus");
  std::vector<std::unique_ptr<vta::sc::Accelerator>> accs;
  std::vector<std::unique_ptr<sc_core::sc_signal<bool>>> irqs, resets;  // each host resets its own
  std::vector<std::unique_ptr<Host>> hosts;
  // the bus: memory first, then each accelerator's registers
  bus.map(0, kRegisters);
  bus.out.bind(memory.socket);
  for (int i = 0; i < accelerators; ++i) {
    const std::string n = std::to_string(i);
    accs.push_back(std::make_unique<vta::sc::Accelerator>(("vta" + n).c_str()));
    irqs.push_back(std::make_unique<sc_core::sc_signal<bool>>(("irq" + n).c_str()));
    resets.push_back(std::make_unique<sc_core::sc_signal<bool>>(("rst_n" + n).c_str(), false));
    vta::sc::Accelerator& acc = *accs.back();
    acc.clk(clock);
    acc.rst_n(*resets.back());
    acc.irq(*irqs.back());
    acc.mem.bind(bus.in);  // the accelerator reaches memory through the bus, as the hosts do
    bus.map(kRegisters + 0x1000u * unsigned(i), 0x1000);
    bus.out.bind(acc.ctrl);
    hosts.push_back(std::make_unique<Host>(("host" + n).c_str(), i, acc, *irqs.back(), *resets.back(), seed));
    hosts.back()->socket.bind(bus.in);
  }
  Supervisor supervisor("supervisor", hosts);
  sc_core::sc_start();

  bool ok = true;
  for (size_t i = 0; i < hosts.size(); ++i) {
    ok &= hosts[i]->done && hosts[i]->ok;
    std::printf("accelerator %zu: %llu cycles, %s\n", i, static_cast<unsigned long long>(accs[i]->cycle()),
                hosts[i]->done ? (hosts[i]->ok ? "verified" : "FAILED") : "did not finish");
  }
  std::printf("memory: %llu read and %llu write transactions; simulated time %s\n",
              static_cast<unsigned long long>(memory.reads()), static_cast<unsigned long long>(memory.writes()),
              sc_core::sc_time_stamp().to_string().c_str());
  return ok ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char** argv) {
  return vta::guarded_main("vta-sc-platform", [&] { return run(argc, argv); });
}

// SystemC's own main prints its 4-line banner before sc_main unless told not to: this main tells it
// (a user may still ask for it by setting SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=0), then hands over.
int main(int argc, char** argv) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
