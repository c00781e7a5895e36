#pragma once
// A vta::Device backed by the Verilated vta_core and a memory model on Dram::global(): the read
// clients share one data bus (one beat per cycle, interleaved between clients like AXI IDs), the
// write client's beats are applied with their strobes and acknowledged a cycle after the last one.
// This is the test bench of the core until the AXI memory engine and the tsim backend exist.

#include <algorithm>
#include <array>
#include <deque>
#include <sstream>

#include "Vvta_core.h"
#include "sim_harness.h"
#include "vta/build_config.h"
#include "vta/device.h"

namespace vta::test {

class RtlCoreDevice final : public Device {
 public:
  RtlCoreDevice() {
    h_->start_i = 0, h_->clear_stats_i = 0, h_->rd_cmd_ready_i = 0, h_->rd_valid_i = 0;
    h_->wr_cmd_ready_i = 0, h_->wready_i = 0, h_->wack_i = 0;
    h_.reset();
  }

  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    last_error_.clear();
    // A test bench: bounded well below the callers' "run forever" budgets.
    const uint64_t limit = std::min<uint64_t>(budget == 0 ? kMaxCycles : budget, kMaxCycles);
    uint64_t idle = 0;
    h_->insn_addr_i = uint32_t(insn_addr);
    h_->insn_count_i = count;
    h_->start_i = 1;
    h_.tick();
    h_->start_i = 0;
    for (uint64_t cycle = 0; cycle < limit; ++cycle) {
      h_->rd_cmd_ready_i = 0x1f;
      h_->wr_cmd_ready_i = 1;
      h_->wready_i = 1;
      h_->wack_i = pending_acks_ > 0 && ack_delay_ == 0;
      // One read beat per cycle, round robin over the clients that have one.
      h_->rd_valid_i = 0;
      int client = -1;
      for (int k = 0; k < 5; ++k) {
        const int c = (rr_ + k) % 5;
        if (!beats_[size_t(c)].empty()) {
          client = c;
          break;
        }
      }
      if (client >= 0) {
        h_->rd_valid_i = uint8_t(1u << client);
        h_->rd_data_i = beats_[size_t(client)].front();
      }
      h_.eval();
      if (h_->wack_i) --pending_acks_;
      if (ack_delay_ > 0) --ack_delay_;
      if (client >= 0 && ((h_->rd_ready_o >> client) & 1)) {
        beats_[size_t(client)].pop_front();
        rr_ = (client + 1) % 5;
      } else if (client >= 0) {
        rr_ = (client + 1) % 5;  // a busy client does not hold the bus
      }
      for (int c = 0; c < 5; ++c) {
        // The command ports are packed arrays of 40-bit addresses and 32-bit byte counts.
        if (((h_->rd_cmd_valid_o >> c) & 1) &&
            !read_command(c, bits(h_->rd_cmd_addr_o, 40 * c, 40), bits(h_->rd_cmd_bytes_o, 32 * c, 32))) {
          return fail(RunStatus::kError, "read outside device memory");
        }
      }
      if (h_->wr_cmd_valid_o) writes_.push_back({h_->wr_cmd_addr_o, h_->wr_cmd_addr_o / 8 * 8,
                                                 (h_->wr_cmd_addr_o + h_->wr_cmd_bytes_o + 7) / 8 * 8});
      if (h_->wvalid_o) {
        if (writes_.empty()) return fail(RunStatus::kError, "write beat without a command");
        Write& w = writes_.front();
        uint8_t* dst = Dram::global().translate(w.next, 8);
        if (dst == nullptr) return fail(RunStatus::kError, "write outside device memory");
        for (int b = 0; b < 8; ++b) {
          if ((h_->wstrb_o >> b) & 1) dst[b] = uint8_t(h_->wdata_o >> (8 * b));
        }
        w.next += 8;
        if (w.next == w.end) {
          writes_.pop_front();
          ++pending_acks_;
          ack_delay_ = 1;
        }
      }
      const bool done = h_->done_o, error = h_->error_o;
      idle = (h_->busy_o == 0 && h_->rd_cmd_valid_o == 0 && !h_->wvalid_o) ? idle + 1 : 0;
      if (idle > 10000) return fail(RunStatus::kError, "deadlock: every stage idle, FINISH not reached");
      h_.tick();
      ++cycles_;
      ++total_cycles;
      if (error) return fail(RunStatus::kError, "the core stopped with an error");
      if (done) {
        update_stats();
        return RunStatus::kOk;
      }
    }
    return fail(RunStatus::kTimeout, "cycle budget exhausted");
  }

  const Stats& stats() const override { return stats_; }
  void clear_stats() override {
    h_->clear_stats_i = 1;
    h_.tick();
    h_->clear_stats_i = 0;
    update_stats();
  }
  TokenCounts tokens() const override { return {}; }
  const std::string& last_error() const override { return last_error_; }
  std::string_view target() const override { return "rtl-core"; }
  const Config& config() const override { return build_config(); }
  uint64_t cycles() const { return cycles_; }
  static constexpr uint64_t kMaxCycles = 5'000'000;
  /// Cycles simulated by every RtlCoreDevice of the process (for reports).
  static inline uint64_t total_cycles = 0;

 private:
  struct Write {
    uint64_t addr, next, end;
  };

  // The requested bytes must be device memory; the rest of an aligned beat is whatever memory holds
  // there (zero outside any allocation), as a real bus returns whole beats.
  bool read_command(int c, uint64_t addr, uint64_t bytes) {
    if (Dram::global().translate(addr, bytes) == nullptr) return false;
    for (uint64_t a = addr / 8 * 8; a < addr + bytes; a += 8) {
      uint64_t v = 0;
      for (int b = 0; b < 8; ++b) {
        const uint8_t* p = Dram::global().translate(a + uint64_t(b), 1);
        v |= uint64_t(p ? *p : 0) << (8 * b);
      }
      beats_[size_t(c)].push_back(v);
    }
    return true;
  }

  RunStatus fail(RunStatus s, const std::string& what) {
    std::ostringstream m;
    m << "rtl core: " << what << " after " << cycles_ << " cycles (error stages 0x" << std::hex
      << int(h_->error_stage_o) << ", busy 0x" << int(h_->busy_o) << ")";
    last_error_ = m.str();
    update_stats();
    // Start the next run from a clean core (the SRAM contents stay), like the fsim's token reset.
    for (auto& q : beats_) q.clear();
    writes_.clear();
    pending_acks_ = 0;
    h_.reset();
    return s;
  }

  void update_stats() {
    stats_.inp_load_nbytes = h_->inp_bytes_o, stats_.wgt_load_nbytes = h_->wgt_bytes_o;
    stats_.acc_load_nbytes = h_->acc_bytes_o, stats_.uop_load_nbytes = h_->uop_bytes_o;
    stats_.out_store_nbytes = h_->out_bytes_o, stats_.gemm_counter = h_->gemm_count_o;
    stats_.alu_counter = h_->alu_count_o;
  }

  mutable Harness<Vvta_core> h_;
  std::array<std::deque<uint64_t>, 5> beats_;
  std::deque<Write> writes_;
  int rr_ = 0, pending_acks_ = 0, ack_delay_ = 0;
  uint64_t cycles_ = 0;
  Stats stats_;
  std::string last_error_;
};

}  // namespace vta::test
