#include "vta/fsim.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "fsim_kernels.h"

namespace vta {
namespace {

// An error that ends a run; `insn` is the instruction it concerns (-1 = the stream as a whole).
struct RunFailure {
  RunStatus status;
  long insn;
  std::string message;
};

[[noreturn]] void fail(long insn, std::string message, RunStatus status = RunStatus::kError) {
  throw RunFailure{status, insn, std::move(message)};
}

struct Decoded {
  RawInsn raw;
  Opcode opcode;
  Stage stage;
  DepFlags deps;
  MemInsn mem;
  GemmInsn gemm;
  AluInsn alu;
  uint64_t cost = 1;  // work units, for the run budget
};

int stage_index(Stage s) { return static_cast<int>(s) - 1; }

}  // namespace

// All of the run logic lives here so that the header stays small.
struct FsimDevice::Impl {
  FsimDevice& d;
  const Config& cfg;
  std::vector<Decoded> insns;
  std::array<std::vector<uint32_t>, 3> queues;  // instruction indices per stage
  std::array<size_t, 3> heads{};
  uint64_t budget = 0, work = 0;

  Impl(FsimDevice& dev) : d(dev), cfg(dev.isa_.config()) {}

  // ---- element geometry per memory type -------------------------------------------------------
  uint32_t sram_depth(MemId m) const {
    switch (m) {
      case MemId::kUop: return cfg.uop_depth();
      case MemId::kWgt: return cfg.wgt_depth();
      case MemId::kInp: return cfg.inp_depth();
      case MemId::kAcc:
      case MemId::kAcc8Bit:
      case MemId::kOut: return cfg.acc_depth();
    }
    return 0;
  }
  // Bytes of one DRAM element (the unit of dram_base and x_stride, spec 3.6).
  uint64_t dram_unit(MemId m) const {
    switch (m) {
      case MemId::kUop: return Config::kUopElemBytes;
      case MemId::kWgt: return cfg.wgt_elem_bytes();
      case MemId::kInp: return cfg.inp_elem_bytes();
      case MemId::kAcc: return cfg.acc_elem_bytes();
      case MemId::kOut: return cfg.out_elem_bytes();
      case MemId::kAcc8Bit: return static_cast<uint64_t>(cfg.batch() * cfg.block_out());
    }
    return 0;
  }

  std::string insn_text(long idx) const {
    if (idx < 0 || idx >= static_cast<long>(insns.size())) return "";
    return d.isa_.disassemble(insns[idx].raw);
  }

  // ---- decoding and static validation --------------------------------------------------------
  void check_dram(long idx, const MemInsn& m, MemId type, bool write) const {
    const uint64_t unit = dram_unit(type);
    const uint64_t start = uint64_t(m.dram_base) * unit;
    // Every row lies between the first row's start and the last row's end, so one check covers all.
    const uint64_t span = (uint64_t(m.y_size - 1) * m.x_stride + m.x_size) * unit;
    if (d.dram_->translate(start, span) == nullptr) {
      std::ostringstream s;
      s << (write ? "STORE writes" : "LOAD reads") << " DRAM [0x" << std::hex << start << ", 0x" << start + span
        << ")" << std::dec << " (dram_base " << m.dram_base << " x " << unit << " B, " << m.y_size << " rows of "
        << m.x_size << " elements, stride " << m.x_stride << ")";
      if (auto b = d.dram_->block_at(start)) {
        s << ", which runs past the end of the buffer at 0x" << std::hex << b->phys << std::dec << " of " << b->size
          << " bytes";
      } else {
        s << ", outside every allocated buffer";
      }
      fail(idx, s.str());
    }
  }

  void check_loop_fields(long idx, uint32_t bgn, uint32_t end, uint32_t iter_out, uint32_t iter_in) const {
    if (iter_out == 0 || iter_in == 0) {
      fail(idx, "zero iteration count (iter_out=" + std::to_string(iter_out) + ", iter_in=" + std::to_string(iter_in) +
                    "); both loops must run at least once");
    }
    if (end <= bgn) {
      fail(idx, "empty micro-op range: uop_end " + std::to_string(end) + " must be greater than uop_bgn " +
                    std::to_string(bgn));
    }
    if (end > cfg.uop_depth()) {
      fail(idx, "micro-op range [" + std::to_string(bgn) + ", " + std::to_string(end) +
                    ") exceeds the micro-op buffer depth " + std::to_string(cfg.uop_depth()));
    }
  }

  Decoded decode(long idx, RawInsn raw) const {
    Decoded x;
    x.raw = raw;
    const uint8_t op = Isa::opcode_of(raw);
    if (!is_valid_opcode(op)) fail(idx, "illegal opcode " + std::to_string(op));
    x.opcode = static_cast<Opcode>(op);
    x.stage = stage_of(raw);
    x.deps = Isa::deps_of(raw);
    switch (x.opcode) {
      case Opcode::kLoad: {
        x.mem = d.isa_.decode_mem(raw);
        const auto& m = x.mem;
        const auto t = static_cast<MemId>(m.memory_type);
        if (!is_valid_mem_id(m.memory_type) || t == MemId::kOut) {
          fail(idx, "illegal memory type " + std::to_string(m.memory_type) +
                        " for LOAD (expected UOP 0, WGT 1, INP 2, ACC 3 or ACC_8BIT 5)");
        }
        if (m.x_size == 0) break;  // a no-op that only moves tokens
        const uint64_t cols = uint64_t(m.x_pad_0) + m.x_size + m.x_pad_1;
        const uint64_t rows = uint64_t(m.y_pad_0) + m.y_size + m.y_pad_1;
        if (m.sram_base + cols * rows > sram_depth(t)) {
          fail(idx, std::string("LOAD ") + to_string(t) + " writes SRAM elements [" + std::to_string(m.sram_base) +
                        ", " + std::to_string(m.sram_base + cols * rows) + ") beyond the buffer depth " +
                        std::to_string(sram_depth(t)));
        }
        if (m.y_size > 0) check_dram(idx, m, t, false);
        x.cost = 1 + cols * rows;
        break;
      }
      case Opcode::kStore: {
        x.mem = d.isa_.decode_mem(raw);
        const auto& m = x.mem;
        if (m.x_size == 0) break;  // store-stage no-op: the memory type is not used
        if (m.memory_type != static_cast<uint8_t>(MemId::kOut)) {
          fail(idx, "illegal memory type " + std::to_string(m.memory_type) + " for STORE (only OUT 4 can be stored)");
        }
        if (m.x_pad_0 || m.x_pad_1 || m.y_pad_0 || m.y_pad_1) fail(idx, "STORE with padding: stores take no pads");
        const uint64_t n = uint64_t(m.x_size) * m.y_size;
        if (m.sram_base + n > cfg.out_depth()) {
          fail(idx, "STORE reads SRAM elements [" + std::to_string(m.sram_base) + ", " + std::to_string(m.sram_base + n) +
                        ") beyond the output buffer depth " + std::to_string(cfg.out_depth()));
        }
        if (m.y_size > 0) check_dram(idx, m, MemId::kOut, true);
        x.cost = 1 + n;
        break;
      }
      case Opcode::kGemm: {
        x.gemm = d.isa_.decode_gemm(raw);
        const auto& g = x.gemm;
        check_loop_fields(idx, g.uop_bgn, g.uop_end, g.iter_out, g.iter_in);
        x.cost = 1 + uint64_t(g.iter_out) * g.iter_in * (g.uop_end - g.uop_bgn);
        break;
      }
      case Opcode::kAlu: {
        x.alu = d.isa_.decode_alu(raw);
        const auto& a = x.alu;
        if (!is_valid_alu_op(a.alu_opcode)) {
          fail(idx, "illegal ALU opcode " + std::to_string(a.alu_opcode) + " (expected MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)");
        }
        check_loop_fields(idx, a.uop_bgn, a.uop_end, a.iter_out, a.iter_in);
        x.cost = 1 + uint64_t(a.iter_out) * a.iter_in * (a.uop_end - a.uop_bgn);
        break;
      }
      case Opcode::kFinish:
        break;
    }
    return x;
  }

  void load_program(PhysAddr addr, uint32_t count) {
    if (count == 0) fail(-1, "empty instruction stream (insn_count = 0)");
    if (addr % Config::kInsnElemBytes != 0) fail(-1, "instruction address 0x" + hex(addr) + " is not 16-byte aligned");
    const uint8_t* host = d.dram_->translate(addr, uint64_t(count) * Config::kInsnElemBytes);
    if (host == nullptr) {
      fail(-1, "instruction stream [0x" + hex(addr) + ", 0x" + hex(addr + uint64_t(count) * 16) + ") of " +
                   std::to_string(count) + " instructions is not inside one allocated buffer");
    }
    insns.reserve(count);
    long finish = -1;
    for (uint32_t i = 0; i < count; ++i) {
      const RawInsn raw = load_insn(host + size_t(i) * 16);
      if (finish >= 0) {
        insns.push_back(Decoded{raw, Opcode::kLoad, stage_of(raw), {}, {}, {}, {}, 1});
        fail(i, "instruction follows FINISH (instruction " + std::to_string(finish) +
                    "); FINISH must be the last instruction of the stream");
      }
      insns.push_back(Decoded{raw, Opcode::kLoad, stage_of(raw), {}, {}, {}, {}, 1});  // visible to diagnostics
      insns.back() = decode(i, raw);
      if (insns.back().opcode == Opcode::kFinish) finish = i;
      queues[stage_index(insns.back().stage)].push_back(i);
    }
    if (finish < 0) fail(-1, "the instruction stream has no FINISH instruction, so the run could never end");
  }

  static std::string hex(uint64_t v) {
    std::ostringstream s;
    s << std::hex << v;
    return s.str();
  }

  // ---- tokens ----------------------------------------------------------------------------------
  // The queue each flag refers to depends on the module (spec 4.1).
  struct Needs {
    uint64_t* q[2] = {nullptr, nullptr};
    const char* name[2] = {nullptr, nullptr};
  };
  Needs pops_of(const Decoded& x) {
    Needs n;
    auto& t = d.tokens_;
    int k = 0;
    switch (x.stage) {
      case Stage::kLoad:
        if (x.deps.pop_next) n.q[k] = &t.g2l, n.name[k++] = "g2l (compute -> load)";
        break;
      case Stage::kCompute:
        if (x.deps.pop_prev) n.q[k] = &t.l2g, n.name[k++] = "l2g (load -> compute)";
        if (x.deps.pop_next) n.q[k] = &t.s2g, n.name[k++] = "s2g (store -> compute)";
        break;
      case Stage::kStore:
        if (x.deps.pop_prev) n.q[k] = &t.g2s, n.name[k++] = "g2s (compute -> store)";
        break;
    }
    return n;
  }
  bool runnable(const Decoded& x) {
    auto n = pops_of(x);
    return (n.q[0] == nullptr || *n.q[0] > 0) && (n.q[1] == nullptr || *n.q[1] > 0);
  }
  void pop(const Decoded& x) {
    auto n = pops_of(x);
    for (auto* q : n.q) {
      if (q) --*q;
    }
  }
  void push(const Decoded& x) {
    auto& t = d.tokens_;
    switch (x.stage) {
      case Stage::kLoad:
        if (x.deps.push_next) ++t.l2g;
        break;
      case Stage::kCompute:
        if (x.deps.push_prev) ++t.g2l;
        if (x.deps.push_next) ++t.g2s;
        break;
      case Stage::kStore:
        if (x.deps.push_prev) ++t.s2g;
        break;
    }
  }

  // ---- scheduling ------------------------------------------------------------------------------
  const Decoded* head(int s) const {
    return heads[s] < queues[s].size() ? &insns[queues[s][heads[s]]] : nullptr;
  }

  void step(int s) {
    const uint32_t idx = queues[s][heads[s]];
    const Decoded& x = insns[idx];
    if (work + x.cost > budget) {
      fail(idx, "the run exceeded its budget of " + std::to_string(budget) + " work units after " +
                    std::to_string(work) + " units (this instruction needs " + std::to_string(x.cost) +
                    "); raise wait_cycles if the program is meant to run this long",
           RunStatus::kTimeout);
    }
    work += x.cost;
    pop(x);
    execute(idx, x);
    push(x);
    ++heads[s];
  }

  // Runs every module as far as its tokens allow. FINISH waits until the load and store modules can
  // make no more progress, so everything the tokens allow to happen before it does.
  void schedule() {
    const int compute = stage_index(Stage::kCompute);
    for (;;) {
      bool progress = false;
      for (int s = 0; s < 3; ++s) {
        while (const Decoded* x = head(s)) {
          if (x->opcode == Opcode::kFinish || !runnable(*x)) break;
          step(s);
          progress = true;
        }
      }
      if (progress) continue;
      const Decoded* x = head(compute);
      if (x != nullptr && x->opcode == Opcode::kFinish && runnable(*x)) {
        step(compute);
        break;
      }
      fail(-1, "dependency deadlock: no module can proceed and FINISH has not executed");
    }
    size_t left = 0;
    for (int s = 0; s < 3; ++s) left += queues[s].size() - heads[s];
    if (left > 0) {
      fail(-1, "FINISH completed while " + std::to_string(left) +
                   " instruction(s) of other modules had not executed; they wait for tokens that are never pushed");
    }
  }

  std::string module_report() {
    std::ostringstream s;
    for (Stage st : {Stage::kLoad, Stage::kCompute, Stage::kStore}) {
      const int i = stage_index(st);
      s << "  " << to_string(st) << ": ";
      const Decoded* x = head(i);
      if (x == nullptr) {
        s << "idle, executed all " << queues[i].size() << " instruction(s)\n";
        continue;
      }
      const uint32_t idx = queues[i][heads[i]];
      s << "at instruction " << idx << " (" << heads[i] << " of " << queues[i].size() << " done)";
      auto n = pops_of(*x);
      for (int k = 0; k < 2; ++k) {
        if (n.q[k] && *n.q[k] == 0) s << ", waiting for a token on " << n.name[k];
      }
      s << "\n    " << idx << ": " << insn_text(idx) << "\n";
    }
    return s.str();
  }

  // ---- execution -------------------------------------------------------------------------------
  void execute(uint32_t idx, const Decoded& x) {
    switch (x.opcode) {
      case Opcode::kLoad: exec_load(x.mem); break;
      case Opcode::kStore: exec_store(x.mem); break;
      case Opcode::kGemm: exec_gemm(idx, x.gemm); break;
      case Opcode::kAlu: exec_alu(idx, x.alu); break;
      case Opcode::kFinish: break;
    }
  }

  void exec_load(const MemInsn& m) {
    if (m.x_size == 0) return;
    const auto t = static_cast<MemId>(m.memory_type);
    const uint64_t n = uint64_t(m.x_size) * m.y_size;
    switch (t) {
      case MemId::kInp: d.stats_.inp_load_nbytes += n * cfg.inp_elem_bytes(); break;
      case MemId::kWgt: d.stats_.wgt_load_nbytes += n * cfg.wgt_elem_bytes(); break;
      case MemId::kAcc:
      case MemId::kAcc8Bit: d.stats_.acc_load_nbytes += n * cfg.acc_elem_bytes(); break;
      case MemId::kUop: d.stats_.uop_load_nbytes += n * Config::kUopElemBytes; break;
      case MemId::kOut: break;
    }
    if (d.skip_execution_ && t != MemId::kUop) return;

    // Destination element e (row-major over the padded block) -> byte pointer; zero for pads.
    size_t elem_bytes = 0;
    uint8_t* sram = nullptr;
    switch (t) {
      case MemId::kInp: elem_bytes = cfg.inp_elem_bytes(), sram = reinterpret_cast<uint8_t*>(d.inp_.data()); break;
      case MemId::kWgt: elem_bytes = cfg.wgt_elem_bytes(), sram = reinterpret_cast<uint8_t*>(d.wgt_.data()); break;
      case MemId::kAcc:
      case MemId::kAcc8Bit: elem_bytes = cfg.acc_elem_bytes(), sram = reinterpret_cast<uint8_t*>(d.acc_.data()); break;
      case MemId::kUop: elem_bytes = Config::kUopElemBytes, sram = reinterpret_cast<uint8_t*>(d.uop_raw_.data()); break;
      case MemId::kOut: return;
    }
    const uint64_t unit = dram_unit(t);
    const uint32_t cols = m.x_pad_0 + m.x_size + m.x_pad_1;
    const uint32_t rows = m.y_pad_0 + m.y_size + m.y_pad_1;
    uint8_t* dst = sram + size_t(m.sram_base) * elem_bytes;
    std::memset(dst, 0, size_t(cols) * m.y_pad_0 * elem_bytes);
    for (uint32_t r = 0; r < m.y_size; ++r) {
      uint8_t* row = dst + (size_t(m.y_pad_0 + r) * cols) * elem_bytes;
      std::memset(row, 0, size_t(m.x_pad_0) * elem_bytes);
      const uint8_t* src = d.dram_->translate((uint64_t(m.dram_base) + uint64_t(r) * m.x_stride) * unit, m.x_size * unit);
      uint8_t* body = row + size_t(m.x_pad_0) * elem_bytes;
      if (t == MemId::kAcc8Bit) {
        auto* acc = reinterpret_cast<int32_t*>(body);
        for (uint64_t e = 0; e < m.x_size * unit; ++e) acc[e] = static_cast<int8_t>(src[e]);
      } else {
        std::memcpy(body, src, m.x_size * elem_bytes);
      }
      std::memset(body + size_t(m.x_size) * elem_bytes, 0, size_t(m.x_pad_1) * elem_bytes);
    }
    std::memset(dst + size_t(m.y_pad_0 + m.y_size) * cols * elem_bytes, 0, size_t(cols) * m.y_pad_1 * elem_bytes);

    const uint32_t first = m.sram_base, last = m.sram_base + cols * rows;
    if (t == MemId::kUop) {
      for (uint32_t e = first; e < last; ++e) d.uops_[e] = d.isa_.decode_uop(d.uop_raw_[e]);
    } else if (t == MemId::kWgt && d.use_vnni_) {
      const int wsize = cfg.block_in() * cfg.block_out();
      for (uint32_t e = first; e < last; ++e) {
        fsim_detail::vnni_pack_tile(&d.wgt_[size_t(e) * wsize], &d.wgt_vnni_[size_t(e) * wsize],
                                    &d.wgt_bias_[size_t(e) * cfg.block_out()], cfg.block_in(), cfg.block_out());
      }
    }
  }

  void exec_store(const MemInsn& m) {
    if (m.x_size == 0) return;
    const uint64_t n = uint64_t(m.x_size) * m.y_size;
    d.stats_.out_store_nbytes += n * cfg.out_elem_bytes();
    if (d.skip_execution_) return;
    const size_t lanes = size_t(cfg.batch()) * cfg.block_out();
    const uint64_t unit = cfg.out_elem_bytes();
    for (uint32_t r = 0; r < m.y_size; ++r) {
      uint8_t* dst = d.dram_->translate((uint64_t(m.dram_base) + uint64_t(r) * m.x_stride) * unit, m.x_size * unit);
      // The SRAM side is read contiguously (pitch x_size); int32 -> int8 is truncation (spec 3.5).
      const int32_t* src = &d.acc_[(size_t(m.sram_base) + size_t(r) * m.x_size) * lanes];
      for (size_t e = 0; e < m.x_size * lanes; ++e) dst[e] = static_cast<uint8_t>(static_cast<uint32_t>(src[e]));
    }
  }

  // The largest index a loop nest forms is at its last iteration, so checking that corner is exact.
  struct MaxUop {
    uint32_t dst = 0, src = 0, wgt = 0;
  };
  MaxUop max_uop(uint32_t bgn, uint32_t end) const {
    MaxUop m;
    for (uint32_t k = bgn; k < end; ++k) {
      m.dst = std::max(m.dst, d.uops_[k].dst);
      m.src = std::max(m.src, d.uops_[k].src);
      m.wgt = std::max(m.wgt, d.uops_[k].wgt);
    }
    return m;
  }
  void check_index(uint32_t idx, const char* what, uint64_t base, uint32_t io, uint32_t fo, uint32_t ii, uint32_t fi,
                   uint32_t depth) const {
    const uint64_t top = base + uint64_t(io - 1) * fo + uint64_t(ii - 1) * fi;
    if (top >= depth) {
      fail(idx, std::string("SRAM index out of range: the ") + what + " index reaches " + std::to_string(top) +
                    " (largest micro-op index " + std::to_string(base) + " + (" + std::to_string(io) + "-1)*" +
                    std::to_string(fo) + " + (" + std::to_string(ii) + "-1)*" + std::to_string(fi) +
                    ") but the buffer depth is " + std::to_string(depth));
    }
  }

  void exec_gemm(uint32_t idx, const GemmInsn& g) {
    const MaxUop mx = max_uop(g.uop_bgn, g.uop_end);
    check_index(idx, "accumulator (dst)", mx.dst, g.iter_out, g.dst_factor_out, g.iter_in, g.dst_factor_in,
                cfg.acc_depth());
    const uint64_t uops = uint64_t(g.iter_out) * g.iter_in * (g.uop_end - g.uop_bgn);
    if (g.reset) {
      if (d.skip_execution_) return;
      const size_t lanes = size_t(cfg.batch()) * cfg.block_out();
      for (uint32_t i = 0; i < g.iter_out; ++i)
        for (uint32_t j = 0; j < g.iter_in; ++j)
          for (uint32_t k = g.uop_bgn; k < g.uop_end; ++k) {
            const size_t a = d.uops_[k].dst + i * g.dst_factor_out + j * g.dst_factor_in;
            std::fill_n(&d.acc_[a * lanes], lanes, 0);
          }
      return;
    }
    check_index(idx, "input (src)", mx.src, g.iter_out, g.src_factor_out, g.iter_in, g.src_factor_in, cfg.inp_depth());
    check_index(idx, "weight (wgt)", mx.wgt, g.iter_out, g.wgt_factor_out, g.iter_in, g.wgt_factor_in, cfg.wgt_depth());
    d.stats_.gemm_counter += uops;
    if (d.skip_execution_) return;
    fsim_detail::GemmArgs a{d.uops_.data(), g.uop_bgn, g.uop_end, g.iter_out, g.iter_in,
                            g.dst_factor_out, g.dst_factor_in, g.src_factor_out, g.src_factor_in,
                            g.wgt_factor_out, g.wgt_factor_in, cfg.batch(), cfg.block_in(), cfg.block_out(),
                            d.acc_.data(), d.inp_.data(), d.wgt_.data(), d.wgt_vnni_.data(), d.wgt_bias_.data()};
    if (d.use_vnni_) {
      fsim_detail::gemm_vnni(a);
    } else {
      fsim_detail::gemm_portable(a);
    }
  }

  template <AluOp Op>
  static int32_t alu_apply(int32_t a, int32_t b) {
    const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    if constexpr (Op == AluOp::kMin) return std::min(a, b);
    if constexpr (Op == AluOp::kMax) return std::max(a, b);
    if constexpr (Op == AluOp::kAdd) return static_cast<int32_t>(ua + ub);
    if constexpr (Op == AluOp::kMul) return static_cast<int32_t>(ua * ub);
    if constexpr (Op == AluOp::kShr) {
      // Exact arithmetic shifts: right by >= 31 leaves the sign, left by >= 32 leaves 0 (docs/ISA.md).
      if (b >= 0) return a >> std::min(b, 31);
      if (b <= -32) return 0;
      return static_cast<int32_t>(ua << static_cast<uint32_t>(-b));
    }
    return 0;
  }

  template <AluOp Op>
  void alu_loops(const AluInsn& x) {
    const size_t lanes = size_t(cfg.batch()) * cfg.block_out();
    int32_t* acc = d.acc_.data();
    for (uint32_t i = 0; i < x.iter_out; ++i)
      for (uint32_t j = 0; j < x.iter_in; ++j)
        for (uint32_t k = x.uop_bgn; k < x.uop_end; ++k) {
          const Uop& u = d.uops_[k];
          int32_t* dst = acc + (u.dst + i * x.dst_factor_out + j * x.dst_factor_in) * lanes;
          if (x.use_imm) {
            for (size_t l = 0; l < lanes; ++l) dst[l] = alu_apply<Op>(dst[l], x.imm);
          } else {
            const int32_t* src = acc + (u.src + i * x.src_factor_out + j * x.src_factor_in) * lanes;
            for (size_t l = 0; l < lanes; ++l) dst[l] = alu_apply<Op>(dst[l], src[l]);
          }
        }
  }

  void exec_alu(uint32_t idx, const AluInsn& x) {
    const MaxUop mx = max_uop(x.uop_bgn, x.uop_end);
    check_index(idx, "accumulator (dst)", mx.dst, x.iter_out, x.dst_factor_out, x.iter_in, x.dst_factor_in,
                cfg.acc_depth());
    if (!x.use_imm) {
      check_index(idx, "accumulator (src)", mx.src, x.iter_out, x.src_factor_out, x.iter_in, x.src_factor_in,
                  cfg.acc_depth());
    }
    d.stats_.alu_counter += uint64_t(x.iter_out) * x.iter_in * (x.uop_end - x.uop_bgn);
    if (d.skip_execution_) return;
    switch (static_cast<AluOp>(x.alu_opcode)) {
      case AluOp::kMin: alu_loops<AluOp::kMin>(x); break;
      case AluOp::kMax: alu_loops<AluOp::kMax>(x); break;
      case AluOp::kAdd: alu_loops<AluOp::kAdd>(x); break;
      case AluOp::kShr: alu_loops<AluOp::kShr>(x); break;
      case AluOp::kMul: alu_loops<AluOp::kMul>(x); break;
    }
  }
};

FsimDevice::FsimDevice(const Config& config, const DeviceOptions& options)
    : isa_(config), dram_(options.dram ? options.dram : &Dram::global()) {
  const size_t wsize = size_t(config.block_in()) * config.block_out();
  inp_.assign(size_t(config.inp_depth()) * config.batch() * config.block_in(), 0);
  wgt_.assign(config.wgt_depth() * wsize, 0);
  acc_.assign(size_t(config.acc_depth()) * config.batch() * config.block_out(), 0);
  uop_raw_.assign(config.uop_depth(), 0);
  uops_.assign(config.uop_depth(), Uop{});
  use_vnni_ = !options.force_portable && fsim_detail::vnni_shape_ok(config.block_in(), config.block_out()) &&
              fsim_detail::cpu_has_vnni();
  if (use_vnni_) {
    wgt_vnni_.assign(wgt_.size(), 0);
    wgt_bias_.assign(size_t(config.wgt_depth()) * config.block_out(), 0);
  }
}

FsimDevice::~FsimDevice() = default;

RunStatus FsimDevice::run(PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  last_error_.clear();
  Impl impl(*this);
  impl.budget = budget == 0 ? kDefaultBudget : budget;
  try {
    impl.load_program(insn_addr, count);
    impl.schedule();
    return RunStatus::kOk;
  } catch (const RunFailure& f) {
    std::ostringstream s;
    s << "vta fsim: " << (f.status == RunStatus::kTimeout ? "timeout" : "error");
    if (f.insn >= 0) {
      s << " at instruction " << f.insn << " (" << to_string(impl.insns[f.insn].stage) << "): " << f.message << "\n    " << f.insn << ": " << impl.insn_text(f.insn) << "\n";
    } else {
      s << ": " << f.message << "\n";
    }
    s << "  tokens: " << tokens_.to_string() << "\n" << impl.module_report();
    last_error_ = s.str();
    // A failed run leaves the queues in an unknown state; start the next run from empty queues.
    tokens_ = TokenCounts{};
    return f.status;
  }
}

std::unique_ptr<Device> make_fsim(const Config& config, const DeviceOptions& options) {
  return std::make_unique<FsimDevice>(config, options);
}

}  // namespace vta
