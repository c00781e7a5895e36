// The energy model (vta/driver/energy.h) against a hand computation: the convolution tutorial's seed
// statistics (docs/seeds: 451,584 GEMM micro-ops, 1,179,648 weight bytes, ...) on the default
// configuration with the 45 nm figures written out here from Horowitz's table, independently of the
// model's code; a table of one's own from a file; malformed tables refused by key.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "test_paths.h"
#include "vta/driver/build_config.h"
#include "vta/driver/energy.h"
#include "vta/driver/format.h"

namespace vta {
namespace {

Stats conv_seed() {
  Stats s;
  s.inp_load_nbytes = 114688, s.wgt_load_nbytes = 1179648, s.acc_load_nbytes = 0, s.uop_load_nbytes = 1144;
  s.out_store_nbytes = 50176, s.gemm_counter = 451584, s.alu_counter = 9408;
  s.cycle_count = 483434;
  return s;
}

// pJ per byte of a buffer of `bytes` on the 45 nm table's points: 10 pJ per 64 bits at 8 KB, 20 at 32 KB,
// 100 at 1 MB, a power law between them.
double sram_byte(double bytes) {
  const double at32k = 20, exponent = std::log(100.0 / 20.0) / std::log(1048576.0 / 32768.0);
  if (bytes >= 32768) return at32k * std::pow(bytes / 32768, exponent) / 8;
  return 10 * std::pow(bytes / 8192, std::log(2.0) / std::log(4.0)) / 8;
}

// The hand computations below are for the default configuration's block and buffer sizes.
bool default_sizes(const Config& c) {
  return c.batch() == 1 && c.block_in() == 16 && c.inp_depth() * c.inp_elem_bytes() == 32768 &&
         c.wgt_depth() * c.wgt_elem_bytes() == 262144 && c.acc_depth() * c.acc_elem_bytes() == 131072 &&
         c.out_depth() * c.out_elem_bytes() == 32768;
}

TEST(Energy, ConvolutionSeedByHand) {
  const Config& c = build_config();
  if (!default_sizes(c)) GTEST_SKIP() << "written for the default configuration";
  const Energy e = estimate_energy(conv_seed(), c, EnergyTable::default_table());
  // 256 products of 0.2 + 0.1 pJ per GEMM micro-op; 16 lanes of a 0.1 pJ add per ALU micro-op
  EXPECT_NEAR(e.mac, 451584.0 * 256 * 0.3, 1e-3);
  EXPECT_NEAR(e.alu, 9408.0 * 16 * 0.1, 1e-6);
  // 1,345,656 bytes through DRAM at 1,950 pJ per 8 bytes
  EXPECT_NEAR(e.dram, 1345656.0 * 1950 / 8, 1e-3);
  EXPECT_NEAR(e.idle, 483434.0 * 20, 1e-6);
  // the buffers: input 32 KB, weights 256 KB, accumulator 128 KB, output 32 KB, micro-ops 32 KB
  const double inp = sram_byte(32768), wgt = sram_byte(262144), acc = sram_byte(131072), out = sram_byte(32768),
               uop = sram_byte(32768);
  const double per_gemm = 16 * inp + 256 * wgt + 2 * 64 * acc, per_alu = 3 * 64 * acc;
  const double sram = 451584 * per_gemm + 9408 * per_alu + 114688 * inp + 1179648 * wgt + 1144 * uop + 50176 * out;
  EXPECT_NEAR(e.sram, sram, sram * 1e-9);
  EXPECT_NEAR(e.total(), e.mac + e.alu + e.sram + e.dram + e.idle, 1e-3);
  // 483,434 cycles at 100 MHz: 4.834 ms
  EXPECT_NEAR(e.average_mw(483434, 100), e.total() * 1e-12 / 4.83434e-3 * 1e3, 1e-9);
  const std::string line = energy_line(e, 483434, 100, "45nm");
  EXPECT_NE(line.find("energy: 1441."), std::string::npos) << line;
  EXPECT_NE(line.find("mW average at 100 MHz"), std::string::npos) << line;
  const std::string fsim = energy_line(e, std::nullopt, 100, "45nm");
  EXPECT_EQ(fsim.find("mW"), std::string::npos) << "no power without cycles: " << fsim;
  EXPECT_NE(fsim.find("no cycles: idle not counted"), std::string::npos) << fsim;
}

// A line as long as its figures make it: 1e300 uJ is 300 digits before the point, more than any fixed
// buffer held (the line used to be cut at 320 bytes, or copy the stack past them).
TEST(Energy, AFiguresLineHoldsEveryDigitAndNothingElse) {
  Energy e;
  e.dram = 1e306;
  const std::string line = energy_line(e, 1000, 100, "big");
  const std::string digits = format("%.3f", 1e306 * 1e-6);
  ASSERT_GT(digits.size(), 300u) << digits;
  EXPECT_EQ(line.rfind("energy: " + digits + " uJ (MAC 0.000, ALU 0.000, SRAM 0.000, DRAM " + digits, 0), 0u) << line;
  EXPECT_NE(line.find(", idle 0.000 uJ; big); "), std::string::npos) << line;
  EXPECT_EQ(line.find('\0'), std::string::npos);
  EXPECT_EQ(line.size(), std::strlen(line.c_str()));
}

// Each stage's share of the convolution (what `vta timeline` prints per stage), by hand: the load
// stage moves the input and weight bytes, the store stage the output bytes, the compute stage does the
// rest; with the idle term they make up the whole.
TEST(Energy, ConvolutionSeedByStage) {
  const Config& c = build_config();
  if (!default_sizes(c)) GTEST_SKIP() << "written for the default configuration";
  const auto stages = estimate_energy_by_stage(conv_seed(), c, EnergyTable::default_table());
  const Energy &load = stages[0], &compute = stages[1], &store = stages[2];
  const double dram_byte = 1950.0 / 8;
  EXPECT_NEAR(load.total(), (114688 + 1179648) * dram_byte + 114688 * sram_byte(32768) + 1179648 * sram_byte(262144),
              1e-3);
  EXPECT_EQ(load.mac + load.alu, 0.0);
  EXPECT_NEAR(store.total(), 50176 * (dram_byte + sram_byte(32768)), 1e-3);
  EXPECT_NEAR(compute.mac, 451584.0 * 256 * 0.3, 1e-3);
  EXPECT_NEAR(compute.dram, 1144 * dram_byte, 1e-6) << "the micro-ops are the compute stage's loads";
  const Energy whole = estimate_energy(conv_seed(), c, EnergyTable::default_table());
  EXPECT_NEAR(load.total() + compute.total() + store.total() + whole.idle, whole.total(), whole.total() * 1e-12);
  EXPECT_EQ(load.idle + compute.idle + store.idle, 0.0) << "the idle term belongs to no stage";
}

TEST(Energy, TablesOfOnesOwnAndTheirErrors) {
  const auto dir = std::filesystem::temp_directory_path() / ("vta_energy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "7nm.json").string();
  std::ofstream(path) << R"({"name": "mine", "mac_int8_pj": 1, "alu_op_pj": 2, "dram_pj_per_64bit": 8,
                             "idle_pj_per_cycle": 0, "sram_pj_per_64bit": [[1024, 8]]})";
  const EnergyTable t = EnergyTable::from_file(path);
  EXPECT_EQ(t.name, "mine");
  EXPECT_DOUBLE_EQ(t.sram_pj_per_byte(5000), 1.0) << "one point: the same at every size";
  Stats s;
  s.gemm_counter = 1, s.inp_load_nbytes = 8;
  const Config& c = build_config();
  const Energy e = estimate_energy(s, c, t);
  EXPECT_DOUBLE_EQ(e.mac, double(c.batch()) * c.block_in() * c.block_out());
  EXPECT_DOUBLE_EQ(e.dram, 8.0);
  // a product's energy at each element width: the whole mac_int8_pj where the table does not split it;
  // the 45 nm table's 0.1 pJ accumulation and 0.2 pJ multiply, 4 x 8 bits half of it, 4 x 4 a quarter
  EXPECT_DOUBLE_EQ(t.mac_pj(4, 4), 1.0);
  const EnergyTable& nm45 = EnergyTable::default_table();
  EXPECT_DOUBLE_EQ(nm45.mac_pj(8, 8), 0.3);
  EXPECT_NEAR(nm45.mac_pj(8, 4), 0.2, 1e-12);
  EXPECT_NEAR(nm45.mac_pj(4, 8), 0.2, 1e-12);
  EXPECT_NEAR(nm45.mac_pj(4, 4), 0.15, 1e-12);
  const Config w4a4 = Config::from_file(vta::test::source_path("config/samples/w4a4.json"));
  EXPECT_NEAR(estimate_energy(s, w4a4, nm45).mac, 256 * 0.15, 1e-9) << "one GEMM micro-op of 16 x 16 at 4 bits";
  auto error = [](const std::string& text) {
    try {
      EnergyTable::from_json_text(text, "t.json");
    } catch (const EnergyTableError& err) {
      return std::string(err.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("{").rfind("t.json: not JSON", 0), 0u);
  EXPECT_EQ(error(R"({"alu_op_pj": 1})"), "t.json: \"mac_int8_pj\" must be a number of pJ");
  EXPECT_EQ(error(R"({"mac_int8_pj": -1})"), "t.json: \"mac_int8_pj\" = -1 must be from 0 to 1e+06 pJ");
  EXPECT_EQ(error(R"({"mac_int8_pj": 1, "alu_op_pj": 1, "dram_pj_per_64bit": 1, "idle_pj_per_cycle": 0,
                      "sram_pj_per_64bit": [[4096, 1], [1024, 2]]})"),
            "t.json: \"sram_pj_per_64bit\": the buffer sizes must increase");
  EXPECT_NE(error("[]").find("not a JSON object"), std::string::npos);
  EXPECT_EQ(error(R"({"mac_int8_pj": 0.3, "multiply_int8_pj": 0.5, "alu_op_pj": 1, "dram_pj_per_64bit": 1,
                      "idle_pj_per_cycle": 0, "sram_pj_per_64bit": [[1024, 2]]})"),
            "t.json: \"multiply_int8_pj\" = 0.5 is a part of \"mac_int8_pj\" = 0.3: it cannot exceed it");
  // tables whose figures would overflow an estimate to inf or NaN, and fields of the wrong type: each
  // message names the file and the key (nlohmann's own messages named neither)
  const std::string rest = R"("alu_op_pj": 1, "dram_pj_per_64bit": 1, "idle_pj_per_cycle": 0,
                               "sram_pj_per_64bit": [[1024, 2]])";
  EXPECT_EQ(error(R"({"mac_int8_pj": 1e300, )" + rest + "}"),
            "t.json: \"mac_int8_pj\" = 1e+300 must be from 0 to 1e+06 pJ");
  EXPECT_EQ(error(R"({"mac_int8_pj": 1e309, )" + rest + "}").rfind("t.json: not JSON", 0), 0u);
  EXPECT_EQ(error(R"({"name": 5, "mac_int8_pj": 1, )" + rest + "}"), "t.json: \"name\" must be a string, not 5");
  EXPECT_EQ(error(R"({"sources": [1], "mac_int8_pj": 1, )" + rest + "}"),
            "t.json: \"sources\" must be a list of strings, not 1");
  EXPECT_NE(error(R"({"mac_int8_pj": 1, "alu_op_pj": 1, "dram_pj_per_64bit": 1, "idle_pj_per_cycle": 0,
                      "sram_pj_per_64bit": [[1, 0.001], [2, 1000]]})")
                .find("\"sram_pj_per_64bit\" extends to 1e+237 pJ for a buffer of 1099511627776 bytes"),
            std::string::npos)
      << "a steep last segment extends to infinity";
  EXPECT_NE(error(R"({"mac_int8_pj": 1, "alu_op_pj": 1, "dram_pj_per_64bit": 1, "idle_pj_per_cycle": 0,
                      "sram_pj_per_64bit": [[0.5, 1]]})")
                .find("each point is [bytes from 1 to 2^40"),
            std::string::npos);
  try {
    EnergyTable::from_file((dir / "missing.json").string());
    ADD_FAILURE() << "a missing table was read";
  } catch (const EnergyTableError& err) {
    EXPECT_NE(std::string(err.what()).find("missing.json"), std::string::npos) << err.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vta
