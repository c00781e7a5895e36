#pragma once
/// \file vta/driver/compute_issue.h
/// The rule of a compute stage that runs two instructions at once (issue 67: an ALU instruction, or a
/// load of micro-ops or accumulators, beside a GEMM), stated once for whatever models that stage:
/// the timeline estimate (estimate_timeline with EstimateOptions::compute_issue = 2), the compiler's
/// cost model (which ranks tilings by that estimate) and the RTL (hw/rtl/vta_compute_dual.sv, built
/// with the configuration key COMPUTE_ISSUE 2; a dispatch window of 1). Nothing here changes what a
/// program computes: the rule only lets two instructions overlap, or a younger one start first, when
/// no order between them can be observed.
///
/// The stage has two slots, each running its instructions one at a time in program order: G runs
/// GEMMs; A runs every other compute instruction (ALU, LOAD UOP, LOAD ACC, LOAD ACC_8BIT); FINISH and a
/// load of nothing run alone, once both slots are empty. Then
///
///   1. an instruction runs beside the other slot's only when the two are independent (`independent`):
///      - a GEMM and an ALU instruction, a LOAD ACC or a LOAD ACC_8BIT: each one's accumulator
///        footprint (what it writes, and what an ALU instruction's vector operand reads) is known and
///        lies wholly in one half of the accumulator buffer, not the same half (the halves are the
///        banks two units can read and write in the same cycle);
///      - a LOAD UOP and any other: the micro-ops the other reads (or writes) are not among those the
///        load writes;
///   2. instructions start in program order, except that with a dispatch window of W > 1 the oldest
///      waiting instruction of one slot may start before up to W - 1 older instructions of the other
///      slot that have not started yet, when it is independent of each of them, none of them runs
///      alone, and it relies on no token they pop (`relies_on_pops`: a token from the load stage frees
///      the input and weight buffers only GEMMs read; one from the store stage, the accumulator);
///   3. tokens: each queue's tokens are popped in program order (2 never lets an instruction pass one
///      popping the same queue), and each queue's pushes leave in program order: a push to the load stage once the
///      instruction has started and every GEMM up to it has completed (only GEMMs read the buffers the
///      load stage writes), any other push once the instruction and every older one have completed.
///      A slot never waits for a push: the next instruction runs while the token waits; an
///      instruction that pushes to a queue starts once the stage's previous push to it has left.
///
/// A footprint is "known" when the hardware can bound it cheaply: a load's from its fields; a GEMM's
/// or an ALU instruction's from its loop and the smallest and largest indices of its micro-ops, which
/// the stage records for each micro-op load while it runs, in a table of `UopLoadTable::kEntries`
/// entries that keeps the ones used most recently (the runtime loads a kernel once and reuses it tile
/// after tile). An instruction whose micro-op range is not inside one recorded load (not loaded by
/// this run, or overwritten or evicted since) has an unknown footprint and runs alone.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "vta/driver/config.h"
#include "vta/driver/isa.h"

namespace vta {

/// An inclusive range of buffer indices; empty when lo > hi.
struct IndexRange {
  uint64_t lo = 1;
  uint64_t hi = 0;
  bool empty() const { return lo > hi; }
  bool overlaps(const IndexRange& o) const { return !empty() && !o.empty() && lo <= o.hi && o.lo <= hi; }
  /// The smallest range holding both.
  IndexRange merged(const IndexRange& o) const;
  bool operator==(const IndexRange&) const = default;
};

/// The smallest and largest indices of the micro-ops of recent micro-op loads, as the stage records
/// them while each load writes its words; a full table replaces the entry used least recently.
class UopLoadTable {
 public:
  static constexpr int kEntries = 32;

  /// A micro-op load of `words` (pads as zero words) into [sram_base, sram_base + words.size()):
  /// invalidates every entry it overwrites and records its own in a free entry, else in the one used
  /// least recently.
  void on_load(const Isa& isa, uint32_t sram_base, std::span<const uint32_t> words);
  /// A load into [base, end) whose words are not known: only invalidates.
  void invalidate(uint64_t base, uint64_t end);
  /// The union of the destination and source index ranges of micro-ops [bgn, end), when one recorded
  /// load holds them all (that entry counts as used).
  struct Span {
    IndexRange dst;
    IndexRange src;
  };
  std::optional<Span> find(uint32_t bgn, uint32_t end);

 private:
  struct Entry {
    bool valid = false;
    uint32_t base = 0, end = 0;  // [base, end)
    uint64_t last_use = 0;
    Span span;
  };
  std::array<Entry, kEntries> entries_{};
  uint64_t clock_ = 0;
};

/// What a compute instruction touches that another could: the accumulator indices it reads or
/// writes (`known` false: not bounded, the instruction must run alone) and, for a LOAD UOP, the
/// micro-op indices it writes; for a GEMM the micro-op indices it reads.
struct ComputeFootprint {
  enum class Slot : uint8_t { kG, kA, kAlone };  ///< the slot it runs in; kAlone: FINISH, a no-op load
  Slot slot = Slot::kAlone;
  bool known = false;
  IndexRange acc;      ///< the accumulator indices written (and read: a GEMM's sums, an ALU's destinations)
  IndexRange acc_src;  ///< the accumulator indices only read (an ALU instruction's vector operand)
  IndexRange uops;
  /// A LOAD UOP's: known, and no accumulator index (its `uops` are the micro-ops it writes).
  bool loads_uops() const { return known && acc.empty() && acc_src.empty(); }
};

/// The footprint of compute-stage instruction `raw` as the stage knows it when the instruction is
/// dispatched (`table`: the micro-op loads recorded so far; a hit counts as a use).
ComputeFootprint compute_footprint(const Isa& isa, const RawInsn& raw, UopLoadTable& table);

/// The footprints of every compute-stage instruction of `insns` as dispatched in program order (the
/// table updated by each LOAD UOP: `uop_words(i)` is the words LOAD UOP i writes, nullptr when they are
/// not known, which only invalidates); other stages' instructions get an empty footprint.
std::vector<ComputeFootprint> compute_footprints(
    const Isa& isa, const std::vector<RawInsn>& insns,
    const std::function<const std::vector<uint32_t>*(size_t index)>& uop_words);

/// How the accumulator is split for two units: the rule's halves, or, as a bound for what-if
/// estimates, any two disjoint footprints (as if a compiler had put every virtual thread's tiles in
/// a half of their own: the programs compiled today put both threads in the lower half).
enum class AccBanks : uint8_t { kHalves, kAnyDisjoint };

/// Rule 2: whether `younger` (footprint `f`) may rely on a token `older` pops, so that it must not start
/// first: both pop the same queue, or `older` pops the load stage's token (its input and weight
/// buffers) and `younger` is a GEMM, or `older` pops the store stage's token (the accumulator it read)
/// and `younger` writes the accumulator (anything but a LOAD UOP).
bool relies_on_pops(const RawInsn& younger, const ComputeFootprint& f, const RawInsn& older);

/// Rules 1 and 2: whether instructions with these footprints (of different slots) may run at once, or
/// the younger start before the older.
bool independent(const Config& config, const ComputeFootprint& a, const ComputeFootprint& b,
                 AccBanks banks = AccBanks::kHalves);

}  // namespace vta
