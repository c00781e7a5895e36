#include "vta/driver/program.h"

#include <sstream>

namespace vta {
namespace {

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << std::hex << v;
  return s.str();
}

class Validator {
 public:
  Validator(const Isa& isa, const Dram& dram) : isa_(isa), cfg_(isa.config()), dram_(dram) {}

  Program run(PhysAddr addr, uint32_t count) const {
    if (count == 0) throw_run_error(ErrorKind::kInvalidStream, -1, "empty instruction stream (insn_count = 0)");
    if (addr % Config::kInsnElemBytes != 0) {
      throw_run_error(ErrorKind::kInvalidStream, -1, "instruction address 0x" + hex(addr) + " is not 16-byte aligned");
    }
    const uint64_t bytes = uint64_t(count) * Config::kInsnElemBytes;
    const uint8_t* host = dram_.translate(addr, bytes);
    if (host == nullptr) {
      std::string where = "instruction stream [0x" + hex(addr) + ", 0x" + hex(addr + bytes) + ") of " +
                          std::to_string(count) + " instructions ";
      if (auto b = dram_.block_at(addr)) {
        where += "runs past the end of its buffer at 0x" + hex(b->phys) + " of " + std::to_string(b->size) +
                 " bytes (" + std::to_string(b->size / Config::kInsnElemBytes) + " instructions)";
      } else {
        where += "is not inside an allocated buffer";
      }
      throw_run_error(ErrorKind::kInvalidStream, -1, where);
    }
    Program p;
    p.insns.reserve(count);
    for (uint32_t i = 0; i < count; ++i) {
      const RawInsn raw = load_insn(host + size_t(i) * Config::kInsnElemBytes);
      try {
        if (!p.insns.empty() && p.insns.back().opcode == Opcode::kFinish) {
          throw_run_error(ErrorKind::kInvalidStream, i,
                          "instruction follows FINISH (instruction " + std::to_string(i - 1) +
                              "); FINISH must be the last instruction of the stream");
        }
        p.insns.push_back(decode(i, raw));
      } catch (RunError& e) {
        e.stage = to_string(stage_of(raw));
        e.insn_text = isa_.disassemble(raw);
        throw;
      }
    }
    if (p.insns.back().opcode != Opcode::kFinish) {
      throw_run_error(ErrorKind::kInvalidStream, -1,
                      "the instruction stream has no FINISH instruction, so the run could never end");
    }
    return p;
  }

 private:
  void check_dram(long idx, const MemInsn& m, MemId type, bool write) const {
    const uint64_t unit = dram_unit(cfg_, type);
    const auto [start, span] = dram_span(cfg_, m, type);  // one check covers all rows
    if (dram_.translate(start, span) != nullptr) return;
    std::ostringstream s;
    s << (write ? "STORE writes" : "LOAD reads") << " DRAM [0x" << std::hex << start << ", 0x" << start + span << ")"
      << std::dec << " (dram_base " << m.dram_base << " x " << unit << " B, " << m.y_size << " rows of " << m.x_size
      << " elements, stride " << m.x_stride << ")";
    if (auto b = dram_.block_at(start)) {
      s << ", which runs past the end of the buffer at 0x" << std::hex << b->phys << std::dec << " of " << b->size
        << " bytes";
    } else {
      s << ", outside every allocated buffer";
    }
    throw_run_error(ErrorKind::kDramRange, idx, s.str());
  }

  void check_loop_fields(long idx, uint32_t bgn, uint32_t end, uint32_t iter_out, uint32_t iter_in) const {
    if (iter_out == 0 || iter_in == 0) {
      throw_run_error(ErrorKind::kInvalidInstruction, idx,
                      "zero iteration count (iter_out=" + std::to_string(iter_out) +
                          ", iter_in=" + std::to_string(iter_in) + "); both loops must run at least once");
    }
    if (end <= bgn) {
      throw_run_error(ErrorKind::kInvalidInstruction, idx,
                      "empty micro-op range: uop_end " + std::to_string(end) + " must be greater than uop_bgn " +
                          std::to_string(bgn));
    }
    if (end > cfg_.uop_depth()) {
      throw_run_error(ErrorKind::kInvalidInstruction, idx,
                      "micro-op range [" + std::to_string(bgn) + ", " + std::to_string(end) +
                          ") exceeds the micro-op buffer depth " + std::to_string(cfg_.uop_depth()));
    }
  }

  DecodedInsn decode(long idx, RawInsn raw) const {
    DecodedInsn x;
    x.raw = raw;
    const uint8_t op = Isa::opcode_of(raw);
    if (!is_valid_opcode(op))
      throw_run_error(ErrorKind::kInvalidInstruction, idx, "illegal opcode " + std::to_string(op));
    x.opcode = static_cast<Opcode>(op);
    x.stage = stage_of(raw);
    x.deps = Isa::deps_of(raw);
    switch (x.opcode) {
      case Opcode::kLoad: {
        x.mem = isa_.decode_mem(raw);
        const auto& m = x.mem;
        const auto t = static_cast<MemId>(m.memory_type);
        if (!is_valid_mem_id(m.memory_type) || t == MemId::kOut) {
          throw_run_error(ErrorKind::kInvalidInstruction, idx,
                          "illegal memory type " + std::to_string(m.memory_type) +
                              " for LOAD (expected UOP 0, WGT 1, INP 2, ACC 3 or ACC_8BIT 5)");
        }
        if (m.x_size == 0) break;  // a no-op that only moves tokens
        const uint64_t cols = uint64_t(m.x_pad_0) + m.x_size + m.x_pad_1;
        const uint64_t rows = uint64_t(m.y_pad_0) + m.y_size + m.y_pad_1;
        if (m.sram_base + cols * rows > sram_depth(cfg_, t)) {
          throw_run_error(ErrorKind::kSramRange, idx,
                          std::string("LOAD ") + to_string(t) + " writes SRAM elements [" +
                              std::to_string(m.sram_base) + ", " + std::to_string(m.sram_base + cols * rows) +
                              ") beyond the buffer depth " + std::to_string(sram_depth(cfg_, t)));
        }
        if (m.y_size > 0) check_dram(idx, m, t, false);
        x.cost = 1 + cols * rows;
        break;
      }
      case Opcode::kStore: {
        x.mem = isa_.decode_mem(raw);
        const auto& m = x.mem;
        if (m.x_size == 0) break;  // store-stage no-op: the memory type is not used
        if (m.memory_type != static_cast<uint8_t>(MemId::kOut)) {
          throw_run_error(
              ErrorKind::kInvalidInstruction, idx,
              "illegal memory type " + std::to_string(m.memory_type) + " for STORE (only OUT 4 can be stored)");
        }
        if (m.x_pad_0 || m.x_pad_1 || m.y_pad_0 || m.y_pad_1) {
          throw_run_error(ErrorKind::kInvalidInstruction, idx, "STORE with padding: stores take no pads");
        }
        const uint64_t n = uint64_t(m.x_size) * m.y_size;
        if (m.sram_base + n > cfg_.out_depth()) {
          throw_run_error(ErrorKind::kSramRange, idx,
                          "STORE reads SRAM elements [" + std::to_string(m.sram_base) + ", " +
                              std::to_string(m.sram_base + n) + ") beyond the output buffer depth " +
                              std::to_string(cfg_.out_depth()));
        }
        if (m.y_size > 0) check_dram(idx, m, MemId::kOut, true);
        x.cost = 1 + n;
        break;
      }
      case Opcode::kGemm: {
        x.gemm = isa_.decode_gemm(raw);
        const auto& g = x.gemm;
        check_loop_fields(idx, g.uop_bgn, g.uop_end, g.iter_out, g.iter_in);
        x.cost = 1 + uint64_t(g.iter_out) * g.iter_in * (g.uop_end - g.uop_bgn);
        break;
      }
      case Opcode::kAlu: {
        x.alu = isa_.decode_alu(raw);
        const auto& a = x.alu;
        if (!is_valid_alu_op(a.alu_opcode)) {
          throw_run_error(
              ErrorKind::kInvalidInstruction, idx,
              "illegal ALU opcode " + std::to_string(a.alu_opcode) + " (expected MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)");
        }
        check_loop_fields(idx, a.uop_bgn, a.uop_end, a.iter_out, a.iter_in);
        x.cost = 1 + uint64_t(a.iter_out) * a.iter_in * (a.uop_end - a.uop_bgn);
        break;
      }
      case Opcode::kFinish: break;
    }
    return x;
  }

  const Isa& isa_;
  const Config& cfg_;
  const Dram& dram_;
};

}  // namespace

void throw_run_error(ErrorKind kind, long insn, std::string message, RunStatus status) {
  throw RunError{status, kind, insn, std::move(message), {}, {}};
}

Program validate_program(const Isa& isa, const Dram& dram, PhysAddr addr, uint32_t count) {
  return Validator(isa, dram).run(addr, count);
}

uint64_t dram_unit(const Config& c, MemId m) {
  switch (m) {
    case MemId::kUop: return Config::kUopElemBytes;
    case MemId::kWgt: return c.wgt_elem_bytes();
    case MemId::kInp: return c.inp_elem_bytes();
    case MemId::kAcc: return c.acc_elem_bytes();
    case MemId::kOut: return c.out_elem_bytes();
    case MemId::kAcc8Bit: return uint64_t(c.batch()) * c.block_out();
  }
  return 0;
}

DramSpan dram_span(const Config& c, const MemInsn& m, MemId type) {
  const uint64_t unit = dram_unit(c, type);
  return {uint64_t(m.dram_base) * unit, (uint64_t(m.y_size - 1) * m.x_stride + m.x_size) * unit};
}

uint64_t acc_load_dram_bytes(const Isa& isa, const Dram& dram, PhysAddr insn_addr, uint32_t count) {
  uint64_t bytes = 0;
  for_each_readable_insn(dram, insn_addr, count, [&](RawInsn raw) {
    if (Isa::opcode_of(raw) != uint8_t(Opcode::kLoad)) return;
    const MemInsn m = isa.decode_mem(raw);
    const auto type = static_cast<MemId>(m.memory_type);
    if (type == MemId::kAcc || type == MemId::kAcc8Bit)
      bytes += uint64_t(m.y_size) * m.x_size * dram_unit(isa.config(), type);
  });
  return bytes;
}

uint32_t sram_depth(const Config& c, MemId m) {
  switch (m) {
    case MemId::kUop: return c.uop_depth();
    case MemId::kWgt: return c.wgt_depth();
    case MemId::kInp: return c.inp_depth();
    case MemId::kAcc:
    case MemId::kAcc8Bit:
    case MemId::kOut: return c.acc_depth();
  }
  return 0;
}

std::string format_run_error(std::string_view target, const RunError& e) {
  std::ostringstream s;
  s << "vta " << target << ": " << (e.status == RunStatus::kTimeout ? "timeout" : "error");
  if (e.insn >= 0) {
    s << " at instruction " << e.insn << " (" << e.stage << ") [" << to_string(e.kind) << "]: " << e.message << "\n    "
      << e.insn << ": " << e.insn_text << "\n";
  } else {
    s << " [" << to_string(e.kind) << "]: " << e.message << "\n";
  }
  return s.str();
}

}  // namespace vta
