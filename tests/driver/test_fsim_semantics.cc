// One focused test per fsim behaviour (spec sections 2-4, 7.3), each against values computed here
// with plain loops straight from the spec's formulas.

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <ostream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/packing.h"

namespace vta {
namespace {

using test::DevBuf;
using test::Program;

// Lane `index` of a DRAM vector of `width`-bit lanes, by docs/ISA.md's rule written out here: a byte
// each at 8 bits; at 4, lane 2k in the low nibble of byte k, 2k + 1 in the high one, two's complement.
int8_t dram_lane(const DevBuf& buf, size_t index, int width) {
  if (width == 8) return buf.as<int8_t>()[index];
  const unsigned nibble = (buf.data()[index / 2] >> (4 * (index % 2))) & 0xFu;
  return static_cast<int8_t>(nibble >= 8 ? int(nibble) - 16 : int(nibble));
}

class FsimSemantics : public test::DefaultFsimTest {
 protected:
  std::mt19937 rng_{1234};

  void run_ok(const Program& p) { ASSERT_EQ(p.run(*dev_), RunStatus::kOk) << dev_->last_error(); }
};

// LOAD INP: y_pad_0 zero rows, rows of x_pad_0 zeros + data + x_pad_1 zeros, y_pad_1 zero rows,
// written densely from sram_base; DRAM rows x_stride apart (spec 3.2). Pads are not counted.
TEST_F(FsimSemantics, Load2DStridedWithAllFourPads) {
  const int elem = cfg_.inp_elem_bytes();
  DevBuf src(64 * elem);
  test::fill_random({src.as<int8_t>(), src.size()}, rng_);
  const uint32_t y = 3, x = 4, stride = 7, yp0 = 1, yp1 = 2, xp0 = 2, xp1 = 1, base = 5, off = 3;
  Program p(cfg_);
  p.load(MemId::kInp, base, src.base(elem) + off, y, x, stride, {}, yp0, yp1, xp0, xp1).finish();
  run_ok(p);
  const uint32_t cols = xp0 + x + xp1, rows = yp0 + y + yp1;
  auto sram = dev_->inp_sram();
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < cols; ++c) {
      const bool data = r >= yp0 && r < yp0 + y && c >= xp0 && c < xp0 + x;
      for (int l = 0; l < elem; ++l) {
        const int8_t want = data ? src.as<int8_t>()[((off + (r - yp0) * stride) + (c - xp0)) * elem + l] : int8_t{0};
        ASSERT_EQ(sram[(base + r * cols + c) * elem + l], want) << "row " << r << " col " << c << " lane " << l;
      }
    }
  }
  EXPECT_EQ(dev_->stats().inp_load_nbytes, uint64_t(y * x * elem));
}

TEST_F(FsimSemantics, LoadsIntoWeightAccAndUopBuffersWithPadding) {
  const int wgt_bytes = cfg_.wgt_elem_bytes(), acc_bytes = cfg_.acc_elem_bytes();
  DevBuf wsrc(8 * wgt_bytes), asrc(8 * acc_bytes), usrc(64);
  test::fill_random({wsrc.as<int8_t>(), wsrc.size()}, rng_);
  for (int i = 0; i < 8 * acc_bytes / 4; ++i) asrc.as<int32_t>()[i] = static_cast<int32_t>(rng_());
  for (int i = 0; i < 16; ++i) usrc.as<uint32_t>()[i] = 0x1000u + i;
  // Fill the destinations first so that padding visibly writes zeros.
  DevBuf ones(16 * acc_bytes);
  std::memset(ones.data(), 0x11, ones.size());
  Program pre(cfg_);
  pre.load(MemId::kWgt, 0, ones.base(wgt_bytes), 1, 4, 4).load(MemId::kAcc, 0, ones.base(acc_bytes), 1, 8, 8).finish();
  run_ok(pre);
  Program p(cfg_);
  p.load(MemId::kWgt, 0, wsrc.base(wgt_bytes), 1, 2, 2, {}, 0, 0, 1, 1)     // [0, w0, w1, 0]
      .load(MemId::kAcc, 2, asrc.base(acc_bytes), 2, 2, 3, {}, 1, 0, 0, 0)  // zero row of 2, then rows 0 and 1
      .load(MemId::kUop, 100, usrc.base(4) + 1, 1, 3, 3, {}, 0, 1, 0, 0)    // 3 uops then a zero row of 3
      .finish();
  run_ok(p);
  auto w = dev_->wgt_sram();
  for (int l = 0; l < wgt_bytes; ++l) {
    ASSERT_EQ(w[0 * wgt_bytes + l], 0);
    ASSERT_EQ(w[1 * wgt_bytes + l], wsrc.as<int8_t>()[0 * wgt_bytes + l]);
    ASSERT_EQ(w[2 * wgt_bytes + l], wsrc.as<int8_t>()[1 * wgt_bytes + l]);
    ASSERT_EQ(w[3 * wgt_bytes + l], 0);
  }
  auto acc = dev_->acc_sram();
  const int lanes = acc_bytes / 4;
  for (int l = 0; l < lanes; ++l) {
    ASSERT_EQ(acc[2 * lanes + l], 0);
    ASSERT_EQ(acc[3 * lanes + l], 0);
    ASSERT_EQ(acc[4 * lanes + l], asrc.as<int32_t>()[0 * lanes + l]);
    ASSERT_EQ(acc[5 * lanes + l], asrc.as<int32_t>()[1 * lanes + l]);
    ASSERT_EQ(acc[6 * lanes + l], asrc.as<int32_t>()[3 * lanes + l]);  // second row starts x_stride = 3 later
    ASSERT_EQ(acc[7 * lanes + l], asrc.as<int32_t>()[4 * lanes + l]);
    ASSERT_EQ(acc[0 * lanes + l], 0x11111111);  // untouched below sram_base
  }
  auto u = dev_->uop_sram();
  EXPECT_EQ(u[100], 0x1001u);
  EXPECT_EQ(u[101], 0x1002u);
  EXPECT_EQ(u[102], 0x1003u);
  EXPECT_EQ(u[103], 0u);
  EXPECT_EQ(u[105], 0u);
  EXPECT_EQ(dev_->stats().wgt_load_nbytes, uint64_t(4 * wgt_bytes + 2 * wgt_bytes));
  EXPECT_EQ(dev_->stats().acc_load_nbytes, uint64_t(8 * acc_bytes + 4 * acc_bytes));
  EXPECT_EQ(dev_->stats().uop_load_nbytes, 12u);
}

// ACC_8BIT: DRAM elements of BATCH*BLOCK_OUT int8, each lane sign-extended; counted as acc bytes.
TEST_F(FsimSemantics, Acc8BitLoadSignExtends) {
  const int lanes = cfg_.batch() * cfg_.block_out();
  DevBuf src(4 * lanes);
  const int8_t pattern[] = {-128, -1, 0, 1, 127, -77, 55, -2};
  for (int i = 0; i < 4 * lanes; ++i) src.as<int8_t>()[i] = pattern[i % 8];
  Program p(cfg_);
  p.load(MemId::kAcc8Bit, 10, src.base(lanes), 2, 2, 2).finish();
  run_ok(p);
  auto acc = dev_->acc_sram();
  for (int i = 0; i < 4 * lanes; ++i) ASSERT_EQ(acc[10 * lanes + i], int32_t(pattern[i % 8])) << i;
  EXPECT_EQ(dev_->stats().acc_load_nbytes, uint64_t(4 * cfg_.acc_elem_bytes()));
}

// STORE reads SRAM contiguously (pitch x_size), writes DRAM rows x_stride apart, and truncates each
// int32 lane to its low 8 bits (no saturation). Bytes between rows stay untouched.
TEST_F(FsimSemantics, StoreTruncatesAndHonoursStride) {
  const int acc_bytes = cfg_.acc_elem_bytes(), out_bytes = cfg_.out_elem_bytes(), lanes = acc_bytes / 4;
  DevBuf acc(6 * acc_bytes), out(32 * out_bytes);
  const int32_t values[] = {0x12345680, -129, 255, 300, -1, 128, 0x7fffffff, std::numeric_limits<int32_t>::min()};
  for (int i = 0; i < 6 * lanes; ++i) {
    acc.as<int32_t>()[i] = static_cast<int32_t>(static_cast<uint32_t>(values[i % 8]) + static_cast<uint32_t>(i));
  }
  std::memset(out.data(), 0x5a, out.size());
  const uint32_t y = 2, x = 3, stride = 5, off = 1;
  Program p(cfg_);
  p.load(MemId::kAcc, 0, acc.base(acc_bytes), 1, 6, 6).store(0, out.base(out_bytes) + off, y, x, stride).finish();
  run_ok(p);
  for (uint32_t e = 0; e < 32; ++e) {
    const bool written = e >= off && (e - off) % stride < x && (e - off) / stride < y;
    for (int l = 0; l < lanes; ++l) {
      const uint8_t got = out.data()[e * out_bytes + l];
      if (!written) {
        ASSERT_EQ(got, 0x5a) << "element " << e << " must be untouched";
      } else {
        const uint32_t row = (e - off) / stride, col = (e - off) % stride;
        const int32_t v = acc.as<int32_t>()[(row * x + col) * lanes + l];
        ASSERT_EQ(got, static_cast<uint8_t>(v & 0xff)) << "element " << e << " lane " << l;
      }
    }
  }
  EXPECT_EQ(dev_->stats().out_store_nbytes, uint64_t(y * x * out_bytes));
}

// --- elements of 4 bits (docs/ISA.md, "Element widths") ----------------------------------------

// The packing by hand: lane 2k in the low nibble of byte k, two's-complement nibbles.
TEST(Packing, NibblesByHand) {
  const int8_t lanes[] = {1, -1, 7, -8, 0, 5, -2, 3};
  uint8_t bytes[4] = {};
  pack_lanes(lanes, bytes, 8, 4);
  EXPECT_EQ(bytes[0], 0xF1);  // -1 = 0xF high, 1 low
  EXPECT_EQ(bytes[1], 0x87);  // -8 = 0x8 high, 7 low
  EXPECT_EQ(bytes[2], 0x50);
  EXPECT_EQ(bytes[3], 0x3E);  // -2 = 0xE low
  int8_t back[8] = {};
  unpack_lanes(bytes, back, 8, 4);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(back[i], lanes[i]) << "lane " << i;
  // an accumulator's low four bits, whatever the rest (the store's truncation): 0x12345679 -> 9 = -7
  const int32_t acc[] = {0x12345679, -17};  // -17 = ...1110 1111 -> 0xF
  uint8_t out = 0;
  pack_lanes(acc, &out, 2, 4);
  EXPECT_EQ(out, 0xF9);
  EXPECT_EQ(packed_bytes(16, 4), 8u);
  EXPECT_EQ(packed_bytes(16, 8), 16u);
}

// LOAD INP and WGT at 4 bits unpack each nibble into a lane, pads are zero lanes, and the statistics
// count the DRAM bytes (packed); STORE at 4 bits writes each accumulator's low nibble. Every expected
// lane is read from the bytes here by the nibble rule, on the w4a4 sample.
TEST(FsimFourBit, LoadsUnpackAndStoresPack) {
  const Config cfg = Config::from_file(test::source_path("config/samples/w4a4.json"));
  auto dev = test::make_test_fsim(cfg);
  std::mt19937 rng(4);
  const int inp_elem = cfg.inp_elem_bytes(), wgt_elem = cfg.wgt_elem_bytes(), acc_elem = cfg.acc_elem_bytes();
  const int inp_lanes = cfg.batch() * cfg.block_in(), wgt_lanes = cfg.block_in() * cfg.block_out(),
            acc_lanes = acc_elem / 4;
  ASSERT_EQ(inp_elem * 2, inp_lanes);
  DevBuf inp(8 * inp_elem), wgt(2 * wgt_elem), acc(3 * acc_elem), out(3 * cfg.out_elem_bytes());
  test::fill_random({inp.as<int8_t>(), inp.size()}, rng);
  test::fill_random({wgt.as<int8_t>(), wgt.size()}, rng);
  for (int i = 0; i < 3 * acc_lanes; ++i) acc.as<int32_t>()[i] = static_cast<int32_t>(rng());
  auto nibble = [](const DevBuf& b, size_t lane) { return dram_lane(b, lane, 4); };
  Program p(cfg);
  p.load(MemId::kInp, 0, inp.base(inp_elem), 2, 3, 4, {}, 0, 0, 1, 0)  // rows of [pad, 3 elements]
      .load(MemId::kWgt, 0, wgt.base(wgt_elem), 1, 2, 2)
      .load(MemId::kAcc, 0, acc.base(acc_elem), 1, 3, 3)
      .store(0, out.base(cfg.out_elem_bytes()), 1, 3, 3)
      .finish();
  ASSERT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();
  auto sram = dev->inp_sram();
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 4; ++c) {
      for (int l = 0; l < inp_lanes; ++l) {
        const int8_t want = c == 0 ? int8_t{0} : nibble(inp, size_t(r * 4 + c - 1) * inp_lanes + l);
        ASSERT_EQ(sram[(r * 4 + c) * inp_lanes + l], want) << "row " << r << " col " << c << " lane " << l;
      }
    }
  }
  for (int l = 0; l < 2 * wgt_lanes; ++l) ASSERT_EQ(dev->wgt_sram()[l], nibble(wgt, size_t(l))) << "weight lane " << l;
  for (int l = 0; l < 3 * acc_lanes; ++l) {
    const int low = acc.as<int32_t>()[l] & 0xF;
    ASSERT_EQ(nibble(out, size_t(l)), static_cast<int8_t>(low >= 8 ? low - 16 : low)) << "output lane " << l;
  }
  EXPECT_EQ(dev->stats().inp_load_nbytes, uint64_t(6 * inp_elem));  // 6 elements of 8 bytes, pads not counted
  EXPECT_EQ(dev->stats().wgt_load_nbytes, uint64_t(2 * wgt_elem));
  EXPECT_EQ(dev->stats().out_store_nbytes, uint64_t(3 * cfg.out_elem_bytes()));
}

// x_size = 0 is a no-op for every load type and for STORE: no data, no statistics, not even an
// address check; only the dependency flags act.
TEST_F(FsimSemantics, ZeroXSizeIsANoOp) {
  Program p(cfg_);
  p.load(MemId::kInp, 0, 0xdeadbeef, 7, 0, 0, test::push_next())
      .load(MemId::kAcc, 0, 0xdeadbeef, 7, 0, 0, test::pop_prev())
      .load(MemId::kUop, 0, 0, 0, 0, 0)
      .raw(p.isa().encode(MemInsn{static_cast<uint8_t>(Opcode::kStore), {}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
      .finish();
  const auto before = std::vector<int32_t>(dev_->acc_sram().begin(), dev_->acc_sram().end());
  run_ok(p);
  EXPECT_EQ(dev_->stats(), Stats{});
  EXPECT_EQ(dev_->tokens(), TokenCounts{});
  EXPECT_TRUE(std::equal(before.begin(), before.end(), dev_->acc_sram().begin()));
}

// --- GEMM ---------------------------------------------------------------------------------------

struct GemmCase {
  std::string config;
  FsimKernel kernel;
  // what ctest shows after the test's name: without it GoogleTest prints the object's bytes, a heap
  // address among them, so the registered names changed from one build to the next
  // NOLINTNEXTLINE(readability-identifier-naming): the name GoogleTest looks for
  friend void PrintTo(const GemmCase& c, std::ostream* os) {
    *os << std::filesystem::path(c.config).filename().string() << ", " << fsim_kernel_name(c.kernel);
  }
};

class FsimGemm : public ::testing::TestWithParam<GemmCase> {
 protected:
  void gemm_against_formula(uint32_t wgt_factor_out, uint32_t wgt_factor_in);
};

// GEMM with two loop levels and all six factors against the formula of spec 2.7, on each kernel this
// CPU runs (portable, AVX2, VNNI), for every sample configuration whose shape the kernel takes. The
// weight factors take each of their four kinds (both zero, either, neither): the vector kernels run the
// executions that share a weight tile together (for_each_weight_run), a different order for each kind,
// and micro-op 2 meets micro-ops 0 and 3 on accumulator rows (5 + 3 = 0 + 8, 5 = 2 + 3), whose sums must
// not depend on it.
TEST_P(FsimGemm, LoopsAndFactorsMatchSpecFormula) {
  for (const auto& [wgt_out, wgt_in] : {std::pair{9u, 4u}, {0u, 4u}, {9u, 0u}, {0u, 0u}}) {
    SCOPED_TRACE("wgt_factor_out " + std::to_string(wgt_out) + ", wgt_factor_in " + std::to_string(wgt_in));
    gemm_against_formula(wgt_out, wgt_in);
  }
}

void FsimGemm::gemm_against_formula(uint32_t wgt_factor_out, uint32_t wgt_factor_in) {
  const Config cfg = Config::from_file(GetParam().config);
  auto dev = test::make_test_fsim(cfg, GetParam().kernel);
  std::mt19937 rng(99);
  const int batch_tiles = cfg.batch(), blk_in = cfg.block_in(), blk_out = cfg.block_out();
  const int inp_elem = cfg.inp_elem_bytes(), wgt_elem = cfg.wgt_elem_bytes(), acc_elem = cfg.acc_elem_bytes();
  const int n_inp = 40, n_wgt = 40, n_acc = 64;
  DevBuf inp(n_inp * inp_elem), wgt(n_wgt * wgt_elem), acc(n_acc * acc_elem), out(n_acc * cfg.out_elem_bytes()),
      uops(64);
  // random bytes: at 4 bits every nibble is a lane (docs/ISA.md), read back below by the formula
  test::fill_random({inp.as<int8_t>(), inp.size()}, rng);
  test::fill_random({wgt.as<int8_t>(), wgt.size()}, rng);
  const int inp_lanes = batch_tiles * blk_in, wgt_lanes = blk_out * blk_in;
  auto lane = [](const DevBuf& buf, size_t index, int width) { return int64_t{dram_lane(buf, index, width)}; };
  for (int i = 0; i < n_acc * acc_elem / 4; ++i) acc.as<int32_t>()[i] = static_cast<int32_t>(rng() % 2001) - 1000;
  const std::vector<Uop> kernel = {{0, 0, 0}, {1, 3, 2}, {5, 1, 7}, {2, 2, 1}};
  test::put_uops(Program(cfg).isa(), uops, kernel);
  GemmInsn g = test::gemm_insn(0, 4, 3, 2);
  g.dst_factor_out = 8, g.dst_factor_in = 3, g.src_factor_out = 5, g.src_factor_in = 7;
  g.wgt_factor_out = wgt_factor_out, g.wgt_factor_in = wgt_factor_in;
  Program p(cfg);
  p.load(MemId::kUop, 0, uops.base(4), 1, 4, 4)
      .load(MemId::kInp, 0, inp.base(inp_elem), 1, n_inp, n_inp)
      .load(MemId::kWgt, 0, wgt.base(wgt_elem), 1, n_wgt, n_wgt)
      .load(MemId::kAcc, 0, acc.base(acc_elem), 1, n_acc, n_acc)
      .gemm(g)
      .finish();
  ASSERT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();

  std::vector<int64_t> want(acc.as<int32_t>(), acc.as<int32_t>() + n_acc * batch_tiles * blk_out);
  for (uint32_t i = 0; i < g.iter_out; ++i)
    for (uint32_t j = 0; j < g.iter_in; ++j)
      for (const Uop& u : kernel) {
        const uint32_t a = u.dst + i * g.dst_factor_out + j * g.dst_factor_in;
        const uint32_t x = u.src + i * g.src_factor_out + j * g.src_factor_in;
        const uint32_t w = u.wgt + i * g.wgt_factor_out + j * g.wgt_factor_in;
        for (int b = 0; b < batch_tiles; ++b)
          for (int o = 0; o < blk_out; ++o) {
            int64_t sum = 0;
            for (int c = 0; c < blk_in; ++c) {
              sum += lane(inp, x * inp_lanes + b * blk_in + c, cfg.inp_width()) *
                     lane(wgt, w * wgt_lanes + o * blk_in + c, cfg.wgt_width());
            }
            want[a * batch_tiles * blk_out + b * blk_out + o] += sum;
          }
      }
  auto got = dev->acc_sram();
  for (size_t k = 0; k < want.size(); ++k) ASSERT_EQ(got[k], static_cast<int32_t>(want[k])) << "lane " << k;
  EXPECT_EQ(dev->stats().gemm_counter, 3u * 2u * 4u);
}

// Accumulation wraps around in two's complement like 32-bit hardware.
TEST_P(FsimGemm, AccumulatorWrapsAround) {
  const Config cfg = Config::from_file(GetParam().config);
  auto dev = test::make_test_fsim(cfg, GetParam().kernel);
  const int inp_elem = cfg.inp_elem_bytes(), wgt_elem = cfg.wgt_elem_bytes(), acc_elem = cfg.acc_elem_bytes();
  DevBuf inp(inp_elem), wgt(wgt_elem), acc(acc_elem), uops(4);
  // the most negative lane everywhere: -128 (0x80), or -8 in each nibble (0x88)
  std::memset(inp.data(), cfg.inp_width() == 8 ? 0x80 : 0x88, inp_elem);
  std::memset(wgt.data(), cfg.wgt_width() == 8 ? 0x80 : 0x88, wgt_elem);
  for (int l = 0; l < acc_elem / 4; ++l) acc.as<int32_t>()[l] = std::numeric_limits<int32_t>::max();
  test::put_uops(Program(cfg).isa(), uops, {{0, 0, 0}});
  Program p(cfg);
  p.load(MemId::kUop, 0, uops.base(4), 1, 1, 1)
      .load(MemId::kInp, 0, inp.base(inp_elem), 1, 1, 1)
      .load(MemId::kWgt, 0, wgt.base(wgt_elem), 1, 1, 1)
      .load(MemId::kAcc, 0, acc.base(acc_elem), 1, 1, 1)
      .gemm(test::gemm_insn(0, 1))
      .finish();
  ASSERT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();
  const uint32_t product = uint32_t(1) << (cfg.inp_width() - 1 + cfg.wgt_width() - 1);  // (-2^(w-1))^2
  const uint32_t want = uint32_t(std::numeric_limits<int32_t>::max()) + uint32_t(cfg.block_in()) * product;
  for (int l = 0; l < acc_elem / 4; ++l) ASSERT_EQ(dev->acc_sram()[l], static_cast<int32_t>(want));
}

// Each kernel this CPU and configuration run (a kernel that cannot run is refused when the device is made).
bool kernel_runs(const Config& c, FsimKernel k) {
  try {
    test::make_test_fsim(c, k);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

std::vector<GemmCase> gemm_cases() {
  std::vector<GemmCase> cases;
  for (const auto& path : test::sample_config_paths()) {
    for (const FsimKernel k : {FsimKernel::kPortable, FsimKernel::kAvx2, FsimKernel::kVnni}) {
      if (kernel_runs(Config::from_file(path), k)) cases.push_back({path, k});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Configs, FsimGemm, ::testing::ValuesIn(gemm_cases()), [](const auto& param_info) {
  auto name = std::filesystem::path(param_info.param.config).stem().string();
  return name + "_" + std::string(fsim_kernel_name(param_info.param.kernel));
});

// The same random programs (vta/driver/random_program.h) on each kernel this CPU runs and on the portable
// kernel: every output byte and statistic equal. The portable kernel is the plain formula of spec 2.7.
TEST(FsimKernels, RandomProgramsAgreeWithThePortableKernel) {
  const Config& c = build_config();
  auto portable = test::make_test_fsim(c, FsimKernel::kPortable);
  int kernels = 0;
  for (const FsimKernel k : {FsimKernel::kAvx2, FsimKernel::kVnni}) {
    if (!kernel_runs(c, k)) continue;
    ++kernels;
    auto dut = test::make_test_fsim(c, k);
    ASSERT_EQ(dut->kernel(), k);
    const DifferentialResult r = differential(c, *portable, *dut, std::string(fsim_kernel_name(k)), 20261129, 1000);
    EXPECT_EQ(r.programs, 1000u);
    for (const DifferentialMismatch& m : r.mismatches)
      ADD_FAILURE() << fsim_kernel_name(k) << ", seed " << m.seed << ": " << m.why;
  }
  if (kernels == 0) GTEST_SKIP() << "this CPU runs only the portable kernel";
}

// A kernel is chosen by name, from the options or VTA_FSIM_KERNEL; a name that is none, or a kernel this
// CPU or configuration cannot run, is refused with the reason.
TEST(FsimKernels, ChosenByNameAndRefusedWhenTheyCannotRun) {
  EXPECT_EQ(parse_fsim_kernel("avx2"), FsimKernel::kAvx2);
  EXPECT_EQ(parse_fsim_kernel("portable"), FsimKernel::kPortable);
  try {
    parse_fsim_kernel("sse9");
    ADD_FAILURE() << "sse9 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected auto, portable, avx2 or vnni"), std::string::npos) << e.what();
  }
  ConfigParams params;
  params.log_block = 2;  // BLOCK 4: neither vector kernel's shape (smaller buffers: the indices must fit)
  params.log_inp_buff_size = 12, params.log_wgt_buff_size = 14, params.log_acc_buff_size = 13;
  const Config odd = Config::make(params);
  try {
    test::make_test_fsim(odd, FsimKernel::kAvx2);
    ADD_FAILURE() << "avx2 accepted for BLOCK_OUT 4";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("BLOCK_OUT 4"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::make_test_fsim(odd)->kernel(), FsimKernel::kPortable);
  {
    test::ScopedEnv env("VTA_FSIM_KERNEL", "portable");
    EXPECT_EQ(test::make_test_fsim(Config::default_config())->kernel(), FsimKernel::kPortable);
  }
  {
    test::ScopedEnv env("VTA_FSIM_KERNEL", "fastest");
    try {
      test::make_test_fsim(Config::default_config());
      ADD_FAILURE() << "VTA_FSIM_KERNEL=fastest accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("VTA_FSIM_KERNEL"), std::string::npos) << e.what();
    }
  }
}

// reset_reg zeroes exactly the accumulator tiles the loop nest addresses, still iterating the loops,
// and adds nothing to gemm_counter.
TEST_F(FsimSemantics, GemmResetZeroesAddressedTilesOnly) {
  const int acc_elem = cfg_.acc_elem_bytes(), lanes = acc_elem / 4;
  DevBuf acc(32 * acc_elem), uops(8);
  for (int i = 0; i < 32 * lanes; ++i) acc.as<int32_t>()[i] = i + 1;
  test::put_uops(Program(cfg_).isa(), uops, {{1, 5, 5}, {2, 0, 0}});
  GemmInsn g = test::gemm_insn(0, 2, 2, 3);
  g.reset = true;
  g.dst_factor_out = 10, g.dst_factor_in = 3;
  Program p(cfg_);
  p.load(MemId::kUop, 0, uops.base(4), 1, 2, 2).load(MemId::kAcc, 0, acc.base(acc_elem), 1, 32, 32).gemm(g).finish();
  run_ok(p);
  std::set<uint32_t> zeroed;
  for (uint32_t i = 0; i < 2; ++i)
    for (uint32_t j = 0; j < 3; ++j)
      for (uint32_t d : {1u, 2u}) zeroed.insert(d + i * 10 + j * 3);
  for (uint32_t t = 0; t < 32; ++t) {
    for (int l = 0; l < lanes; ++l) {
      ASSERT_EQ(dev_->acc_sram()[t * lanes + l], zeroed.count(t) ? 0 : int32_t(t * lanes + l + 1)) << "tile " << t;
    }
  }
  EXPECT_EQ(dev_->stats().gemm_counter, 0u);
}

// --- ALU ----------------------------------------------------------------------------------------

// The ALU ops of spec 2.8 written out with 64-bit arithmetic, independent of the simulator's code.
int32_t alu_reference(AluOp op, int32_t a, int32_t b) {
  const int64_t acc_bytes = a, batch_tiles = b;
  auto wrap = [](int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); };
  switch (op) {
    case AluOp::kMin: return acc_bytes < batch_tiles ? a : b;
    case AluOp::kMax: return acc_bytes > batch_tiles ? a : b;
    case AluOp::kAdd: return wrap(acc_bytes + batch_tiles);
    case AluOp::kMul: return wrap(acc_bytes * batch_tiles);
    case AluOp::kShr: {
      if (batch_tiles >= 0) {  // floor(acc_bytes / 2^batch_tiles)
        int64_t v = acc_bytes;
        for (int64_t k = 0; k < batch_tiles && k < 40; ++k) v = (v - (v & 1)) / 2;
        return static_cast<int32_t>(v);
      }
      uint64_t v = static_cast<uint32_t>(a);
      for (int64_t k = 0; k < -batch_tiles && k < 40; ++k) v = (v * 2) & 0xffffffffu;
      return wrap(static_cast<int64_t>(v));
    }
  }
  return 0;
}

struct AluCase {
  AluOp op;
  bool use_imm;
};

class FsimAlu : public ::testing::TestWithParam<AluCase> {};

TEST_P(FsimAlu, MatchesReferenceWithLoopsAndFactors) {
  const Config cfg = Config::default_config();
  auto dev = test::make_test_fsim(cfg);
  std::mt19937 rng(7 + static_cast<int>(GetParam().op));
  const AluOp op = GetParam().op;
  const int acc_elem = cfg.acc_elem_bytes(), lanes = acc_elem / 4, n = 64;
  DevBuf acc(n * acc_elem), uops(16), out(n * cfg.out_elem_bytes());
  std::vector<int32_t> special = {
      0, 1, -1, 7, -8, 31, 32, -31, -32, 100, -100, 0x7fffffff, std::numeric_limits<int32_t>::min(), 0x12345678};
  for (int i = 0; i < n * lanes; ++i) {
    int32_t v = (i % 3 == 0) ? special[rng() % special.size()] : static_cast<int32_t>(rng());
    // Shift amounts come from the source operand: keep a useful share of them small.
    if (op == AluOp::kShr && i >= 32 * lanes && i % 2 == 0) v = static_cast<int32_t>(rng() % 80) - 40;
    acc.as<int32_t>()[i] = v;
  }
  // dst tiles 0..15 (via loops), src tiles 32.. (vector operand).
  const std::vector<Uop> kernel = {{0, 32, 0}, {1, 33, 0}};
  test::put_uops(Program(cfg).isa(), uops, kernel);
  std::vector<int32_t> imms = {-32768, -40, -33, -32, -31, -8, -1, 0, 1, 5, 31, 32, 33, 255, 32767};
  for (int32_t imm : GetParam().use_imm ? imms : std::vector<int32_t>{0}) {
    SCOPED_TRACE("imm " + std::to_string(imm));
    dev->clear_stats();
    AluInsn a = test::alu_insn(op, 0, 2, GetParam().use_imm, imm, 2, 4);
    a.dst_factor_out = 8, a.dst_factor_in = 2, a.src_factor_out = 8, a.src_factor_in = 2;
    Program p(cfg);
    p.load(MemId::kUop, 0, uops.base(4), 1, 2, 2).load(MemId::kAcc, 0, acc.base(acc_elem), 1, n, n).alu(a).finish();
    ASSERT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();
    std::vector<int32_t> want(acc.as<int32_t>(), acc.as<int32_t>() + n * lanes);
    for (uint32_t i = 0; i < a.iter_out; ++i)
      for (uint32_t j = 0; j < a.iter_in; ++j)
        for (const Uop& u : kernel) {
          const uint32_t d = u.dst + i * a.dst_factor_out + j * a.dst_factor_in;
          const uint32_t s = u.src + i * a.src_factor_out + j * a.src_factor_in;
          for (int l = 0; l < lanes; ++l) {
            const int32_t b = a.use_imm ? imm : want[s * lanes + l];
            want[d * lanes + l] = alu_reference(op, want[d * lanes + l], b);
          }
        }
    for (int k = 0; k < n * lanes; ++k) ASSERT_EQ(dev->acc_sram()[k], want[k]) << "lane " << k;
    EXPECT_EQ(dev->stats().alu_counter, 2u * 4u * 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, FsimAlu,
                         ::testing::Values(AluCase{AluOp::kMin, true}, AluCase{AluOp::kMin, false},
                                           AluCase{AluOp::kMax, true}, AluCase{AluOp::kMax, false},
                                           AluCase{AluOp::kAdd, true}, AluCase{AluOp::kAdd, false},
                                           AluCase{AluOp::kShr, true}, AluCase{AluOp::kShr, false},
                                           AluCase{AluOp::kMul, true}, AluCase{AluOp::kMul, false}),
                         [](const auto& param_info) {
                           return std::string(to_string(param_info.param.op)) +
                                  (param_info.param.use_imm ? "_imm" : "_vector");
                         });

// acc_bytes uop that reads the tile the previous uop wrote sees the new value (sequential semantics).
TEST_F(FsimSemantics, AluReadAfterWriteBetweenConsecutiveUops) {
  const int acc_elem = cfg_.acc_elem_bytes(), lanes = acc_elem / 4;
  DevBuf acc(4 * acc_elem), uops(8);
  for (int i = 0; i < 4 * lanes; ++i) acc.as<int32_t>()[i] = 1;
  test::put_uops(Program(cfg_).isa(), uops, {{1, 0, 0}, {2, 1, 0}});  // t1 += t0; t2 += t1
  Program p(cfg_);
  p.load(MemId::kUop, 0, uops.base(4), 1, 2, 2)
      .load(MemId::kAcc, 0, acc.base(acc_elem), 1, 4, 4)
      .alu(test::alu_insn(AluOp::kAdd, 0, 2, false, 0))
      .finish();
  run_ok(p);
  EXPECT_EQ(dev_->acc_sram()[1 * lanes], 2);
  EXPECT_EQ(dev_->acc_sram()[2 * lanes], 3);
}

// --- dependency tokens ----------------------------------------------------------------------------

// load -> compute (l2g) and compute -> load (g2l): a GEMM must see the data a LOAD pushed, and a LOAD
// that pops g2l must not overwrite the input before the GEMM that pushed it has run.
TEST_F(FsimSemantics, TokensOrderLoadAndCompute) {
  const int inp_elem = cfg_.inp_elem_bytes(), wgt_elem = cfg_.wgt_elem_bytes(), lanes = cfg_.acc_elem_bytes() / 4;
  DevBuf inp1(inp_elem), inp2(inp_elem), wgt(wgt_elem), uops(8);
  for (int i = 0; i < inp_elem; ++i) inp1.as<int8_t>()[i] = 1, inp2.as<int8_t>()[i] = 2;
  for (int o = 0; o < cfg_.block_out(); ++o) wgt.as<int8_t>()[o * cfg_.block_in()] = 1;  // picks channel 0
  test::put_uops(Program(cfg_).isa(), uops, {{0, 0, 0}, {1, 0, 0}});
  GemmInsn reset = test::gemm_insn(0, 2);
  reset.reset = true;
  GemmInsn g0 = test::gemm_insn(0, 1), g1 = test::gemm_insn(1, 2);
  g0.deps = test::pop_prev() | test::push_prev();
  g1.deps = test::pop_prev();
  Program p(cfg_);
  // The compute stream is listed first: without tokens it would run before the loads.
  p.load(MemId::kUop, 0, uops.base(4), 1, 2, 2)
      .gemm(reset)
      .gemm(g0)
      .gemm(g1)
      .load(MemId::kWgt, 0, wgt.base(wgt_elem), 1, 1, 1)
      .load(MemId::kInp, 0, inp1.base(inp_elem), 1, 1, 1, test::push_next())
      .load(MemId::kInp, 0, inp2.base(inp_elem), 1, 1, 1, test::pop_next() | test::push_next())
      .finish();
  run_ok(p);
  EXPECT_EQ(dev_->acc_sram()[0 * lanes], 1);  // g0 saw inp1
  EXPECT_EQ(dev_->acc_sram()[1 * lanes], 2);  // g1 saw inp2
  EXPECT_EQ(dev_->tokens(), TokenCounts{});
}

// compute -> store (g2s) and store -> compute (s2g): a STORE sees the ALU result it waited for, and
// an ALU that waits for the store does not change what was stored.
TEST_F(FsimSemantics, TokensOrderComputeAndStore) {
  const int acc_elem = cfg_.acc_elem_bytes(), out_elem = cfg_.out_elem_bytes();
  DevBuf acc(acc_elem), out(2 * out_elem), uops(4);
  test::put_uops(Program(cfg_).isa(), uops, {{0, 0, 0}});
  AluInsn add5 = test::alu_insn(AluOp::kAdd, 0, 1, true, 5);
  add5.deps = test::push_next();
  AluInsn add7 = test::alu_insn(AluOp::kAdd, 0, 1, true, 7);
  add7.deps = test::pop_next() | test::push_next();
  Program p(cfg_);
  p.store(0, out.base(out_elem), 1, 1, 1, test::pop_prev() | test::push_prev())
      .store(0, out.base(out_elem) + 1, 1, 1, 1, test::pop_prev())
      .load(MemId::kUop, 0, uops.base(4), 1, 1, 1)
      .load(MemId::kAcc, 0, acc.base(acc_elem), 1, 1, 1)
      .alu(add5)
      .alu(add7)
      .finish();
  run_ok(p);
  EXPECT_EQ(out.as<int8_t>()[0], 5);
  EXPECT_EQ(out.as<int8_t>()[out_elem], 12);
  EXPECT_EQ(dev_->tokens(), TokenCounts{});
}

// FINISH does not wait for other modules unless it pops; with pop_next it waits for the store.
TEST_F(FsimSemantics, FinishWaitsOnlyForTokensItPops) {
  const int acc_elem = cfg_.acc_elem_bytes(), out_elem = cfg_.out_elem_bytes();
  DevBuf acc(acc_elem), out(out_elem), uops(4);
  acc.as<int32_t>()[0] = 42;
  Program p(cfg_);
  p.load(MemId::kAcc, 0, acc.base(acc_elem), 1, 1, 1);
  // An ALU shift-by-0 marks the OUT data ready for the store.
  test::put_uops(p.isa(), uops, {{0, 0, 0}});
  AluInsn copy = test::alu_insn(AluOp::kShr, 0, 1, true, 0);
  copy.deps = test::push_next();
  p.load(MemId::kUop, 0, uops.base(4), 1, 1, 1)
      .alu(copy)
      .store(0, out.base(out_elem), 1, 1, 1, test::pop_prev() | test::push_prev())
      .finish(test::pop_next());
  run_ok(p);
  EXPECT_EQ(out.as<int8_t>()[0], 42);
  EXPECT_EQ(dev_->tokens(), TokenCounts{});
}

// Tokens are counters that persist across runs (as in hardware); an unbalanced stream leaks them.
TEST_F(FsimSemantics, TokensPersistAcrossRuns) {
  Program push(cfg_);
  push.load(MemId::kInp, 0, 0, 0, 0, 0, test::push_next())
      .load(MemId::kInp, 0, 0, 0, 0, 0, test::push_next())
      .raw(push.isa().encode(
          MemInsn{static_cast<uint8_t>(Opcode::kStore), test::push_prev(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
      .finish();
  run_ok(push);
  EXPECT_EQ(dev_->tokens(), (TokenCounts{2, 0, 0, 1}));
  Program pop(cfg_);
  pop.finish(test::pop_prev() | test::pop_next());
  run_ok(pop);
  EXPECT_EQ(dev_->tokens(), (TokenCounts{1, 0, 0, 0}));
}

// The statistics only count; skip-execution mode leaves data untouched but counts the same.
TEST_F(FsimSemantics, SkipExecutionCountsWithoutExecuting) {
  const int acc_elem = cfg_.acc_elem_bytes(), out_elem = cfg_.out_elem_bytes();
  DevBuf acc(acc_elem), out(out_elem), uops(4);
  acc.as<int32_t>()[0] = 9;
  test::put_uops(Program(cfg_).isa(), uops, {{0, 0, 0}});
  Program p(cfg_);
  p.load(MemId::kUop, 0, uops.base(4), 1, 1, 1)
      .load(MemId::kAcc, 0, acc.base(acc_elem), 1, 1, 1)
      .alu(test::alu_insn(AluOp::kAdd, 0, 1, true, 1))
      .store(0, out.base(out_elem), 1, 1, 1)
      .finish();
  dev_->set_skip_execution(true);
  run_ok(p);
  EXPECT_EQ(out.as<int8_t>()[0], 0);
  EXPECT_EQ(dev_->uop_sram()[0], Program(cfg_).isa().encode(Uop{0, 0, 0}));
  const Stats skipped = dev_->stats();
  dev_->clear_stats();
  dev_->set_skip_execution(false);
  run_ok(p);
  EXPECT_EQ(out.as<int8_t>()[0], 10);
  EXPECT_EQ(dev_->stats(), skipped);
  EXPECT_EQ(skipped.alu_counter, 1u);
  EXPECT_EQ(skipped.acc_load_nbytes, uint64_t(acc_elem));
}

TEST(Stats, JsonAndTable) {
  Stats s;
  s.inp_load_nbytes = 4096, s.wgt_load_nbytes = 1048576, s.uop_load_nbytes = 20, s.out_store_nbytes = 1024;
  s.gemm_counter = 4096, s.alu_counter = 192;
  EXPECT_EQ(s.to_json(),
            "{\"inp_load_nbytes\": 4096, \"wgt_load_nbytes\": 1048576, \"acc_load_nbytes\": 0, "
            "\"uop_load_nbytes\": 20, \"out_store_nbytes\": 1024, \"gemm_counter\": 4096, \"alu_counter\": 192}");
  s.cycle_count = 77;
  EXPECT_NE(s.to_json().find("\"cycle_count\": 77}"), std::string::npos);
  EXPECT_NE(s.to_table().find("\tgemm_counter    :             4096\n"), std::string::npos) << s.to_table();
  EXPECT_NE(s.to_table().find("\tout_store_nbytes:             1024\n"), std::string::npos) << s.to_table();
}

}  // namespace
}  // namespace vta
