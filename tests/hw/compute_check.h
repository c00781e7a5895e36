#pragma once
// Shared by the compute-datapath tests: drive one loop instruction into a harness and compare its
// accumulator and output SRAMs with the fsim's accumulator.

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "sim_harness.h"
#include "test_util.h"
#include "unit_test.h"
#include "vta/driver/build_config.h"
#include "vta/driver/fsim.h"

namespace vta::test {

/// What the GEMM and ALU harness tests hold: the build's configuration and ISA, the Verilated
/// harness `Model`, an fsim to compare with, a generator seeded with `kSeed`, the test's micro-ops.
template <class Model, uint32_t kSeed>
class ComputeUnitTest : public UnitTest<Model> {
 protected:
  ComputeUnitTest() : UnitTest<Model>(kSeed) {}
  std::unique_ptr<FsimDevice> fsim_ = make_test_fsim(this->cfg_);
  std::vector<Uop> uops_;
};

/// Copies bytes (little-endian lanes) into a Verilator wide input.
template <class Wide>
void put_bytes(Wide& w, const uint8_t* bytes, int n) {
  for (int i = 0; i < n / 4; ++i) {
    w[i] = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 | uint32_t(bytes[4 * i + 2]) << 16 |
           uint32_t(bytes[4 * i + 3]) << 24;
  }
}

/// Writes micro-op words, then accumulator elements, through a harness's test write ports.
template <class H>
void write_uops(H& h, const uint32_t* words, int n) {
  for (int i = 0; i < n; ++i) {
    h->uop_we_i = 1, h->uop_waddr_i = i, h->uop_wdata_i = words[i];
    h.tick();
  }
  h->uop_we_i = 0;
}
template <class H>
void write_acc(H& h, const uint8_t* bytes, int n, int elem_bytes) {
  for (int i = 0; i < n; ++i) {
    h->acc_we_i = 1, h->acc_waddr_i = i;
    put_bytes(h->acc_wdata_i, bytes + size_t(i) * elem_bytes, elem_bytes);
    h.tick();
  }
  h->acc_we_i = 0;
}

/// Starts one GEMM/ALU instruction (fields in vta_pkg::loop_insn_t order) and clocks until idle.
/// Returns (cycles from start to idle, micro-ops the harness reported done).
template <class H>
std::pair<int, int> run_loop_insn(H& h, const Config& cfg, const std::vector<uint64_t>& fields) {
  const auto widths = loop_insn_widths(cfg);
  const auto lsb = packed_lsbs(widths);
  for (size_t f = 0; f < widths.size(); ++f) set_bits(h->insn_i, lsb[f], widths[f], fields[f]);
  h->start_i = 1;
  h.tick();
  h->start_i = 0;
  int cycles = 1, done = 0;
  while (h->busy_o && cycles < 1000000) {
    h.eval();
    done += h->uop_done_o;
    h.tick();
    ++cycles;
  }
  return {cycles, done};
}

/// Adds to `written` the accumulator index of every micro-op iteration of a GEMM or ALU instruction
/// (its loops' destination offsets over the micro-ops `uops` holds).
template <class Insn>
void add_written(std::set<uint32_t>& written, const Insn& x, const std::vector<Uop>& uops) {
  for (uint32_t i = 0; i < x.iter_out; ++i)
    for (uint32_t j = 0; j < x.iter_in; ++j)
      for (uint32_t k = x.uop_bgn; k < x.uop_end; ++k)
        written.insert(uops[k].dst + i * x.dst_factor_out + j * x.dst_factor_in);
}

/// Every accumulator element equals the fsim's, and the output buffer holds the low bytes of every
/// element in `written`.
template <class H>
void expect_acc_and_out_match(H& h, const Config& cfg, const FsimDevice& fsim, const std::set<uint32_t>& written) {
  const int lanes = cfg.batch() * cfg.block_out();
  for (uint32_t e = 0; e < cfg.acc_depth(); ++e) {
    h->tb_re_i = 1, h->tb_raddr_i = e;
    h.tick();  // the accumulator's word arrives in two cycles (its output register), the output's in one
    h.tick();
    h.eval();
    for (int l = 0; l < lanes; ++l) {
      const auto got = int32_t(get_bits(h->acc_rdata_o, 32 * l, 32));
      ASSERT_EQ(got, fsim.acc_sram()[e * lanes + l]) << "acc element " << e << " lane " << l;
      if (written.count(e)) {
        ASSERT_EQ(get_bits(h->out_rdata_o, 8 * l, 8), uint8_t(got)) << "out element " << e << " lane " << l;
      }
    }
  }
  h->tb_re_i = 0;
}

}  // namespace vta::test
