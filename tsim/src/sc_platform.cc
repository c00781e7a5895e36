// VTA_TARGET=systemc: the driver backend on a SystemC virtual platform. SystemC 2.3 elaborates once per
// process and cannot start again after sc_stop, so the process has one platform (a clock, a reset, the
// vta::sc::Accelerator, a vta::sc::Memory and a host thread), elaborated by a kernel thread of its own
// before the first run; every device hands its runs to that thread, which serialises them. A run is
// the tsim's run controller (run_control.h) over the registers reached through TLM, so verdicts,
// diagnostics and statistics are the tsim's.

#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "vta/driver/build_config.h"
#include "vta/driver/vcr_map.h"
#include "vta/sc/accelerator.h"
#include "vta/sc/host_device.h"
#include "vta/sc/memory.h"
#include "vta/tsim/simulator.h"
#include "wave.h"

// A program that links this backend has its own main; SystemC's library calls sc_main only from its
// own main, which is never used.
int sc_main(int, char*[]) { return 1; }

namespace vta::sc {
namespace {

using sc_core::sc_time;

// The platform: the accelerator, memory behind it, and a host thread that runs one job at a time.
class Platform final : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Platform> host;

  SC_HAS_PROCESS(Platform);
  explicit Platform(const sc_core::sc_module_name& name, const tsim::DramTiming& timing,
                    const std::optional<tsim::WaveOptions>& wave)
      : sc_module(name),
        host("host"),
        clock_("clock", clock_period()),
        rst_n_("rst_n", false),
        irq_("irq"),
        acc_("vta", options(timing, wave)),
        memory_("memory", Dram::global(), timing.read_latency, timing.write_latency,
                unsigned(build_config().bus_width() / 8)) {
    acc_.clk(clock_);
    acc_.rst_n(rst_n_);
    acc_.irq(irq_);
    acc_.mem.bind(memory_.socket);
    host.bind(acc_.ctrl);
    SC_THREAD(host_thread);
  }

  /// Runs `job` on the host thread (the caller is the kernel thread, between sc_start calls).
  void execute(const std::function<void()>& job, Dram& memory) {
    memory_.use(memory);
    job_ = &job;
    done_ = false;
    while (!done_) sc_core::sc_start();
    job_ = nullptr;
  }
  /// A device on the accelerator for memory `dram` (from a job: it resets the accelerator). Every
  /// device of the process shares the accelerator.
  std::unique_ptr<HostDevice> make_device(Dram& dram) {
    auto d = std::make_unique<HostDevice>(host, irq_, rst_n_, acc_, 0, dram);
    d->set_shared(true);
    return d;
  }
  void close_wave() { acc_.close_wave(); }

  std::exception_ptr error_;

 private:
  static AcceleratorOptions options(const tsim::DramTiming& t, const std::optional<tsim::WaveOptions>& wave) {
    AcceleratorOptions o;
    o.max_reads = t.max_reads;
    o.max_writes = t.max_writes;
    o.wave = wave;
    return o;
  }
  void host_thread() {
    for (;;) {
      while (job_ == nullptr || done_) wait(clock_period());
      try {
        (*job_)();
      } catch (...) {
        error_ = std::current_exception();
      }
      done_ = true;
      sc_core::sc_pause();
    }
  }

  sc_core::sc_clock clock_;
  sc_core::sc_signal<bool> rst_n_;
  sc_core::sc_signal<bool> irq_;
  Accelerator acc_;
  Memory memory_;
  const std::function<void()>* job_ = nullptr;
  bool done_ = true;
};

// The kernel thread and the one platform of the process.
class Kernel {
 public:
  /// The kernel, started with the options of the process's first systemc device (SystemC elaborates
  /// one platform per process: later devices share it as it is).
  static Kernel& get(const tsim::Simulator::Options& first = {}) {
    static Kernel* k = new Kernel(first);  // never destroyed: SystemC's own globals go at exit (see stop())
    return *k;
  }

  Platform& platform() { return *platform_; }

  /// Runs `job` on the platform's host thread; rethrows what it threw.
  /// Throws std::runtime_error once the kernel has stopped (the process is exiting).
  void execute(const std::function<void()>& job, Dram& memory) {
    std::unique_lock lock(mu_);
    turn_.wait(lock, [&] { return job_ == nullptr || stopping_; });  // one run at a time
    if (stopping_) throw std::runtime_error("systemc: the virtual platform has stopped (the process is exiting)");
    job_ = &job;
    memory_ = &memory;
    error_ = nullptr;
    done_ = false;
    work_.notify_all();
    finished_.wait(lock, [&] { return done_; });
    job_ = nullptr;
    const std::exception_ptr e = error_;
    turn_.notify_one();
    if (e) std::rethrow_exception(e);
  }

 private:
  explicit Kernel(const tsim::Simulator::Options& options) {
    thread_ = std::thread([this, options] { loop(options); });
    std::unique_lock lock(mu_);
    finished_.wait(lock, [&] { return ready_; });
    if (start_error_) std::rethrow_exception(start_error_);
    std::atexit([] { get().stop(); });
  }
  // At exit (atexit, registered when the first device was made): devices destroyed later, by static
  // destructors (a driver handle the program never freed), find the kernel stopped and do not wait.
  void stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      work_.notify_all();
      turn_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }
  void loop(const tsim::Simulator::Options& o) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    try {
      // elaboration; kept for the process's lifetime (SystemC cannot elaborate a second one)
      platform_ = new Platform("vta_platform", o.dram, o.wave);
    } catch (...) {
      start_error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      ready_ = true;
      finished_.notify_all();
    }
    if (platform_ == nullptr) return;
    Platform* platform = platform_;
    for (;;) {
      const std::function<void()>* job;
      Dram* memory;
      {
        std::unique_lock lock(mu_);
        work_.wait(lock, [&] { return stopping_ || (job_ != nullptr && !done_); });
        if (stopping_) {
          platform_->close_wave();  // the waveform is complete when the process ends
          break;
        }
        job = job_;
        memory = memory_;
      }
      platform->error_ = nullptr;
      platform->execute(*job, *memory);
      std::lock_guard lock(mu_);
      error_ = platform->error_;
      done_ = true;
      finished_.notify_all();
    }
  }

  std::thread thread_;
  Platform* platform_ = nullptr;
  std::mutex mu_;
  std::condition_variable work_, finished_, turn_;
  const std::function<void()>* job_ = nullptr;
  Dram* memory_ = nullptr;
  std::exception_ptr error_, start_error_;
  bool done_ = false, ready_ = false, stopping_ = false;
};

// A device of the backend: a HostDevice on the platform, each call made by the platform's host thread.
class SystemcDevice final : public Device {
 public:
  /// The options, with the waveform settings checked as the tsim checks them: before SystemC
  /// elaborates anything (an exception during elaboration cannot be recovered from).
  static const tsim::Simulator::Options& checked(const tsim::Simulator::Options& options) {
    if (options.wave) tsim::check_wave_options(*options.wave);
    return options;
  }
  SystemcDevice(Dram& dram, const tsim::Simulator::Options& options)
      : dram_(dram), kernel_(Kernel::get(checked(options))) {
    kernel_.execute([&] { device_ = kernel_.platform().make_device(dram_); }, dram_);
  }
  ~SystemcDevice() override {
    try {
      kernel_.execute([&] { device_.reset(); }, dram_);
    } catch (...) {
      // the kernel has stopped (the process is exiting): the device's SystemC objects cannot be
      // destroyed off the kernel thread, and the process ends anyway
      (void)device_.release();  // NOLINT(bugprone-unused-return-value)
    }
  }
  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    RunStatus status = RunStatus::kError;
    kernel_.execute([&] { status = device_->run(insn_addr, count, budget); }, dram_);
    return status;
  }
  const Stats& stats() const override { return device_->stats(); }
  void clear_stats() override {
    kernel_.execute([&] { device_->clear_stats(); }, dram_);
  }
  TokenCounts tokens() const override {
    TokenCounts t;
    kernel_.execute([&] { t = device_->tokens(); }, dram_);
    return t;
  }
  const std::string& last_error() const override { return device_->last_error(); }
  ErrorKind last_error_kind() const override { return device_->last_error_kind(); }
  std::string_view target() const override { return "systemc"; }
  const Config& config() const override { return build_config(); }

 private:
  Dram& dram_;
  Kernel& kernel_;
  std::unique_ptr<HostDevice> device_;
};

const bool kRegistered = [] {
  register_backend("systemc", [](const Config& c, const DeviceOptions& o) -> std::unique_ptr<Device> {
    const Config& built = build_config();
    if (c.bitstream_name() != built.bitstream_name()) {
      throw std::invalid_argument("systemc: the RTL was built for the configuration of this build (" +
                                  built.bitstream_name() + "), not " + c.bitstream_name());
    }
    // (a bad VTA_TSIM_* or VTA_WAVE value fails here, by name)
    return std::make_unique<SystemcDevice>(o.dram != nullptr ? *o.dram : Dram::global(),
                                           tsim::Simulator::Options::from(o));
  });
  return true;
}();

}  // namespace
}  // namespace vta::sc
