#pragma once
// Which instructions their stage runs (what vta_insn_check decides in fetch), written out from the spec
// (3.6, 4.4) in plain C++ as the hardware tests' reference, and instructions built around each rule's
// boundary so that both verdicts occur.

#include <cstdint>
#include <random>
#include <vector>

#include "vta/driver/config.h"
#include "vta/driver/isa.h"
#include "vta/driver/program.h"

namespace vta::test {

inline bool loop_ok(uint32_t bgn, uint32_t end, uint32_t iter_out, uint32_t iter_in, uint32_t uop_depth) {
  return iter_out != 0 && iter_in != 0 && end > bgn && end <= uop_depth;
}

inline bool legal_reference(const Config& cfg, const Isa& isa, RawInsn raw) {
  switch (Isa::opcode_of(raw)) {
    case uint8_t(Opcode::kLoad): {
      const MemInsn m = isa.decode_mem(raw);
      if (!is_valid_mem_id(m.memory_type) || m.memory_type == uint8_t(MemId::kOut)) return false;
      if (m.x_size == 0) return true;
      const uint64_t rows = uint64_t(m.y_pad_0) + m.y_size + m.y_pad_1,
                     cols = uint64_t(m.x_pad_0) + m.x_size + m.x_pad_1;
      return m.sram_base + rows * cols <= sram_depth(cfg, MemId(m.memory_type));
    }
    case uint8_t(Opcode::kStore): {
      const MemInsn m = isa.decode_mem(raw);
      if (m.x_size == 0) return true;
      const bool padded = m.x_pad_0 || m.x_pad_1 || m.y_pad_0 || m.y_pad_1;
      return m.memory_type == uint8_t(MemId::kOut) && !padded &&
             m.sram_base + uint64_t(m.x_size) * m.y_size <= cfg.out_depth();
    }
    case uint8_t(Opcode::kGemm): {
      const GemmInsn g = isa.decode_gemm(raw);
      return loop_ok(g.uop_bgn, g.uop_end, g.iter_out, g.iter_in, cfg.uop_depth());
    }
    case uint8_t(Opcode::kAlu): {
      const AluInsn a = isa.decode_alu(raw);
      return is_valid_alu_op(a.alu_opcode) && loop_ok(a.uop_bgn, a.uop_end, a.iter_out, a.iter_in, cfg.uop_depth());
    }
    case uint8_t(Opcode::kFinish): return true;
    default: return false;
  }
}

// LOADs of every memory type and STOREs whose padded block ends one element before, at and after the
// end of their buffer (random shapes and pads), GEMMs and ALUs at the edges of their loop rules, and
// the illegal opcodes: `n` of them, about half legal.
inline std::vector<RawInsn> boundary_instructions(const Config& cfg, const Isa& isa, std::mt19937_64& rng, int n) {
  std::vector<RawInsn> out;
  auto pick = [&](uint64_t k) { return uint32_t(rng() % k); };
  while (int(out.size()) < n) {
    switch (pick(5)) {
      case 0:
      case 1: {  // a LOAD or a STORE around its buffer's end
        MemInsn m;
        const bool store = pick(3) == 0;
        m.opcode = uint8_t(store ? Opcode::kStore : Opcode::kLoad);
        m.memory_type = uint8_t(store ? (pick(4) == 0 ? pick(6) : 4) : pick(7));
        const bool pads = !store || pick(4) == 0;
        m.x_pad_0 = pads ? pick(4) : 0, m.x_pad_1 = pads ? pick(4) : 0;
        m.y_pad_0 = pads ? pick(4) : 0, m.y_pad_1 = pads ? pick(4) : 0;
        m.x_size = 1 + pick(8), m.y_size = pick(6), m.x_stride = m.x_size;
        const MemId t = is_valid_mem_id(m.memory_type) ? MemId(m.memory_type) : MemId::kAcc;
        const int64_t depth = store ? cfg.out_depth() : sram_depth(cfg, t);
        const int64_t block = int64_t(m.y_pad_0 + m.y_size + m.y_pad_1) * (m.x_pad_0 + m.x_size + m.x_pad_1);
        const int64_t base = depth - block + int64_t(pick(3)) - 1;  // ends at depth - 1, depth or depth + 1
        if (base < 0 || base >= (int64_t{1} << 16)) continue;
        m.sram_base = uint32_t(base);
        if (pick(8) == 0) m.x_size = 0;  // moves nothing: fits whatever else it says
        out.push_back(isa.encode(m));
        break;
      }
      case 2:
      case 3: {  // GEMM or ALU at the edges of iterations and micro-op ranges
        const uint32_t depth = cfg.uop_depth();
        const uint32_t end = pick(3) == 0 ? depth + pick(2) : 1 + pick(depth);
        const uint32_t bgn = pick(4) == 0 ? end : pick(end);
        const uint32_t iter_out = pick(8) == 0 ? 0 : 1 + pick(4), iter_in = pick(8) == 0 ? 0 : 1 + pick(4);
        const uint32_t mask = (2 * depth) - 1;  // what the uop_end field holds
        if (pick(2) == 0) {
          GemmInsn g;
          g.uop_bgn = bgn % depth, g.uop_end = end & mask, g.iter_out = iter_out, g.iter_in = iter_in;
          out.push_back(isa.encode(g));
        } else {
          AluInsn a;
          a.uop_bgn = bgn % depth, a.uop_end = end & mask, a.iter_out = iter_out, a.iter_in = iter_in;
          a.alu_opcode = uint8_t(pick(6) == 0 ? 5 + pick(3) : pick(5));
          out.push_back(isa.encode(a));
        }
        break;
      }
      default: {  // FINISH, or an opcode no stage has
        RawInsn r{rng(), rng()};
        r.lo = (r.lo & ~uint64_t{7}) | (pick(2) == 0 ? uint64_t(Opcode::kFinish) : 5 + pick(3));
        out.push_back(r);
        break;
      }
    }
  }
  return out;
}

}  // namespace vta::test
