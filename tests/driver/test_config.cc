#include <gtest/gtest.h>

#include <fstream>

#include "test_paths.h"
#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/compute_issue.h"
#include "vta/driver/config.h"
#include "vta/driver/isa.h"
#include "vta/driver/vcr_map.h"
#include "vta/hw_config.h"

namespace vta {
namespace {

TEST(Config, DefaultDerivedQuantitiesMatchSpecTable) {
  const Config c = Config::default_config();
  EXPECT_EQ(c.batch(), 1);
  EXPECT_EQ(c.block_in(), 16);
  EXPECT_EQ(c.block_out(), 16);
  EXPECT_EQ(c.log_out_buff_size(), 15);
  EXPECT_EQ(c.inp_elem_bytes(), 16);
  EXPECT_EQ(c.wgt_elem_bytes(), 256);
  EXPECT_EQ(c.acc_elem_bytes(), 64);
  EXPECT_EQ(c.out_elem_bytes(), 16);
  EXPECT_EQ(c.uop_depth(), 8192u);
  EXPECT_EQ(c.log_uop_depth(), 13);
  EXPECT_EQ(c.inp_depth(), 2048u);
  EXPECT_EQ(c.wgt_depth(), 1024u);
  EXPECT_EQ(c.acc_depth(), 2048u);
  EXPECT_EQ(c.out_depth(), 2048u);
  EXPECT_EQ(c.bus_width(), 64);
  EXPECT_EQ(c.bitstream_name(), "1x16_i8w8a32_15_15_18_17");
}

TEST(Config, BusWidthFollowsTargetUnlessSet) {
  ConfigParams p;
  p.target = "ultra96";
  EXPECT_EQ(Config::make(p).bus_width(), 128);
  p.log_bus_width = 8;
  EXPECT_EQ(Config::make(p).bus_width(), 256);
}

TEST(Config, ShippedFilesLoad) {
  const Config d = Config::from_file(test::source_path("config/vta_config.json"));
  EXPECT_EQ(d.bitstream_name(), Config::default_config().bitstream_name());
  for (const auto& path : test::sample_config_paths()) {
    SCOPED_TRACE(path);
    EXPECT_NO_THROW(Config::from_file(path));
  }
  EXPECT_EQ(Config::from_file(test::source_path("config/samples/batch2.json")).batch(), 2);
  EXPECT_EQ(Config::from_file(test::source_path("config/samples/block8.json")).block_in(), 8);
  EXPECT_EQ(Config::from_file(test::source_path("config/samples/block32.json")).block_out(), 32);
}

// Elements of 4 bits: the derived quantities by the spec's formulas (section 1.2), computed by hand for
// the shipped w4a4 sample (BLOCK 16, 16 KiB of inputs, 128 KiB of weights, 128 KiB of accumulators).
TEST(Config, FourBitElements) {
  const Config c = Config::from_file(test::source_path("config/samples/w4a4.json"));
  EXPECT_EQ(c.inp_width(), 4);
  EXPECT_EQ(c.wgt_width(), 4);
  EXPECT_EQ(c.out_width(), 4);         // outputs follow inputs
  EXPECT_EQ(c.inp_elem_bytes(), 8);    // 16 lanes x 4 bits
  EXPECT_EQ(c.wgt_elem_bytes(), 128);  // 16 x 16 lanes x 4 bits
  EXPECT_EQ(c.out_elem_bytes(), 8);
  EXPECT_EQ(c.acc_elem_bytes(), 64);
  EXPECT_EQ(c.inp_depth(), 2048);  // 2^14 bytes / 8
  EXPECT_EQ(c.wgt_depth(), 1024);  // 2^17 / 128
  EXPECT_EQ(c.acc_depth(), 2048);
  EXPECT_EQ(c.bitstream_name(), "1x16_i4w4a32_15_14_17_17");
  const Config w4a8 = Config::from_file(test::source_path("config/samples/w4a8.json"));
  EXPECT_EQ(w4a8.inp_width(), 8);
  EXPECT_EQ(w4a8.wgt_width(), 4);
  EXPECT_EQ(w4a8.out_elem_bytes(), 16);
}

TEST(Config, JsonRoundTrip) {
  for (const auto& path : test::sample_config_paths()) {
    const Config a = Config::from_file(path);
    const Config b = Config::from_json_text(a.to_json_text());
    EXPECT_EQ(a.bitstream_name(), b.bitstream_name());
    EXPECT_EQ(a.constants().size(), b.constants().size());
  }
}

// Each refused configuration names its problem.
void expect_refused(const ConfigParams& p, const std::string& needle) {
  try {
    Config::make(p);
    ADD_FAILURE() << "expected a ConfigError mentioning '" << needle << "'";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Config, RefusesWhatTheInstructionFormatCannotEncode) {
  ConfigParams p;
  p.log_block = 3;  // default buffer sizes give 12-bit indices: 2*(12+12+12) = 72 > 64
  expect_refused(p, "GEMM word 1");
  p = {};
  p.log_acc_buff_size = 18;  // acc 12 bits, inp 10: GEMM word 1 fits (64) but ALU needs 4*12 + 20 = 68
  p.log_inp_buff_size = 14;
  expect_refused(p, "ALU word 1");
  p = {};
  p.log_uop_buff_size = 16;  // uop depth 16384: 8 + 14 + 15 + 28 = 65 > 64
  expect_refused(p, "word 0");
  p = {};
  p.log_inp_buff_size = 14;  // acc 11, inp 10, wgt 11 bits: GEMM word 1 is full (64) but the
  p.log_wgt_buff_size = 19;  // micro-op needs 11 + max(11, 10) + 11 = 33 bits
  expect_refused(p, "micro-op");
}

TEST(Config, RefusesUnsupportedValues) {
  ConfigParams p;
  p.log_inp_width = 1;
  expect_refused(p, "LOG_INP_WIDTH = 1 is unsupported: inputs are int4 (LOG_INP_WIDTH = 2) or int8 (3)");
  p = {};
  p.log_wgt_width = 4;
  expect_refused(p, "LOG_WGT_WIDTH = 4 is unsupported: weights are int4 (LOG_WGT_WIDTH = 2) or int8 (3)");
  p = {};
  // int4 inputs in the default's 32 KiB make 4,096 input elements: 2*(11+12+11) = 68 bits of GEMM word 1
  p.log_inp_width = 2;
  expect_refused(p, "GEMM word 1");
  p = {};
  p.log_acc_width = 4;
  expect_refused(p, "LOG_ACC_WIDTH");
  p = {};
  p.target = "gpu";
  expect_refused(p, "TARGET \"gpu\"");
  p = {};
  p.log_batch = 9;
  expect_refused(p, "LOG_BATCH");
  p = {};
  p.log_wgt_buff_size = 8;  // smaller than one 256-byte weight tile
  expect_refused(p, "LOG_WGT_BUFF_SIZE");
  p = {};
  p.log_bus_width = 5;
  expect_refused(p, "LOG_BUS_WIDTH");
}

// A configuration's text is its identity (a sweep's hash, a tilings file's check): the same whether
// its file names LOG_BUS_WIDTH or leaves it to the target's default (issue 46: the shipped
// vta_config.json hashed differently from the build made from it, and every sweep task over it failed).
TEST(Config, TextHasTheDefaultsFilled) {
  std::string implicit = R"({"TARGET": "sim", "HW_VER": "0.0.2", "LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3,
      "LOG_ACC_WIDTH": 5, "LOG_BATCH": 0, "LOG_BLOCK": 4, "LOG_UOP_BUFF_SIZE": 15, "LOG_INP_BUFF_SIZE": 15,
      "LOG_WGT_BUFF_SIZE": 18, "LOG_ACC_BUFF_SIZE": 17})";
  std::string explicit_bus = implicit;
  explicit_bus.insert(1, R"("LOG_BUS_WIDTH": 6,)");
  const std::string a = Config::from_json_text(implicit).to_json_text();
  EXPECT_EQ(a, Config::from_json_text(explicit_bus).to_json_text());
  EXPECT_NE(a.find("\"LOG_BUS_WIDTH\": 6"), std::string::npos) << a;
  std::string ultra96 = implicit;
  ultra96.replace(ultra96.find("\"sim\""), 5, "\"ultra96\"");
  EXPECT_NE(Config::from_json_text(ultra96).to_json_text().find("\"LOG_BUS_WIDTH\": 7"), std::string::npos)
      << "the target's own default";
}

// HW_FREQ (MHz) sets the time axis only: optional, 100 by default, not a hardware constant (a tsim or a
// remote device built at another clock accepts it), written back only when set.
TEST(Config, ClockFrequency) {
  const Config d = Config::default_config();
  EXPECT_EQ(d.hw_freq_mhz(), 100);
  EXPECT_EQ(d.clock_period_ps(), 10000u);
  EXPECT_DOUBLE_EQ(d.clock_period_ns(), 10.0);
  EXPECT_EQ(d.to_json_text().find("HW_FREQ"), std::string::npos)
      << "the default configuration's text is the reference's";
  std::string text = d.to_json_text();
  text.insert(1, R"("HW_FREQ": 300,)");
  const Config c = Config::from_json_text(text);
  EXPECT_EQ(c.hw_freq_mhz(), 300);
  EXPECT_EQ(c.clock_period_ps(), 3333u) << "rounded to the nearest picosecond";
  EXPECT_EQ(Config::from_json_text(c.to_json_text()).hw_freq_mhz(), 300) << "written back when set";
  EXPECT_EQ(c.bitstream_name(), d.bitstream_name());
  ASSERT_EQ(c.constants().size(), d.constants().size());
  for (size_t i = 0; i < c.constants().size(); ++i) EXPECT_EQ(c.constants()[i].value, d.constants()[i].value);
  ConfigParams p;
  p.hw_freq_mhz = 0;
  expect_refused(p, "HW_FREQ");
  p.hw_freq_mhz = 5001;
  expect_refused(p, "HW_FREQ");
  EXPECT_EQ(VTA_HW_FREQ, build_config().hw_freq_mhz());
}

// COMPUTE_ISSUE (vta/driver/compute_issue.h) chooses the compute stage: optional, 1 (the reference's)
// by default and then absent from the text, so the default configuration's identity is unchanged; 2 is
// another design: a hardware constant, another bitstream name. Anything else, or 2 with an accumulator
// too small for two banks, is refused by name.
TEST(Config, ComputeIssue) {
  const Config d = Config::default_config();
  EXPECT_EQ(d.compute_issue(), 1);
  EXPECT_EQ(d.to_json_text().find("COMPUTE_ISSUE"), std::string::npos);
  std::string text = d.to_json_text();
  text.insert(1, R"("COMPUTE_ISSUE": 2,)");
  const Config c = Config::from_json_text(text);
  EXPECT_EQ(c.compute_issue(), 2);
  EXPECT_EQ(Config::from_json_text(c.to_json_text()).compute_issue(), 2) << "written back when set";
  EXPECT_EQ(c.bitstream_name(), d.bitstream_name() + "_ci2");
  auto constant = [](const Config& cfg, const std::string& name) {
    for (const ConfigConstant& k : cfg.constants()) {
      if (k.name == name) return k.value;
    }
    ADD_FAILURE() << "no constant " << name;
    return int64_t{-1};
  };
  EXPECT_EQ(constant(d, "COMPUTE_ISSUE"), 1);
  EXPECT_EQ(constant(c, "COMPUTE_ISSUE"), 2);
  EXPECT_EQ(constant(c, "UOP_LOAD_TABLE_ENTRIES"), UopLoadTable::kEntries) << "the RTL's table is the rule's";
  EXPECT_EQ(VTA_COMPUTE_ISSUE, build_config().compute_issue());
  ConfigParams p;
  for (const int bad : {0, 3, -1}) {
    p.compute_issue = bad;
    expect_refused(p, "COMPUTE_ISSUE = " + std::to_string(bad) + " is not a compute stage");
  }
  p.compute_issue = 2;
  p.log_acc_buff_size = 7;  // two accumulator elements: no two banks of them
  expect_refused(p, "splits the accumulator in two banks");
}

void expect_json_refused(const std::string& text, const std::string& needle) {
  try {
    Config::from_json_text(text, "test.json");
    ADD_FAILURE() << "expected a ConfigError mentioning '" << needle << "'";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test.json"), std::string::npos) << e.what();
  }
}

TEST(Config, RefusesMalformedJson) {
  const std::string good = Config::default_config().to_json_text();
  expect_json_refused("{", "not valid JSON");
  expect_json_refused("[1, 2]", "JSON object");
  expect_json_refused(R"({"LOG_BATCH": 0})", "missing key");
  auto j = good;
  j.insert(1, R"("LOG_BLOCKS": 4,)");
  expect_json_refused(j, "LOG_BLOCKS is not a VTA configuration key");
  j = good;
  j.replace(j.find("\"LOG_BATCH\": 0"), 14, "\"LOG_BATCH\": \"0\"");
  expect_json_refused(j, "LOG_BATCH must be an integer");
  j = good;
  j.insert(1, R"("HW_FREQ": 1.5e2,)");
  expect_json_refused(j, "HW_FREQ must be an integer");
  try {
    Config::from_file("/nonexistent/vta.json");
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/vta.json"), std::string::npos);
  }
}

// The generated header and the C++ library agree: one source, no number written twice.
TEST(Config, GeneratedHeaderMatchesBuildConfig) {
  const Config& c = build_config();
  EXPECT_EQ(VTA_BATCH, c.batch());
  EXPECT_EQ(VTA_BLOCK_IN, c.block_in());
  EXPECT_EQ(VTA_BLOCK_OUT, c.block_out());
  EXPECT_EQ(VTA_INP_BUFF_DEPTH, c.inp_depth());
  EXPECT_EQ(VTA_WGT_BUFF_DEPTH, c.wgt_depth());
  EXPECT_EQ(VTA_ACC_BUFF_DEPTH, c.acc_depth());
  EXPECT_EQ(VTA_UOP_BUFF_DEPTH, c.uop_depth());
  EXPECT_EQ(VTA_LOG_ACC_BUFF_DEPTH, c.log_acc_depth());
  EXPECT_EQ(VTA_ACC_ELEM_BYTES, c.acc_elem_bytes());
  EXPECT_EQ(VTA_WGT_ELEM_BYTES, c.wgt_elem_bytes());
  EXPECT_EQ(std::string(VTA_BITSTREAM_NAME), c.bitstream_name());
  EXPECT_EQ(VTA_OPCODE_ALU, static_cast<int>(Opcode::kAlu));
  EXPECT_EQ(VTA_MEM_ID_ACC_8BIT, static_cast<int>(MemId::kAcc8Bit));
  EXPECT_EQ(VTA_ALU_OPCODE_MUL, static_cast<int>(AluOp::kMul));
  EXPECT_EQ(WGT_MAT_AXI_RATIO, c.wgt_elem_bytes() * 8 / c.bus_width());
}

TEST(Config, GeneratedSvPackageHasEveryConstant) {
  std::ifstream in(test::generated_sv_package());
  ASSERT_TRUE(in) << test::generated_sv_package();
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("package vta_config_pkg;"), std::string::npos);
  EXPECT_NE(
      text.find("localparam int unsigned LogAccBuffDepth = " + std::to_string(build_config().log_acc_depth()) + ";"),
      std::string::npos);
  EXPECT_NE(text.find("localparam int unsigned BlockOut = " + std::to_string(build_config().block_out()) + ";"),
            std::string::npos);
  size_t params = 0;
  for (size_t at = text.find("localparam"); at != std::string::npos; at = text.find("localparam", at + 1)) ++params;
  const Isa isa(build_config());
  const size_t fields =
      isa.mem_layout().size() + isa.gemm_layout().size() + isa.alu_layout().size() + isa.uop_layout().size();
  const size_t vcr =
      std::size(vcr::kRegisters) + std::size(vcr::kBits) + 2 * std::size(vcr::kFields) + 1;  // + VcrDefaultWatchdog
  EXPECT_EQ(params, build_config().constants().size() + 2 * fields + vcr);
  // The register map comes from vta/driver/vcr_map.h.
  EXPECT_NE(text.find("localparam logic [11:0] VcrInsnAddr = 12'hc;"), std::string::npos);
  EXPECT_NE(text.find("localparam int unsigned VcrErrDeadlockBit = 8;"), std::string::npos);
  EXPECT_NE(text.find("localparam int unsigned VcrQueueFillComputeLsb = 10;"), std::string::npos);
  EXPECT_NE(text.find("localparam int unsigned VcrTokensS2gWidth = 8;"), std::string::npos);
  // Field positions come from the C++ layout engine.
  EXPECT_NE(text.find("localparam int unsigned MemYSizeLsb = 64;"), std::string::npos);
  EXPECT_NE(text.find("localparam int unsigned AluImmLsb = " + std::to_string(isa.alu_layout().back().lsb) + ";"),
            std::string::npos);
}

}  // namespace
}  // namespace vta
