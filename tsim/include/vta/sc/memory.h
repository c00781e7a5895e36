#pragma once
/// \file vta/sc/memory.h
/// A TLM-2.0 memory for virtual platforms around vta::sc::Accelerator: a vta::Dram (so programs and
/// buffers are allocated with physical addresses, as the driver does) behind a target socket, with
/// fixed read and write latencies annotated on each transaction (loosely timed: it never waits). An
/// access must lie inside one allocation (a burst may round its last beat up to `bus_bytes`), else
/// it is answered with TLM_ADDRESS_ERROR_RESPONSE. Byte enables are honoured on writes.

#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <systemc>
#include <tlm>

#include "vta/driver/memory.h"
#include "vta/sc/accelerator.h"

namespace vta::sc {

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  /// `read_latency` / `write_latency` in clock cycles (the tsim's DRAM model: 32 and 16).
  Memory(const sc_core::sc_module_name& name, Dram& dram, uint32_t read_latency = 32, uint32_t write_latency = 16,
         unsigned bus_bytes = 8)
      : sc_module(name),
        socket("socket"),
        dram_(&dram),
        read_latency_(read_latency),
        write_latency_(write_latency),
        bus_bytes_(bus_bytes) {
    socket.register_b_transport(this, &Memory::transport);
  }

  /// The memory behind the socket from now on (a platform shared by several devices switches it).
  void use(Dram& dram) { dram_ = &dram; }
  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }

 private:
  void transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const uint64_t addr = t.get_address();
    const size_t bytes = t.get_data_length();
    const auto block = dram_->block_at(PhysAddr(addr));
    const uint64_t reach = block ? (uint64_t(block->size) + bus_bytes_ - 1) / bus_bytes_ * bus_bytes_ : 0;
    if (!block || addr - block->phys + bytes > reach || t.get_streaming_width() < bytes) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    uint8_t* host = block->host + (addr - block->phys);
    if (t.is_read()) {
      std::memcpy(t.get_data_ptr(), host, bytes);
      delay += clock_period() * double(read_latency_);
      ++reads_;
    } else if (t.is_write()) {
      const uint8_t* be = t.get_byte_enable_ptr();
      const unsigned be_len = t.get_byte_enable_length();
      for (size_t i = 0; i < bytes; ++i) {
        if (be == nullptr || be[i % be_len] != 0) host[i] = t.get_data_ptr()[i];
      }
      delay += clock_period() * double(write_latency_);
      ++writes_;
    }
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  Dram* dram_;
  uint32_t read_latency_, write_latency_;
  unsigned bus_bytes_;
  uint64_t reads_ = 0, writes_ = 0;
};

}  // namespace vta::sc
