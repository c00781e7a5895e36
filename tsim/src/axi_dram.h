#pragma once
// The memory side of vta_top's AXI4 port, an extension of the simulation controller: the AXI
// handshakes and beat timing here, the memory behind it a MemoryTarget (the tsim's DRAM model, or a
// TLM-2.0 socket in a virtual platform).
//
// Reads: AR requests are accepted while fewer than max_reads are pending; the target says when each
// is ready (the DRAM model: read_latency cycles after acceptance), and the R channel returns one beat
// per cycle from the oldest ready request (so the latency of back-to-back requests overlaps and the
// bandwidth is one beat per cycle). Writes: AW requests are queued (max_writes); W beats fill the
// oldest with their strobes; the target says when B follows the last beat (the DRAM model:
// write_latency cycles). A burst the target refuses gets SLVERR (reads return zeros, writes are
// dropped), which the RTL reports as an error status.

#include <cstdint>
#include <deque>
#include <vector>

#include "Vvta_top.h"
#include "bus.h"
#include "extension.h"
#include "vta/driver/memory.h"
#include "vta/tsim/simulator.h"

namespace vta::tsim {

/// The memory behind the AXI4 port.
class MemoryTarget {
 public:
  virtual ~MemoryTarget() = default;
  struct Read {
    const uint8_t* data = nullptr;  ///< the burst's bytes, valid until its last beat; nullptr: SLVERR
    uint64_t ready_at = 0;          ///< the first cycle its first beat may go
  };
  /// A read burst of `bytes` at `addr`, accepted in `cycle`. A target that has no stable bytes to
  /// point to copies them into `scratch` (the port keeps it with the burst).
  virtual Read read(uint64_t addr, size_t bytes, uint64_t cycle, std::vector<uint8_t>& scratch) = 0;
  /// Where the beats of a write burst of `bytes` at `addr` go, with their strobes applied (nullptr:
  /// they are dropped and the burst gets SLVERR). A target may return `scratch`, sized to `bytes`.
  virtual uint8_t* write_buffer(uint64_t addr, size_t bytes, std::vector<uint8_t>& scratch) = 0;
  struct Write {
    bool ok = true;
    uint64_t ready_at = 0;  ///< the first cycle B may go
  };
  /// The last beat of a write burst arrived in `cycle`; `enables` has 0xff for every byte a strobe
  /// wrote and 0 for the others.
  virtual Write write_done(uint64_t addr, const uint8_t* data, const std::vector<uint8_t>& enables, uint64_t cycle) = 0;
};

/// The tsim's DRAM model: a Dram with fixed latencies. Each burst must lie inside the allocation it
/// starts in (its requested size rounded up to whole bus beats).
class DramTarget final : public MemoryTarget {
 public:
  DramTarget(Dram& dram, DramTiming timing, unsigned bus_bytes) : dram_(dram), t_(timing), bus_bytes_(bus_bytes) {}
  Read read(uint64_t addr, size_t bytes, uint64_t cycle, std::vector<uint8_t>&) override {
    return {map(addr, bytes), cycle + t_.read_latency};
  }
  uint8_t* write_buffer(uint64_t addr, size_t bytes, std::vector<uint8_t>&) override { return map(addr, bytes); }
  Write write_done(uint64_t, const uint8_t*, const std::vector<uint8_t>&, uint64_t cycle) override {
    return {true, cycle + t_.write_latency};  // (a refused burst never gets here)
  }

 private:
  // Beats are whole bus words, so the last one may cover bytes past the requested size, up to the
  // next bus-word boundary (still inside the allocation's pages, which are page-aligned).
  uint8_t* map(uint64_t addr, size_t bytes) const {
    const auto block = dram_.block_at(PhysAddr(addr));
    if (!block) return nullptr;
    const uint64_t reach = (uint64_t(block->size) + bus_bytes_ - 1) / bus_bytes_ * bus_bytes_;
    if (addr - block->phys + bytes > reach) return nullptr;
    return block->host + (addr - block->phys);
  }
  Dram& dram_;
  DramTiming t_;
  unsigned bus_bytes_;
};

class AxiMemoryPort final : public Extension {
 public:
  /// `limits`: max_reads and max_writes (the latencies are the target's).
  AxiMemoryPort(MemoryTarget& target, DramTiming limits, unsigned bus_bytes, DramFault fault = DramFault::kNone,
                uint64_t fault_cycle = 0)
      : target_(target), t_(limits), bus_bytes_(bus_bytes), fault_(fault), fault_cycle_(fault_cycle) {}

  void before_edge(const Vvta_top& top, uint64_t cycle) override { sample(top, cycle); }
  void after_edge(Vvta_top& top, uint64_t cycle) override { drive(top, cycle + 1); }
  void reset(Vvta_top& top, uint64_t cycle) override {
    reset();
    drive(top, cycle);
  }
  /// The AXI4 master's outputs are registered in vta_top (its register slices): none follows an input.
  bool needs_falling_edge() const override { return false; }

  /// The handshakes of this cycle (the values before the clock edge).
  template <class Top>
  void sample(const Top& top, uint64_t cycle) {
    if (top.m_axi_arvalid_o && top.m_axi_arready_i) {
      const uint32_t beats = uint32_t(top.m_axi_arlen_o) + 1;
      Read r{nullptr, uint32_t(top.m_axi_arid_o), beats, 0, 0, {}};
      const MemoryTarget::Read got = target_.read(top.m_axi_araddr_o, size_t(beats) * bus_bytes_, cycle, r.scratch);
      r.host = got.data, r.ready_at = got.ready_at;
      reads_.push_back(std::move(r));
      ++counters_.read_bursts;
    }
    if (stray_beat_) {  // the fault's one beat: offered for one cycle, whether taken or not
      stray_beat_ = false;
      fault_ = DramFault::kNone;
    } else if (top.m_axi_rvalid_i && top.m_axi_rready_o) {
      Read& r = reads_.front();
      ++counters_.read_beats;
      ++counters_.read_busy_cycles;
      if (++r.done == r.beats) reads_.pop_front();
    }
    if (top.m_axi_awvalid_o && top.m_axi_awready_i) {
      const uint32_t beats = uint32_t(top.m_axi_awlen_o) + 1;
      Write w{nullptr, top.m_axi_awaddr_o, beats, 0, {}, {}};
      w.host = target_.write_buffer(w.addr, size_t(beats) * bus_bytes_, w.scratch);
      w.enables.assign(size_t(beats) * bus_bytes_, 0);
      writes_.push_back(std::move(w));
      ++counters_.write_bursts;
    }
    if (top.m_axi_wvalid_o && top.m_axi_wready_i) {
      Write& w = writes_.front();
      if (w.host != nullptr) {
        uint8_t beat[64];
        bus_load(top.m_axi_wdata_o, beat, bus_bytes_);
        const size_t at = size_t(w.done) * bus_bytes_;
        for (unsigned b = 0; b < bus_bytes_; ++b) {
          if (bus_bit(top.m_axi_wstrb_o, b)) w.host[at + b] = beat[b], w.enables[at + b] = 0xff;
        }
      }
      ++counters_.write_beats;
      if (++w.done == w.beats) {
        bool error = w.host == nullptr;
        uint64_t ready_at = cycle;
        if (!error) {
          const MemoryTarget::Write done = target_.write_done(w.addr, w.host, w.enables, cycle);
          error = !done.ok, ready_at = done.ready_at;
        }
        responses_.push_back({ready_at, error});
        writes_.pop_front();
      }
    }
    if (top.m_axi_bvalid_i && top.m_axi_bready_o) responses_.pop_front();
  }

  /// The model's outputs for the next cycle (after the clock edge).
  template <class Top>
  void drive(Top& top, uint64_t next_cycle) {
    if (reads_.empty() && writes_.empty() && responses_.empty() && fault_ == DramFault::kNone) {
      // nothing in flight (most cycles of a compute-bound run): the same outputs as below, directly
      top.m_axi_arready_i = t_.max_reads > 0;
      top.m_axi_awready_i = t_.max_writes > 0;
      top.m_axi_wready_i = 0;
      top.m_axi_rvalid_i = 0;
      top.m_axi_bvalid_i = 0;
      top.m_axi_bid_i = 0;
      top.m_axi_bresp_i = 0;
      return;
    }
    top.m_axi_arready_i = reads_.size() < t_.max_reads;
    top.m_axi_awready_i = writes_.size() < t_.max_writes;
    top.m_axi_wready_i = !writes_.empty();
    const bool r = !reads_.empty() && reads_.front().ready_at <= next_cycle;
    top.m_axi_rvalid_i = r;
    if (fault_ == DramFault::kStrayReadBeat && next_cycle >= fault_cycle_ && counters_.read_bursts > 0 &&
        reads_.empty()) {
      stray_beat_ = true;
      top.m_axi_rvalid_i = 1;
      top.m_axi_rid_i = 0;
      top.m_axi_rlast_i = 1;
      top.m_axi_rresp_i = 0;
      bus_zero(top.m_axi_rdata_i);
    }
    if (r) {
      const Read& rd = reads_.front();
      top.m_axi_rid_i = rd.id;
      top.m_axi_rlast_i = rd.done + 1 == rd.beats;
      top.m_axi_rresp_i = rd.host == nullptr ? kSlvErr : 0;
      if (rd.host != nullptr) {  // (the target's bytes, or the burst's copy)
        bus_store(top.m_axi_rdata_i, rd.host + size_t(rd.done) * bus_bytes_, bus_bytes_);
      } else {
        bus_zero(top.m_axi_rdata_i);
      }
    }
    const bool b = !responses_.empty() && responses_.front().ready_at <= next_cycle;
    top.m_axi_bvalid_i = b;
    top.m_axi_bid_i = 0;
    top.m_axi_bresp_i = (b && responses_.front().error) ? kSlvErr : 0;
  }

  /// Forgets every transaction (the design was reset).
  void reset() {
    reads_.clear();
    writes_.clear();
    responses_.clear();
  }
  bool idle() const { return reads_.empty() && writes_.empty() && responses_.empty(); }
  const PortCounters& counters() const { return counters_; }

 private:
  static constexpr uint8_t kSlvErr = 2;
  struct Read {
    const uint8_t* host;  // nullptr: refused
    uint32_t id, beats, done;
    uint64_t ready_at;
    std::vector<uint8_t> scratch;  // the bytes, when the target copied them
  };
  struct Write {
    uint8_t* host;  // nullptr: refused
    uint64_t addr;
    uint32_t beats, done;
    std::vector<uint8_t> scratch, enables;
  };
  struct Response {
    uint64_t ready_at;
    bool error;
  };
  MemoryTarget& target_;
  DramTiming t_;
  unsigned bus_bytes_;
  std::deque<Read> reads_;
  std::deque<Write> writes_;
  std::deque<Response> responses_;
  PortCounters counters_;
  DramFault fault_;
  uint64_t fault_cycle_;
  bool stray_beat_ = false;
};

}  // namespace vta::tsim
