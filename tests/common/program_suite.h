#pragma once
// The reference-style program suite (ALU tests for every opcode, GEMM and blocked GEMM with 1 and 2
// virtual threads, the reference's own sizes), written once and run on every backend: the fsim on
// every sample configuration (test_fsim_programs.cc) and the tsim on its build configuration
// (tests/tsim). Every output element is checked against a plain C++ reference and the seven
// statistics against closed forms.

#include <gtest/gtest.h>

#include "workloads.h"

namespace vta::test {

inline void expect_clean(const WorkloadResult& r) {
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.stats.counters_equal(r.expected)) << "got " << r.stats.to_json() << "\nwant " << r.expected.to_json();
}

inline void alu_every_opcode_suite(Device& dev, const Config& cfg) {
  const int batch = 4 * cfg.batch();
  for (AluOp op : {AluOp::kMin, AluOp::kMax, AluOp::kAdd, AluOp::kShr, AluOp::kMul}) {
    for (bool use_imm : {true, false}) {
      for (bool compression : {false, true}) {
        for (int vector_size : {cfg.block_out(), 8 * cfg.block_out(), 64 * cfg.block_out()}) {
          SCOPED_TRACE(std::string(to_string(op)) + (use_imm ? " imm" : " vector") +
                       (compression ? " compressed" : "") + " vector_size " + std::to_string(vector_size));
          expect_clean(alu_workload(dev, op, use_imm, batch, vector_size, compression, 17));
        }
      }
    }
  }
}

/// gemm_test(batch, in, out): one block covering all channels.
inline void gemm_single_block_suite(Device& dev, const Config& cfg) {
  for (bool compression : {false, true}) {
    expect_clean(blocked_gemm(dev, 4 * cfg.batch(), 4 * cfg.block_in(), 4 * cfg.block_in(), compression, 1, 3));
  }
}

inline void blocked_gemm_suite(Device& dev, const Config& cfg) {
  struct Shape {
    int batch, channels, block;
  };
  const int blk_in = cfg.block_in();
  for (Shape s : {Shape{cfg.batch(), 4 * blk_in, blk_in}, Shape{8 * cfg.batch(), 8 * blk_in, 2 * blk_in},
                  Shape{16 * cfg.batch(), 16 * blk_in, 4 * blk_in}, Shape{64 * cfg.batch(), 16 * blk_in, 8 * blk_in}}) {
    for (bool compression : {false, true}) {
      for (int vt : {1, 2}) {
        SCOPED_TRACE("batch " + std::to_string(s.batch) + " channels " + std::to_string(s.channels) + " block " +
                     std::to_string(s.block) + (compression ? " compressed" : "") + " vt " + std::to_string(vt));
        expect_clean(blocked_gemm(dev, s.batch, s.channels, s.block, compression, vt, 5));
      }
    }
  }
}

/// The reference's own sizes on the default configuration: blocked_gemm_test(256, 256, 64, ...) and
/// gemm_test(4, 64, 64).
inline void reference_sizes_suite(Device& dev) {
  for (bool compression : {false, true}) {
    for (int vt : {1, 2}) {
      SCOPED_TRACE(std::string(compression ? "compressed" : "plain") + " vt " + std::to_string(vt));
      auto r = blocked_gemm(dev, 256, 256, 64, compression, vt, 42);
      expect_clean(r);
      EXPECT_EQ(r.stats.gemm_counter, 256u * 16 * 16);  // every (batch row, out tile, in tile) once
    }
  }
  expect_clean(blocked_gemm(dev, 4, 64, 64, false, 1, 42));
}

}  // namespace vta::test
