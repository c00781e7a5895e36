#include "vta/driver/fsim.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "fsim_kernels.h"
#include "vta/driver/int8_dot.h"
#include "vta/driver/packing.h"
#include "vta/driver/program.h"

namespace vta {
namespace {

int stage_index(Stage s) { return static_cast<int>(s) - 1; }

}  // namespace

// All of the run logic lives here so that the header stays small.
struct FsimDevice::Impl {
  FsimDevice& d;
  const Config& cfg;
  std::vector<DecodedInsn> insns;
  std::array<std::vector<uint32_t>, 3> queues;  // instruction indices per stage
  std::array<size_t, 3> heads{};
  uint64_t budget = 0, work = 0;

  Impl(FsimDevice& dev) : d(dev), cfg(dev.isa_.config()) {}

  [[noreturn]] void fail(long idx, ErrorKind kind, std::string message, RunStatus status = RunStatus::kError) const {
    RunError e{status, kind, idx, std::move(message), {}, {}};
    if (idx >= 0 && idx < static_cast<long>(insns.size())) {
      e.stage = to_string(insns[idx].stage);
      e.insn_text = d.isa_.disassemble(insns[idx].raw);
    }
    throw e;
  }

  void load_program(PhysAddr addr, uint32_t count) {
    insns = validate_program(d.isa_, *d.dram_, addr, count).insns;
    for (uint32_t i = 0; i < insns.size(); ++i) queues[stage_index(insns[i].stage)].push_back(i);
  }

  // ---- tokens ----------------------------------------------------------------------------------
  // The queues an instruction pops (pops = true) or pushes, by the rule of spec 4.1 (token_queue).
  struct Queues {
    TokenQueue q[2];
    int n = 0;
  };
  static Queues queues_of(const DecodedInsn& x, bool pops) {
    Queues r;
    const DepFlag flags[2][2] = {{DepFlag::kPushPrev, DepFlag::kPushNext}, {DepFlag::kPopPrev, DepFlag::kPopNext}};
    for (DepFlag f : flags[pops]) {
      if (!has(x.deps, f)) continue;
      if (auto q = token_queue(x.stage, f)) r.q[r.n++] = *q;
    }
    return r;
  }
  // An instruction starts when every queue it pops holds a token and every queue it pushes has room
  // (docs/ISA.md): only its own module pushes those queues, so the room is still there when it ends.
  bool runnable(const DecodedInsn& x) const {
    const auto pops = queues_of(x, true), pushes = queues_of(x, false);
    for (int k = 0; k < pops.n; ++k) {
      if (d.tokens_[pops.q[k]] == 0) return false;
    }
    for (int k = 0; k < pushes.n; ++k) {
      if (d.tokens_[pushes.q[k]] >= isa::kTokenQueueCapacity) return false;
    }
    return true;
  }
  void pop(const DecodedInsn& x) {
    const auto pops = queues_of(x, true);
    for (int k = 0; k < pops.n; ++k) --d.tokens_[pops.q[k]];
  }
  void push(const DecodedInsn& x) {
    const auto pushes = queues_of(x, false);
    for (int k = 0; k < pushes.n; ++k) ++d.tokens_[pushes.q[k]];
  }

  // ---- scheduling ------------------------------------------------------------------------------
  const DecodedInsn* head(int s) const { return heads[s] < queues[s].size() ? &insns[queues[s][heads[s]]] : nullptr; }

  void step(int s) {
    const uint32_t idx = queues[s][heads[s]];
    const DecodedInsn& x = insns[idx];
    if (work + x.cost > budget) {
      fail(idx, ErrorKind::kTimeout,
           "the run exceeded its budget of " + std::to_string(budget) + " work units after " + std::to_string(work) +
               " units (this instruction needs " + std::to_string(x.cost) +
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
      for (int s = 0; s < kStages; ++s) {
        while (const DecodedInsn* x = head(s)) {
          if (x->opcode == Opcode::kFinish || !runnable(*x)) break;
          step(s);
          progress = true;
        }
      }
      if (progress) continue;
      const DecodedInsn* x = head(compute);
      if (x != nullptr && x->opcode == Opcode::kFinish && runnable(*x)) {
        step(compute);
        break;
      }
      fail(-1, ErrorKind::kDeadlock, "dependency deadlock: no module can proceed and FINISH has not executed");
    }
    size_t left = 0;
    for (int s = 0; s < kStages; ++s) left += queues[s].size() - heads[s];
    if (left > 0) {
      fail(-1, ErrorKind::kUnfinished,
           "FINISH completed while " + std::to_string(left) +
               " instruction(s) of other modules had not executed; they wait for tokens that are never pushed");
    }
  }

  std::string module_report() {
    std::ostringstream s;
    for (Stage st : {Stage::kLoad, Stage::kCompute, Stage::kStore}) {
      const int i = stage_index(st);
      s << "  " << to_string(st) << ": ";
      const DecodedInsn* x = head(i);
      if (x == nullptr) {
        s << "idle, executed all " << queues[i].size() << " instruction(s)\n";
        continue;
      }
      const uint32_t idx = queues[i][heads[i]];
      s << "at instruction " << idx << " (" << heads[i] << " of " << queues[i].size() << " done)";
      const auto pops = queues_of(*x, true), pushes = queues_of(*x, false);
      for (int k = 0; k < pops.n; ++k) {
        if (d.tokens_[pops.q[k]] == 0) s << ", waiting for a token on " << to_string(pops.q[k]);
      }
      for (int k = 0; k < pushes.n; ++k) {
        if (d.tokens_[pushes.q[k]] >= isa::kTokenQueueCapacity) {
          s << ", waiting for room on the full queue " << to_string(pushes.q[k]);
        }
      }
      s << "\n    " << idx << ": " << d.isa_.disassemble(insns[idx].raw) << "\n";
    }
    return s.str();
  }

  // ---- execution -------------------------------------------------------------------------------
  void execute(uint32_t idx, const DecodedInsn& x) {
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

    // Destination element e (row-major over the padded block) -> byte pointer; zero for pads. The
    // input and weight SRAMs hold one int8 a lane whatever the configured width: a narrower lane is
    // unpacked from DRAM as it is loaded (vta/driver/packing.h), so every GEMM kernel reads int8.
    size_t elem_bytes = 0;
    uint8_t* sram = nullptr;
    int width = 8;  // bits of a lane in DRAM (inputs and weights may be packed at 4)
    switch (t) {
      case MemId::kInp:
        elem_bytes = size_t(cfg.batch()) * cfg.block_in(), width = cfg.inp_width();
        sram = reinterpret_cast<uint8_t*>(d.inp_.data());
        break;
      case MemId::kWgt:
        elem_bytes = size_t(cfg.block_in()) * cfg.block_out(), width = cfg.wgt_width();
        sram = reinterpret_cast<uint8_t*>(d.wgt_.data());
        break;
      case MemId::kAcc:
      case MemId::kAcc8Bit: elem_bytes = cfg.acc_elem_bytes(), sram = reinterpret_cast<uint8_t*>(d.acc_.data()); break;
      case MemId::kUop: elem_bytes = Config::kUopElemBytes, sram = reinterpret_cast<uint8_t*>(d.uop_raw_.data()); break;
      case MemId::kOut: return;
    }
    const uint64_t unit = dram_unit(cfg, t);
    const uint32_t cols = m.x_pad_0 + m.x_size + m.x_pad_1;
    const uint32_t rows = m.y_pad_0 + m.y_size + m.y_pad_1;
    uint8_t* dst = sram + size_t(m.sram_base) * elem_bytes;
    std::memset(dst, 0, size_t(cols) * m.y_pad_0 * elem_bytes);
    for (uint32_t r = 0; r < m.y_size; ++r) {
      uint8_t* row = dst + (size_t(m.y_pad_0 + r) * cols) * elem_bytes;
      std::memset(row, 0, size_t(m.x_pad_0) * elem_bytes);
      const uint8_t* src =
          d.dram_->translate((uint64_t(m.dram_base) + uint64_t(r) * m.x_stride) * unit, m.x_size * unit);
      uint8_t* body = row + size_t(m.x_pad_0) * elem_bytes;
      if (t == MemId::kAcc8Bit) {
        auto* acc = reinterpret_cast<int32_t*>(body);
        for (uint64_t e = 0; e < m.x_size * unit; ++e) acc[e] = static_cast<int8_t>(src[e]);
      } else if (width != 8) {
        unpack_lanes(src, reinterpret_cast<int8_t*>(body), m.x_size * elem_bytes, width);
      } else {
        std::memcpy(body, src, m.x_size * elem_bytes);
      }
      std::memset(body + size_t(m.x_size) * elem_bytes, 0, size_t(m.x_pad_1) * elem_bytes);
    }
    std::memset(dst + size_t(m.y_pad_0 + m.y_size) * cols * elem_bytes, 0, size_t(cols) * m.y_pad_1 * elem_bytes);

    const uint32_t first = m.sram_base, last = m.sram_base + cols * rows;
    if (t == MemId::kUop) {
      for (uint32_t e = first; e < last; ++e) d.uops_[e] = d.isa_.decode_uop(d.uop_raw_[e]);
    } else if (t == MemId::kInp && d.kernel_ == FsimKernel::kAvx2) {  // the avx2 kernel's sign-extended copy
      const size_t lanes = size_t(cfg.batch()) * cfg.block_in();
      std::copy(d.inp_.data() + first * lanes, d.inp_.data() + last * lanes, d.inp_avx2_.data() + first * lanes);
    } else if (t == MemId::kWgt && d.kernel_ != FsimKernel::kPortable) {  // the vector kernel's copy of each tile
      const size_t wsize = size_t(cfg.block_in()) * cfg.block_out();
      for (uint32_t e = first; e < last; ++e) {
        const int8_t* w = &d.wgt_[e * wsize];
        if (d.kernel_ == FsimKernel::kVnni) {
          fsim_detail::vnni_pack_tile(w, &d.wgt_vnni_[e * wsize], &d.wgt_bias_[size_t(e) * cfg.block_out()],
                                      cfg.block_in(), cfg.block_out());
        } else {
          fsim_detail::avx2_pack_tile(w, &d.wgt_avx2_[e * wsize], cfg.block_in(), cfg.block_out());
        }
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
      // The SRAM side is read contiguously (pitch x_size); int32 -> the output width is truncation
      // (spec 3.5), packed as docs/ISA.md says.
      const int32_t* src = &d.acc_[(size_t(m.sram_base) + size_t(r) * m.x_size) * lanes];
      pack_lanes(src, dst, m.x_size * lanes, cfg.out_width());
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
      fail(idx, ErrorKind::kSramRange,
           std::string("SRAM index out of range: the ") + what + " index reaches " + std::to_string(top) +
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
      fsim_detail::for_each_uop(g, d.uops_.data(), [&](uint32_t dst, uint32_t, uint32_t) {
        std::fill_n(&d.acc_[size_t(dst) * lanes], lanes, 0);
      });
      return;
    }
    check_index(idx, "input (src)", mx.src, g.iter_out, g.src_factor_out, g.iter_in, g.src_factor_in, cfg.inp_depth());
    check_index(idx, "weight (wgt)", mx.wgt, g.iter_out, g.wgt_factor_out, g.iter_in, g.wgt_factor_in, cfg.wgt_depth());
    d.stats_.gemm_counter += uops;
    if (d.skip_execution_) return;
    fsim_detail::GemmArgs a{d.uops_.data(),    g.uop_bgn,          g.uop_end,          g.iter_out,
                            g.iter_in,         g.dst_factor_out,   g.dst_factor_in,    g.src_factor_out,
                            g.src_factor_in,   g.wgt_factor_out,   g.wgt_factor_in,    cfg.batch(),
                            cfg.block_in(),    cfg.block_out(),    d.acc_.data(),      d.inp_.data(),
                            d.wgt_.data(),     d.wgt_vnni_.data(), d.wgt_bias_.data(), d.wgt_avx2_.data(),
                            d.inp_avx2_.data()};
    switch (d.kernel_) {
      case FsimKernel::kVnni: fsim_detail::gemm_vnni(a); break;
      case FsimKernel::kAvx2: fsim_detail::gemm_avx2(a); break;
      default: fsim_detail::gemm_portable(a);
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
    fsim_detail::for_each_uop(x, d.uops_.data(), [&](uint32_t dst_row, uint32_t src_row, uint32_t) {
      int32_t* dst = acc + dst_row * lanes;
      if (x.use_imm) {
        for (size_t l = 0; l < lanes; ++l) dst[l] = alu_apply<Op>(dst[l], x.imm);
      } else {
        const int32_t* src = acc + src_row * lanes;
        for (size_t l = 0; l < lanes; ++l) dst[l] = alu_apply<Op>(dst[l], src[l]);
      }
    });
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

template <class T>
void* ZeroPages<T>::map_zero_pages(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

template <class T>
void ZeroPages<T>::unmap(void* p, size_t bytes) {
  munmap(p, bytes);
}

std::string_view fsim_kernel_name(FsimKernel k) {
  switch (k) {
    case FsimKernel::kAuto: return "auto";
    case FsimKernel::kPortable: return "portable";
    case FsimKernel::kAvx2: return "avx2";
    case FsimKernel::kVnni: return "vnni";
  }
  return "?";
}

FsimKernel parse_fsim_kernel(std::string_view name) {
  for (const FsimKernel k : {FsimKernel::kAuto, FsimKernel::kPortable, FsimKernel::kAvx2, FsimKernel::kVnni}) {
    if (name == fsim_kernel_name(k)) return k;
  }
  throw std::invalid_argument("fsim kernel '" + std::string(name) + "': expected auto, portable, avx2 or vnni");
}

namespace {

// What `wanted` means on this CPU and configuration: kAuto takes VTA_FSIM_KERNEL, then the fastest
// kernel that runs here; a named kernel that cannot run here is an error, never quietly another one
// (a test that forces a kernel must test that kernel).
FsimKernel choose_kernel(FsimKernel wanted, const Config& c) {
  const char* from = "DeviceOptions::fsim_kernel";
  if (wanted == FsimKernel::kAuto) {
    const char* env = std::getenv("VTA_FSIM_KERNEL");
    if (env != nullptr && *env != '\0') {
      try {
        wanted = parse_fsim_kernel(env);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("VTA_FSIM_KERNEL: ") + e.what());
      }
      from = "VTA_FSIM_KERNEL";
    }
  }
  // what each vector kernel needs of the CPU and of the configuration's shape
  struct Needs {
    bool cpu, shape;
    const char *cpu_feature, *shape_rule;
  };
  auto needs = [&](FsimKernel k) -> Needs {
    if (k == FsimKernel::kVnni) {
      return {fsim_detail::cpu_has_vnni(), fsim_detail::vnni_shape_ok(c.block_in(), c.block_out()), "AVX-512 VNNI",
              "BLOCK_IN a multiple of 4 and BLOCK_OUT of 16"};
    }
    if (k == FsimKernel::kAvx2) {
      return {vta::cpu_has_avx2(), fsim_detail::avx2_shape_ok(c.block_in(), c.block_out()), "AVX2",
              "BLOCK_IN even and BLOCK_OUT a multiple of 8"};
    }
    return {true, true, "", ""};  // portable
  };
  if (wanted == FsimKernel::kAuto) {
    for (const FsimKernel k : {FsimKernel::kVnni, FsimKernel::kAvx2}) {
      if (const Needs n = needs(k); n.cpu && n.shape) return k;
    }
    return FsimKernel::kPortable;
  }
  const Needs n = needs(wanted);
  const std::string head = std::string(from) + " = " + std::string(fsim_kernel_name(wanted)) + ": ";
  if (!n.cpu) throw std::invalid_argument(head + "this CPU has no " + n.cpu_feature);
  if (!n.shape) {
    throw std::invalid_argument(head + "the kernel needs " + n.shape_rule + " (BLOCK_IN " +
                                std::to_string(c.block_in()) + ", BLOCK_OUT " + std::to_string(c.block_out()) + ")");
  }
  return wanted;
}

}  // namespace

template class ZeroPages<int8_t>;
template class ZeroPages<int16_t>;
template class ZeroPages<int32_t>;
template class ZeroPages<uint32_t>;
template class ZeroPages<Uop>;

FsimDevice::FsimDevice(const Config& config, const DeviceOptions& options)
    : isa_(config), dram_(options.dram ? options.dram : &Dram::global()) {
  // The SRAMs are fresh zero pages: opening a device costs a few mappings, not a fill of the buffers.
  const size_t wsize = size_t(config.block_in()) * config.block_out();
  inp_.allocate(size_t(config.inp_depth()) * config.batch() * config.block_in());
  wgt_.allocate(config.wgt_depth() * wsize);
  acc_.allocate(size_t(config.acc_depth()) * config.batch() * config.block_out());
  uop_raw_.allocate(config.uop_depth());
  uops_.allocate(config.uop_depth());
  kernel_ = choose_kernel(options.fsim_kernel, config);
  if (kernel_ == FsimKernel::kVnni) {
    wgt_vnni_.allocate(wgt_.size());
    wgt_bias_.allocate(size_t(config.wgt_depth()) * config.block_out());
  } else if (kernel_ == FsimKernel::kAvx2) {
    wgt_avx2_.allocate(wgt_.size());
    inp_avx2_.allocate(inp_.size());
  }
}

FsimDevice::~FsimDevice() = default;

RunStatus FsimDevice::run(PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  last_error_.clear();
  last_error_kind_ = ErrorKind::kNone;
  const Stats before = stats_;
  Impl impl(*this);
  impl.budget = budget == 0 ? kDefaultBudget : budget;
  try {
    impl.load_program(insn_addr, count);
    impl.schedule();
    return RunStatus::kOk;
  } catch (const RunError& e) {
    last_error_ = format_run_error("fsim", e) + "  tokens: " + tokens_.to_string() + "\n" + impl.module_report();
    last_error_kind_ = e.kind;
    // A failed run counts nothing and leaves the queues in an unknown state: the next run starts from
    // the statistics before it and from empty queues (as on every backend).
    stats_ = before;
    tokens_ = TokenCounts{};
    return e.status;
  }
}

std::unique_ptr<Device> make_fsim(const Config& config, const DeviceOptions& options) {
  return std::make_unique<FsimDevice>(config, options);
}

}  // namespace vta
