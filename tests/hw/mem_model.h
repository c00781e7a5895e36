#pragma once
// A memory model serving one read client of the command/beat interface (docs/HARDWARE.md): commands
// are accepted with random stalls, their bus-aligned beats returned in order with random gaps.

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

namespace vta::test {

class ReadClientModel {
 public:
  ReadClientModel(const std::vector<uint8_t>& mem, uint64_t base, std::mt19937& rng, int bus_bytes = 8)
      : mem_(mem), base_(base), rng_(rng), bus_(bus_bytes) {}

  /// Inputs to the device for this cycle.
  template <class Ready, class Valid, class Data>
  void drive(Ready& cmd_ready, Valid& rdata_valid, Data& rdata, bool stalls) {
    cmd_ready = !stalls || rng_() % 3 != 0;
    rdata_valid = !beats_.empty() && (!stalls || rng_() % 4 != 0);
    if (rdata_valid) rdata = beats_.front();
  }

  /// Outputs of the device after eval(): accepts a command, retires a beat.
  void observe(bool cmd_valid, bool cmd_ready, uint64_t addr, uint64_t bytes, bool rdata_valid, bool rdata_ready) {
    if (rdata_valid && rdata_ready) beats_.pop_front();
    if (cmd_valid && cmd_ready) {
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
