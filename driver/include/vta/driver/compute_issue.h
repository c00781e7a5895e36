#pragma once
/// \file vta/driver/compute_issue.h
/// The rule of a compute stage that runs two instructions at once (issue 67: an ALU instruction, or a
/// load of micro-ops or accumulators, beside a GEMM), stated once for whatever models that stage:
/// the timeline estimate (estimate_timeline with EstimateOptions::compute_issue = 2), and later the
/// RTL and the compiler's cost model. Nothing here changes what a program computes: the rule only
/// lets two instructions overlap when no order between them can be observed.
///
/// The stage has two slots: G runs GEMMs, A runs every other compute instruction (ALU, LOAD UOP,
/// LOAD ACC, LOAD ACC_8BIT; FINISH waits until both are empty). Instructions leave the queue in
/// program order, each into its slot once its tokens are there, and
///
///   1. alone when the other slot is empty; beside the other slot's instruction only when the two are
///      independent (`independent`):
///      - a GEMM and an ALU instruction, a LOAD ACC or a LOAD ACC_8BIT: each one's accumulator
///        footprint (what it writes, and what an ALU instruction's vector operand reads) is known and
///        lies wholly in one half of the accumulator buffer, not the same half (the halves are the
///        banks two units can read and write in the same cycle);
///      - a GEMM and a LOAD UOP: the micro-ops the GEMM reads are not among those the load writes;
///   2. the younger of two running instructions, when it pushes tokens, completes (pushes them and
///      frees its slot) only once the older one has: every token is pushed in program order, so no
///      stage sees a token before everything the program put ahead of it is done. (One that pushes
///      nothing completes when it is done: no other stage can tell.)
///
/// A footprint is "known" when the hardware can bound it cheaply: a load's from its fields; a GEMM's
/// or an ALU instruction's from its loop and the smallest and largest indices of its micro-ops, which
/// the stage records for each of the last `UopLoadTable::kEntries` micro-op loads while they run. An
/// instruction whose micro-op range is not inside one recorded load (not loaded by this run, or
/// overwritten since) has an unknown footprint and runs alone.

#include <array>
#include <cstdint>
#include <optional>
#include <span>

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

/// The smallest and largest indices of the micro-ops of the last few micro-op loads, as the stage
/// records them while each load writes its words.
class UopLoadTable {
 public:
  static constexpr int kEntries = 16;

  /// A micro-op load of `words` (pads as zero words) into [sram_base, sram_base + words.size()):
  /// invalidates every entry it overwrites and records its own in the oldest slot.
  void on_load(const Isa& isa, uint32_t sram_base, std::span<const uint32_t> words);
  /// A load into [base, end) whose words are not known: only invalidates.
  void invalidate(uint64_t base, uint64_t end);
  /// The union of the destination and source index ranges of micro-ops [bgn, end), when one recorded
  /// load holds them all.
  struct Span {
    IndexRange dst;
    IndexRange src;
  };
  std::optional<Span> find(uint32_t bgn, uint32_t end) const;

 private:
  struct Entry {
    bool valid = false;
    uint32_t base = 0, end = 0;  // [base, end)
    Span span;
  };
  std::array<Entry, kEntries> entries_{};
  int next_ = 0;
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
};

/// The footprint of compute-stage instruction `raw` as the stage knows it when the instruction is at
/// the head of its queue (`table`: the micro-op loads recorded so far).
ComputeFootprint compute_footprint(const Isa& isa, const RawInsn& raw, const UopLoadTable& table);

/// How the accumulator is split for two units: the rule's halves, or, as a bound for what-if
/// estimates, any two disjoint footprints (as if a compiler had put every virtual thread's tiles in
/// a half of their own: the programs compiled today put both threads in the lower half).
enum class AccBanks : uint8_t { kHalves, kAnyDisjoint };

/// Rule 1: whether instructions with these footprints may run at once (in either order).
bool independent(const Config& config, const ComputeFootprint& a, const ComputeFootprint& b,
                 AccBanks banks = AccBanks::kHalves);

}  // namespace vta
