#pragma once
/// \file vta/driver/vcr_map.h
/// The control registers of the VTA hardware (AXI4-Lite, 32-bit registers, byte offsets): the one
/// description both sides are built from. `vta-config --sv-package` emits it into vta_config_pkg
/// (`Vcr<Name>` offsets, `Vcr<Name>Bit` flags) for hw/rtl/vta_vcr.sv; the tsim controller and any
/// host driver use these constants. The first four registers keep the reference offsets (spec 5.3).

#include <cstdint>
#include <optional>
#include <string_view>

namespace vta::vcr {

struct Register {
  std::string_view name;  ///< UPPER_SNAKE; the SystemVerilog name is Vcr + CamelCase
  uint32_t offset;
  bool writable;
  std::string_view doc;
};

// clang-format off
inline constexpr Register kRegisters[] = {
  {"CTRL",            0x00, true,  "bit0 launch (write 1 to start), bit1 done, bit2 error, bit3 clear statistics (write 1), bit4 reset (write 1)"},
  {"CYCLES",          0x04, false, "cycles since launch, low word (frozen at done or error)"},
  {"INSN_COUNT",      0x08, true,  "number of instructions to fetch"},
  {"INSN_ADDR",       0x0C, true,  "instruction stream byte address"},
  {"ERROR_STATUS",    0x10, false, "error sources (ERR_* bits), 0 when none"},
  {"ERROR_INFO",      0x14, false, "memory client of the first memory error (field ERROR_INFO_CLIENT)"},
  {"CYCLES_HI",       0x18, false, "cycles since launch, high word"},
  {"TOKENS",          0x1C, false, "token counts of the four queues (fields TOKENS_*)"},
  {"INP_BYTES_LO",    0x20, false, "statistic inp_load_nbytes, low word"},
  {"INP_BYTES_HI",    0x24, false, "statistic inp_load_nbytes, high word"},
  {"WGT_BYTES_LO",    0x28, false, "statistic wgt_load_nbytes, low word"},
  {"WGT_BYTES_HI",    0x2C, false, "statistic wgt_load_nbytes, high word"},
  {"ACC_BYTES_LO",    0x30, false, "statistic acc_load_nbytes, low word"},
  {"ACC_BYTES_HI",    0x34, false, "statistic acc_load_nbytes, high word"},
  {"UOP_BYTES_LO",    0x38, false, "statistic uop_load_nbytes, low word"},
  {"UOP_BYTES_HI",    0x3C, false, "statistic uop_load_nbytes, high word"},
  {"OUT_BYTES_LO",    0x40, false, "statistic out_store_nbytes, low word"},
  {"OUT_BYTES_HI",    0x44, false, "statistic out_store_nbytes, high word"},
  {"GEMM_COUNT_LO",   0x48, false, "statistic gemm_counter, low word"},
  {"GEMM_COUNT_HI",   0x4C, false, "statistic gemm_counter, high word"},
  {"ALU_COUNT_LO",    0x50, false, "statistic alu_counter, low word"},
  {"ALU_COUNT_HI",    0x54, false, "statistic alu_counter, high word"},
  {"LOAD_INSNS",      0x58, false, "instructions the load stage started in this run"},
  {"COMPUTE_INSNS",   0x5C, false, "instructions the compute stage started in this run"},
  {"STORE_INSNS",     0x60, false, "instructions the store stage started in this run"},
  {"LOAD_BUSY",       0x64, false, "cycles the load stage executed an instruction in this run"},
  {"COMPUTE_BUSY",    0x68, false, "cycles the compute stage executed an instruction in this run"},
  {"STORE_BUSY",      0x6C, false, "cycles the store stage executed an instruction in this run"},
  {"LOAD_STALL",      0x70, false, "cycles the load stage held an instruction waiting for a token"},
  {"COMPUTE_STALL",   0x74, false, "cycles the compute stage held an instruction waiting for a token"},
  {"STORE_STALL",     0x78, false, "cycles the store stage held an instruction waiting for a token"},
  {"STATUS",          0x7C, false, "busy flags, memory engine busy, error pending (fields STATUS_*)"},
  {"WATCHDOG",        0x80, true,  "deadlock watchdog: idle cycles (no stage busy, no memory traffic) before ERR_DEADLOCK; 0 disables"},
  {"WATCHDOG_COUNT",  0x84, false, "current idle-cycle count of the watchdog"},
  {"QUEUE_FILL",      0x88, false, "instructions queued per stage (fields QUEUE_FILL_*)"},
};

/// Flags inside CTRL and ERROR_STATUS. The SystemVerilog name is Vcr + CamelCase + "Bit" (a bit index).
struct Bit {
  std::string_view name;
  uint32_t index;
  std::string_view doc;
};

inline constexpr Bit kBits[] = {
  {"CTRL_LAUNCH",      0, "CTRL: write 1 to start a run"},
  {"CTRL_DONE",        1, "CTRL: FINISH completed"},
  {"CTRL_ERROR",       2, "CTRL: the run stopped on an error (see ERROR_STATUS)"},
  {"CTRL_CLEAR_STATS", 3, "CTRL: write 1 to clear the seven statistics"},
  {"CTRL_RESET",       4, "CTRL: write 1 to reset the accelerator once its memory transfers are done (STATUS_RESET_PENDING until then)"},
  {"ERR_LOAD",         0, "ERROR_STATUS: the load stage refused an instruction"},
  {"ERR_COMPUTE",      1, "ERROR_STATUS: the compute stage refused an instruction"},
  {"ERR_STORE",        2, "ERROR_STATUS: the store stage refused an instruction"},
  {"ERR_TOKEN",        3, "ERROR_STATUS: a dependency-token queue overflowed"},
  {"ERR_READ",         4, "ERROR_STATUS: memory answered a read with an error response"},
  {"ERR_WRITE",        5, "ERROR_STATUS: memory answered a write with an error response"},
  {"ERR_RANGE",        6, "ERROR_STATUS: an access reached past the AXI address space"},
  {"ERR_PROTOCOL",     7, "ERROR_STATUS: an AXI protocol violation (unknown ID, write length mismatch)"},
  {"ERR_DEADLOCK",     8, "ERROR_STATUS: the watchdog saw no progress (token deadlock)"},
};

/// Sub-fields of the registers that pack several values. The SystemVerilog names are
/// Vcr + CamelCase + "Lsb" / "Width"; vta_vcr.sv assembles the registers from them and the tsim
/// controller reads them with extract().
struct Field {
  std::string_view name;
  uint32_t lsb;
  uint32_t width;
  std::string_view doc;
};

inline constexpr Field kFields[] = {
  {"STATUS_BUSY",          0,  4,  "STATUS: busy {fetch, store, compute, load}"},
  {"STATUS_MEM_BUSY",      4,  1,  "STATUS: the memory engine has requests in flight"},
  {"STATUS_ERROR_PENDING", 5,  1,  "STATUS: an error is pending (also after done)"},
  {"STATUS_RESET_PENDING", 6,  1,  "STATUS: a CTRL_RESET waits for the memory engine to finish its bursts"},
  {"QUEUE_FILL_LOAD",      0,  10, "QUEUE_FILL: instructions queued for the load stage"},
  {"QUEUE_FILL_COMPUTE",   10, 10, "QUEUE_FILL: instructions queued for the compute stage"},
  {"QUEUE_FILL_STORE",     20, 10, "QUEUE_FILL: instructions queued for the store stage"},
  {"TOKENS_L2G",           0,  8,  "TOKENS: load -> compute tokens"},
  {"TOKENS_G2L",           8,  8,  "TOKENS: compute -> load tokens"},
  {"TOKENS_G2S",           16, 8,  "TOKENS: compute -> store tokens"},
  {"TOKENS_S2G",           24, 8,  "TOKENS: store -> compute tokens"},
  {"ERROR_INFO_CLIENT",    0,  4,  "ERROR_INFO: memory client of the first memory error (MemClient)"},
};

/// The memory clients ERROR_INFO names (the read clients in vta_core's order, and the store).
enum class MemClient : uint32_t { kFetch = 0, kUop = 1, kInp = 2, kWgt = 3, kAcc = 4, kStore = 15 };
inline constexpr std::string_view to_string(MemClient c) {
  switch (c) {
    case MemClient::kFetch: return "fetch";
    case MemClient::kUop: return "uop load";
    case MemClient::kInp: return "inp load";
    case MemClient::kWgt: return "wgt load";
    case MemClient::kAcc: return "acc load";
    case MemClient::kStore: return "store";
  }
  return "unknown client";
}
// clang-format on

consteval Field field(std::string_view name) {
  for (const auto& f : kFields) {
    if (f.name == name) return f;
  }
  throw "vta::vcr::field: no such field";
}
/// The value of a field in a register value.
constexpr uint32_t extract(uint32_t reg, Field f) {
  return f.width >= 32 ? reg >> f.lsb : (reg >> f.lsb) & ((1u << f.width) - 1u);
}

/// The default WATCHDOG value after reset (idle cycles before a deadlock is reported).
inline constexpr uint32_t kDefaultWatchdog = 4096;

consteval uint32_t offset(std::string_view name) {
  for (const auto& r : kRegisters) {
    if (r.name == name) return r.offset;
  }
  throw "vta::vcr::offset: no such register";  // a compile error in a constant expression
}
consteval uint32_t bit(std::string_view name) {
  for (const auto& b : kBits) {
    if (b.name == name) return 1u << b.index;
  }
  throw "vta::vcr::bit: no such flag";
}
/// Runtime lookup, for tools taking names from users.
inline std::optional<Register> find(std::string_view name) {
  for (const auto& r : kRegisters) {
    if (r.name == name) return r;
  }
  return std::nullopt;
}

inline constexpr uint32_t kCtrl = offset("CTRL");
inline constexpr uint32_t kCycles = offset("CYCLES");
inline constexpr uint32_t kInsnCount = offset("INSN_COUNT");
inline constexpr uint32_t kInsnAddr = offset("INSN_ADDR");
inline constexpr uint32_t kErrorStatus = offset("ERROR_STATUS");
inline constexpr uint32_t kErrorInfo = offset("ERROR_INFO");
inline constexpr uint32_t kCyclesHi = offset("CYCLES_HI");
inline constexpr uint32_t kTokens = offset("TOKENS");
inline constexpr uint32_t kStatsBase = offset("INP_BYTES_LO");  ///< 7 counters x {lo, hi}, spec 7.3 order
inline constexpr uint32_t kLoadInsns = offset("LOAD_INSNS");
inline constexpr uint32_t kStatus = offset("STATUS");
inline constexpr uint32_t kWatchdog = offset("WATCHDOG");
inline constexpr uint32_t kWatchdogCount = offset("WATCHDOG_COUNT");
inline constexpr uint32_t kQueueFill = offset("QUEUE_FILL");
/// Size of the register window (addresses at and above it read 0).
inline constexpr uint32_t kWindowBytes = 0x100;

}  // namespace vta::vcr
