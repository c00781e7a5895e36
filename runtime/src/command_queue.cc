#include "vta/runtime/command_queue.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "vta/driver/program.h"

namespace vta::runtime {
namespace {

// The four dependency flags sit at bits 3..6 of every instruction format.
constexpr uint64_t kPopPrev = 1u << 3, kPopNext = 1u << 4, kPushPrev = 1u << 5, kPushNext = 1u << 6;
constexpr uint64_t kAllDeps = kPopPrev | kPopNext | kPushPrev | kPushNext;

int idx(Stage s) { return static_cast<int>(s) - 1; }

Stage stage_from_qid(int qid, const char* call, int from, int to) {
  if (qid < 1 || qid > 3 || std::abs(from - to) != 1) {
    std::ostringstream s;
    s << call << "(" << from << ", " << to << "): stages must be 1 (load), 2 (compute) or 3 (store) and adjacent; "
      << "there is no token queue between them";
    throw RuntimeError(s.str());
  }
  return static_cast<Stage>(qid);
}

// Token queue touched by a flag bit of an instruction executing in `stage` (index into a ledger in
// TokenQueue order), or -1 when the module ignores the flag.
int queue_of(Stage stage, uint64_t flag) {
  const DepFlag f = flag == kPopPrev    ? DepFlag::kPopPrev
                    : flag == kPopNext  ? DepFlag::kPopNext
                    : flag == kPushPrev ? DepFlag::kPushPrev
                                        : DepFlag::kPushNext;
  const auto q = token_queue(stage, f);
  return q ? int(*q) : -1;
}

// Adds the token effect of one instruction to a ledger (l2g, g2l, g2s, s2g).
void apply_tokens(const RawInsn& r, int64_t ledger[4]) {
  const Stage s = stage_of(r);
  for (uint64_t f : {kPopPrev, kPopNext, kPushPrev, kPushNext}) {
    const int q = (r.lo & f) ? queue_of(s, f) : -1;
    if (q >= 0) ledger[q] += (f == kPushPrev || f == kPushNext) ? 1 : -1;
  }
}

}  // namespace

CommandQueue::CommandQueue(std::unique_ptr<Device> device, QueueOptions options)
    : device_(std::move(device)), options_(options), isa_(device_->config()) {}

CommandQueue::~CommandQueue() = default;

void CommandQueue::trace_line(const std::string& line) const {
  if (options_.trace == nullptr) return;
  std::fputs(line.c_str(), options_.trace);
  std::fputc('\n', options_.trace);
}

std::string CommandQueue::buffer_name(const DataBuffer& b) const {
  if (!b.name.empty()) return b.name;
  std::ostringstream s;
  s << "buffer@0x" << std::hex << b.phys;
  return s.str();
}

std::optional<Stage> CommandQueue::pipeline_stage(const RawInsn& r) const {
  const uint8_t op = Isa::opcode_of(r);
  if (op == uint8_t(Opcode::kStore)) return Stage::kStore;
  if (op == uint8_t(Opcode::kLoad)) {
    if (isa_.decode_mem(r).x_size == 0) return std::nullopt;  // a load NOP absorbs no push
    return stage_of(r);
  }
  return Stage::kCompute;
}

RawInsn& CommandQueue::new_insn(Stage stage, RawInsn insn) {
  insn.lo &= ~kAllDeps;
  if (pending_prev_[idx(stage)]) insn.lo |= kPopPrev;
  if (pending_next_[idx(stage)]) insn.lo |= kPopNext;
  pending_prev_[idx(stage)] = pending_next_[idx(stage)] = false;
  insns_.push_back(insn);
  return insns_.back();
}

void CommandQueue::emit_nop(Stage stage) {
  MemInsn m;
  switch (stage) {
    case Stage::kLoad: m.memory_type = uint8_t(MemId::kInp); break;
    case Stage::kCompute: m.memory_type = uint8_t(MemId::kUop); break;
    case Stage::kStore: m.opcode = uint8_t(Opcode::kStore), m.memory_type = 0; break;
  }
  new_insn(stage, isa_.encode(m));
}

void CommandQueue::commit_pending_pops(Stage stage) {
  if (pending_prev_[idx(stage)] || pending_next_[idx(stage)]) emit_nop(stage);
}

void CommandQueue::check_overflow() {
  if (insns_.size() + 6 > options_.max_insns) synchronize(1u << 31);
}

void CommandQueue::load_buffer_2d(const DataBuffer& src, uint32_t src_elem_offset, uint32_t x_size, uint32_t y_size,
                                  uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before, uint32_t x_pad_after,
                                  uint32_t y_pad_after, uint32_t dst_sram_index, uint32_t dst_memory_type) {
  std::ostringstream call;
  call << "VTALoadBuffer2D(" << buffer_name(src) << ", " << src_elem_offset << ", " << x_size << ", " << y_size << ", "
       << x_stride << ", " << x_pad_before << ", " << y_pad_before << ", " << x_pad_after << ", " << y_pad_after << ", "
       << dst_sram_index << ", " << dst_memory_type << ")";
  trace_line(call.str());
  const auto loadable = [&](MemId t) { return dst_memory_type == uint32_t(t); };
  if (!loadable(MemId::kInp) && !loadable(MemId::kWgt) && !loadable(MemId::kAcc) && !loadable(MemId::kAcc8Bit)) {
    throw RuntimeError(call.str() + ": memory type " + std::to_string(dst_memory_type) +
                       " cannot be loaded with VTALoadBuffer2D (INP 2, WGT 1, ACC 3, ACC_8BIT 5)");
  }
  const uint64_t unit = dram_unit(isa_.config(), MemId(dst_memory_type));
  check_transfer(call.str(), src, unit, src_elem_offset, x_size, y_size, x_stride);
  check_overflow();
  MemInsn m;
  m.memory_type = uint8_t(dst_memory_type);
  m.sram_base = dst_sram_index, m.dram_base = dram_base(call.str(), src, unit, src_elem_offset);
  m.y_size = y_size, m.x_size = x_size, m.x_stride = x_stride;
  m.x_pad_0 = x_pad_before, m.y_pad_0 = y_pad_before, m.x_pad_1 = x_pad_after, m.y_pad_1 = y_pad_after;
  const RawInsn raw = encode_mem(call.str(), m);
  new_insn(stage_of(raw), raw);
}

uint32_t CommandQueue::dram_base(const std::string& call, const DataBuffer& b, uint64_t unit, uint32_t offset) const {
  const uint64_t dram = b.phys / unit + offset;
  if (b.phys % unit != 0 || dram > 0xffffffffu) {
    throw RuntimeError(call + ": the buffer address does not fit the 32-bit dram_base field");
  }
  return uint32_t(dram);
}

void CommandQueue::check_transfer(const std::string& call, const DataBuffer& b, uint64_t unit, uint32_t offset,
                                  uint32_t x_size, uint32_t y_size, uint32_t x_stride) {
  if (x_size == 0 || y_size == 0) return;  // moves no data
  // Elements [offset, offset + (y_size - 1) * x_stride + x_size) of the buffer; 64-bit arithmetic
  // cannot overflow with 32-bit operands and element sizes below 2^16.
  const uint64_t first = uint64_t(offset) * unit;
  const uint64_t end = (uint64_t(offset) + uint64_t(y_size - 1) * x_stride + x_size) * unit;
  if (end > b.size) {
    std::ostringstream s;
    s << call << ": the transfer reaches bytes [" << first << ", " << end << ") of " << buffer_name(b) << ", which has "
      << b.size << " bytes";
    throw RuntimeError(s.str());
  }
  if (b.memory) pinned_.insert(b.memory);
}

RawInsn CommandQueue::encode_mem(const std::string& call, const MemInsn& m) const {
  try {
    return isa_.encode(m);
  } catch (const IsaError& e) {
    throw RuntimeError(call + ": " + e.what());
  }
}

void CommandQueue::store_buffer_2d(uint32_t src_sram_index, uint32_t src_memory_type, const DataBuffer& dst,
                                   uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride) {
  std::ostringstream call;
  call << "VTAStoreBuffer2D(" << src_sram_index << ", " << src_memory_type << ", " << buffer_name(dst) << ", "
       << dst_elem_offset << ", " << x_size << ", " << y_size << ", " << x_stride << ")";
  trace_line(call.str());
  if (src_memory_type != uint32_t(MemId::kOut)) {
    throw RuntimeError(call.str() + ": only the output buffer (memory type 4) can be stored");
  }
  check_transfer(call.str(), dst, isa_.config().out_elem_bytes(), dst_elem_offset, x_size, y_size, x_stride);
  check_overflow();
  MemInsn m;
  m.opcode = uint8_t(Opcode::kStore), m.memory_type = uint8_t(MemId::kOut);
  m.sram_base = src_sram_index;
  m.dram_base = dram_base(call.str(), dst, isa_.config().out_elem_bytes(), dst_elem_offset);
  m.y_size = y_size, m.x_size = x_size, m.x_stride = x_stride;
  new_insn(Stage::kStore, encode_mem(call.str(), m));
}

void CommandQueue::dep_pop(int from, int to) {
  trace_line("VTADepPop(" + std::to_string(from) + ", " + std::to_string(to) + ")");
  do_dep_pop(from, to);
}

void CommandQueue::dep_push(int from, int to) {
  trace_line("VTADepPush(" + std::to_string(from) + ", " + std::to_string(to) + ")");
  check_overflow();
  do_dep_push(from, to);
}

void CommandQueue::do_dep_pop(int from, int to) {
  stage_from_qid(from, "VTADepPop", from, to);
  const Stage s = stage_from_qid(to, "VTADepPop", from, to);
  bool& pending = from < to ? pending_prev_[idx(s)] : pending_next_[idx(s)];
  // A second pop of the same kind cannot share an instruction with the first.
  if (pending) commit_pending_pops(s);
  pending = true;
}

void CommandQueue::do_dep_push(int from, int to) {
  const Stage s = stage_from_qid(from, "VTADepPush", from, to);
  stage_from_qid(to, "VTADepPush", from, to);
  commit_pending_pops(s);
  const uint64_t flag = from < to ? kPushNext : kPushPrev;
  // Merge into the last instruction of the whole stream when it runs on the pushing stage.
  if (!insns_.empty() && pipeline_stage(insns_.back()) == s && (insns_.back().lo & flag) == 0) {
    insns_.back().lo |= flag;
    return;
  }
  emit_nop(s);
  insns_.back().lo |= flag;
}

uint64_t CommandQueue::new_site_id() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

void UopKernel::loop_begin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor, uint32_t wgt_factor) {
  if (!uops.empty()) throw KernelError("VTAUopLoopBegin after the first VTAUopPush: loops must enclose every micro-op");
  if (loops.size() == 2) throw KernelError("a third VTAUopLoopBegin: a kernel has at most two loops");
  loops.push_back({extent, dst_factor, src_factor, wgt_factor});
  ++open_loops;
  ops.push_back({KernelOp::kLoopBegin, {extent, dst_factor, src_factor, wgt_factor}});
}

void UopKernel::loop_end() {
  if (open_loops == 0) throw KernelError("VTAUopLoopEnd without a matching VTAUopLoopBegin");
  --open_loops;
  ops.push_back({KernelOp::kLoopEnd, {}});
}

void UopKernel::push(uint32_t uop_mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index, uint32_t wgt_index,
                     uint32_t uop_opcode, uint32_t uop_use_imm, int32_t imm_val) {
  if (uop_mode > 1) throw KernelError("VTAUopPush mode " + std::to_string(uop_mode) + " (0 = GEMM, 1 = ALU)");
  if (!uops.empty() && (mode != int(uop_mode) || reset != (reset_out != 0) ||
                        (uop_mode == 1 && (opcode != uop_opcode || use_imm != uop_use_imm || imm != imm_val)))) {
    throw KernelError("micro-op " + std::to_string(uops.size()) +
                      " differs from the first in mode, reset or ALU operation; one kernel is one instruction");
  }
  if (uop_mode == 1 && uop_opcode > 4) {
    throw KernelError("ALU opcode " + std::to_string(uop_opcode) + " (MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)");
  }
  if (uop_mode == 1 && uop_use_imm && (imm_val < -32768 || imm_val > 32767)) {
    throw KernelError("ALU immediate " + std::to_string(imm_val) + " does not fit in 16 signed bits");
  }
  if (uops.empty())
    mode = int(uop_mode), reset = reset_out != 0, opcode = uop_opcode, use_imm = uop_use_imm, imm = imm_val;
  uops.push_back({dst_index, src_index, wgt_index});
  ops.push_back({KernelOp::kPush,
                 {uop_mode, reset_out, dst_index, src_index, wgt_index, uop_opcode, uop_use_imm,
                  static_cast<uint32_t>(imm_val)}});
}

void CommandQueue::push_kernel(bool gemm, uint64_t site, int64_t key, const std::function<void(UopKernel&)>& record) {
  const char* call = gemm ? "VTAPushGEMMOp" : "VTAPushALUOp";
  auto& slot = kernels_[{site, key}];
  if (!slot) {
    auto k = std::make_unique<UopKernel>();
    record(*k);  // throws RuntimeError naming the recording rule broken; the slot stays empty
    if (k->uops.empty()) throw RuntimeError(std::string(call) + ": the kernel recorded no micro-op (VTAUopPush)");
    if (k->open_loops != 0) throw RuntimeError(std::string(call) + ": a VTAUopLoopBegin has no VTAUopLoopEnd");
    if (k->mode != (gemm ? 0 : 1)) {
      throw RuntimeError(std::string(call) + ": the kernel's micro-ops are mode " + std::to_string(k->mode) +
                         (gemm ? " (ALU) but were pushed as a GEMM" : " (GEMM) but were pushed as an ALU op"));
    }
    if (k->uops.size() > isa_.config().uop_depth()) {
      throw RuntimeError(std::string(call) + ": the kernel has " + std::to_string(k->uops.size()) +
                         " micro-ops but the micro-op buffer holds " + std::to_string(isa_.config().uop_depth()));
    }
    for (const Uop& u : k->uops) {
      try {
        isa_.encode(u);
      } catch (const IsaError& e) {
        throw RuntimeError(std::string(call) + ": " + e.what());
      }
    }
    if (debug_ & (1 << 2)) {
      std::fprintf(stderr, "%s kernel (key %lld), %zu micro-ops:\n", call, static_cast<long long>(key), k->uops.size());
      for (size_t i = 0; i < k->uops.size(); ++i)
        std::fprintf(stderr, "  %zu: %s\n", i, isa_.disassemble(k->uops[i]).c_str());
    }
    slot = std::move(k);
  }
  UopKernel& k = *slot;
  if (options_.trace) {
    std::ostringstream t;
    t << call << " {";
    const char* sep = " ";
    for (const KernelOp& op : k.ops) {
      t << sep;
      sep = "; ";
      if (op.kind == KernelOp::kLoopBegin) {
        t << "VTAUopLoopBegin(" << op.a[0] << ", " << op.a[1] << ", " << op.a[2] << ", " << op.a[3] << ")";
      } else if (op.kind == KernelOp::kLoopEnd) {
        t << "VTAUopLoopEnd()";
      } else {
        t << "VTAUopPush(" << op.a[0] << ", " << op.a[1] << ", " << op.a[2] << ", " << op.a[3] << ", " << op.a[4]
          << ", " << op.a[5] << ", " << op.a[6] << ", " << static_cast<int32_t>(op.a[7]) << ")";
      }
    }
    t << " }";
    trace_line(t.str());
  }
  check_overflow();

  // Load the kernel unless it is resident; the micro-op SRAM is filled like a ring.
  const auto size = uint32_t(k.uops.size());
  if (!k.resident) {
    if (uop_cursor_ + size > isa_.config().uop_depth()) uop_cursor_ = 0;
    const uint32_t begin = uop_cursor_, end = begin + size;
    std::erase_if(resident_, [&](UopKernel* other) {
      const bool overlap = other->sram_begin < end && begin < other->sram_begin + other->uops.size();
      if (overlap) other->resident = false;
      return overlap;
    });
    k.resident = true;
    k.sram_begin = begin;
    resident_.push_back(&k);
    uop_cursor_ = end;
    MemInsn m;
    m.memory_type = uint8_t(MemId::kUop), m.sram_base = begin, m.y_size = 1, m.x_size = size, m.x_stride = size;
    uop_loads_.emplace_back(insns_.size(), uint32_t(uop_image_.size()));
    for (const Uop& u : k.uops) uop_image_.push_back(isa_.encode(u));
    new_insn(Stage::kCompute, isa_.encode(m));
  }

  UopKernel::Loop none{1, 0, 0, 0};
  const UopKernel::Loop outer = !k.loops.empty() ? k.loops[0] : none;
  const UopKernel::Loop inner = k.loops.size() >= 2 ? k.loops[1] : none;
  RawInsn raw;
  try {
    if (gemm) {
      GemmInsn g;
      g.reset = k.reset, g.uop_bgn = k.sram_begin, g.uop_end = k.sram_begin + size;
      g.iter_out = outer.extent, g.dst_factor_out = outer.dst_factor, g.src_factor_out = outer.src_factor;
      g.wgt_factor_out = outer.wgt_factor;
      g.iter_in = inner.extent, g.dst_factor_in = inner.dst_factor, g.src_factor_in = inner.src_factor;
      g.wgt_factor_in = inner.wgt_factor;
      raw = isa_.encode(g);
    } else {
      // One loop is the inner loop for ALU (spec 6.4).
      const UopKernel::Loop o = k.loops.size() == 2 ? outer : none;
      const UopKernel::Loop i = k.loops.size() == 2 ? inner : k.loops.size() == 1 ? outer : none;
      AluInsn a;
      a.alu_opcode = uint8_t(k.opcode), a.use_imm = k.use_imm != 0, a.imm = k.imm;
      a.uop_bgn = k.sram_begin, a.uop_end = k.sram_begin + size;
      a.iter_out = o.extent, a.dst_factor_out = o.dst_factor, a.src_factor_out = o.src_factor;
      a.iter_in = i.extent, a.dst_factor_in = i.dst_factor, a.src_factor_in = i.src_factor;
      raw = isa_.encode(a);
    }
  } catch (const IsaError& e) {
    throw RuntimeError(std::string(call) + ": " + e.what());
  }
  new_insn(Stage::kCompute, raw);
}

TokenCounts CommandQueue::ledger() const {
  int64_t l[4] = {ledger_[0], ledger_[1], ledger_[2], ledger_[3]};
  for (const RawInsn& r : insns_) apply_tokens(r, l);
  auto clamp = [](int64_t v) { return static_cast<uint64_t>(v < 0 ? 0 : v); };
  return {clamp(l[0]), clamp(l[1]), clamp(l[2]), clamp(l[3])};
}

void CommandQueue::close_batch() {
  if (debug_ & (1 << 5)) {
    serialize();
  } else {
    // The closing protocol (spec 6.6): load and store signal completion, compute waits for both.
    do_dep_push(3, 2);
    do_dep_push(1, 2);
    do_dep_pop(3, 2);
    do_dep_pop(1, 2);
    commit_pending_pops(Stage::kCompute);
  }
  GemmInsn fin;
  fin.opcode = uint8_t(Opcode::kFinish);
  new_insn(Stage::kCompute, isa_.encode(fin));
}

// FORCE_SERIAL: every instruction waits for the one before it. Adjacent modules exchange a token
// directly; load and store have no queue, so a compute NOP relays between them.
void CommandQueue::serialize() {
  std::vector<RawInsn> out;
  std::vector<size_t> new_index(insns_.size());
  auto link = [&](RawInsn& prev, Stage a, RawInsn& cur, Stage b) {
    prev.lo |= idx(a) < idx(b) ? kPushNext : kPushPrev;
    cur.lo |= idx(a) < idx(b) ? kPopPrev : kPopNext;
  };
  std::optional<Stage> last;
  for (size_t i = 0; i < insns_.size(); ++i) {
    RawInsn cur = insns_[i];
    cur.lo &= ~kAllDeps;
    const Stage s = stage_of(cur);
    if (last && *last != s) {
      if (std::abs(idx(*last) - idx(s)) == 2) {
        MemInsn m;
        m.memory_type = uint8_t(MemId::kUop);
        RawInsn relay = isa_.encode(m);
        link(out.back(), *last, relay, Stage::kCompute);
        out.push_back(relay);
        link(out.back(), Stage::kCompute, cur, s);
      } else {
        link(out.back(), *last, cur, s);
      }
    }
    new_index[i] = out.size();
    out.push_back(cur);
    last = s;
  }
  for (auto& [index, offset] : uop_loads_) index = new_index[index];
  pending_prev_[0] = pending_prev_[1] = pending_prev_[2] = false;
  pending_next_[0] = pending_next_[1] = pending_next_[2] = false;
  insns_ = std::move(out);
  if (last && *last != Stage::kCompute) {
    insns_.back().lo |= *last == Stage::kLoad ? kPushNext : kPushPrev;
    (*last == Stage::kLoad ? pending_prev_ : pending_next_)[idx(Stage::kCompute)] = true;
  }
}

void CommandQueue::dump(const std::vector<RawInsn>& insns) const {
  int64_t l[4] = {ledger_[0], ledger_[1], ledger_[2], ledger_[3]};
  std::fprintf(stderr, "VTA instruction stream (%zu instructions):\n", insns.size());
  for (size_t i = 0; i < insns.size(); ++i) {
    apply_tokens(insns[i], l);
    std::fprintf(stderr, "%6zu [%-7s] %s  | l2g=%lld g2l=%lld g2s=%lld s2g=%lld\n", i, to_string(stage_of(insns[i])),
                 isa_.disassemble(insns[i]).c_str(), static_cast<long long>(l[0]), static_cast<long long>(l[1]),
                 static_cast<long long>(l[2]), static_cast<long long>(l[3]));
  }
}

void CommandQueue::synchronize(uint32_t wait_cycles) {
  trace_line("VTASynchronize()");
  close_batch();
  // Every queue must end with at least as many pushes as pops, or the device would deadlock.
  int64_t l[4] = {ledger_[0], ledger_[1], ledger_[2], ledger_[3]};
  for (const RawInsn& r : insns_) apply_tokens(r, l);
  for (int q = 0; q < 4; ++q) {
    if (l[q] < 0) {
      discard_batch();
      throw RuntimeError("VTASynchronize: unbalanced dependency tokens: the token queue " +
                         std::string(to_string(TokenQueue(q))) + " is popped " + std::to_string(-l[q]) +
                         " more time(s) than it is pushed; the device would deadlock");
    }
  }
  Dram& dram = options_.dram != nullptr ? *options_.dram : Dram::global();
  struct Free {
    Dram* dram;
    void operator()(void* p) const { dram->free(p); }
  };
  std::unique_ptr<void, Free> uop_buf(nullptr, Free{&dram});
  if (!uop_image_.empty()) {
    uop_buf.reset(dram.alloc(uop_image_.size() * 4));
    if (!uop_buf) throw RuntimeError("VTASynchronize: out of device memory for the micro-op image");
    std::memcpy(uop_buf.get(), uop_image_.data(), uop_image_.size() * 4);
    const uint32_t base = uint32_t(dram.phys_addr(uop_buf.get()) / 4);
    for (const auto& [index, offset] : uop_loads_) {
      MemInsn m = isa_.decode_mem(insns_[index]);
      m.dram_base = base + offset;
      const uint64_t deps = insns_[index].lo & kAllDeps;
      insns_[index] = isa_.encode(m);
      insns_[index].lo |= deps;
    }
  }
  std::unique_ptr<void, Free> insn_buf(dram.alloc(insns_.size() * Config::kInsnElemBytes), Free{&dram});
  if (!insn_buf) throw RuntimeError("VTASynchronize: out of device memory for the instruction stream");
  store_insns(insn_buf.get(), insns_);
  if (debug_ & (1 << 1)) dump(insns_);
  last_stream_ = insns_;
  const RunStatus status = device_->run(dram.phys_addr(insn_buf.get()), uint32_t(insns_.size()), wait_cycles);
  const size_t count = insns_.size();
  discard_batch();
  ++syncs_;
  if (status != RunStatus::kOk) {
    ledger_[0] = ledger_[1] = ledger_[2] = ledger_[3] = 0;  // a failed run resets the device's queues
    throw RuntimeError("VTASynchronize: the device run of " + std::to_string(count) + " instructions failed:\n" +
                       device_->last_error());
  }
  std::copy(l, l + 4, ledger_);
}

void CommandQueue::drain_tokens(uint32_t wait_cycles) {
  if (!insns_.empty()) throw RuntimeError("drain_tokens: a batch is open; synchronize it first");
  // each queue's leftovers popped by its consumer: l2g (1 -> 2), g2l (2 -> 1), g2s (2 -> 3), s2g (3 -> 2)
  constexpr int kFrom[4] = {1, 2, 2, 3}, kTo[4] = {2, 1, 3, 2};
  bool any = false;
  for (int q = 0; q < 4; ++q) {
    // (a pop the last program left pending, for the next batch's first instruction, takes one of them:
    // it is made a no-op of this batch instead)
    const Stage consumer = stage_from_qid(kTo[q], "drain_tokens", kFrom[q], kTo[q]);
    const bool pending = kFrom[q] < kTo[q] ? pending_prev_[idx(consumer)] : pending_next_[idx(consumer)];
    for (int64_t k = pending ? 1 : 0; k < ledger_[q]; ++k) do_dep_pop(kFrom[q], kTo[q]);
    any = any || ledger_[q] > 0;
  }
  if (!any) return;
  for (const Stage s : {Stage::kLoad, Stage::kCompute, Stage::kStore}) commit_pending_pops(s);
  trace_line("(the tokens earlier batches left, drained)");
  synchronize(wait_cycles);
}

CommandQueue::Checkpoint CommandQueue::checkpoint() const {
  Checkpoint c;
  c.valid = insns_.empty() && uop_image_.empty();
  c.batch = syncs_;
  std::copy(std::begin(pending_prev_), std::end(pending_prev_), c.pending_prev);
  std::copy(std::begin(pending_next_), std::end(pending_next_), c.pending_next);
  return c;
}

void CommandQueue::discard_batch(const Checkpoint& back_to) {
  discard_batch();
  if (!back_to.valid || back_to.batch != syncs_) return;
  for (const Stage s : {Stage::kLoad, Stage::kCompute, Stage::kStore}) {
    auto keep = [&](bool was, DepFlag flag) {
      const std::optional<TokenQueue> q = token_queue(s, flag);
      return was && q && ledger_[size_t(*q)] > 0;
    };
    pending_prev_[idx(s)] = keep(back_to.pending_prev[idx(s)], DepFlag::kPopPrev);
    pending_next_[idx(s)] = keep(back_to.pending_next[idx(s)], DepFlag::kPopNext);
  }
}

void CommandQueue::discard_batch() {
  insns_.clear();
  pinned_.clear();  // buffers freed meanwhile release their memory now
  // Pops still pending belong to the batch as well (after a successful synchronize there are none).
  std::fill(std::begin(pending_prev_), std::end(pending_prev_), false);
  std::fill(std::begin(pending_next_), std::end(pending_next_), false);
  uop_image_.clear();
  uop_loads_.clear();
  for (UopKernel* k : resident_) k->resident = false;
  resident_.clear();
  uop_cursor_ = 0;
}

}  // namespace vta::runtime
