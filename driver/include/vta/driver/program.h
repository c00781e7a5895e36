#pragma once
/// \file vta/driver/program.h
/// Fetching and validating an instruction stream, shared by every backend so that one program gets
/// one verdict: a stream the fsim refuses before running is refused, with the same message, by the
/// tsim (and by any later backend) before it starts. Also the one format of a failed run's
/// diagnostic header.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vta/driver/device.h"
#include "vta/driver/isa.h"
#include "vta/driver/memory.h"

namespace vta {

/// A failed run: its status, its class, the instruction it concerns (-1 = the stream as a whole)
/// and what went wrong. Backends throw it internally and turn it into last_error().
struct RunError {
  RunStatus status = RunStatus::kError;
  ErrorKind kind = ErrorKind::kInternal;
  long insn = -1;
  std::string message;
  std::string stage;      ///< module of the instruction (when insn >= 0)
  std::string insn_text;  ///< its disassembly (when insn >= 0)
};

[[noreturn]] void throw_run_error(ErrorKind kind, long insn, std::string message, RunStatus status = RunStatus::kError);

/// One instruction of a validated stream, decoded once.
struct DecodedInsn {
  RawInsn raw;
  Opcode opcode = Opcode::kFinish;
  Stage stage = Stage::kCompute;
  DepFlags deps;
  MemInsn mem;
  GemmInsn gemm;
  AluInsn alu;
  uint64_t cost = 1;  ///< fsim work units, for the run budget (docs/ISA.md)
};

/// A stream that passed validation.
struct Program {
  std::vector<DecodedInsn> insns;
};

/// Reads `count` instructions at `addr` from `dram` and checks everything that does not depend on
/// the run itself (docs/ISA.md, "Validation"): the stream lies in one allocation, is 16-byte aligned
/// and ends with its only FINISH; opcodes, memory types, ALU opcodes, iteration counts and micro-op
/// ranges are legal; every LOAD and STORE fits its SRAM and its DRAM allocation. Throws RunError
/// naming the first offending instruction. GEMM/ALU SRAM indices depend on micro-ops loaded during
/// the run and are checked by the backends as they execute.
Program validate_program(const Isa& isa, const Dram& dram, PhysAddr addr, uint32_t count);

/// Bytes of one DRAM element of a memory type (the unit of dram_base and x_stride, spec 3.6).
uint64_t dram_unit(const Config& c, MemId m);
/// The DRAM bytes a LOAD or STORE of memory type `type` touches lie in [start, start + bytes): from its
/// first row's start to its last row's end (y_size >= 1), so one range covers every row.
struct DramSpan {
  uint64_t start = 0;
  uint64_t bytes = 0;
};
DramSpan dram_span(const Config& c, const MemInsn& m, MemId type);
/// Calls `f(raw)` for each of the `count` instructions at `insn_addr` that lie inside the allocation
/// holding `insn_addr` (an invalid stream's as far as they exist; none when it is not allocated),
/// without throwing: for what reads a stream without validating it (captures, counts after a run).
template <class F>
void for_each_readable_insn(const Dram& dram, PhysAddr insn_addr, uint32_t count, F&& f) {
  const auto block = dram.block_at(insn_addr);
  if (!block) return;
  const uint64_t n = std::min<uint64_t>(count, (block->phys + block->size - insn_addr) / Config::kInsnElemBytes);
  const uint8_t* host = dram.translate(insn_addr, n * Config::kInsnElemBytes);
  if (host == nullptr) return;
  for (uint64_t i = 0; i < n; ++i) f(load_insn(host + i * Config::kInsnElemBytes));
}
/// The bytes the accumulator loads (ACC, ACC_8BIT) among `count` instructions at `insn_addr` read from
/// DRAM (Stats::acc_load_dram_nbytes): y_size x x_size elements of dram_unit each, over the readable
/// instructions (counted after a successful run, whose stream is valid).
uint64_t acc_load_dram_bytes(const Isa& isa, const Dram& dram, PhysAddr insn_addr, uint32_t count);
/// Depth in elements of the SRAM a memory type addresses.
uint32_t sram_depth(const Config& c, MemId m);

/// The first lines of every backend's diagnostic:
/// "vta <target>: <status> at instruction N (<stage>) [<kind>]: <message>\n    N: <disassembly>\n",
/// or "vta <target>: <status> [<kind>]: <message>\n" for the stream as a whole.
std::string format_run_error(std::string_view target, const RunError& error);

}  // namespace vta
