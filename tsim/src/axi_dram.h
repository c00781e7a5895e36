#pragma once
// The DRAM model on vta_top's AXI4 memory port, an extension of the simulation controller.
//
// Reads: AR requests are accepted while fewer than max_reads are pending; each becomes ready
// read_latency cycles after acceptance, and the R channel returns one beat per cycle from the oldest
// ready request (so the latency of back-to-back requests overlaps and the bandwidth is one beat per
// cycle). Writes: AW requests are queued (max_writes); W beats fill the oldest with their strobes;
// B follows write_latency cycles after the last beat. Each burst must lie inside the allocation it
// starts in (its requested size rounded up to whole bus beats): anything else gets SLVERR (reads
// return zeros, writes are dropped), which the RTL reports as an error status.

#include <cstdint>
#include <deque>
#include <vector>

#include "Vvta_top.h"
#include "bus.h"
#include "extension.h"
#include "vta/memory.h"
#include "vta/tsim.h"

namespace vta::tsim {

class AxiDram final : public Extension {
 public:
  AxiDram(Dram& dram, DramTiming timing, unsigned bus_bytes, DramFault fault = DramFault::kNone,
          uint64_t fault_cycle = 0)
      : dram_(dram), t_(timing), bus_bytes_(bus_bytes), fault_(fault), fault_cycle_(fault_cycle) {}

  void before_edge(const Vvta_top& top, uint64_t cycle) override { sample(top, cycle); }
  void after_edge(Vvta_top& top, uint64_t cycle) override { drive(top, cycle + 1); }
  void reset(Vvta_top& top, uint64_t cycle) override {
    reset();
    drive(top, cycle);
  }

  /// The handshakes of this cycle (the values before the clock edge).
  template <class Top>
  void sample(const Top& top, uint64_t cycle) {
    if (top.m_axi_arvalid_o && top.m_axi_arready_i) {
      const uint32_t beats = uint32_t(top.m_axi_arlen_o) + 1;
      uint8_t* host = map(top.m_axi_araddr_o, size_t(beats) * bus_bytes_);
      reads_.push_back({host, uint32_t(top.m_axi_arid_o), beats, 0, cycle + t_.read_latency});
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
      uint8_t* host = map(top.m_axi_awaddr_o, size_t(beats) * bus_bytes_);
      writes_.push_back({host, beats, 0});
      ++counters_.write_bursts;
    }
    if (top.m_axi_wvalid_o && top.m_axi_wready_i) {
      Write& w = writes_.front();
      if (w.host != nullptr) {
        uint8_t beat[64];
        bus_load(top.m_axi_wdata_o, beat, bus_bytes_);
        uint8_t* dst = w.host + size_t(w.done) * bus_bytes_;
        for (unsigned b = 0; b < bus_bytes_; ++b) {
          if (bus_bit(top.m_axi_wstrb_o, b)) dst[b] = beat[b];
        }
      }
      ++counters_.write_beats;
      if (++w.done == w.beats) {
        responses_.push_back({cycle + t_.write_latency, w.host == nullptr});
        writes_.pop_front();
      }
    }
    if (top.m_axi_bvalid_i && top.m_axi_bready_o) responses_.pop_front();
  }

  /// The model's outputs for the next cycle (after the clock edge).
  template <class Top>
  void drive(Top& top, uint64_t next_cycle) {
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
      if (rd.host != nullptr) {
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
  // A burst must lie inside the allocation it starts in. Beats are whole bus words, so the last one
  // may cover bytes past the requested size, up to the next bus-word boundary (still inside the
  // allocation's pages, which are page-aligned).
  uint8_t* map(uint64_t addr, size_t bytes) const {
    const auto block = dram_.block_at(PhysAddr(addr));
    if (!block) return nullptr;
    const uint64_t reach = (uint64_t(block->size) + bus_bytes_ - 1) / bus_bytes_ * bus_bytes_;
    if (addr - block->phys + bytes > reach) return nullptr;
    return block->host + (addr - block->phys);
  }
  struct Read {
    uint8_t* host;  // nullptr: outside allocated memory
    uint32_t id, beats, done;
    uint64_t ready_at;
  };
  struct Write {
    uint8_t* host;
    uint32_t beats, done;
  };
  struct Response {
    uint64_t ready_at;
    bool error;
  };
  Dram& dram_;
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
