#pragma once
/// \file vta/driver/isa.h
/// The VTA instruction set: the fixed ISA constants (the single source for the generated `VTA_*`
/// macros and the SystemVerilog package), typed instructions, and an encoder/decoder whose bit layout
/// is computed from a Config, so it is correct for every configuration the format can encode.

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vta/driver/config.h"

namespace vta {

/// Fixed, configuration-independent ISA constants (spec 1.3, 2.1).
namespace isa {
inline constexpr int kOpcodeBits = 3;
inline constexpr int kMemIdBits = 3;
inline constexpr int kSramAddrBits = 16;
inline constexpr int kDramAddrBits = 32;
inline constexpr int kSizeBits = 16;
inline constexpr int kStrideBits = 16;
inline constexpr int kPadBits = 4;
inline constexpr int kPadValBits = 2;
inline constexpr int kLoopIterBits = 14;
inline constexpr int kAluOpcodeBits = 3;
inline constexpr int kAluImmBits = 16;
inline constexpr int kMulArgBits = 8;
inline constexpr int kLogInsWidth = 7;
inline constexpr int kLogUopWidth = 5;
/// Width of a dependency-token counter. A queue holds at most 2^8 - 1 tokens; an instruction whose
/// push would exceed that waits until the consumer pops (spec 4.1, docs/ISA.md), on every backend.
inline constexpr int kTokenCountBits = 8;
inline constexpr uint64_t kTokenQueueCapacity = (uint64_t{1} << kTokenCountBits) - 1;
}  // namespace isa

/// Instruction opcodes (3 bits; 5..7 are illegal).
enum class Opcode : uint8_t { kLoad = 0, kStore = 1, kGemm = 2, kFinish = 3, kAlu = 4 };
/// LOAD/STORE memory types (3 bits; 6..7 are illegal).
enum class MemId : uint8_t { kUop = 0, kWgt = 1, kInp = 2, kAcc = 3, kOut = 4, kAcc8Bit = 5 };
/// ALU opcodes (3 bits; 5..7 are illegal). There is no CLIP, MOV or SUB (spec 2.8).
enum class AluOp : uint8_t { kMin = 0, kMax = 1, kAdd = 2, kShr = 3, kMul = 4 };

/// Pipeline stages as the runtime numbers them (spec 4.1).
enum class Stage : uint8_t { kLoad = 1, kCompute = 2, kStore = 3 };
/// The three stages in pipeline order: index i is Stage(i + 1), the lane of timelines, the entry of
/// the energy by stage and of the hardware's per-stage counters (one home for "load, compute, store").
inline constexpr int kStages = 3;
inline constexpr Stage kStageOrder[kStages] = {Stage::kLoad, Stage::kCompute, Stage::kStore};

const char* to_string(Opcode op);
const char* to_string(MemId id);
const char* to_string(AluOp op);
const char* to_string(Stage stage);
/// True when the raw 3-bit value names a defined opcode / memory type / ALU opcode.
bool is_valid_opcode(uint32_t raw);
bool is_valid_mem_id(uint32_t raw);
bool is_valid_alu_op(uint32_t raw);

/// The four dependency flags every instruction carries (bits 3..6).
struct DepFlags {
  bool pop_prev = false;
  bool pop_next = false;
  bool push_prev = false;
  bool push_next = false;
  bool operator==(const DepFlags&) const = default;
};
/// Union of two flag sets.
inline DepFlags operator|(DepFlags a, DepFlags b) {
  return {a.pop_prev || b.pop_prev, a.pop_next || b.pop_next, a.push_prev || b.push_prev, a.push_next || b.push_next};
}

/// One of the four flags, for code that walks them.
enum class DepFlag : uint8_t { kPopPrev, kPopNext, kPushPrev, kPushNext };
inline bool has(DepFlags f, DepFlag which) {
  switch (which) {
    case DepFlag::kPopPrev: return f.pop_prev;
    case DepFlag::kPopNext: return f.pop_next;
    case DepFlag::kPushPrev: return f.push_prev;
    case DepFlag::kPushNext: return f.push_next;
  }
  return false;
}

/// The four dependency-token queues (spec 4.1), in the order of TokenCounts and of the TOKENS register.
enum class TokenQueue : uint8_t { kL2G = 0, kG2L = 1, kG2S = 2, kS2G = 3 };
inline constexpr TokenQueue kTokenQueues[] = {TokenQueue::kL2G, TokenQueue::kG2L, TokenQueue::kG2S, TokenQueue::kS2G};
/// "l2g (load -> compute)", ...
const char* to_string(TokenQueue q);

/// A raw 128-bit instruction: word 0 holds bits 0..63 and sits at the lower address.
struct RawInsn {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool operator==(const RawInsn&) const = default;
};
static_assert(sizeof(RawInsn) == Config::kInsnElemBytes);

/// Reads / writes a raw instruction from / to 16 bytes of memory (little-endian words).
inline RawInsn load_insn(const void* bytes) {
  uint64_t w[2];
  std::memcpy(w, bytes, sizeof w);
  return {w[0], w[1]};
}
inline void store_insn(void* bytes, RawInsn insn) {
  const uint64_t w[2] = {insn.lo, insn.hi};
  std::memcpy(bytes, w, sizeof w);
}
/// Writes a stream of instructions to consecutive 16-byte slots.
inline void store_insns(void* bytes, const std::vector<RawInsn>& insns) {
  for (size_t i = 0; i < insns.size(); ++i)
    store_insn(static_cast<uint8_t*>(bytes) + i * Config::kInsnElemBytes, insns[i]);
}

/// LOAD or STORE. Raw field values are kept so that illegal values can be represented and reported.
struct MemInsn {
  uint8_t opcode = static_cast<uint8_t>(Opcode::kLoad);
  DepFlags deps;
  uint8_t memory_type = 0;
  uint32_t sram_base = 0;
  uint32_t dram_base = 0;
  uint32_t y_size = 0;
  uint32_t x_size = 0;
  uint32_t x_stride = 0;
  uint32_t y_pad_0 = 0;
  uint32_t y_pad_1 = 0;
  uint32_t x_pad_0 = 0;
  uint32_t x_pad_1 = 0;
  bool operator==(const MemInsn&) const = default;
};

/// The fields GEMM and ALU share, in their order: the header, the micro-op range [uop_bgn, uop_end) and
/// the two-level loop (iter_out x iter_in) with the accumulator's and the source's index factors (spec
/// 3.3). `kOp` is the opcode a default-made instruction has.
template <Opcode kOp>
struct LoopInsn {
  uint8_t opcode = static_cast<uint8_t>(kOp);
  DepFlags deps;
  bool reset = false;
  uint32_t uop_bgn = 0;
  uint32_t uop_end = 0;
  uint32_t iter_out = 0;
  uint32_t iter_in = 0;
  uint32_t dst_factor_out = 0;
  uint32_t dst_factor_in = 0;
  uint32_t src_factor_out = 0;  ///< the input buffer's for GEMM, the accumulator's for ALU
  uint32_t src_factor_in = 0;
  bool operator==(const LoopInsn&) const = default;
};

/// GEMM (also the layout FINISH is conventionally written with).
struct GemmInsn : LoopInsn<Opcode::kGemm> {
  uint32_t wgt_factor_out = 0;
  uint32_t wgt_factor_in = 0;
  bool operator==(const GemmInsn&) const = default;
};

/// ALU. `imm` is the sign-extended value of the 16-bit immediate.
struct AluInsn : LoopInsn<Opcode::kAlu> {
  uint8_t alu_opcode = 0;
  bool use_imm = false;
  int32_t imm = 0;
  bool operator==(const AluInsn&) const = default;
};

/// A micro-op: accumulator index, source index (input for GEMM, accumulator for ALU), weight index.
struct Uop {
  uint32_t dst = 0;
  uint32_t src = 0;
  uint32_t wgt = 0;
  bool operator==(const Uop&) const = default;
};

/// Thrown by the encoder when a value does not fit its field; the message names the field.
class IsaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One field of an instruction format at its position for a given configuration.
struct FieldLayout {
  const char* name;
  int lsb;  ///< bit 0 = LSB of word 0, bit 64 = LSB of word 1
  int width;
};

/// Encoder, decoder and disassembler for one configuration. Fields are placed in declaration order
/// exactly as the C ABI packs the reference `uint64_t` bit-fields: a field that does not fit in the
/// rest of word 0 starts at bit 64.
class Isa {
 public:
  explicit Isa(const Config& config);

  const Config& config() const { return config_; }

  /// Field positions of each format (for tests, documentation and the disassembler).
  const std::vector<FieldLayout>& mem_layout() const { return mem_; }
  const std::vector<FieldLayout>& gemm_layout() const { return gemm_; }
  const std::vector<FieldLayout>& alu_layout() const { return alu_; }
  const std::vector<FieldLayout>& uop_layout() const { return uop_; }

  /// Encoders throw IsaError when a field value does not fit its width.
  RawInsn encode(const MemInsn& insn) const;
  RawInsn encode(const GemmInsn& insn) const;
  RawInsn encode(const AluInsn& insn) const;
  uint32_t encode(const Uop& uop) const;

  static uint8_t opcode_of(RawInsn raw) { return static_cast<uint8_t>(raw.lo & 7u); }
  static DepFlags deps_of(RawInsn raw);
  MemInsn decode_mem(RawInsn raw) const;
  GemmInsn decode_gemm(RawInsn raw) const;
  AluInsn decode_alu(RawInsn raw) const;
  Uop decode_uop(uint32_t word) const;

  /// One line naming the instruction and every field, e.g.
  /// `LOAD INP deps=[pop_next] sram_base=0 dram_base=4096 y_size=1 x_size=16 ...`.
  std::string disassemble(RawInsn raw) const;
  std::string disassemble(const Uop& uop) const;

 private:
  Config config_;
  std::vector<FieldLayout> mem_, gemm_, alu_, uop_;
};

/// The stage that executes an instruction (spec 4.4): LOAD INP/WGT -> load; other LOADs, GEMM, ALU,
/// FINISH -> compute; STORE -> store. Illegal opcodes map to compute.
Stage stage_of(RawInsn raw);

/// The rule of spec 4.1, written once: the queue a flag of an instruction executing in `stage` pops or
/// pushes, or nothing when that module ignores the flag (load: pop_prev/push_prev; store:
/// pop_next/push_next).
std::optional<TokenQueue> token_queue(Stage stage, DepFlag flag);

}  // namespace vta
