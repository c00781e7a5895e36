#pragma once
// A memory model serving one read client of the command/beat interface (docs/HARDWARE.md): commands
// are accepted with random stalls, their bus-aligned beats returned in order with random gaps.

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "mem_port.h"

namespace vta::test {

class ReadClientModel {
 public:
  ReadClientModel(const std::vector<uint8_t>& mem, uint64_t base, std::mt19937& rng, int bus_bytes = 8)
      : mem_(mem), base_(base), rng_(rng), bus_(bus_bytes) {}

  /// The client's response port (mem_rd_rsp_t) for this cycle.
  template <class Rsp>
  void drive(Rsp& rsp, bool stalls) {
    const bool cmd_ready = !stalls || rng_() % 3 != 0;
    const bool data_valid = !beats_.empty() && (!stalls || rng_() % 4 != 0);
    set_rd_rsp(rsp, cmd_ready, data_valid, data_valid ? beats_.front() : 0);
  }

  /// The handshakes of this cycle, after eval(): accepts a command, retires a beat.
  template <class Req, class Rsp>
  void observe(const Req& req_port, const Rsp& rsp) {
    const RdReq req = RdReq::of(req_port);
    if (rd_data_valid(rsp) && req.data_ready) beats_.pop_front();
    if (req.cmd_valid && rd_cmd_ready(rsp)) {
      const uint64_t addr = req.cmd.addr, bytes = req.cmd.bytes;
      const uint64_t first = addr / uint64_t(bus_) * uint64_t(bus_);
      for (uint64_t a = first; a < addr + bytes; a += uint64_t(bus_)) {
        uint64_t v = 0;
        for (int i = 0; i < bus_ && i < 8; ++i) v |= uint64_t(mem_.at(size_t(a - base_) + size_t(i))) << (8 * i);
        beats_.push_back(v);
      }
    }
  }

  bool idle() const { return beats_.empty(); }

 private:
  const std::vector<uint8_t>& mem_;
  uint64_t base_;
  std::mt19937& rng_;
  int bus_;
  std::deque<uint64_t> beats_;
};

}  // namespace vta::test
