#pragma once
// The fixture of a Verilated unit's tests: the build's configuration and ISA, the unit (a stage such as
// vta_load, or a harness around an execution unit), a seeded generator, and for a stage the
// instruction at the head of its queue.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "sim_harness.h"
#include "vta/driver/build_config.h"
#include "vta/driver/isa.h"

namespace vta::test {

template <class V>
class UnitTest : public ::testing::Test {
 protected:
  explicit UnitTest(uint32_t seed) : rng_(seed) {}

  // a stage's instruction at the head of its queue, with fetch's verdict on it (vta_insn_check; HwFetch checks it)
  void set_insn(RawInsn r, bool legal = true) {
    put_insn(h_->insn_i, r);
    h_->insn_legal_i = legal;
  }

  const Config& cfg_ = build_config();
  Isa isa_{cfg_};
  Harness<V> h_;
  std::mt19937 rng_;
};

}  // namespace vta::test
