#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <random>

#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/isa.h"
#include "vta/hw_spec.h"

namespace vta {
namespace {

struct Expected {
  std::string name;
  int lsb, width;
};

// Bit positions of spec section 2 for the default configuration, typed in from the spec tables.
const std::vector<Expected> kMem = {{"opcode", 0, 3},        {"pop_prev_dep", 3, 1},  {"pop_next_dep", 4, 1},
                                    {"push_prev_dep", 5, 1}, {"push_next_dep", 6, 1}, {"memory_type", 7, 3},
                                    {"sram_base", 10, 16},   {"dram_base", 26, 32},   {"y_size", 64, 16},
                                    {"x_size", 80, 16},      {"x_stride", 96, 16},    {"y_pad_0", 112, 4},
                                    {"y_pad_1", 116, 4},     {"x_pad_0", 120, 4},     {"x_pad_1", 124, 4}};
const std::vector<Expected> kGemm = {
    {"opcode", 0, 3},           {"pop_prev_dep", 3, 1},    {"pop_next_dep", 4, 1},      {"push_prev_dep", 5, 1},
    {"push_next_dep", 6, 1},    {"reset_reg", 7, 1},       {"uop_bgn", 8, 13},          {"uop_end", 21, 14},
    {"iter_out", 35, 14},       {"iter_in", 49, 14},       {"dst_factor_out", 64, 11},  {"dst_factor_in", 75, 11},
    {"src_factor_out", 86, 11}, {"src_factor_in", 97, 11}, {"wgt_factor_out", 108, 10}, {"wgt_factor_in", 118, 10}};
const std::vector<Expected> kAlu = {{"opcode", 0, 3},
                                    {"pop_prev_dep", 3, 1},
                                    {"pop_next_dep", 4, 1},
                                    {"push_prev_dep", 5, 1},
                                    {"push_next_dep", 6, 1},
                                    {"reset_reg", 7, 1},
                                    {"uop_bgn", 8, 13},
                                    {"uop_end", 21, 14},
                                    {"iter_out", 35, 14},
                                    {"iter_in", 49, 14},
                                    {"dst_factor_out", 64, 11},
                                    {"dst_factor_in", 75, 11},
                                    {"src_factor_out", 86, 11},
                                    {"src_factor_in", 97, 11},
                                    {"alu_opcode", 108, 3},
                                    {"use_imm", 111, 1},
                                    {"imm", 112, 16}};
const std::vector<Expected> kUop = {{"dst_idx", 0, 11}, {"src_idx", 11, 11}, {"wgt_idx", 22, 10}};

void expect_layout(const std::vector<FieldLayout>& got, const std::vector<Expected>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].lsb, want[i].lsb) << want[i].name;
    EXPECT_EQ(got[i].width, want[i].width) << want[i].name;
  }
}

TEST(Isa, DefaultLayoutsMatchSpecTables) {
  Isa isa(Config::default_config());
  expect_layout(isa.mem_layout(), kMem);
  expect_layout(isa.gemm_layout(), kGemm);
  expect_layout(isa.alu_layout(), kAlu);
  expect_layout(isa.uop_layout(), kUop);
}

// Bits [lsb, lsb+width) of a 128-bit instruction all set, nothing else.
RawInsn mask(int lsb, int width) {
  RawInsn r;
  for (int b = lsb; b < lsb + width; ++b) (b < 64 ? r.lo : r.hi) |= uint64_t{1} << (b % 64);
  return r;
}

uint32_t all_ones(int width) { return width >= 32 ? 0xffffffffu : (1u << width) - 1; }

// Setting one field of a typed instruction to all ones sets exactly the bits of that field.
TEST(Isa, EachFieldEncodesAtItsBitPosition) {
  Isa isa(Config::default_config());
  std::map<std::string, std::function<void(MemInsn&, uint32_t)>> mem = {
      {"opcode", [](MemInsn& i, uint32_t v) { i.opcode = uint8_t(v); }},
      {"pop_prev_dep", [](MemInsn& i, uint32_t v) { i.deps.pop_prev = v; }},
      {"pop_next_dep", [](MemInsn& i, uint32_t v) { i.deps.pop_next = v; }},
      {"push_prev_dep", [](MemInsn& i, uint32_t v) { i.deps.push_prev = v; }},
      {"push_next_dep", [](MemInsn& i, uint32_t v) { i.deps.push_next = v; }},
      {"memory_type", [](MemInsn& i, uint32_t v) { i.memory_type = uint8_t(v); }},
      {"sram_base", [](MemInsn& i, uint32_t v) { i.sram_base = v; }},
      {"dram_base", [](MemInsn& i, uint32_t v) { i.dram_base = v; }},
      {"y_size", [](MemInsn& i, uint32_t v) { i.y_size = v; }},
      {"x_size", [](MemInsn& i, uint32_t v) { i.x_size = v; }},
      {"x_stride", [](MemInsn& i, uint32_t v) { i.x_stride = v; }},
      {"y_pad_0", [](MemInsn& i, uint32_t v) { i.y_pad_0 = v; }},
      {"y_pad_1", [](MemInsn& i, uint32_t v) { i.y_pad_1 = v; }},
      {"x_pad_0", [](MemInsn& i, uint32_t v) { i.x_pad_0 = v; }},
      {"x_pad_1", [](MemInsn& i, uint32_t v) { i.x_pad_1 = v; }}};
  for (const auto& f : kMem) {
    MemInsn i{};
    i.opcode = 0;
    mem.at(f.name)(i, all_ones(f.width));
    EXPECT_EQ(isa.encode(i), mask(f.lsb, f.width)) << f.name;
    EXPECT_EQ(isa.decode_mem(isa.encode(i)), i) << f.name;
  }
  // GEMM and ALU share their first fields; set through a generic setter table.
  auto loop_setters = [](auto& i, const std::string& n, uint32_t v) {
    if (n == "opcode") i.opcode = uint8_t(v);
    if (n == "pop_prev_dep") i.deps.pop_prev = v;
    if (n == "pop_next_dep") i.deps.pop_next = v;
    if (n == "push_prev_dep") i.deps.push_prev = v;
    if (n == "push_next_dep") i.deps.push_next = v;
    if (n == "reset_reg") i.reset = v;
    if (n == "uop_bgn") i.uop_bgn = v;
    if (n == "uop_end") i.uop_end = v;
    if (n == "iter_out") i.iter_out = v;
    if (n == "iter_in") i.iter_in = v;
    if (n == "dst_factor_out") i.dst_factor_out = v;
    if (n == "dst_factor_in") i.dst_factor_in = v;
    if (n == "src_factor_out") i.src_factor_out = v;
    if (n == "src_factor_in") i.src_factor_in = v;
  };
  for (const auto& f : kGemm) {
    GemmInsn i{};
    i.opcode = 0;
    loop_setters(i, f.name, all_ones(f.width));
    if (f.name == "wgt_factor_out") i.wgt_factor_out = all_ones(f.width);
    if (f.name == "wgt_factor_in") i.wgt_factor_in = all_ones(f.width);
    EXPECT_EQ(isa.encode(i), mask(f.lsb, f.width)) << f.name;
    EXPECT_EQ(isa.decode_gemm(isa.encode(i)), i) << f.name;
  }
  for (const auto& f : kAlu) {
    AluInsn i{};
    i.opcode = 0;
    loop_setters(i, f.name, all_ones(f.width));
    if (f.name == "alu_opcode") i.alu_opcode = uint8_t(all_ones(f.width));
    if (f.name == "use_imm") i.use_imm = true;
    if (f.name == "imm") i.imm = -1;  // all 16 bits set
    EXPECT_EQ(isa.encode(i), mask(f.lsb, f.width)) << f.name;
    EXPECT_EQ(isa.decode_alu(isa.encode(i)), i) << f.name;
  }
  EXPECT_EQ(isa.encode(Uop{2047, 0, 0}), 0x7ffu);
  EXPECT_EQ(isa.encode(Uop{0, 2047, 0}), 0x7ffu << 11);
  EXPECT_EQ(isa.encode(Uop{0, 0, 1023}), 0x3ffu << 22);
}

TEST(Isa, ImmediateIsSignExtended) {
  Isa isa(Config::default_config());
  for (int32_t imm : {-32768, -129, -8, -1, 0, 1, 127, 32767}) {
    AluInsn a;
    a.imm = imm;
    EXPECT_EQ(isa.decode_alu(isa.encode(a)).imm, imm);
  }
  RawInsn raw;
  raw.hi = uint64_t{0x8000} << 48;  // imm field = 0x8000
  EXPECT_EQ(isa.decode_alu(raw).imm, -32768);
}

TEST(Isa, EncoderRejectsValuesThatDoNotFit) {
  Isa isa(Config::default_config());
  GemmInsn g;
  g.iter_out = 1 << 14;
  try {
    isa.encode(g);
    FAIL();
  } catch (const IsaError& e) {
    EXPECT_NE(std::string(e.what()).find("iter_out"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("14 bits"), std::string::npos) << e.what();
  }
  AluInsn a;
  a.imm = 40000;
  EXPECT_THROW(isa.encode(a), IsaError);
  EXPECT_THROW(isa.encode(Uop{2048, 0, 0}), IsaError);
  MemInsn m;
  m.x_pad_0 = 16;
  EXPECT_THROW(isa.encode(m), IsaError);
}

// The C bit-field structs of vta/hw_spec.h and the C++ encoder agree for random values: the compiler's
// ABI packing is an independent reference for the layout engine.
TEST(Isa, MatchesCBitfieldHeader) {
  static_assert(sizeof(VTAGenericInsn) == 16 && sizeof(VTAMemInsn) == 16 && sizeof(VTAGemInsn) == 16 &&
                sizeof(VTAAluInsn) == 16 && sizeof(union VTAInsn) == 16 && sizeof(VTAUop) == 4);
  Isa isa(build_config());
  std::mt19937_64 rng(7);
  auto r = [&](int bits) { return static_cast<uint32_t>(rng() & ((uint64_t{1} << bits) - 1)); };
  for (int n = 0; n < 2000; ++n) {
    VTAInsn c;
    std::memset(&c, 0, sizeof c);
    MemInsn m;
    m.opcode = uint8_t(r(3)), m.deps = {bool(r(1)), bool(r(1)), bool(r(1)), bool(r(1))};
    m.memory_type = uint8_t(r(3)), m.sram_base = r(16), m.dram_base = r(32), m.y_size = r(16), m.x_size = r(16);
    m.x_stride = r(16), m.y_pad_0 = r(4), m.y_pad_1 = r(4), m.x_pad_0 = r(4), m.x_pad_1 = r(4);
    c.mem.opcode = m.opcode, c.mem.pop_prev_dep = m.deps.pop_prev, c.mem.pop_next_dep = m.deps.pop_next;
    c.mem.push_prev_dep = m.deps.push_prev, c.mem.push_next_dep = m.deps.push_next;
    c.mem.memory_type = m.memory_type, c.mem.sram_base = m.sram_base, c.mem.dram_base = m.dram_base;
    c.mem.y_size = m.y_size, c.mem.x_size = m.x_size, c.mem.x_stride = m.x_stride;
    c.mem.y_pad_0 = m.y_pad_0, c.mem.y_pad_1 = m.y_pad_1, c.mem.x_pad_0 = m.x_pad_0, c.mem.x_pad_1 = m.x_pad_1;
    RawInsn from_c = load_insn(&c);
    ASSERT_EQ(isa.encode(m), from_c);

    const int lu = VTA_LOG_UOP_BUFF_DEPTH, la = VTA_LOG_ACC_BUFF_DEPTH, li = VTA_LOG_INP_BUFF_DEPTH,
              lw = VTA_LOG_WGT_BUFF_DEPTH;
    std::memset(&c, 0, sizeof c);
    GemmInsn g;
    g.opcode = uint8_t(r(3)), g.deps = {bool(r(1)), bool(r(1)), bool(r(1)), bool(r(1))}, g.reset = r(1);
    g.uop_bgn = r(lu), g.uop_end = r(lu + 1), g.iter_out = r(14), g.iter_in = r(14);
    g.dst_factor_out = r(la), g.dst_factor_in = r(la), g.src_factor_out = r(li), g.src_factor_in = r(li);
    g.wgt_factor_out = r(lw), g.wgt_factor_in = r(lw);
    c.gemm.opcode = g.opcode, c.gemm.pop_prev_dep = g.deps.pop_prev, c.gemm.pop_next_dep = g.deps.pop_next;
    c.gemm.push_prev_dep = g.deps.push_prev, c.gemm.push_next_dep = g.deps.push_next, c.gemm.reset_reg = g.reset;
    c.gemm.uop_bgn = g.uop_bgn, c.gemm.uop_end = g.uop_end, c.gemm.iter_out = g.iter_out, c.gemm.iter_in = g.iter_in;
    c.gemm.dst_factor_out = g.dst_factor_out, c.gemm.dst_factor_in = g.dst_factor_in;
    c.gemm.src_factor_out = g.src_factor_out, c.gemm.src_factor_in = g.src_factor_in;
    c.gemm.wgt_factor_out = g.wgt_factor_out, c.gemm.wgt_factor_in = g.wgt_factor_in;
    from_c = load_insn(&c);
    ASSERT_EQ(isa.encode(g), from_c);

    std::memset(&c, 0, sizeof c);
    AluInsn a;
    a.opcode = uint8_t(r(3)), a.deps = {bool(r(1)), bool(r(1)), bool(r(1)), bool(r(1))}, a.reset = r(1);
    a.uop_bgn = r(lu), a.uop_end = r(lu + 1), a.iter_out = r(14), a.iter_in = r(14);
    a.dst_factor_out = r(la), a.dst_factor_in = r(la), a.src_factor_out = r(la), a.src_factor_in = r(la);
    a.alu_opcode = uint8_t(r(3)), a.use_imm = r(1), a.imm = static_cast<int16_t>(r(16));
    c.alu.opcode = a.opcode, c.alu.pop_prev_dep = a.deps.pop_prev, c.alu.pop_next_dep = a.deps.pop_next;
    c.alu.push_prev_dep = a.deps.push_prev, c.alu.push_next_dep = a.deps.push_next, c.alu.reset_reg = a.reset;
    c.alu.uop_bgn = a.uop_bgn, c.alu.uop_end = a.uop_end, c.alu.iter_out = a.iter_out, c.alu.iter_in = a.iter_in;
    c.alu.dst_factor_out = a.dst_factor_out, c.alu.dst_factor_in = a.dst_factor_in;
    c.alu.src_factor_out = a.src_factor_out, c.alu.src_factor_in = a.src_factor_in;
    c.alu.alu_opcode = a.alu_opcode, c.alu.use_imm = a.use_imm, c.alu.imm = a.imm;
    from_c = load_insn(&c);
    ASSERT_EQ(isa.encode(a), from_c);
    ASSERT_EQ(isa.decode_alu(from_c).imm, c.alu.imm);

    VTAUop cu;
    std::memset(&cu, 0, sizeof cu);
    Uop u{r(la), r(std::max(la, li)), r(lw)};
    cu.dst_idx = u.dst, cu.src_idx = u.src, cu.wgt_idx = u.wgt;
    uint32_t cu_word;
    std::memcpy(&cu_word, &cu, 4);
    ASSERT_EQ(isa.encode(u), cu_word);
  }
}

// Random field values survive encode/decode for every sample configuration.
TEST(Isa, RoundTripAcrossSampleConfigs) {
  std::mt19937_64 rng(11);
  for (const auto& path : test::sample_config_paths()) {
    SCOPED_TRACE(path);
    const Config cfg = Config::from_file(path);
    Isa isa(cfg);
    auto r = [&](int bits) { return static_cast<uint32_t>(rng() & ((uint64_t{1} << bits) - 1)); };
    const int lu = cfg.log_uop_depth(), la = cfg.log_acc_depth(), li = cfg.log_inp_depth(), lw = cfg.log_wgt_depth();
    for (int n = 0; n < 1000; ++n) {
      MemInsn m;
      m.opcode = uint8_t(r(3)), m.deps = {bool(r(1)), bool(r(1)), bool(r(1)), bool(r(1))};
      m.memory_type = uint8_t(r(3)), m.sram_base = r(16), m.dram_base = r(32), m.y_size = r(16);
      m.x_size = r(16), m.x_stride = r(16), m.y_pad_0 = r(4), m.y_pad_1 = r(4), m.x_pad_0 = r(4), m.x_pad_1 = r(4);
      ASSERT_EQ(isa.decode_mem(isa.encode(m)), m);
      GemmInsn g;
      g.deps = {bool(r(1)), bool(r(1)), bool(r(1)), bool(r(1))}, g.reset = r(1);
      g.uop_bgn = r(lu), g.uop_end = r(lu + 1), g.iter_out = r(14), g.iter_in = r(14);
      g.dst_factor_out = r(la), g.dst_factor_in = r(la), g.src_factor_out = r(li), g.src_factor_in = r(li);
      g.wgt_factor_out = r(lw), g.wgt_factor_in = r(lw);
      ASSERT_EQ(isa.decode_gemm(isa.encode(g)), g);
      AluInsn a;
      a.deps = {bool(r(1)), bool(r(1)), bool(r(1)), bool(r(1))}, a.reset = r(1);
      a.uop_bgn = r(lu), a.uop_end = r(lu + 1), a.iter_out = r(14), a.iter_in = r(14);
      a.dst_factor_out = r(la), a.dst_factor_in = r(la), a.src_factor_out = r(la), a.src_factor_in = r(la);
      a.alu_opcode = uint8_t(r(3)), a.use_imm = r(1), a.imm = static_cast<int16_t>(r(16));
      ASSERT_EQ(isa.decode_alu(isa.encode(a)), a);
      Uop u{r(la), r(std::max(la, li)), r(lw)};
      ASSERT_EQ(isa.decode_uop(isa.encode(u)), u);
    }
    // Fields never straddle bit 64 and never pass bit 128.
    for (const auto* layout : {&isa.mem_layout(), &isa.gemm_layout(), &isa.alu_layout()}) {
      for (const auto& f : *layout) {
        EXPECT_EQ(f.lsb / 64, (f.lsb + f.width - 1) / 64) << f.name;
        EXPECT_LE(f.lsb + f.width, 128) << f.name;
      }
    }
  }
}

TEST(Isa, DisassemblerPrintsEveryField) {
  Isa isa(Config::default_config());
  MemInsn m;
  m.memory_type = static_cast<uint8_t>(MemId::kInp), m.deps.pop_next = true, m.sram_base = 5, m.dram_base = 4096;
  m.y_size = 2, m.x_size = 16, m.x_stride = 20, m.y_pad_0 = 1, m.x_pad_1 = 3;
  const std::string text = isa.disassemble(isa.encode(m));
  EXPECT_EQ(text,
            "LOAD INP memory_type=2 deps=[pop_next] sram_base=5 dram_base=4096 y_size=2 x_size=16 x_stride=20 "
            "y_pad_0=1 y_pad_1=0 x_pad_0=0 x_pad_1=3");
  for (const auto* layout : {&isa.gemm_layout(), &isa.alu_layout()}) {
    const bool is_alu = layout == &isa.alu_layout();
    const std::string t = is_alu ? isa.disassemble(isa.encode(AluInsn{})) : isa.disassemble(isa.encode(GemmInsn{}));
    for (const auto& f : *layout) {
      std::string name = f.name;
      if (name.ends_with("_dep")) continue;  // flags are listed in deps=[...]
      if (name == "opcode") continue;
      EXPECT_NE(t.find(name + "="), std::string::npos) << name << " missing in: " << t;
    }
  }
  EXPECT_EQ(isa.disassemble(RawInsn{7, 0}).rfind("ILLEGAL opcode=7", 0), 0u);
  GemmInsn fin;
  fin.opcode = static_cast<uint8_t>(Opcode::kFinish);
  fin.deps.pop_next = true;
  EXPECT_EQ(isa.disassemble(isa.encode(fin)), "FINISH deps=[pop_next]");
  EXPECT_EQ(isa.disassemble(Uop{1, 2, 3}), "UOP dst_idx=1 src_idx=2 wgt_idx=3");
  // the opcode and ALU operation lead, the immediate prints signed
  AluInsn a = test::alu_insn(AluOp::kShr, 3, 4, true, -5, 2, 7);
  a.deps.pop_prev = true;
  EXPECT_EQ(isa.disassemble(isa.encode(a)),
            "ALU SHR alu_opcode=3 deps=[pop_prev] reset_reg=0 uop_bgn=3 uop_end=4 iter_out=2 iter_in=7 "
            "dst_factor_out=0 dst_factor_in=0 src_factor_out=0 src_factor_in=0 use_imm=1 imm=-5");
  GemmInsn g = test::gemm_insn(1, 9, 4, 5);
  g.reset = true, g.wgt_factor_in = 6;
  EXPECT_EQ(isa.disassemble(isa.encode(g)),
            "GEMM deps=[] reset_reg=1 uop_bgn=1 uop_end=9 iter_out=4 iter_in=5 dst_factor_out=0 dst_factor_in=0 "
            "src_factor_out=0 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=6");
}

TEST(Isa, StageRouting) {
  Isa isa(Config::default_config());
  auto load = [&](MemId t) {
    MemInsn m;
    m.memory_type = static_cast<uint8_t>(t);
    return stage_of(isa.encode(m));
  };
  EXPECT_EQ(load(MemId::kInp), Stage::kLoad);
  EXPECT_EQ(load(MemId::kWgt), Stage::kLoad);
  EXPECT_EQ(load(MemId::kUop), Stage::kCompute);
  EXPECT_EQ(load(MemId::kAcc), Stage::kCompute);
  EXPECT_EQ(load(MemId::kAcc8Bit), Stage::kCompute);
  MemInsn st;
  st.opcode = static_cast<uint8_t>(Opcode::kStore);
  EXPECT_EQ(stage_of(isa.encode(st)), Stage::kStore);
  EXPECT_EQ(stage_of(isa.encode(GemmInsn{})), Stage::kCompute);
  EXPECT_EQ(stage_of(isa.encode(AluInsn{})), Stage::kCompute);
}

}  // namespace
}  // namespace vta
