// The fsim on whole programs, run the way the reference's bare-metal suite runs them (test_lib.cc
// through its vta() entry point; here vta/reference_shim.h): every program has its buffers allocated
// with VTAMemAlloc, filled, run by one vta() call, checked against plain C++ and freed. The sweep is
// 536 programs of the suite's two shapes, gemm_test and alu_test, over their parameters; it prints the
// seconds per sweep next to the reference fsim's 2.1 s for its own 536-case sweep (measured by issue
// 12's probe on the reference; that sweep is not runnable here, so the comparison is per case).
// Only the C API is used: vta() and namespace vta cannot share a translation unit.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>

#include "vta/driver.h"
#include "vta/reference_shim.h"

namespace {

template <class T>
T* dev_alloc(size_t n) {
  auto* p = static_cast<T*>(VTAMemAlloc(n * sizeof(T), VTA_CACHED));
  if (p == nullptr) throw std::runtime_error("VTAMemAlloc failed");
  return p;
}

VTAGenericInsn mem_insn(int opcode, int type, int y, int x, int pop_prev, int pop_next, int push_prev, int push_next) {
  union VTAInsn c;
  std::memset(&c, 0, sizeof c);
  c.mem.opcode = opcode, c.mem.memory_type = type, c.mem.sram_base = 0, c.mem.dram_base = 0;
  c.mem.y_size = y, c.mem.x_size = x, c.mem.x_stride = x;
  c.mem.pop_prev_dep = pop_prev, c.mem.pop_next_dep = pop_next;
  c.mem.push_prev_dep = push_prev, c.mem.push_next_dep = push_next;
  return c.generic;
}

VTAGenericInsn finish_insn() {
  union VTAInsn f;
  std::memset(&f, 0, sizeof f);
  f.gemm.opcode = VTA_OPCODE_FINISH, f.gemm.pop_next_dep = 1;
  return f.generic;
}

void free_all(std::initializer_list<void*> buffers) {
  for (void* p : buffers) VTAMemFree(p);
}

// gemm_test's shape: batch x in x out tiles, the biases loaded, one GEMM instruction (one micro-op
// per tile triple, or with uop compression one per batch tile and the two channel loops in
// hardware), the int8 outputs stored. Returns the number of wrong outputs.
int gemm_program(std::mt19937& rng, int batch_tiles, int in_tiles, int out_tiles, bool compress) {
  const int bb = VTA_BATCH, bi = VTA_BLOCK_IN, bo = VTA_BLOCK_OUT;
  auto* inputs = dev_alloc<int8_t>(size_t(batch_tiles) * in_tiles * bb * bi);
  auto* weights = dev_alloc<int8_t>(size_t(out_tiles) * in_tiles * bo * bi);
  auto* biases = dev_alloc<int32_t>(size_t(batch_tiles) * out_tiles * bb * bo);
  auto* outputs = dev_alloc<int8_t>(size_t(batch_tiles) * out_tiles * bb * bo);
  for (int i = 0; i < batch_tiles * in_tiles * bb * bi; ++i) inputs[i] = int8_t(rng());
  for (int i = 0; i < out_tiles * in_tiles * bo * bi; ++i) weights[i] = int8_t(rng());
  for (int i = 0; i < batch_tiles * out_tiles * bb * bo; ++i) biases[i] = int32_t(rng() % 2001) - 1000;
  const int n_uops = compress ? batch_tiles : batch_tiles * in_tiles * out_tiles;
  auto* uops = dev_alloc<VTAUop>(size_t(n_uops));
  std::memset(uops, 0, sizeof(VTAUop) * size_t(n_uops));
  int u = 0;
  for (int b = 0; b < batch_tiles; ++b) {
    if (compress) {  // the out (outer) and in (inner) loops advance the indices
      uops[u].dst_idx = b * out_tiles, uops[u].src_idx = b * in_tiles, uops[u].wgt_idx = 0;
      ++u;
      continue;
    }
    for (int o = 0; o < out_tiles; ++o)
      for (int c = 0; c < in_tiles; ++c) {
        uops[u].dst_idx = b * out_tiles + o, uops[u].src_idx = b * in_tiles + c, uops[u].wgt_idx = o * in_tiles + c;
        ++u;
      }
  }
  auto* insns = dev_alloc<VTAGenericInsn>(7);
  insns[0] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 1, n_uops, 0, 0, 0, 0);
  insns[1] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_ACC, 1, batch_tiles * out_tiles, 0, 0, 1, 0);
  insns[2] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 1, out_tiles * in_tiles, 0, 1, 0, 0);
  insns[3] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 1, batch_tiles * in_tiles, 0, 0, 0, 1);
  union VTAInsn g;
  std::memset(&g, 0, sizeof g);
  g.gemm.opcode = VTA_OPCODE_GEMM, g.gemm.pop_prev_dep = 1, g.gemm.push_next_dep = 1;
  g.gemm.uop_bgn = 0, g.gemm.uop_end = n_uops, g.gemm.iter_out = 1, g.gemm.iter_in = 1;
  if (compress) {
    g.gemm.iter_out = out_tiles, g.gemm.iter_in = in_tiles;
    g.gemm.dst_factor_out = 1, g.gemm.src_factor_in = 1;
    g.gemm.wgt_factor_out = in_tiles, g.gemm.wgt_factor_in = 1;
  }
  insns[4] = g.generic;
  insns[5] = mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 1, batch_tiles * out_tiles, 1, 0, 1, 0);
  insns[6] = finish_insn();
  const uint64_t ns = vta(7, insns, uops, reinterpret_cast<uint32_t*>(inputs), reinterpret_cast<uint32_t*>(weights),
                          reinterpret_cast<uint32_t*>(biases), reinterpret_cast<uint32_t*>(outputs));
  int wrong = ns == UINT64_MAX ? 1 : 0;
  for (int b = 0; b < batch_tiles * bb && wrong == 0; ++b)
    for (int o = 0; o < out_tiles * bo; ++o) {
      const int bt = b / bb, bl = b % bb, ot = o / bo, ol = o % bo;
      int32_t acc = biases[((bt * out_tiles + ot) * bb + bl) * bo + ol];
      for (int c = 0; c < in_tiles * bi; ++c) {
        const int ct = c / bi, cl = c % bi;
        acc += int32_t(inputs[((bt * in_tiles + ct) * bb + bl) * bi + cl]) *
               int32_t(weights[((ot * in_tiles + ct) * bo + ol) * bi + cl]);
      }
      wrong += outputs[((bt * out_tiles + ot) * bb + bl) * bo + ol] != int8_t(acc & 0xff);
    }
  free_all({inputs, weights, biases, outputs, uops, insns});
  return wrong;
}

// alu_test's shape: `tiles` accumulator tiles (and as many source tiles after them for a vector
// operation) loaded, one ALU instruction over them (a micro-op per tile, or one in a hardware loop),
// the int8 results stored. Returns the number of wrong outputs.
int alu_program(std::mt19937& rng, int op, bool use_imm, int tiles, bool compress) {
  const int lanes = VTA_BATCH * VTA_BLOCK_OUT;
  const int loaded = use_imm ? tiles : 2 * tiles;
  auto* biases = dev_alloc<int32_t>(size_t(loaded) * lanes);
  auto* outputs = dev_alloc<int8_t>(size_t(tiles) * lanes);
  for (int i = 0; i < loaded * lanes; ++i) {
    const bool source = i >= tiles * lanes;
    biases[i] = op == VTA_ALU_OPCODE_SHR && source ? int32_t(rng() % 16) : int32_t(rng() % 65536) - 32768;
  }
  const int imm = op == VTA_ALU_OPCODE_SHR ? int(rng() % 16) : int(rng() % 256) - 128;
  const int n_uops = compress ? 1 : tiles;
  auto* uops = dev_alloc<VTAUop>(size_t(n_uops));
  std::memset(uops, 0, sizeof(VTAUop) * size_t(n_uops));
  for (int u = 0; u < n_uops; ++u) uops[u].dst_idx = u, uops[u].src_idx = tiles + u;
  auto* insns = dev_alloc<VTAGenericInsn>(5);
  insns[0] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 1, n_uops, 0, 0, 0, 0);
  insns[1] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_ACC, 1, loaded, 0, 0, 0, 0);
  union VTAInsn a;
  std::memset(&a, 0, sizeof a);
  a.alu.opcode = VTA_OPCODE_ALU, a.alu.push_next_dep = 1, a.alu.uop_bgn = 0, a.alu.uop_end = n_uops;
  a.alu.iter_out = compress ? tiles : 1, a.alu.iter_in = 1;
  a.alu.dst_factor_out = compress ? 1 : 0, a.alu.src_factor_out = compress ? 1 : 0;
  a.alu.alu_opcode = op, a.alu.use_imm = use_imm, a.alu.imm = imm;
  insns[2] = a.generic;
  insns[3] = mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 1, tiles, 1, 0, 1, 0);
  insns[4] = finish_insn();
  const uint64_t ns =
      vta(5, insns, uops, nullptr, nullptr, reinterpret_cast<uint32_t*>(biases), reinterpret_cast<uint32_t*>(outputs));
  int wrong = ns == UINT64_MAX ? 1 : 0;
  for (int i = 0; i < tiles * lanes && wrong == 0; ++i) {
    const int32_t d = biases[i], src = use_imm ? imm : biases[tiles * lanes + i];
    int32_t r = 0;
    switch (op) {
      case VTA_ALU_OPCODE_MIN: r = std::min(d, src); break;
      case VTA_ALU_OPCODE_MAX: r = std::max(d, src); break;
      case VTA_ALU_OPCODE_ADD: r = int32_t(uint32_t(d) + uint32_t(src)); break;
      default: r = d >> src; break;  // SHR by 0 to 15
    }
    wrong += outputs[i] != int8_t(r & 0xff);
  }
  free_all({biases, outputs, uops, insns});
  return wrong;
}

// 256 ALU programs (MIN, MAX, ADD, SHR x immediate or vector x uop compression or not x 16 sizes,
// 8 to 128 tiles) and 280 GEMM programs (1 or 4 batch tiles x 1 to 8 input x 1 to 8 output channel
// tiles x uop compression or not; and 24 of 16 to 64 batch tiles): 536 programs.
void BM_FsimShimSweep(benchmark::State& state) {
  setenv("VTA_TARGET", "fsim", 1);
  int64_t programs = 0, wrong = 0;
  for (auto _ : state) {
    std::mt19937 rng(7);
    programs = 0;
    for (int op : {VTA_ALU_OPCODE_MIN, VTA_ALU_OPCODE_MAX, VTA_ALU_OPCODE_ADD, VTA_ALU_OPCODE_SHR})
      for (bool imm : {true, false})
        for (bool compress : {true, false})
          for (int tiles = 8; tiles <= 128; tiles += 8, ++programs) wrong += alu_program(rng, op, imm, tiles, compress);
    for (int batch : {1, 4})
      for (int in = 1; in <= 8; ++in)
        for (int out = 1; out <= 8; ++out)
          for (bool compress : {true, false}) {
            wrong += gemm_program(rng, batch, in, out, compress);
            ++programs;
          }
    // larger ones, up to 64 x 16 x 16 tiles (16,384 micro-op executions)
    for (int batch : {16, 32, 64})
      for (int in : {8, 16})
        for (int out : {8, 16}) {
          wrong += gemm_program(rng, batch, in, out, true);
          ++programs;
        }
    for (int batch : {16, 32, 64})
      for (int in : {4, 8})
        for (int out : {4, 8}) {
          wrong += gemm_program(rng, batch, in, out, false);
          ++programs;
        }
  }
  if (wrong != 0) state.SkipWithError("a program ran wrong or failed");
  state.counters["programs"] = double(programs);
  state.counters["reference_fsim_s"] = 2.1;  // its own 536-case sweep (issue 12's probe)
}

}  // namespace

BENCHMARK(BM_FsimShimSweep)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
