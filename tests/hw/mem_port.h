#pragma once
// The memory-client and SRAM-port structs of vta_pkg (mem_rd_req_t, ..., inp_rd_t, ...) as
// Verilator presents a packed-struct port: one integer or VlWide, the struct's last member at bit 0.
// The field order here mirrors hw/rtl/vta_pkg.sv; a mismatch makes every memory test fail.

#include <cstdint>

#include "sim_harness.h"
#include "vta/hw_config.h"

namespace vta::test {

inline constexpr int kMemAddrBits = VTA_MEMOP_DRAM_ADDR_BIT_WIDTH + 8;  // vta_pkg::MemAddrWidth
inline constexpr int kBusBits = VTA_BUS_WIDTH;

/// A command {address, bytes} at bit `lsb` of a request.
struct MemCmd {
  uint64_t addr = 0, bytes = 0;
};
template <class Port>
MemCmd get_cmd(const Port& port, int lsb) {
  return {get_bits(port, lsb + 32, kMemAddrBits), get_bits(port, lsb, 32)};
}

/// mem_rd_req_t {cmd_valid, cmd, data_ready}
struct RdReq {
  bool cmd_valid = false;
  MemCmd cmd;
  bool data_ready = false;
  template <class Port>
  static RdReq of(const Port& p) {
    return {get_bits(p, 33 + kMemAddrBits, 1) != 0, get_cmd(p, 1), get_bits(p, 0, 1) != 0};
  }
};

/// mem_rd_rsp_t {cmd_ready, data_valid, data}: `data` is the low 64 bits of the beat.
template <class Port>
void set_rd_rsp(Port& p, bool cmd_ready, bool data_valid, uint64_t data) {
  set_bits(p, kBusBits + 1, 1, cmd_ready);
  set_bits(p, kBusBits, 1, data_valid);
  set_bits(p, 0, kBusBits < 64 ? kBusBits : 64, data);
}
template <class Port>
bool rd_cmd_ready(const Port& p) {
  return get_bits(p, kBusBits + 1, 1) != 0;
}
template <class Port>
bool rd_data_valid(const Port& p) {
  return get_bits(p, kBusBits, 1) != 0;
}

/// mem_wr_req_t {cmd_valid, cmd, data_valid, last, strb, data}: `data` is the low 64 bits of the beat.
struct WrReq {
  bool cmd_valid = false;
  MemCmd cmd;
  bool data_valid = false, last = false;
  uint64_t strb = 0, data = 0;
  template <class Port>
  static WrReq of(const Port& p) {
    constexpr int kStrb = kBusBits / 8, kData = kBusBits;
    return {get_bits(p, kData + kStrb + 2 + 32 + kMemAddrBits, 1) != 0,
            get_cmd(p, kData + kStrb + 2),
            get_bits(p, kData + kStrb + 1, 1) != 0,
            get_bits(p, kData + kStrb, 1) != 0,
            get_bits(p, kData, kStrb),
            get_bits(p, 0, kData < 64 ? kData : 64)};
  }
};

/// mem_wr_rsp_t {cmd_ready, data_ready, ack}
template <class Port>
void set_wr_rsp(Port& p, bool cmd_ready, bool data_ready, bool ack) {
  p = static_cast<Port>((cmd_ready ? 4u : 0u) | (data_ready ? 2u : 0u) | (ack ? 1u : 0u));
}

/// The SRAM read requests of vta_pkg ({re, addr}): inp_rd_t, wgt_rd_t, acc_rd_t (also the output buffer).
inline constexpr int kInpAddrBits = VTA_LOG_INP_BUFF_DEPTH;
inline constexpr int kWgtAddrBits = VTA_LOG_WGT_BUFF_DEPTH;
inline constexpr int kAccAddrBits = VTA_LOG_ACC_BUFF_DEPTH;
struct SramRead {
  bool re = false;
  uint32_t addr = 0;
  template <class Port>
  static SramRead of(const Port& p, int addr_bits) {
    return {get_bits(p, addr_bits, 1) != 0, uint32_t(get_bits(p, 0, addr_bits))};
  }
};
template <class Port>
void set_sram_rd(Port& p, int addr_bits, bool re, uint32_t addr) {
  set_bits(p, addr_bits, 1, re);
  set_bits(p, 0, addr_bits, addr);
}

}  // namespace vta::test
