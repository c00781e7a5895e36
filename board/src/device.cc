// The board backend: RunControl over the board's register window, the process's memory its DMA
// buffer. Registers "fpga" (and the memory VTA_TARGET=fpga gives the process) when linked.

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "vta/board/board.h"
#include "vta/driver/format.h"
#include "vta/driver/isa.h"
#include "vta/driver/packing.h"
#include "vta/driver/run_control.h"
#include "vta/driver/vcr_map.h"

namespace vta::board {
namespace {

using Clock = std::chrono::steady_clock;

// The longest single wait for the interrupt: the run controller looks at signals and its budget
// between waits.
constexpr int kWaitSliceMs = 10;

class BoardBus final : public RegisterBus {
 public:
  BoardBus(RegisterWindow& window, double stall_seconds)
      : window_(window),
        stall_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(stall_seconds))),
        stall_text_(format_seconds(stall_seconds) + " s") {}

  void write_reg(uint32_t offset, uint32_t value) override { window_.write(offset, value); }
  uint32_t read_reg(uint32_t offset) override { return window_.read(offset); }

  // The cycle counter of the run (CYCLES, counting from the launch, frozen at done or error): the
  // run's budget is in the accelerator's own cycles, as on the simulators.
  uint64_t cycles() const override {
    for (;;) {
      const uint32_t hi = window_.read(vcr::kCyclesHi), lo = window_.read(vcr::kCycles);
      if (window_.read(vcr::kCyclesHi) == hi) return uint64_t(hi) << 32 | lo;
    }
  }

  bool wait_irq(uint64_t cycles) override {
    const uint64_t start = this->cycles();
    uint64_t last = start;
    auto moved = Clock::now();
    for (;;) {
      // returns at the interrupt, or at once when the window has none (then this loop polls)
      const bool waited = window_.wait_interrupt(kWaitSliceMs);
      if (run_over()) return true;
      if (faulted()) return false;
      const uint64_t now = this->cycles();
      if (now - start >= cycles) return false;
      if (now != last) {
        last = now, moved = Clock::now();
      } else if (Clock::now() - moved > stall_) {
        throw BoardError("fpga: the accelerator's cycle counter has stood at " + std::to_string(now) + " for " +
                         stall_text_ +
                         " while a run is in progress (VTA_FPGA_STALL_SECONDS): its clock is stopped or "
                         "the bitstream is not VTA's");
      }
      if (!waited) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

  // CTRL_RESET: the accelerator resets once its memory engine has finished its bursts.
  void reset_design() override {
    window_.write(vcr::kCtrl, vcr::bit("CTRL_RESET"));
    const auto deadline = Clock::now() + stall_;
    for (;;) {
      const uint32_t status = window_.read(vcr::kStatus);
      if (vcr::extract(status, vcr::field("STATUS_RESET_PENDING")) == 0) return;
      if (Clock::now() > deadline) {
        throw BoardError("fpga: the accelerator did not reset within " + stall_text_ + " (STATUS " + hex(status) +
                         "): its memory engine still waits for bursts the memory port never completed; "
                         "reload the bitstream");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

  bool faulted() const override {
    if (fault_.empty()) fault_ = window_.take_fault();
    return !fault_.empty();
  }
  std::string take_fault() override {
    faulted();
    return std::exchange(fault_, {});
  }

 private:
  bool run_over() const { return (window_.read(vcr::kCtrl) & (vcr::bit("CTRL_DONE") | vcr::bit("CTRL_ERROR"))) != 0; }

  RegisterWindow& window_;
  Clock::duration stall_;
  std::string stall_text_;  ///< the bound as the diagnostics write it ("10 s")
  mutable std::string fault_;
};

class BoardDevice final : public Device {
 public:
  BoardDevice(const Config& config, std::unique_ptr<RegisterWindow> window, Dram& memory, BoardSettings settings)
      : config_(config),
        window_(std::move(window)),
        memory_(memory),
        settings_(std::move(settings)),
        bus_(*window_, settings_.stall_seconds),
        control_(bus_, memory_, config_, run_options()) {
    control_.reset();
    // A window that is not VTA's (another bitstream, a wrong UIO device) is caught here, not in a run.
    if (const uint32_t w = window_->read(vcr::kWatchdog); w != vcr::kDefaultWatchdog) {
      throw BoardError("fpga: " + window_->name() + " does not behave as VTA's registers: WATCHDOG was set to " +
                       std::to_string(vcr::kDefaultWatchdog) + " and reads " + std::to_string(w) +
                       " (is VTA's bitstream loaded, and is this its UIO device?)");
    }
    check_memory();
    control_.clear_stats();
  }

  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    if (settings_.cached) sync("sync_for_device", 1);
    const RunStatus status = control_.run(insn_addr, count, budget);
    if (settings_.cached) sync("sync_for_cpu", 2);
    return status;
  }
  const Stats& stats() const override { return control_.stats(); }
  void clear_stats() override { control_.clear_stats(); }
  TokenCounts tokens() const override { return control_.tokens(); }
  const std::string& last_error() const override { return control_.last_error(); }
  ErrorKind last_error_kind() const override { return control_.last_error_kind(); }
  std::string_view target() const override { return "fpga"; }
  const Config& config() const override { return config_; }

 private:
  static RunControlOptions run_options() {
    RunControlOptions o;
    o.name = "fpga";
    o.watchdog = vcr::kDefaultWatchdog;
    return o;
  }

  // Whether the accelerator sees the memory this process mapped as its DMA buffer (VTA_FPGA_DMA): a
  // wrong file (/dev/zero, a copy of the buffer, another u-dma-buf device) maps fine and then gives
  // wrong outputs with no error. A program of seven instructions, in a page of the buffer, writes a
  // value of this process's into the accelerator's output buffer with the ALU and stores it beside
  // them; the run must end and the value be read back here. About 200 cycles.
  void check_memory() {
    const int out_bytes = config_.out_elem_bytes();
    constexpr size_t kUopAt = 256, kOutAt = 1024;
    const size_t page = std::max<size_t>(Dram::kPageBytes, kOutAt + size_t(out_bytes));
    auto* p = static_cast<uint8_t*>(memory_.alloc(page));
    if (p == nullptr) throw BoardError("fpga: no room in the DMA buffer " + memory_.region()->name);
    struct Free {
      Dram& m;
      void* p;
      ~Free() { m.free(p); }
    } release{memory_, p};
    const PhysAddr phys = memory_.phys_addr(p);
    // a value that a stale buffer or a copy cannot hold by chance: from the clock, never 0
    const auto nonce = uint64_t(Clock::now().time_since_epoch().count());
    const int8_t value = int8_t(1 + nonce % 120);
    std::memset(p + kOutAt, ~value, size_t(out_bytes));
    const Isa isa(config_);
    const uint32_t uop = isa.encode(Uop{0, 0, 0});
    std::memcpy(p + kUopAt, &uop, sizeof uop);
    MemInsn load_uop;
    load_uop.memory_type = uint8_t(MemId::kUop);
    load_uop.dram_base = uint32_t((phys + kUopAt) / Config::kUopElemBytes);
    load_uop.y_size = load_uop.x_size = load_uop.x_stride = 1;
    GemmInsn reset;
    reset.reset = true, reset.uop_end = 1, reset.iter_out = reset.iter_in = 1;
    AluInsn add;
    add.uop_end = 1, add.iter_out = add.iter_in = 1, add.alu_opcode = uint8_t(AluOp::kAdd);
    add.use_imm = true, add.imm = value;
    add.deps.push_next = true;  // to the store
    MemInsn store;
    store.opcode = uint8_t(Opcode::kStore), store.memory_type = uint8_t(MemId::kOut);
    store.dram_base = uint32_t((phys + kOutAt) / uint64_t(out_bytes));
    store.y_size = store.x_size = store.x_stride = 1;
    store.deps.pop_prev = true, store.deps.push_prev = true;
    // then the accumulator row and the output row are zero again, as reset leaves them, once the store
    // has read its row: what runs next finds the buffers as it would without the check
    GemmInsn clear = reset;
    clear.deps.pop_next = true;
    AluInsn zero = add;
    zero.imm = 0, zero.deps.push_next = false;
    GemmInsn finish;
    finish.opcode = uint8_t(Opcode::kFinish);
    const std::vector<RawInsn> program = {isa.encode(load_uop), isa.encode(reset), isa.encode(add),   isa.encode(store),
                                          isa.encode(clear),    isa.encode(zero),  isa.encode(finish)};
    store_insns(p, program);
    const RunStatus status = run(phys, uint32_t(program.size()), 1 << 20);
    // every lane `value`'s low bits at the output width (vta/driver/packing.h)
    const std::vector<int32_t> lanes(size_t(config_.batch()) * config_.block_out(), value);
    std::vector<uint8_t> want(static_cast<size_t>(out_bytes));
    pack_lanes(lanes.data(), want.data(), lanes.size(), config_.out_width());
    const bool same = status == RunStatus::kOk && std::memcmp(p + kOutAt, want.data(), want.size()) == 0;
    if (!same) {
      throw BoardError(
          "fpga: the accelerator does not see the memory mapped from " + settings_.dma +
          " (VTA_FPGA_DMA): a test program written there " +
          (status == RunStatus::kOk ? "ran, but its output did not come back"
                                    : "did not run (" + control_.last_error() + ")") +
          "; name the u-dma-buf device VTA's bitstream reaches (docs/FPGA.md), not a copy of it or another file");
    }
  }

  // A cached buffer: u-dma-buf's sync attributes over the live allocations' span (direction 1: to
  // the device, cleaning the CPU's lines; 2: from it, invalidating them).
  void sync(const char* attribute, int direction) {
    const auto [first, end] = memory_.live_span();
    if (first == end) return;
    const std::string dir = settings_.sysfs_dir();
    const PhysAddr base = memory_.region()->phys;
    write_attribute(dir + "/sync_offset", std::to_string(first - base));
    write_attribute(dir + "/sync_size", std::to_string(end - first));
    write_attribute(dir + "/sync_direction", std::to_string(direction));
    write_attribute(dir + "/" + attribute, "1");
  }
  static void write_attribute(const std::string& path, const std::string& value) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr || std::fputs(value.c_str(), f) < 0 || std::fclose(f) != 0) {
      throw BoardError("fpga: cannot write " + path + " (VTA_FPGA_CACHED needs u-dma-buf's sync attributes)");
    }
  }

  Config config_;
  std::unique_ptr<RegisterWindow> window_;
  Dram& memory_;
  BoardSettings settings_;
  BoardBus bus_;
  mutable RunControl control_;
};

std::unique_ptr<Device> make_from_env(const Config& config, const DeviceOptions& options) {
  const BoardSettings settings = BoardSettings::from_env();
  Dram& memory = options.dram != nullptr ? *options.dram : Dram::global();
  return make_fpga_device(config, open_register_window(settings), memory, settings);
}

const bool kRegistered = [] {
  register_backend("fpga", make_from_env);
  register_backend_memory("fpga", [] { return open_dma_memory(BoardSettings::from_env()); });
  return true;
}();

}  // namespace

std::unique_ptr<Device> make_fpga_device(const Config& config, std::unique_ptr<RegisterWindow> window, Dram& memory,
                                         const BoardSettings& settings) {
  if (memory.region() == nullptr) {
    throw BoardError(
        "fpga: the buffers are in simulated memory, not in the board's physically contiguous DMA buffer: the "
        "process's memory is chosen at its first allocation, so set VTA_TARGET=fpga before it (or pass the DMA "
        "memory, vta::board::open_dma_memory, as DeviceOptions::dram)");
  }
  return std::make_unique<BoardDevice>(config, std::move(window), memory, settings);
}

}  // namespace vta::board
