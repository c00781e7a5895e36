// Random VTA programs for differential testing (vta/driver/random_program.h): the generator (the
// program's instructions and their tokens, its defects) and the differential run.

#include "vta/driver/random_program.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <random>

namespace vta {

class RandomProgram::Impl {
 public:
  using Defect = RandomProgram::Defect;
  Impl(const Config& c, uint64_t seed)
      : c_(c),
        isa_(c),
        rng_(seed),
        inp_(kInpElems * c.inp_elem_bytes()),
        wgt_(kWgtElems * c.wgt_elem_bytes()),
        acc_(kAccElems * c.acc_elem_bytes()),
        uop_(kUopWords * 4),
        out_(kOutElems * c.out_elem_bytes()) {
    ni_ = std::min<uint32_t>(64, c.inp_depth());
    nw_ = std::min<uint32_t>(16, c.wgt_depth());
    na_ = std::min<uint32_t>(64, c.acc_depth());
    nu_ = std::min<uint32_t>(256, c.uop_depth());
    initial_.resize(4);
    fill(inp_, 0);
    fill(wgt_, 1);
    fill_acc();
    std::memset(out_.data(), 0, out_.size());
    build();
  }

  /// Restores the DRAM inputs and clears the output buffer (before each backend runs).
  void reset_memory() {
    std::memcpy(inp_.data(), initial_[0].data(), inp_.size());
    std::memcpy(wgt_.data(), initial_[1].data(), wgt_.size());
    std::memcpy(acc_.data(), initial_[2].data(), acc_.size());
    std::memset(out_.data(), 0, out_.size());
  }
  RunStatus run(Device& dev) {
    DramBuffer buf(insns_.size() * Config::kInsnElemBytes);
    for (size_t i = 0; i < insns_.size(); ++i) store_insn(buf.data() + i * Config::kInsnElemBytes, encode(insns_[i]));
    return dev.run(buf.phys(), uint32_t(insns_.size() + extra_count_), uint64_t{1} << 30);
  }

  /// Makes the program invalid with one defect; returns the error class every backend must report.
  ErrorKind inject(Defect d) {
    auto pick = [&](auto&& ok) -> Insn* {
      std::vector<Insn*> c;
      for (auto& i : insns_) {
        if (ok(i)) c.push_back(&i);
      }
      return c.empty() ? nullptr : c[rnd(0, uint32_t(c.size() - 1))];
    };
    auto moves_data = [](const Insn& i) { return i.kind == kMem && i.m.x_size > 0 && i.m.y_size > 0; };
    switch (d) {
      case Defect::kDramRange: {
        // the transfer starts inside its allocation and its last row ends past the end (a transfer
        // wholly inside the next allocation is, to the device, a valid one)
        auto reach = [](const Insn& x) { return uint64_t(x.m.y_size - 1) * x.m.x_stride + x.m.x_size; };
        Insn* i = pick(
            [&](const Insn& x) { return moves_data(x) && MemId(x.m.memory_type) != MemId::kUop && reach(x) >= 2; });
        if (i == nullptr) return inject(Defect::kNoFinish);
        const DramBuffer& b = buffer_of(MemId(i->m.memory_type));
        const uint64_t unit = dram_unit(c_, MemId(i->m.memory_type));
        const uint64_t elems = b.size() / unit, r = reach(*i);
        i->m.dram_base = uint32_t(b.phys() / unit + elems - r + rnd(1, uint32_t(r - 1)));
        return ErrorKind::kDramRange;
      }
      case Defect::kSramRange: {
        Insn* i = pick([&](const Insn& x) { return moves_data(x); });
        const auto type = MemId(i->m.memory_type);
        const uint32_t block =
            (i->m.y_pad_0 + i->m.y_size + i->m.y_pad_1) * (i->m.x_pad_0 + i->m.x_size + i->m.x_pad_1);
        const uint32_t depth = type == MemId::kOut ? c_.out_depth() : vta::sram_depth(c_, type);
        i->m.sram_base = std::min<uint32_t>(depth - block + rnd(1, 4), (1u << isa::kSramAddrBits) - 1);
        return ErrorKind::kSramRange;
      }
      case Defect::kIndexRange: {
        // the outer loop walks the destination past the accumulator (found only while running)
        Insn* i = pick([](const Insn& x) { return x.kind == kGemm || x.kind == kAlu; });
        if (i == nullptr) return inject(Defect::kZeroIterations);
        uint32_t& iter_out = i->kind == kGemm ? i->g.iter_out : i->a.iter_out;
        uint32_t& factor = i->kind == kGemm ? i->g.dst_factor_out : i->a.dst_factor_out;
        iter_out = 3;
        factor = c_.acc_depth() - 1;
        return ErrorKind::kSramRange;
      }
      case Defect::kMissingPush: {
        // a token some instruction waits for is never pushed: nothing can finish
        Insn* i = pick([](Insn& x) { return x.kind != kFinish && (x.deps().push_prev || x.deps().push_next); });
        DepFlags& f = i->deps();
        if (f.push_prev && (!f.push_next || coin())) {
          f.push_prev = false;
        } else {
          f.push_next = false;
        }
        return ErrorKind::kDeadlock;
      }
      case Defect::kNoFinish: insns_.pop_back(); return ErrorKind::kInvalidStream;
      case Defect::kCountPastBuffer: extra_count_ = rnd(1, 3); return ErrorKind::kInvalidStream;
      case Defect::kIllegalMemoryType: {
        Insn* i = pick(moves_data);             // (a STORE no-op ignores its memory type)
        i->m.memory_type = uint8_t(rnd(6, 7));  // 6 and 7 name no memory
        return ErrorKind::kInvalidInstruction;
      }
      case Defect::kZeroIterations: {
        Insn* i = pick([](const Insn& x) { return x.kind == kGemm || x.kind == kAlu; });
        if (i == nullptr) return inject(Defect::kNoFinish);
        (i->kind == kGemm ? i->g.iter_in : i->a.iter_in) = 0;
        return ErrorKind::kInvalidInstruction;
      }
      case Defect::kCount: break;
    }
    return ErrorKind::kNone;
  }
  std::vector<uint8_t> output() const { return {out_.data(), out_.data() + out_.size()}; }
  size_t size() const { return insns_.size(); }
  std::string listing() const {
    std::string s;
    for (size_t i = 0; i < insns_.size(); ++i)
      s += std::to_string(i) + ": " + isa_.disassemble(encode(insns_[i])) + "\n";
    return s;
  }

 private:
  static constexpr uint32_t kInpElems = 256, kWgtElems = 64, kAccElems = 256, kUopWords = 8192, kOutElems = 256;
  enum Kind { kMem, kGemm, kAlu, kFinish };
  struct Insn {
    Kind kind;
    Stage stage;
    MemInsn m;
    GemmInsn g;
    AluInsn a;
    DepFlags& deps() { return kind == kMem ? m.deps : kind == kAlu ? a.deps : g.deps; }
  };
  // resources: INP half, WGT half, ACC half
  enum Res { kInp0, kInp1, kWgt0, kWgt1, kAcc0, kAcc1, kNumRes };

  uint32_t rnd(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }
  bool coin(int percent = 50) { return rnd(0, 99) < uint32_t(percent); }

  void fill(DramBuffer& b, int k) {
    for (size_t i = 0; i < b.size(); ++i) b.data()[i] = uint8_t(rng_());
    initial_[size_t(k)].assign(b.data(), b.data() + b.size());
  }
  void fill_acc() {
    auto* w = acc_.as<int32_t>();
    for (size_t i = 0; i < acc_.size() / 4; ++i) w[i] = int32_t(rnd(0, 1u << 20)) - (1 << 19);
    initial_[2].assign(acc_.data(), acc_.data() + acc_.size());
  }

  RawInsn encode(const Insn& i) const {
    switch (i.kind) {
      case kMem: return isa_.encode(i.m);
      case kAlu: return isa_.encode(i.a);
      default: return isa_.encode(i.g);
    }
  }

  // ---- token derivation ----------------------------------------------------------------------
  static int idx(Stage s) { return int(s) - 1; }
  /// Appends an instruction after making it wait for every other-stage instruction that last touched
  /// one of `res`.
  void emit(Insn insn, std::initializer_list<Res> res) {
    const int a = idx(insn.stage);
    std::array<int, 3> need{-1, -1, -1};  // per producing stage: its latest conflicting instruction
    for (Res r : res) {
      for (int b = 0; b < 3; ++b) {
        if (b != a && last_[r][b] > need[b]) need[b] = last_[r][b];
      }
    }
    for (int b = 0; b < 3; ++b) {
      if (need[b] < 0 || need[b] <= synced_[b][a]) continue;
      // push on the latest instruction of stage b, pop here (b and a are neighbours: load-compute or
      // compute-store, since load and store share no resource)
      const int latest = latest_[b];
      Insn& producer = insns_[size_t(latest)];
      set_push(producer, b, a);
      set_pop(insn, a, b);
      synced_[b][a] = latest;
    }
    const int at = int(insns_.size());
    for (Res r : res) last_[r][a] = at;
    latest_[a] = at;
    insns_.push_back(insn);
  }
  // load=0, compute=1, store=2; "prev" is the lower-numbered neighbour
  static void set_push(Insn& i, int from, int to) {
    if (to < from)
      i.deps().push_prev = true;
    else
      i.deps().push_next = true;
  }
  static void set_pop(Insn& i, int at, int from) {
    if (from < at)
      i.deps().pop_prev = true;
    else
      i.deps().pop_next = true;
  }

  // ---- instructions ----------------------------------------------------------------------------
  Insn mem(Stage stage, MemId type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride,
           std::array<uint32_t, 4> pads = {}) {
    Insn i{kMem, stage, {}, {}, {}};
    i.m.opcode = uint8_t(type == MemId::kOut ? Opcode::kStore : Opcode::kLoad);
    i.m.memory_type = uint8_t(type);
    i.m.sram_base = sram, i.m.dram_base = dram, i.m.y_size = y, i.m.x_size = x, i.m.x_stride = stride;
    i.m.y_pad_0 = pads[0], i.m.y_pad_1 = pads[1], i.m.x_pad_0 = pads[2], i.m.x_pad_1 = pads[3];
    return i;
  }
  uint32_t base_of(const DramBuffer& b, uint64_t unit) const { return uint32_t(b.phys() / unit); }
  const DramBuffer& buffer_of(MemId type) const {
    switch (type) {
      case MemId::kInp:
      case MemId::kAcc8Bit: return inp_;
      case MemId::kWgt: return wgt_;
      case MemId::kAcc: return acc_;
      case MemId::kUop: return uop_;
      case MemId::kOut: return out_;
    }
    return inp_;
  }

  /// A random 2D load of `type` into [lo, lo + span) of its SRAM from a DRAM buffer of `elems`.
  Insn random_load(Stage stage, MemId type, uint32_t lo, uint32_t span, const DramBuffer& buf, uint32_t unit,
                   uint32_t elems) {
    for (;;) {
      const uint32_t y = rnd(1, 3), x = rnd(1, 4), stride = x + rnd(0, 3);
      std::array<uint32_t, 4> pads{};
      if (coin(40)) pads = {rnd(0, 1), rnd(0, 1), rnd(0, 2), rnd(0, 1)};
      const uint32_t total = (y + pads[0] + pads[1]) * (x + pads[2] + pads[3]);
      if (total > span) continue;
      const uint32_t sram = lo + rnd(0, span - total);
      const uint32_t reach = (y - 1) * stride + x;
      const uint32_t dram = rnd(0, elems - reach);
      return mem(stage, type, sram, base_of(buf, unit) + dram, y, x, stride, pads);
    }
  }

  void init_loads() {
    // Whole regions, so nothing depends on earlier programs.
    emit(mem(Stage::kLoad, MemId::kInp, 0, base_of(inp_, c_.inp_elem_bytes()), 1, ni_, ni_), {kInp0, kInp1});
    emit(mem(Stage::kLoad, MemId::kWgt, 0, base_of(wgt_, c_.wgt_elem_bytes()), 1, nw_, nw_), {kWgt0, kWgt1});
    emit(mem(Stage::kCompute, MemId::kAcc, 0, base_of(acc_, c_.acc_elem_bytes()), 1, na_, na_), {kAcc0, kAcc1});
  }

  /// A micro-op kernel for thread h: LOAD UOP, then a GEMM or an ALU instruction over it.
  void random_kernel(int h) {
    const bool gemm = coin(55);
    const uint32_t qa = na_ / 4, qi = ni_ / 4, qw = nw_ / 4;  // index offsets stay inside a quarter
    const uint32_t ha = h * na_ / 2, hi = h * ni_ / 2, hw = h * nw_ / 2;
    const uint32_t n = rnd(1, 4), io = rnd(1, 3), ii = rnd(1, 3);
    // loop factors: (io - 1) * f_out + (ii - 1) * f_in < quarter
    auto factors = [&](uint32_t q, uint32_t& fo, uint32_t& fi) {
      fo = io > 1 ? rnd(0, (q - 1) / 2 / (io - 1)) : rnd(0, 2);
      fi = ii > 1 ? rnd(0, (q - 1) / 2 / (ii - 1)) : rnd(0, 2);
    };
    std::vector<Uop> uops(n);
    for (auto& u : uops) {
      u.dst = ha + rnd(0, qa - 1);
      u.src = gemm ? hi + rnd(0, qi - 1) : ha + rnd(0, qa - 1);
      u.wgt = gemm ? hw + rnd(0, qw - 1) : 0;
    }
    // uops: appended to the uop DRAM buffer, loaded into the thread's half of the uop SRAM
    const uint32_t sram = h * nu_ / 2 + rnd(0, nu_ / 2 - n);
    if (uop_used_ + n > kUopWords) return;
    for (uint32_t k = 0; k < n; ++k) uop_.as<uint32_t>()[uop_used_ + k] = isa_.encode(uops[k]);
    emit(mem(Stage::kCompute, MemId::kUop, sram, base_of(uop_, 4) + uop_used_, 1, n, n), {});
    uop_used_ += n;
    const Res acc = h ? kAcc1 : kAcc0;
    if (gemm) {
      Insn i{kGemm, Stage::kCompute, {}, {}, {}};
      GemmInsn& g = i.g;
      g.reset = coin(20);
      g.uop_bgn = sram, g.uop_end = sram + n, g.iter_out = io, g.iter_in = ii;
      factors(qa, g.dst_factor_out, g.dst_factor_in);
      factors(qi, g.src_factor_out, g.src_factor_in);
      factors(qw, g.wgt_factor_out, g.wgt_factor_in);
      emit(i, {acc, h ? kInp1 : kInp0, h ? kWgt1 : kWgt0});
    } else {
      Insn i{kAlu, Stage::kCompute, {}, {}, {}};
      AluInsn& a = i.a;
      a.uop_bgn = sram, a.uop_end = sram + n, a.iter_out = io, a.iter_in = ii;
      a.alu_opcode = uint8_t(rnd(0, 4));
      a.use_imm = coin(50);
      a.imm = a.alu_opcode == uint8_t(AluOp::kShr) ? int32_t(rnd(0, 40)) - 20 : int32_t(rnd(0, 200)) - 100;
      factors(qa, a.dst_factor_out, a.dst_factor_in);
      factors(qa, a.src_factor_out, a.src_factor_in);
      emit(i, {acc});
    }
  }

  void build() {
    init_loads();
    // now and then a burst of 300 micro-op kernels, 600 compute instructions: more than the compute
    // queue holds (512) by the time fetch has read them, so fetch holds the head of its buffer (RTL
    // cover ComputeQueueFull)
    if (coin(2)) {
      for (int k = 0; k < 300; ++k) random_kernel(int(rnd(0, 1)));
    }
    const int n = int(rnd(4, 30));
    for (int k = 0; k < n; ++k) {
      const int h = int(rnd(0, 1));
      const uint32_t r = rnd(0, 99);
      if (r < 15) {
        emit(random_load(Stage::kLoad, MemId::kInp, h * ni_ / 2, ni_ / 2, inp_, c_.inp_elem_bytes(), kInpElems),
             {h ? kInp1 : kInp0});
      } else if (r < 25) {
        emit(random_load(Stage::kLoad, MemId::kWgt, h * nw_ / 2, nw_ / 2, wgt_, c_.wgt_elem_bytes(), kWgtElems),
             {h ? kWgt1 : kWgt0});
      } else if (r < 32) {
        emit(random_load(Stage::kCompute, MemId::kAcc, h * na_ / 2, na_ / 2, acc_, c_.acc_elem_bytes(), kAccElems),
             {h ? kAcc1 : kAcc0});
      } else if (r < 37) {
        // ACC_8BIT: int8 elements of BATCH x BLOCK_OUT, sign-extended (DRAM unit acc_elem_bytes / 4)
        const uint32_t unit = c_.acc_elem_bytes() / 4;
        emit(random_load(Stage::kCompute, MemId::kAcc8Bit, h * na_ / 2, na_ / 2, inp_, unit,
                         uint32_t(inp_.size() / unit)),
             {h ? kAcc1 : kAcc0});
      } else if (r < 40) {
        // micro-ops loaded with padding and strided rows into the thread's half of the micro-op buffer
        // (zero micro-ops for the pads; no kernel uses them: each kernel loads its own first)
        emit(random_load(Stage::kCompute, MemId::kUop, h * nu_ / 2, nu_ / 2, uop_, 4, kUopWords), {});
      } else if (r < 80) {
        random_kernel(h);
      } else {
        const uint32_t lo = h * na_ / 2, span = na_ / 2;
        const uint32_t y = rnd(1, 3), x = rnd(1, 4), stride = x + rnd(0, 3);
        if (y * x > span) continue;
        const uint32_t sram = lo + rnd(0, span - y * x);
        const uint32_t dram = rnd(0, kOutElems - ((y - 1) * stride + x));
        emit(mem(Stage::kStore, MemId::kOut, sram, base_of(out_, c_.out_elem_bytes()) + dram, y, x, stride),
             {h ? kAcc1 : kAcc0});
      }
    }
    // Closing: FINISH waits for the last load and the last store (no-op instructions that follow
    // them in their stages push the tokens FINISH pops).
    Insn ld_nop = mem(Stage::kLoad, MemId::kInp, 0, 0, 0, 0, 0);
    Insn st_nop = mem(Stage::kStore, MemId::kOut, 0, 0, 0, 0, 0);
    ld_nop.m.deps.push_next = true;
    st_nop.m.deps.push_prev = true;
    // the store no-op runs after every compute write it could race with: pop from compute if needed
    emit(ld_nop, {});
    emit(st_nop, {kAcc0, kAcc1});
    Insn fin{kFinish, Stage::kCompute, {}, {}, {}};
    fin.g.opcode = uint8_t(Opcode::kFinish);
    fin.g.deps.pop_prev = fin.g.deps.pop_next = true;
    insns_.push_back(fin);
  }

  const Config& c_;
  Isa isa_;
  std::mt19937_64 rng_;
  DramBuffer inp_, wgt_, acc_, uop_, out_;
  std::vector<std::vector<uint8_t>> initial_;
  uint32_t ni_, nw_, na_, nu_, uop_used_ = 0, extra_count_ = 0;
  std::vector<Insn> insns_;
  int last_[kNumRes][3] = {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}};
  int latest_[3] = {-1, -1, -1};
  int synced_[3][3] = {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}};
};

RandomProgram::RandomProgram(const Config& c, uint64_t seed) : impl_(std::make_unique<Impl>(c, seed)) {}
RandomProgram::~RandomProgram() = default;
RandomProgram::RandomProgram(RandomProgram&&) noexcept = default;
RandomProgram& RandomProgram::operator=(RandomProgram&&) noexcept = default;
void RandomProgram::reset_memory() { impl_->reset_memory(); }
RunStatus RandomProgram::run(Device& dev) { return impl_->run(dev); }
ErrorKind RandomProgram::inject(Defect d) { return impl_->inject(d); }
std::vector<uint8_t> RandomProgram::output() const { return impl_->output(); }
size_t RandomProgram::size() const { return impl_->size(); }
std::string RandomProgram::listing() const { return impl_->listing(); }

DifferentialResult differential(const Config& c, Device& reference, Device& dut, const std::string& dut_name,
                                uint64_t first, uint64_t count, uint64_t max_mismatches) {
  DifferentialResult r;
  for (uint64_t k = 0; k < count && r.mismatches.size() < max_mismatches; ++k) {
    const uint64_t seed = first + k;
    RandomProgram p(c, seed);
    r.instructions += p.size();
    ++r.programs;
    p.reset_memory();
    reference.clear_stats();
    const RunStatus fs = p.run(reference);
    const auto fout = p.output();
    const Stats fstats = reference.stats();
    p.reset_memory();
    dut.clear_stats();
    const RunStatus ts = p.run(dut);
    const auto tout = p.output();
    const Stats tstats = dut.stats();
    r.stats += tstats;
    r.cycles += tstats.cycle_count.value_or(0);
    std::string why;
    if (fs != RunStatus::kOk) {
      why = "the reference refused the program: " + reference.last_error();
    } else if (ts != RunStatus::kOk) {
      why = dut_name + " failed: " + dut.last_error();
    } else if (!fstats.counters_equal(tstats)) {
      why = "statistics differ: reference " + fstats.to_json() + " " + dut_name + " " + tstats.to_json();
    } else if (fout != tout) {
      size_t i = 0;
      while (fout[i] == tout[i]) ++i;
      why = "output byte " + std::to_string(i) + " differs: reference " + std::to_string(fout[i]) + " " + dut_name +
            " " + std::to_string(tout[i]);
    }
    if (!why.empty()) r.mismatches.push_back({seed, why, p.listing()});
  }
  return r;
}

}  // namespace vta
