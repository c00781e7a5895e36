#include "vta/driver/isa.h"

#include <algorithm>
#include <sstream>

namespace vta {
namespace {

struct FieldSpec {
  const char* name;
  int width;
};

// Places fields in order the way the C ABI packs uint64_t bit-fields: a field never straddles a
// 64-bit word; when it does not fit in what is left of the word it starts in the next one.
std::vector<FieldLayout> place(const std::vector<FieldSpec>& specs, int total_bits) {
  std::vector<FieldLayout> out;
  int pos = 0;
  for (const auto& f : specs) {
    if (pos % 64 + f.width > 64) pos = (pos / 64 + 1) * 64;
    out.push_back({f.name, pos, f.width});
    pos += f.width;
  }
  if (pos > total_bits)
    throw IsaError("internal error: instruction layout exceeds " + std::to_string(total_bits) + " bits");
  return out;
}

uint64_t get_bits(RawInsn raw, const FieldLayout& f) {
  uint64_t word = f.lsb < 64 ? raw.lo : raw.hi;
  int shift = f.lsb % 64;
  uint64_t mask = f.width == 64 ? ~uint64_t{0} : ((uint64_t{1} << f.width) - 1);
  return (word >> shift) & mask;
}

void put_bits(RawInsn& raw, const FieldLayout& f, uint64_t value, const char* format) {
  uint64_t mask = f.width == 64 ? ~uint64_t{0} : ((uint64_t{1} << f.width) - 1);
  if ((value & ~mask) != 0) {
    throw IsaError(std::string(format) + " field " + f.name + " = " + std::to_string(value) + " does not fit in " +
                   std::to_string(f.width) + " bits");
  }
  uint64_t& word = f.lsb < 64 ? raw.lo : raw.hi;
  word |= value << (f.lsb % 64);
}

// ---- one table per format ------------------------------------------------------------------------
// Each row is a field in bit order: its name (the reference's bit-field name, also the SystemVerilog
// name and the disassembly key), its width for a configuration, and how to read and write it in the
// typed instruction. Encoding, decoding, the layouts (and through them the generated SystemVerilog
// positions) and the disassembly all walk these tables.
// disassembly: "name=value" in order (kSigned: as a two's-complement value), right after the name, or not
enum class Show { kField, kSigned, kLead, kNone };

int64_t sign_extend(uint64_t v, int bits) { return int64_t(v << (64 - bits)) >> (64 - bits); }
template <class T>
struct Field {
  const char* name;
  int (*width)(const Config&);
  uint64_t (*get)(const T&);
  void (*set)(T&, uint64_t);
  Show show = Show::kField;
};

#define VTA_WIDTH(expr) \
  [](const Config& c) { \
    (void)c;            \
    return int(expr);   \
  }
// NOLINTNEXTLINE(bugprone-macro-parentheses): a member name cannot be parenthesised
#define VTA_MEMBER(T, m) [](const T& i) { return uint64_t(i.m); }, [](T& i, uint64_t v) { i.m = decltype(i.m)(v); }
#define VTA_HEADER(T)                                                                                 \
  Field<T>{"opcode", VTA_WIDTH(isa::kOpcodeBits), VTA_MEMBER(T, opcode), Show::kNone},                \
      Field<T>{"pop_prev_dep", VTA_WIDTH(1), VTA_MEMBER(T, deps.pop_prev), Show::kNone},              \
      Field<T>{"pop_next_dep", VTA_WIDTH(1), VTA_MEMBER(T, deps.pop_next), Show::kNone},              \
      Field<T>{"push_prev_dep", VTA_WIDTH(1), VTA_MEMBER(T, deps.push_prev), Show::kNone}, Field<T> { \
    "push_next_dep", VTA_WIDTH(1), VTA_MEMBER(T, deps.push_next), Show::kNone                         \
  }
// the loop header shared by GEMM and ALU
#define VTA_LOOP(T)                                                                                       \
  Field<T>{"reset_reg", VTA_WIDTH(1), VTA_MEMBER(T, reset)},                                              \
      Field<T>{"uop_bgn", VTA_WIDTH(c.log_uop_depth()), VTA_MEMBER(T, uop_bgn)},                          \
      Field<T>{"uop_end", VTA_WIDTH(c.log_uop_depth() + 1), VTA_MEMBER(T, uop_end)},                      \
      Field<T>{"iter_out", VTA_WIDTH(isa::kLoopIterBits), VTA_MEMBER(T, iter_out)},                       \
      Field<T>{"iter_in", VTA_WIDTH(isa::kLoopIterBits), VTA_MEMBER(T, iter_in)},                         \
      Field<T>{"dst_factor_out", VTA_WIDTH(c.log_acc_depth()), VTA_MEMBER(T, dst_factor_out)}, Field<T> { \
    "dst_factor_in", VTA_WIDTH(c.log_acc_depth()), VTA_MEMBER(T, dst_factor_in)                           \
  }

// clang-format off
const Field<MemInsn> kMemFields[] = {
  VTA_HEADER(MemInsn),
  {"memory_type", VTA_WIDTH(isa::kMemIdBits), VTA_MEMBER(MemInsn, memory_type), Show::kLead},
  {"sram_base", VTA_WIDTH(isa::kSramAddrBits), VTA_MEMBER(MemInsn, sram_base)},
  {"dram_base", VTA_WIDTH(isa::kDramAddrBits), VTA_MEMBER(MemInsn, dram_base)},
  {"y_size", VTA_WIDTH(isa::kSizeBits), VTA_MEMBER(MemInsn, y_size)},
  {"x_size", VTA_WIDTH(isa::kSizeBits), VTA_MEMBER(MemInsn, x_size)},
  {"x_stride", VTA_WIDTH(isa::kStrideBits), VTA_MEMBER(MemInsn, x_stride)},
  {"y_pad_0", VTA_WIDTH(isa::kPadBits), VTA_MEMBER(MemInsn, y_pad_0)},
  {"y_pad_1", VTA_WIDTH(isa::kPadBits), VTA_MEMBER(MemInsn, y_pad_1)},
  {"x_pad_0", VTA_WIDTH(isa::kPadBits), VTA_MEMBER(MemInsn, x_pad_0)},
  {"x_pad_1", VTA_WIDTH(isa::kPadBits), VTA_MEMBER(MemInsn, x_pad_1)},
};

const Field<GemmInsn> kGemmFields[] = {
  VTA_HEADER(GemmInsn), VTA_LOOP(GemmInsn),
  {"src_factor_out", VTA_WIDTH(c.log_inp_depth()), VTA_MEMBER(GemmInsn, src_factor_out)},
  {"src_factor_in", VTA_WIDTH(c.log_inp_depth()), VTA_MEMBER(GemmInsn, src_factor_in)},
  {"wgt_factor_out", VTA_WIDTH(c.log_wgt_depth()), VTA_MEMBER(GemmInsn, wgt_factor_out)},
  {"wgt_factor_in", VTA_WIDTH(c.log_wgt_depth()), VTA_MEMBER(GemmInsn, wgt_factor_in)},
};

constexpr uint64_t kImmMask = (uint64_t{1} << isa::kAluImmBits) - 1;
const Field<AluInsn> kAluFields[] = {
  VTA_HEADER(AluInsn), VTA_LOOP(AluInsn),
  {"src_factor_out", VTA_WIDTH(c.log_acc_depth()), VTA_MEMBER(AluInsn, src_factor_out)},
  {"src_factor_in", VTA_WIDTH(c.log_acc_depth()), VTA_MEMBER(AluInsn, src_factor_in)},
  {"alu_opcode", VTA_WIDTH(isa::kAluOpcodeBits), VTA_MEMBER(AluInsn, alu_opcode), Show::kLead},
  {"use_imm", VTA_WIDTH(1), VTA_MEMBER(AluInsn, use_imm)},
  // a two's-complement field holding the sign-extended value (encode() checks its range)
  {"imm", VTA_WIDTH(isa::kAluImmBits), [](const AluInsn& i) { return uint64_t(uint32_t(i.imm)) & kImmMask; },
   [](AluInsn& i, uint64_t v) { i.imm = int32_t(sign_extend(v, isa::kAluImmBits)); }, Show::kSigned},
};

const Field<Uop> kUopFields[] = {
  {"dst_idx", VTA_WIDTH(c.log_acc_depth()), VTA_MEMBER(Uop, dst)},
  {"src_idx", VTA_WIDTH(std::max(c.log_acc_depth(), c.log_inp_depth())), VTA_MEMBER(Uop, src)},
  {"wgt_idx", VTA_WIDTH(c.log_wgt_depth()), VTA_MEMBER(Uop, wgt)},
};
// clang-format on

#undef VTA_LOOP
#undef VTA_HEADER
#undef VTA_MEMBER
#undef VTA_WIDTH

template <class T, size_t N>
std::vector<FieldLayout> layout_of(const Field<T> (&table)[N], const Config& c, int bits) {
  std::vector<FieldSpec> specs;
  for (const auto& f : table) specs.push_back({f.name, f.width(c)});
  return place(specs, bits);
}

template <class T, size_t N>
RawInsn encode_fields(const Field<T> (&table)[N], const std::vector<FieldLayout>& layout, const T& insn,
                      const char* format) {
  RawInsn raw;
  for (size_t k = 0; k < N; ++k) put_bits(raw, layout[k], table[k].get(insn), format);
  return raw;
}

template <class T, size_t N>
T decode_fields(const Field<T> (&table)[N], const std::vector<FieldLayout>& layout, RawInsn raw) {
  T insn;
  for (size_t k = 0; k < N; ++k) table[k].set(insn, get_bits(raw, layout[k]));
  return insn;
}

std::string deps_text(const DepFlags& d) {
  std::string s = "deps=[";
  const char* sep = "";
  auto add = [&](bool on, const char* name) {
    if (on) {
      s += sep;
      s += name;
      sep = " ";
    }
  };
  add(d.pop_prev, "pop_prev");
  add(d.pop_next, "pop_next");
  add(d.push_prev, "push_prev");
  add(d.push_next, "push_next");
  return s + "]";
}

}  // namespace

const char* to_string(Opcode op) {
  switch (op) {
    case Opcode::kLoad: return "LOAD";
    case Opcode::kStore: return "STORE";
    case Opcode::kGemm: return "GEMM";
    case Opcode::kFinish: return "FINISH";
    case Opcode::kAlu: return "ALU";
  }
  return "ILLEGAL";
}

const char* to_string(MemId id) {
  switch (id) {
    case MemId::kUop: return "UOP";
    case MemId::kWgt: return "WGT";
    case MemId::kInp: return "INP";
    case MemId::kAcc: return "ACC";
    case MemId::kOut: return "OUT";
    case MemId::kAcc8Bit: return "ACC_8BIT";
  }
  return "ILLEGAL";
}

const char* to_string(AluOp op) {
  switch (op) {
    case AluOp::kMin: return "MIN";
    case AluOp::kMax: return "MAX";
    case AluOp::kAdd: return "ADD";
    case AluOp::kShr: return "SHR";
    case AluOp::kMul: return "MUL";
  }
  return "ILLEGAL";
}

const char* to_string(Stage stage) {
  switch (stage) {
    case Stage::kLoad: return "load";
    case Stage::kCompute: return "compute";
    case Stage::kStore: return "store";
  }
  return "?";
}

bool is_valid_opcode(uint32_t raw) { return raw <= static_cast<uint32_t>(Opcode::kAlu); }
bool is_valid_mem_id(uint32_t raw) { return raw <= static_cast<uint32_t>(MemId::kAcc8Bit); }
bool is_valid_alu_op(uint32_t raw) { return raw <= static_cast<uint32_t>(AluOp::kMul); }

Isa::Isa(const Config& config)
    : config_(config),
      mem_(layout_of(kMemFields, config, 128)),
      gemm_(layout_of(kGemmFields, config, 128)),
      alu_(layout_of(kAluFields, config, 128)),
      uop_(layout_of(kUopFields, config, 32)) {}

RawInsn Isa::encode(const MemInsn& i) const { return encode_fields(kMemFields, mem_, i, "LOAD/STORE"); }
RawInsn Isa::encode(const GemmInsn& i) const { return encode_fields(kGemmFields, gemm_, i, "GEMM"); }

RawInsn Isa::encode(const AluInsn& i) const {
  constexpr int32_t kImmMin = -(1 << (isa::kAluImmBits - 1)), kImmMax = (1 << (isa::kAluImmBits - 1)) - 1;
  if (i.imm < kImmMin || i.imm > kImmMax) {
    throw IsaError("ALU field imm = " + std::to_string(i.imm) + " does not fit in a signed " +
                   std::to_string(isa::kAluImmBits) + "-bit immediate");
  }
  return encode_fields(kAluFields, alu_, i, "ALU");
}

uint32_t Isa::encode(const Uop& u) const {
  return static_cast<uint32_t>(encode_fields(kUopFields, uop_, u, "micro-op").lo);
}

DepFlags Isa::deps_of(RawInsn raw) {
  return {(raw.lo >> 3 & 1) != 0, (raw.lo >> 4 & 1) != 0, (raw.lo >> 5 & 1) != 0, (raw.lo >> 6 & 1) != 0};
}

MemInsn Isa::decode_mem(RawInsn raw) const { return decode_fields(kMemFields, mem_, raw); }
GemmInsn Isa::decode_gemm(RawInsn raw) const { return decode_fields(kGemmFields, gemm_, raw); }
AluInsn Isa::decode_alu(RawInsn raw) const { return decode_fields(kAluFields, alu_, raw); }
Uop Isa::decode_uop(uint32_t word) const { return decode_fields(kUopFields, uop_, RawInsn{word, 0}); }

namespace {

// "<lead fields> deps=[...] <fields>": the fields of a decoded instruction, from its table.
template <class T, size_t N>
void print_fields(std::ostream& s, const Field<T> (&table)[N], const std::vector<FieldLayout>& layout, const T& insn,
                  const DepFlags& deps) {
  for (const auto& f : table) {
    if (f.show == Show::kLead) s << ' ' << f.name << '=' << f.get(insn);
  }
  s << ' ' << deps_text(deps);
  for (size_t k = 0; k < N; ++k) {
    const auto& f = table[k];
    if (f.show == Show::kField) s << ' ' << f.name << '=' << f.get(insn);
    if (f.show == Show::kSigned) s << ' ' << f.name << '=' << sign_extend(f.get(insn), layout[k].width);
  }
}

}  // namespace

std::string Isa::disassemble(RawInsn raw) const {
  std::ostringstream s;
  const uint8_t op = opcode_of(raw);
  if (!is_valid_opcode(op)) {
    s << "ILLEGAL opcode=" << int(op) << " raw=0x" << std::hex << raw.hi << "_" << raw.lo;
    return s.str();
  }
  const auto opcode = static_cast<Opcode>(op);
  s << to_string(opcode);
  if (opcode == Opcode::kLoad || opcode == Opcode::kStore) {
    const auto i = decode_mem(raw);
    s << ' ' << (is_valid_mem_id(i.memory_type) ? to_string(static_cast<MemId>(i.memory_type)) : "ILLEGAL");
    print_fields(s, kMemFields, mem_, i, i.deps);
    if (i.x_size == 0) s << " (nop)";
  } else if (opcode == Opcode::kFinish) {
    s << ' ' << deps_text(deps_of(raw));
  } else if (opcode == Opcode::kGemm) {
    const auto i = decode_gemm(raw);
    print_fields(s, kGemmFields, gemm_, i, i.deps);
  } else {
    const auto i = decode_alu(raw);
    s << ' ' << (is_valid_alu_op(i.alu_opcode) ? to_string(static_cast<AluOp>(i.alu_opcode)) : "ILLEGAL");
    print_fields(s, kAluFields, alu_, i, i.deps);
  }
  return s.str();
}

std::string Isa::disassemble(const Uop& uop) const {
  std::ostringstream s;
  s << "UOP dst_idx=" << uop.dst << " src_idx=" << uop.src << " wgt_idx=" << uop.wgt;
  return s.str();
}

const char* to_string(TokenQueue q) {
  switch (q) {
    case TokenQueue::kL2G: return "l2g (load -> compute)";
    case TokenQueue::kG2L: return "g2l (compute -> load)";
    case TokenQueue::kG2S: return "g2s (compute -> store)";
    case TokenQueue::kS2G: return "s2g (store -> compute)";
  }
  return "?";
}

std::optional<TokenQueue> token_queue(Stage stage, DepFlag flag) {
  switch (stage) {
    case Stage::kLoad:
      if (flag == DepFlag::kPopNext) return TokenQueue::kG2L;
      if (flag == DepFlag::kPushNext) return TokenQueue::kL2G;
      return std::nullopt;
    case Stage::kCompute:
      switch (flag) {
        case DepFlag::kPopPrev: return TokenQueue::kL2G;
        case DepFlag::kPopNext: return TokenQueue::kS2G;
        case DepFlag::kPushPrev: return TokenQueue::kG2L;
        case DepFlag::kPushNext: return TokenQueue::kG2S;
      }
      return std::nullopt;
    case Stage::kStore:
      if (flag == DepFlag::kPopPrev) return TokenQueue::kG2S;
      if (flag == DepFlag::kPushPrev) return TokenQueue::kS2G;
      return std::nullopt;
  }
  return std::nullopt;
}

Stage stage_of(RawInsn raw) {
  const uint8_t op = Isa::opcode_of(raw);
  if (op == static_cast<uint8_t>(Opcode::kStore)) return Stage::kStore;
  if (op == static_cast<uint8_t>(Opcode::kLoad)) {
    const auto mem = static_cast<uint8_t>((raw.lo >> 7) & 7u);  // memory_type is at bits 7..9 in every config
    if (mem == static_cast<uint8_t>(MemId::kInp) || mem == static_cast<uint8_t>(MemId::kWgt)) return Stage::kLoad;
  }
  return Stage::kCompute;
}

}  // namespace vta
