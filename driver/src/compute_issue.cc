#include "vta/driver/compute_issue.h"

#include <algorithm>

#include "vta/driver/program.h"

namespace vta {

IndexRange IndexRange::merged(const IndexRange& o) const {
  if (empty()) return o;
  if (o.empty()) return *this;
  return {std::min(lo, o.lo), std::max(hi, o.hi)};
}

void UopLoadTable::on_load(const Isa& isa, uint32_t sram_base, std::span<const uint32_t> words) {
  const uint64_t end = uint64_t(sram_base) + words.size();
  invalidate(sram_base, end);
  if (words.empty()) return;
  Entry fresh;
  fresh.valid = true;
  fresh.base = sram_base;
  fresh.end = uint32_t(end);
  for (const uint32_t w : words) {
    const Uop u = isa.decode_uop(w);
    fresh.span.dst = fresh.span.dst.merged({u.dst, u.dst});
    fresh.span.src = fresh.span.src.merged({u.src, u.src});
  }
  fresh.last_use = ++clock_;
  // an invalid entry (never used, or overwritten), else the one unused the longest
  Entry* slot = &entries_[0];
  for (Entry& e : entries_) {
    if (!e.valid) {
      slot = &e;
      break;
    }
    if (e.last_use < slot->last_use) slot = &e;
  }
  *slot = fresh;
}

void UopLoadTable::invalidate(uint64_t base, uint64_t end) {
  for (Entry& e : entries_) {
    if (e.valid && e.base < end && base < e.end) e.valid = false;
  }
}

std::optional<UopLoadTable::Span> UopLoadTable::find(uint32_t bgn, uint32_t end) {
  for (Entry& e : entries_) {
    if (e.valid && e.base <= bgn && end <= e.end) {
      e.last_use = ++clock_;
      return e.span;
    }
  }
  return std::nullopt;
}

namespace {

// The indices a loop of micro-ops reaches from `r` (the micro-ops' own): r + i * f_out + j * f_in
// for i < iter_out, j < iter_in (the factors are unsigned, so the largest is at the last iteration).
IndexRange loop_reach(const IndexRange& r, uint32_t iter_out, uint32_t iter_in, uint32_t f_out, uint32_t f_in) {
  if (r.empty() || iter_out == 0 || iter_in == 0) return {};
  return {r.lo, r.hi + uint64_t(iter_out - 1) * f_out + uint64_t(iter_in - 1) * f_in};
}

// The elements [sram_base, sram_base + rows x cols) a LOAD writes (pads included).
IndexRange load_reach(const MemInsn& m) {
  const uint64_t n = uint64_t(m.y_pad_0 + m.y_size + m.y_pad_1) * (m.x_pad_0 + m.x_size + m.x_pad_1);
  if (n == 0) return {};
  return {m.sram_base, m.sram_base + n - 1};
}

}  // namespace

ComputeFootprint compute_footprint(const Isa& isa, const RawInsn& raw, UopLoadTable& table) {
  const Config& c = isa.config();
  const uint64_t acc_depth = sram_depth(c, MemId::kAcc);
  ComputeFootprint f;
  const uint8_t op = Isa::opcode_of(raw);
  auto within = [](const IndexRange& r, uint64_t depth) { return !r.empty() && r.hi < depth; };
  // GEMM and ALU: the micro-ops' recorded index ranges through the loop
  auto loop_footprint = [&](const auto& insn, ComputeFootprint::Slot slot) {
    f.slot = slot;
    if (insn.uop_end > insn.uop_bgn) f.uops = {insn.uop_bgn, uint64_t(insn.uop_end) - 1};
    return insn.uop_end > insn.uop_bgn ? table.find(insn.uop_bgn, insn.uop_end) : std::nullopt;
  };
  if (op == uint8_t(Opcode::kGemm)) {
    const GemmInsn g = isa.decode_gemm(raw);
    const auto span = loop_footprint(g, ComputeFootprint::Slot::kG);
    if (!span) return f;  // unknown: alone
    f.acc = loop_reach(span->dst, g.iter_out, g.iter_in, g.dst_factor_out, g.dst_factor_in);
    f.known = within(f.acc, acc_depth);  // an index past the buffer stops the run: alone
    return f;
  }
  if (op == uint8_t(Opcode::kAlu)) {
    const AluInsn a = isa.decode_alu(raw);
    const auto span = loop_footprint(a, ComputeFootprint::Slot::kA);
    if (!span) return f;
    f.acc = loop_reach(span->dst, a.iter_out, a.iter_in, a.dst_factor_out, a.dst_factor_in);
    if (!a.use_imm) f.acc_src = loop_reach(span->src, a.iter_out, a.iter_in, a.src_factor_out, a.src_factor_in);
    f.known = within(f.acc, acc_depth) && (a.use_imm || within(f.acc_src, acc_depth));
    return f;
  }
  if (op == uint8_t(Opcode::kLoad)) {
    const MemInsn m = isa.decode_mem(raw);
    if (m.x_size == 0 || !is_valid_mem_id(m.memory_type)) return f;  // completes at once, or refused
    const MemId t = MemId(m.memory_type);
    const IndexRange r = load_reach(m);
    if (t == MemId::kUop) {
      f.slot = ComputeFootprint::Slot::kA;
      f.uops = r;
      f.known = within(r, sram_depth(c, MemId::kUop));
    } else if (t == MemId::kAcc || t == MemId::kAcc8Bit) {
      f.slot = ComputeFootprint::Slot::kA;
      f.acc = r;
      f.known = within(r, acc_depth);
    }
  }
  return f;  // FINISH and anything else: alone
}

std::vector<ComputeFootprint> compute_footprints(
    const Isa& isa, const std::vector<RawInsn>& insns,
    const std::function<const std::vector<uint32_t>*(size_t index)>& uop_words) {
  std::vector<ComputeFootprint> fps(insns.size());
  UopLoadTable table;
  for (size_t i = 0; i < insns.size(); ++i) {
    if (stage_of(insns[i]) != Stage::kCompute) continue;
    const ComputeFootprint& f = fps[i] = compute_footprint(isa, insns[i], table);
    if (Isa::opcode_of(insns[i]) != uint8_t(Opcode::kLoad) || f.uops.empty()) continue;
    const MemInsn m = isa.decode_mem(insns[i]);
    if (m.memory_type != uint8_t(MemId::kUop)) continue;
    if (const std::vector<uint32_t>* words = uop_words(i); words != nullptr) {
      table.on_load(isa, m.sram_base, *words);
    } else {
      table.invalidate(f.uops.lo, f.uops.hi + 1);
    }
  }
  return fps;
}

bool relies_on_pops(const RawInsn& younger, const ComputeFootprint& f, const RawInsn& older) {
  const DepFlags y = Isa::deps_of(younger), o = Isa::deps_of(older);
  // each queue's tokens in program order
  if ((has(y, DepFlag::kPopPrev) && has(o, DepFlag::kPopPrev)) ||
      (has(y, DepFlag::kPopNext) && has(o, DepFlag::kPopNext))) {
    return true;
  }
  // a token from the load stage: its input and weight buffers, which only GEMMs read
  if (has(o, DepFlag::kPopPrev) && Isa::opcode_of(younger) == uint8_t(Opcode::kGemm)) return true;
  // a token from the store stage: the accumulator it has read, which everything but a LOAD UOP writes
  return has(o, DepFlag::kPopNext) && !f.loads_uops();
}

bool independent(const Config& config, const ComputeFootprint& a, const ComputeFootprint& b, AccBanks banks) {
  using Slot = ComputeFootprint::Slot;
  if (a.slot == Slot::kAlone || b.slot == Slot::kAlone || a.slot == b.slot) return false;
  // a micro-op load: not the other's micro-ops (known from its fields)
  if (a.loads_uops() || b.loads_uops()) return !a.uops.overlaps(b.uops);
  if (!a.known || !b.known) return false;
  const ComputeFootprint& g = a.slot == Slot::kG ? a : b;
  const ComputeFootprint& x = a.slot == Slot::kG ? b : a;
  if (banks == AccBanks::kAnyDisjoint) return !g.acc.overlaps(x.acc) && !g.acc.overlaps(x.acc_src);
  const uint64_t half = sram_depth(config, MemId::kAcc) / 2;
  auto bank = [&](const IndexRange& r) -> int { return r.hi < half ? 0 : r.lo >= half ? 1 : -1; };
  // the half all of a footprint's ranges lie in (-1: none)
  auto half_of = [&](const ComputeFootprint& f) {
    const int h = bank(f.acc);
    return f.acc_src.empty() || bank(f.acc_src) == h ? h : -1;
  };
  return half_of(g) >= 0 && half_of(x) >= 0 && half_of(g) != half_of(x);
}

}  // namespace vta
