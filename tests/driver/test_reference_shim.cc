// The vta() shim runs programs written the way the reference's test_lib.cc writes them: C bit-field
// structs from vta/hw_spec.h, one VTAMemAlloc buffer per memory type, DRAM offsets relative to it,
// and gemm_test's token protocol. Outputs are checked against a plain C++ reference.

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "vta/driver.h"
#include "vta/reference_shim.h"

namespace {

template <class T>
T* dev_alloc(size_t n) {
  return static_cast<T*>(VTAMemAlloc(n * sizeof(T), VTA_CACHED));
}

VTAGenericInsn mem_insn(int opcode, int type, int sram, int dram, int y, int x, int stride, int pop_prev, int pop_next,
                        int push_prev, int push_next) {
  union VTAInsn c;
  std::memset(&c, 0, sizeof c);
  c.mem.opcode = opcode, c.mem.memory_type = type, c.mem.sram_base = sram, c.mem.dram_base = dram;
  c.mem.y_size = y, c.mem.x_size = x, c.mem.x_stride = stride;
  c.mem.pop_prev_dep = pop_prev, c.mem.pop_next_dep = pop_next;
  c.mem.push_prev_dep = push_prev, c.mem.push_next_dep = push_next;
  return c.generic;
}

// gemm_test(batch, in_feat, out_feat, uop_compression = false) in the reference's style.
TEST(ReferenceShim, GemmTestStyleProgram) {
  const int batch_tiles = 4 / VTA_BATCH > 0 ? 4 / VTA_BATCH : 1, in_tiles = 4, out_tiles = 4;  // tiles
  const int blk_batch = VTA_BATCH, blk_in = VTA_BLOCK_IN, blk_out = VTA_BLOCK_OUT;
  std::mt19937 rng(3);
  auto* inputs = dev_alloc<int8_t>(size_t(batch_tiles) * in_tiles * blk_batch * blk_in);
  auto* weights = dev_alloc<int8_t>(size_t(out_tiles) * in_tiles * blk_out * blk_in);
  auto* biases = dev_alloc<int32_t>(size_t(batch_tiles) * out_tiles * blk_batch * blk_out);
  auto* outputs = dev_alloc<int8_t>(size_t(batch_tiles) * out_tiles * blk_batch * blk_out);
  for (int i = 0; i < batch_tiles * in_tiles * blk_batch * blk_in; ++i) inputs[i] = int8_t(rng());
  for (int i = 0; i < out_tiles * in_tiles * blk_out * blk_in; ++i) weights[i] = int8_t(rng());
  for (int i = 0; i < batch_tiles * out_tiles * blk_batch * blk_out; ++i) biases[i] = int32_t(rng() % 2000) - 1000;

  const int n_uops = batch_tiles * in_tiles * out_tiles;
  auto* uops = dev_alloc<VTAUop>(size_t(n_uops));
  int u = 0;
  for (int i = 0; i < batch_tiles; ++i)
    for (int j = 0; j < in_tiles; ++j)
      for (int k = 0; k < out_tiles; ++k) {
        uops[u].dst_idx = i * out_tiles + k, uops[u].src_idx = i * in_tiles + j, uops[u].wgt_idx = k * in_tiles + j;
        ++u;
      }
  auto* insns = dev_alloc<VTAGenericInsn>(7);
  insns[0] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 0, 1, n_uops, n_uops, 0, 0, 0, 0);
  insns[1] =
      mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_ACC, 0, 0, 1, batch_tiles * out_tiles, batch_tiles * out_tiles, 0, 0, 1, 0);
  insns[2] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 0, 0, 1, out_tiles * in_tiles, out_tiles * in_tiles, 0, 1, 0, 0);
  insns[3] =
      mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, 0, 1, batch_tiles * in_tiles, batch_tiles * in_tiles, 0, 0, 0, 1);
  union VTAInsn g;
  std::memset(&g, 0, sizeof g);
  g.gemm.opcode = VTA_OPCODE_GEMM, g.gemm.pop_prev_dep = 1, g.gemm.push_next_dep = 1;
  g.gemm.uop_bgn = 0, g.gemm.uop_end = n_uops, g.gemm.iter_out = 1, g.gemm.iter_in = 1;
  insns[4] = g.generic;
  insns[5] =
      mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, 0, 1, batch_tiles * out_tiles, batch_tiles * out_tiles, 1, 0, 1, 0);
  union VTAInsn f;
  std::memset(&f, 0, sizeof f);
  f.gemm.opcode = VTA_OPCODE_FINISH, f.gemm.pop_next_dep = 1;
  insns[6] = f.generic;

  const uint64_t ns = vta(7, insns, uops, reinterpret_cast<uint32_t*>(inputs), reinterpret_cast<uint32_t*>(weights),
                          reinterpret_cast<uint32_t*>(biases), reinterpret_cast<uint32_t*>(outputs));
  ASSERT_NE(ns, UINT64_MAX);
  // The caller's stream is left as written (relative offsets).
  union VTAInsn first;
  std::memcpy(&first, &insns[1], sizeof first);
  EXPECT_EQ(first.mem.dram_base, 0u);

  int wrong = 0;
  for (int b = 0; b < batch_tiles * blk_batch; ++b)
    for (int o = 0; o < out_tiles * blk_out; ++o) {
      const int bt = b / blk_batch, bb = b % blk_batch, ot = o / blk_out, oo = o % blk_out;
      int32_t acc = biases[((bt * out_tiles + ot) * blk_batch + bb) * blk_out + oo];
      for (int c = 0; c < in_tiles * blk_in; ++c) {
        const int ct = c / blk_in, cc = c % blk_in;
        acc += int32_t(inputs[((bt * in_tiles + ct) * blk_batch + bb) * blk_in + cc]) *
               int32_t(weights[((ot * in_tiles + ct) * blk_out + oo) * blk_in + cc]);
      }
      wrong += outputs[((bt * out_tiles + ot) * blk_batch + bb) * blk_out + oo] != int8_t(acc & 0xff);
    }
  EXPECT_EQ(wrong, 0);

  // acc_bytes buffer the stream needs but that is not device memory is refused with a message.
  int8_t host_outputs[16];
  testing::internal::CaptureStderr();
  EXPECT_EQ(vta(7, insns, uops, reinterpret_cast<uint32_t*>(inputs), reinterpret_cast<uint32_t*>(weights),
                reinterpret_cast<uint32_t*>(biases), reinterpret_cast<uint32_t*>(host_outputs)),
            UINT64_MAX);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("outputs buffer, which is not device memory"),
            std::string::npos);
  for (void* p : {static_cast<void*>(inputs), static_cast<void*>(weights), static_cast<void*>(biases),
                  static_cast<void*>(outputs), static_cast<void*>(uops), static_cast<void*>(insns)}) {
    VTAMemFree(p);
  }
}

// Every vta() call runs on one device of the process, whose statistics a harness can read.
TEST(ReferenceShim, StatisticsAccumulateOverCalls) {
  auto* inputs = dev_alloc<int8_t>(size_t(4) * VTA_BATCH * VTA_BLOCK_IN);
  VTAGenericInsn insns[2];
  insns[0] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, 0, 1, 4, 4, 0, 0, 0, 0);
  union VTAInsn f;
  std::memset(&f, 0, sizeof f);
  f.gemm.opcode = VTA_OPCODE_FINISH;
  insns[1] = f.generic;
  vta_shim_clear_stats();
  ASSERT_NE(vta(2, insns, nullptr, reinterpret_cast<uint32_t*>(inputs), nullptr, nullptr, nullptr), UINT64_MAX);
  ASSERT_NE(vta(2, insns, nullptr, reinterpret_cast<uint32_t*>(inputs), nullptr, nullptr, nullptr), UINT64_MAX);
  VTAStats stats;
  ASSERT_EQ(vta_shim_stats(&stats), 0);
  EXPECT_EQ(stats.inp_load_nbytes, uint64_t(2 * 4 * VTA_INP_ELEM_BYTES)) << "two calls, accumulated";
  vta_shim_clear_stats();
  ASSERT_EQ(vta_shim_stats(&stats), 0);
  EXPECT_EQ(stats.inp_load_nbytes, 0u);
  VTAMemFree(inputs);
}

}  // namespace
