#include "vta/isa.h"

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
  if (pos > total_bits) throw IsaError("internal error: instruction layout exceeds " + std::to_string(total_bits) + " bits");
  return out;
}

std::vector<FieldSpec> header_specs() {
  return {{"opcode", isa::kOpcodeBits}, {"pop_prev_dep", 1}, {"pop_next_dep", 1}, {"push_prev_dep", 1}, {"push_next_dep", 1}};
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

RawInsn encode_values(const std::vector<FieldLayout>& layout, const std::vector<uint64_t>& values, const char* format) {
  RawInsn raw;
  for (size_t i = 0; i < layout.size(); ++i) put_bits(raw, layout[i], values[i], format);
  return raw;
}

std::vector<uint64_t> decode_values(const std::vector<FieldLayout>& layout, RawInsn raw) {
  std::vector<uint64_t> v(layout.size());
  for (size_t i = 0; i < layout.size(); ++i) v[i] = get_bits(raw, layout[i]);
  return v;
}

void push_deps(std::vector<uint64_t>& v, const DepFlags& d) {
  v.insert(v.end(), {d.pop_prev, d.pop_next, d.push_prev, d.push_next});
}

DepFlags deps_from(const std::vector<uint64_t>& v) { return {v[1] != 0, v[2] != 0, v[3] != 0, v[4] != 0}; }

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

Isa::Isa(const Config& config) : config_(config) {
  const int la = config.log_acc_depth(), li = config.log_inp_depth(), lw = config.log_wgt_depth();
  const int lu = config.log_uop_depth();
  auto mem = header_specs();
  mem.insert(mem.end(), {{"memory_type", isa::kMemIdBits},
                         {"sram_base", isa::kSramAddrBits},
                         {"dram_base", isa::kDramAddrBits},
                         {"y_size", isa::kSizeBits},
                         {"x_size", isa::kSizeBits},
                         {"x_stride", isa::kStrideBits},
                         {"y_pad_0", isa::kPadBits},
                         {"y_pad_1", isa::kPadBits},
                         {"x_pad_0", isa::kPadBits},
                         {"x_pad_1", isa::kPadBits}});
  auto loop = header_specs();
  loop.insert(loop.end(), {{"reset_reg", 1},
                           {"uop_bgn", lu},
                           {"uop_end", lu + 1},
                           {"iter_out", isa::kLoopIterBits},
                           {"iter_in", isa::kLoopIterBits},
                           {"dst_factor_out", la},
                           {"dst_factor_in", la}});
  auto gemm = loop;
  gemm.insert(gemm.end(), {{"src_factor_out", li}, {"src_factor_in", li}, {"wgt_factor_out", lw}, {"wgt_factor_in", lw}});
  auto alu = loop;
  alu.insert(alu.end(), {{"src_factor_out", la},
                         {"src_factor_in", la},
                         {"alu_opcode", isa::kAluOpcodeBits},
                         {"use_imm", 1},
                         {"imm", isa::kAluImmBits}});
  mem_ = place(mem, 128);
  gemm_ = place(gemm, 128);
  alu_ = place(alu, 128);
  uop_ = place({{"dst_idx", la}, {"src_idx", std::max(la, li)}, {"wgt_idx", lw}}, 32);
}

RawInsn Isa::encode(const MemInsn& i) const {
  std::vector<uint64_t> v = {i.opcode};
  push_deps(v, i.deps);
  v.insert(v.end(), {i.memory_type, i.sram_base, i.dram_base, i.y_size, i.x_size, i.x_stride, i.y_pad_0, i.y_pad_1,
                     i.x_pad_0, i.x_pad_1});
  return encode_values(mem_, v, "LOAD/STORE");
}

RawInsn Isa::encode(const GemmInsn& i) const {
  std::vector<uint64_t> v = {i.opcode};
  push_deps(v, i.deps);
  v.insert(v.end(), {i.reset, i.uop_bgn, i.uop_end, i.iter_out, i.iter_in, i.dst_factor_out, i.dst_factor_in,
                     i.src_factor_out, i.src_factor_in, i.wgt_factor_out, i.wgt_factor_in});
  return encode_values(gemm_, v, "GEMM");
}

RawInsn Isa::encode(const AluInsn& i) const {
  constexpr int32_t kImmMin = -(1 << (isa::kAluImmBits - 1)), kImmMax = (1 << (isa::kAluImmBits - 1)) - 1;
  if (i.imm < kImmMin || i.imm > kImmMax) {
    throw IsaError("ALU field imm = " + std::to_string(i.imm) + " does not fit in a signed " +
                   std::to_string(isa::kAluImmBits) + "-bit immediate");
  }
  uint64_t imm = static_cast<uint64_t>(static_cast<uint32_t>(i.imm)) & ((uint64_t{1} << isa::kAluImmBits) - 1);
  std::vector<uint64_t> v = {i.opcode};
  push_deps(v, i.deps);
  v.insert(v.end(), {i.reset, i.uop_bgn, i.uop_end, i.iter_out, i.iter_in, i.dst_factor_out, i.dst_factor_in,
                     i.src_factor_out, i.src_factor_in, i.alu_opcode, i.use_imm, imm});
  return encode_values(alu_, v, "ALU");
}

uint32_t Isa::encode(const Uop& u) const {
  RawInsn raw = encode_values(uop_, {u.dst, u.src, u.wgt}, "micro-op");
  return static_cast<uint32_t>(raw.lo);
}

DepFlags Isa::deps_of(RawInsn raw) {
  return {(raw.lo >> 3 & 1) != 0, (raw.lo >> 4 & 1) != 0, (raw.lo >> 5 & 1) != 0, (raw.lo >> 6 & 1) != 0};
}

MemInsn Isa::decode_mem(RawInsn raw) const {
  auto v = decode_values(mem_, raw);
  MemInsn i;
  i.opcode = static_cast<uint8_t>(v[0]);
  i.deps = deps_from(v);
  i.memory_type = static_cast<uint8_t>(v[5]);
  i.sram_base = static_cast<uint32_t>(v[6]);
  i.dram_base = static_cast<uint32_t>(v[7]);
  i.y_size = static_cast<uint32_t>(v[8]);
  i.x_size = static_cast<uint32_t>(v[9]);
  i.x_stride = static_cast<uint32_t>(v[10]);
  i.y_pad_0 = static_cast<uint32_t>(v[11]);
  i.y_pad_1 = static_cast<uint32_t>(v[12]);
  i.x_pad_0 = static_cast<uint32_t>(v[13]);
  i.x_pad_1 = static_cast<uint32_t>(v[14]);
  return i;
}

GemmInsn Isa::decode_gemm(RawInsn raw) const {
  auto v = decode_values(gemm_, raw);
  GemmInsn i;
  i.opcode = static_cast<uint8_t>(v[0]);
  i.deps = deps_from(v);
  i.reset = v[5] != 0;
  i.uop_bgn = static_cast<uint32_t>(v[6]);
  i.uop_end = static_cast<uint32_t>(v[7]);
  i.iter_out = static_cast<uint32_t>(v[8]);
  i.iter_in = static_cast<uint32_t>(v[9]);
  i.dst_factor_out = static_cast<uint32_t>(v[10]);
  i.dst_factor_in = static_cast<uint32_t>(v[11]);
  i.src_factor_out = static_cast<uint32_t>(v[12]);
  i.src_factor_in = static_cast<uint32_t>(v[13]);
  i.wgt_factor_out = static_cast<uint32_t>(v[14]);
  i.wgt_factor_in = static_cast<uint32_t>(v[15]);
  return i;
}

AluInsn Isa::decode_alu(RawInsn raw) const {
  auto v = decode_values(alu_, raw);
  AluInsn i;
  i.opcode = static_cast<uint8_t>(v[0]);
  i.deps = deps_from(v);
  i.reset = v[5] != 0;
  i.uop_bgn = static_cast<uint32_t>(v[6]);
  i.uop_end = static_cast<uint32_t>(v[7]);
  i.iter_out = static_cast<uint32_t>(v[8]);
  i.iter_in = static_cast<uint32_t>(v[9]);
  i.dst_factor_out = static_cast<uint32_t>(v[10]);
  i.dst_factor_in = static_cast<uint32_t>(v[11]);
  i.src_factor_out = static_cast<uint32_t>(v[12]);
  i.src_factor_in = static_cast<uint32_t>(v[13]);
  i.alu_opcode = static_cast<uint8_t>(v[14]);
  i.use_imm = v[15] != 0;
  i.imm = static_cast<int16_t>(static_cast<uint16_t>(v[16]));  // sign-extend the 16-bit field
  return i;
}

Uop Isa::decode_uop(uint32_t word) const {
  auto v = decode_values(uop_, RawInsn{word, 0});
  return {static_cast<uint32_t>(v[0]), static_cast<uint32_t>(v[1]), static_cast<uint32_t>(v[2])};
}

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
    s << ' ' << (is_valid_mem_id(i.memory_type) ? to_string(static_cast<MemId>(i.memory_type)) : "ILLEGAL")
      << " memory_type=" << int(i.memory_type) << ' ' << deps_text(i.deps) << " sram_base=" << i.sram_base
      << " dram_base=" << i.dram_base << " y_size=" << i.y_size << " x_size=" << i.x_size << " x_stride=" << i.x_stride
      << " y_pad_0=" << i.y_pad_0 << " y_pad_1=" << i.y_pad_1 << " x_pad_0=" << i.x_pad_0 << " x_pad_1=" << i.x_pad_1;
    if (i.x_size == 0) s << " (nop)";
  } else if (opcode == Opcode::kFinish) {
    s << ' ' << deps_text(deps_of(raw));
  } else if (opcode == Opcode::kGemm) {
    const auto i = decode_gemm(raw);
    s << ' ' << deps_text(i.deps) << " reset_reg=" << i.reset << " uop_bgn=" << i.uop_bgn << " uop_end=" << i.uop_end
      << " iter_out=" << i.iter_out << " iter_in=" << i.iter_in << " dst_factor_out=" << i.dst_factor_out
      << " dst_factor_in=" << i.dst_factor_in << " src_factor_out=" << i.src_factor_out
      << " src_factor_in=" << i.src_factor_in << " wgt_factor_out=" << i.wgt_factor_out
      << " wgt_factor_in=" << i.wgt_factor_in;
  } else {
    const auto i = decode_alu(raw);
    s << ' ' << (is_valid_alu_op(i.alu_opcode) ? to_string(static_cast<AluOp>(i.alu_opcode)) : "ILLEGAL")
      << " alu_opcode=" << int(i.alu_opcode) << ' ' << deps_text(i.deps) << " reset_reg=" << i.reset
      << " uop_bgn=" << i.uop_bgn << " uop_end=" << i.uop_end << " iter_out=" << i.iter_out
      << " iter_in=" << i.iter_in << " dst_factor_out=" << i.dst_factor_out << " dst_factor_in=" << i.dst_factor_in
      << " src_factor_out=" << i.src_factor_out << " src_factor_in=" << i.src_factor_in << " use_imm=" << i.use_imm
      << " imm=" << i.imm;
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
