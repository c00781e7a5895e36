// The runtime (spec section 6): token protocol flags on concrete call sequences, the micro-op kernel
// cache, automatic synchronize, FORCE_SERIAL, and a clear error for each kind of misuse.

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <thread>

#include "test_util.h"
#include "vta/runtime.h"
#include "vta/runtime/command_queue.h"
#include "vta/runtime/context.h"
#include "vta/runtime/tensor.h"

namespace vta::runtime {
namespace {

class RuntimeTest : public ::testing::Test {
 protected:
  Config cfg_ = Config::default_config();
  std::unique_ptr<CommandQueue> q_ = make_queue();
  test::DevBuf mem_{1 << 20};
  DataBuffer buf_{mem_.data(), mem_.phys(), mem_.size(), "buf", nullptr};

  std::unique_ptr<CommandQueue> make_queue(QueueOptions o = {}) {
    return std::make_unique<CommandQueue>(make_fsim(cfg_, {}), o);
  }
  const std::vector<RawInsn>& insns() const { return q_->pending_insns(); }
  DepFlags deps(size_t i) const { return Isa::deps_of(insns().at(i)); }
  std::string dis(size_t i) const { return q_->isa().disassemble(insns().at(i)); }
  void load_inp() { q_->load_buffer_2d(buf_, 0, 1, 1, 1, 0, 0, 0, 0, 0, uint32_t(MemId::kInp)); }
};

DepFlags flags(bool pop_prev, bool pop_next, bool push_prev, bool push_next) {
  return {pop_prev, pop_next, push_prev, push_next};
}

TEST_F(RuntimeTest, PopIsAbsorbedByTheNextInstructionOfTheStage) {
  q_->dep_pop(2, 1);
  EXPECT_TRUE(insns().empty()) << "a pop is lazy";
  load_inp();
  ASSERT_EQ(insns().size(), 1u);
  EXPECT_EQ(deps(0), flags(false, true, false, false));
}

TEST_F(RuntimeTest, SecondPendingPopOfTheSameKindForcesANop) {
  q_->dep_pop(2, 1);
  q_->dep_pop(2, 1);
  load_inp();
  ASSERT_EQ(insns().size(), 2u);
  EXPECT_EQ(dis(0).rfind("LOAD INP", 0), 0u);
  EXPECT_NE(dis(0).find("(nop)"), std::string::npos);
  EXPECT_EQ(deps(0), flags(false, true, false, false));
  EXPECT_EQ(deps(1), flags(false, true, false, false));
}

TEST_F(RuntimeTest, PushMergesIntoTheLastInstructionOfThePushingStage) {
  load_inp();
  q_->dep_push(1, 2);
  ASSERT_EQ(insns().size(), 1u);
  EXPECT_EQ(deps(0), flags(false, false, false, true));
  q_->dep_push(1, 2);  // already has push_next: a NOP carries the second push
  ASSERT_EQ(insns().size(), 2u);
  EXPECT_EQ(deps(1), flags(false, false, false, true));
  EXPECT_NE(dis(1).find("(nop)"), std::string::npos);
}

TEST_F(RuntimeTest, PushAfterAnotherStageAppendsANop) {
  q_->store_buffer_2d(0, 4, buf_, 0, 1, 1, 1);
  q_->dep_push(2, 3);
  ASSERT_EQ(insns().size(), 2u);
  EXPECT_EQ(dis(1).rfind("LOAD UOP", 0), 0u) << "the compute-stage NOP is a LOAD UOP with x_size 0";
  EXPECT_EQ(deps(1), flags(false, false, false, true));
}

TEST_F(RuntimeTest, LoadNopsAbsorbNoPushButStoreNopsDo) {
  q_->dep_pop(2, 1);
  q_->dep_push(1, 2);  // commits the pop as a load NOP, which cannot take the push
  ASSERT_EQ(insns().size(), 2u);
  EXPECT_EQ(deps(0), flags(false, true, false, false));
  EXPECT_EQ(deps(1), flags(false, false, false, true));
  q_->dep_pop(2, 3);
  q_->dep_push(3, 2);  // commits the pop as a store NOP, which takes the push
  ASSERT_EQ(insns().size(), 3u);
  EXPECT_EQ(dis(2).rfind("STORE", 0), 0u);
  EXPECT_EQ(deps(2), flags(true, false, true, false));
}

TEST_F(RuntimeTest, SynchronizeClosesTheBatchWithTokensAndFinish) {
  q_->synchronize(0);
  const auto& s = q_->last_stream();
  ASSERT_EQ(s.size(), 4u) << "an empty batch still runs four instructions";
  EXPECT_EQ(q_->isa().disassemble(s[0]).rfind("STORE", 0), 0u);
  EXPECT_EQ(Isa::deps_of(s[0]), flags(false, false, true, false));
  EXPECT_EQ(q_->isa().disassemble(s[1]).rfind("LOAD INP", 0), 0u);
  EXPECT_EQ(Isa::deps_of(s[1]), flags(false, false, false, true));
  EXPECT_EQ(q_->isa().disassemble(s[2]).rfind("LOAD UOP", 0), 0u);
  EXPECT_EQ(Isa::deps_of(s[2]), flags(true, true, false, false));
  EXPECT_EQ(q_->isa().disassemble(s[3]), "FINISH deps=[]");
  EXPECT_EQ(q_->ledger(), TokenCounts{});
  EXPECT_TRUE(insns().empty());
}

TEST_F(RuntimeTest, InvalidStagePairsAreRefused) {
  EXPECT_THROW(q_->dep_push(1, 3), RuntimeError);
  EXPECT_THROW(q_->dep_pop(3, 1), RuntimeError);
  EXPECT_THROW(q_->dep_push(2, 4), RuntimeError);
  try {
    q_->dep_pop(0, 1);
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("VTADepPop(0, 1)"), std::string::npos) << e.what();
  }
}

TEST_F(RuntimeTest, UnbalancedTokensAtSynchronizeAreAnError) {
  q_->dep_pop(1, 2);  // compute waits for a load that never signals
  q_->push_kernel(true, CommandQueue::new_site_id(), 0, [](UopKernel& k) {
    k.mode = 0, k.reset = true, k.uops = {{0, 0, 0}};
  });
  try {
    q_->synchronize(0);
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("l2g (load -> compute) is popped 1 more time(s) than it is pushed"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(insns().empty()) << "the batch is discarded";
  q_->synchronize(0);  // the queue is usable again
}

// acc_bytes kernel recorded by hand (as the C layer's finit would).
void one_reset_uop(UopKernel& k, int* calls) {
  ++*calls;
  k.mode = 0, k.reset = true;
  k.uops = {{0, 0, 0}, {1, 0, 0}};
}

size_t count_uop_loads(const Isa& isa, const std::vector<RawInsn>& s) {
  size_t n = 0;
  for (const RawInsn& r : s) {
    const std::string d = isa.disassemble(r);
    n += d.rfind("LOAD UOP", 0) == 0 && d.find("(nop)") == std::string::npos;
  }
  return n;
}

TEST_F(RuntimeTest, KernelCacheLoadsOncePerBatchAndPerClosure) {
  const uint64_t site = CommandQueue::new_site_id();
  int calls = 0;
  auto rec = [&](UopKernel& k) { one_reset_uop(k, &calls); };
  q_->push_kernel(true, site, 0, rec);
  q_->push_kernel(true, site, 0, rec);  // resident: no second load
  q_->push_kernel(true, site, 2, rec);  // another closure value: its own kernel
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(count_uop_loads(q_->isa(), insns()), 2u);
  q_->synchronize(0);
  EXPECT_EQ(q_->device().stats().uop_load_nbytes, 2u * 2 * 4);
  q_->push_kernel(true, site, 0, rec);  // a new batch forgets residency, but finit is not run again
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(count_uop_loads(q_->isa(), insns()), 1u);
  q_->synchronize(0);
  EXPECT_EQ(q_->device().stats().uop_load_nbytes, 3u * 2 * 4);
}

TEST_F(RuntimeTest, KernelsEvictedFromTheRingAreReloaded) {
  const uint64_t a = CommandQueue::new_site_id(), b = CommandQueue::new_site_id();
  auto big = [](UopKernel& k) {
    k.mode = 0, k.reset = true;
    for (uint32_t i = 0; i < 5000; ++i) k.uops.push_back({i % 2048, 0, 0});
  };
  q_->push_kernel(true, a, 0, big);
  q_->push_kernel(true, b, 0, big);  // does not fit after a: wraps to 0 and evicts a
  q_->push_kernel(true, b, 0, big);  // still resident
  q_->push_kernel(true, a, 0, big);  // reloaded
  EXPECT_EQ(count_uop_loads(q_->isa(), insns()), 3u);
  q_->synchronize(0);
  EXPECT_EQ(q_->device().stats().uop_load_nbytes, 3u * 5000 * 4);
}

TEST_F(RuntimeTest, KernelLargerThanTheMicroOpBufferIsRefused) {
  try {
    q_->push_kernel(true, CommandQueue::new_site_id(), 0, [](UopKernel& k) {
      k.mode = 0;
      k.uops.resize(8193);
    });
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("8193 micro-ops but the micro-op buffer holds 8192"), std::string::npos);
  }
}

TEST_F(RuntimeTest, FieldOverflowIsAnErrorNotATruncation) {
  EXPECT_THROW(q_->load_buffer_2d(buf_, 0, 1, 1, 1, 16, 0, 0, 0, 0, uint32_t(MemId::kInp)), RuntimeError);
  EXPECT_THROW(q_->load_buffer_2d(buf_, 0, 70000, 1, 1, 0, 0, 0, 0, 0, uint32_t(MemId::kInp)), RuntimeError);
  EXPECT_THROW(q_->load_buffer_2d(buf_, 0, 1, 1, 1, 0, 0, 0, 0, 0, uint32_t(MemId::kOut)), RuntimeError);
  EXPECT_THROW(q_->store_buffer_2d(0, 3, buf_, 0, 1, 1, 1), RuntimeError);
  try {
    q_->push_kernel(true, CommandQueue::new_site_id(), 0, [](UopKernel& k) {
      k.mode = 0;
      k.loops = {{20000, 1, 0, 0}};
      k.uops = {{0, 0, 0}};
    });
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("iter_out = 20000 does not fit in 14 bits"), std::string::npos) << e.what();
  }
}

// Many (LOAD ACC, ALU, STORE) blocks with a tiny instruction limit: automatic synchronizes keep the
// results right.
TEST_F(RuntimeTest, AutomaticSynchronizeWhenTheBatchIsFull) {
  QueueOptions o;
  o.max_insns = 24;
  q_ = make_queue(o);
  const int acc_elem = cfg_.acc_elem_bytes(), out_elem = cfg_.out_elem_bytes(), lanes = acc_elem / 4, blocks = 20;
  test::DevBuf acc(blocks * acc_elem), out(blocks * out_elem);
  for (int i = 0; i < blocks * lanes; ++i) acc.as<int32_t>()[i] = i % 100;
  DataBuffer accb{acc.data(), acc.phys(), acc.size(), "acc", nullptr},
      outb{out.data(), out.phys(), out.size(), "out", nullptr};
  const uint64_t add = CommandQueue::new_site_id();
  for (int b = 0; b < blocks; ++b) {
    if (b > 0) q_->dep_pop(3, 2);
    q_->load_buffer_2d(accb, uint32_t(b), 1, 1, 1, 0, 0, 0, 0, 0, uint32_t(MemId::kAcc));
    q_->push_kernel(false, add, 0, [](UopKernel& k) {
      k.mode = 1, k.opcode = uint32_t(AluOp::kAdd), k.use_imm = 1, k.imm = 1;
      k.uops = {{0, 0, 0}};
    });
    q_->dep_push(2, 3);
    q_->dep_pop(2, 3);
    q_->store_buffer_2d(0, 4, outb, uint32_t(b), 1, 1, 1);
    q_->dep_push(3, 2);
  }
  q_->dep_pop(3, 2);
  q_->synchronize(0);
  EXPECT_GT(q_->synchronize_count(), 3u);
  for (int i = 0; i < blocks * lanes; ++i) ASSERT_EQ(out.as<int8_t>()[i], int8_t(i % 100 + 1)) << i;
  EXPECT_EQ(q_->device().stats().alu_counter, uint64_t(blocks));
  EXPECT_EQ(q_->device().tokens(), TokenCounts{});
}

// FORCE_SERIAL rewrites the tokens so that every instruction waits for the previous one; the
// results are unchanged, and load -> store neighbours get a compute relay.
TEST_F(RuntimeTest, ForceSerialKeepsResults) {
  q_->set_debug(VTA_DEBUG_FORCE_SERIAL);
  const int acc_elem = cfg_.acc_elem_bytes(), out_elem = cfg_.out_elem_bytes();
  test::DevBuf acc(acc_elem), out(out_elem);
  acc.as<int32_t>()[0] = 41;
  DataBuffer accb{acc.data(), acc.phys(), acc.size(), "acc", nullptr},
      outb{out.data(), out.phys(), out.size(), "out", nullptr};
  const uint64_t add = CommandQueue::new_site_id();
  load_inp();
  q_->load_buffer_2d(accb, 0, 1, 1, 1, 0, 0, 0, 0, 0, uint32_t(MemId::kAcc));
  q_->push_kernel(false, add, 0, [](UopKernel& k) {
    k.mode = 1, k.opcode = uint32_t(AluOp::kAdd), k.use_imm = 1, k.imm = 1;
    k.uops = {{0, 0, 0}};
  });
  load_inp();  // a load right before a store: needs the relay
  q_->store_buffer_2d(0, 4, outb, 0, 1, 1, 1);
  q_->synchronize(0);
  EXPECT_EQ(out.as<int8_t>()[0], 42);
  EXPECT_EQ(q_->device().tokens(), TokenCounts{});
}

TEST_F(RuntimeTest, DumpFlagsPrintTheStreamAndTheKernels) {
  q_->set_debug(VTA_DEBUG_DUMP_INSN | VTA_DEBUG_DUMP_UOP);
  testing::internal::CaptureStderr();
  q_->push_kernel(true, CommandQueue::new_site_id(), 5, [](UopKernel& k) {
    k.mode = 0, k.reset = true;
    k.uops = {{3, 0, 0}};
  });
  q_->synchronize(0);
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("VTAPushGEMMOp kernel (key 5), 1 micro-ops:"), std::string::npos) << out;
  EXPECT_NE(out.find("0: UOP dst_idx=3 src_idx=0 wgt_idx=0"), std::string::npos) << out;
  EXPECT_NE(out.find("VTA instruction stream (6 instructions):"), std::string::npos) << out;
  EXPECT_NE(out.find("[compute] GEMM deps=[] reset_reg=1"), std::string::npos) << out;
  EXPECT_NE(out.find("[compute] FINISH deps=[]  | l2g=0 g2l=0 g2s=0 s2g=0"), std::string::npos) << out;
}

// --- the C API: misuse poisons the batch, VTASynchronize reports it, the next batch works ---------

int record_three_loops(void*) {
  VTAUopLoopBegin(2, 0, 0, 0);
  VTAUopLoopBegin(2, 0, 0, 0);
  VTAUopLoopBegin(2, 0, 0, 0);
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}
int record_loop_after_push(void*) {
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  VTAUopLoopBegin(2, 0, 0, 0);
  VTAUopLoopEnd();
  return 0;
}
int record_mixed(void*) {
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  VTAUopPush(0, 0, 1, 0, 0, 0, 0, 0);
  return 0;
}
int record_unclosed(void*) {
  VTAUopLoopBegin(2, 0, 0, 0);
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  return 0;
}
int record_alu(void*) {
  VTAUopPush(1, 0, 0, 0, 0, 2, 1, 1);
  return 0;
}
int record_reset(void*) {
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  return 0;
}
// acc_bytes finit of C++ code that throws after recording (the compiler's executor is one).
int record_then_throw(void*) {
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  throw std::runtime_error("finit gave up");
}

// Runs `misuse` through the C API and expects VTASynchronize to fail with `needle` in the message.
template <class F>
void expect_c_misuse(F misuse, const std::string& needle) {
  VTARuntimeShutdown();
  testing::internal::CaptureStderr();
  misuse();
  const int rc = VTASynchronize(VTATLSCommandHandle(), 0);
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(rc, 0) << needle;
  EXPECT_NE(std::string(VTARuntimeGetLastError()).find(needle), std::string::npos)
      << "message: " << VTARuntimeGetLastError();
  EXPECT_NE(printed.find(needle), std::string::npos) << printed;
  // The next batch is clean.
  void* h = nullptr;
  EXPECT_EQ(VTAPushGEMMOp(&h, record_reset, nullptr, 0), 0);
  EXPECT_EQ(VTASynchronize(VTATLSCommandHandle(), 0), 0) << VTARuntimeGetLastError();
}

TEST(RuntimeCApi, MisuseIsReportedAndPoisonsOnlyTheBatch) {
  expect_c_misuse([] { VTAUopLoopBegin(1, 0, 0, 0); }, "VTAUopLoopBegin called outside the finit");
  // the recording ends with the finit even when it throws: a later push records into no kernel
  // (before, into the discarded one)
  expect_c_misuse(
      [] {
        void* h = nullptr;
        EXPECT_NE(VTAPushGEMMOp(&h, record_then_throw, nullptr, 0), 0);
        VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
      },
      "finit gave up");
  expect_c_misuse(
      [] {
        void* h = nullptr;
        VTAPushGEMMOp(&h, record_three_loops, nullptr, 0);
      },
      "a kernel has at most two loops");
  expect_c_misuse(
      [] {
        void* h = nullptr;
        VTAPushGEMMOp(&h, record_loop_after_push, nullptr, 0);
      },
      "VTAUopLoopBegin after the first VTAUopPush");
  expect_c_misuse(
      [] {
        void* h = nullptr;
        VTAPushGEMMOp(&h, record_mixed, nullptr, 0);
      },
      "differs from the first in mode, reset or ALU operation");
  expect_c_misuse(
      [] {
        void* h = nullptr;
        VTAPushGEMMOp(&h, record_unclosed, nullptr, 0);
      },
      "has no VTAUopLoopEnd");
  expect_c_misuse(
      [] {
        void* h = nullptr;
        VTAPushGEMMOp(&h, record_alu, nullptr, 0);
      },
      "pushed as a GEMM");
  expect_c_misuse(
      [] {
        void* h = nullptr;
        int64_t closure = 1;
        VTAPushALUOp(&h, record_alu, &closure, 8);
      },
      "closure of 8 bytes");
  expect_c_misuse(
      [] {
        int not_a_buffer = 0;
        VTALoadBuffer2D(VTATLSCommandHandle(), &not_a_buffer, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2);
      },
      "VTALoadBuffer2D: argument is not a live buffer from VTABufferAlloc");
  expect_c_misuse(
      [] {
        void* b = VTABufferAlloc(4096);
        VTALoadBuffer2D(VTATLSCommandHandle(), b, 0, 1, 1, 1, 0, 0, 17, 0, 0, 2);
        VTABufferFree(b);
      },
      "x_pad_1 = 17 does not fit in 4 bits");
  expect_c_misuse([] { VTADepPop(VTATLSCommandHandle(), 1, 2); }, "unbalanced dependency tokens");
  VTARuntimeShutdown();
}

// acc_bytes pop left pending in a poisoned batch must not reach the next one.
TEST(RuntimeCApi, DiscardedBatchTakesItsPendingPopsWithIt) {
  VTARuntimeShutdown();
  testing::internal::CaptureStderr();
  VTADepPop(VTATLSCommandHandle(), 2, 1);  // pending for the next load
  VTAUopLoopEnd();                         // misuse: poisons the batch
  EXPECT_NE(VTASynchronize(VTATLSCommandHandle(), 0), 0);
  testing::internal::GetCapturedStderr();
  void* b = VTABufferAlloc(4096);
  VTALoadBuffer2D(VTATLSCommandHandle(), b, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2);
  EXPECT_EQ(VTASynchronize(VTATLSCommandHandle(), 0), 0) << VTARuntimeGetLastError();
  VTABufferFree(b);
  VTARuntimeShutdown();
}

TEST(RuntimeCApi, BuffersAndCopies) {
  void* b = VTABufferAlloc(64);
  ASSERT_NE(b, nullptr);
  auto* data = static_cast<uint8_t*>(VTABufferCPUPtr(nullptr, b));
  EXPECT_NE(static_cast<void*>(data), b) << "the handle is not the data pointer";
  int host = 7;
  EXPECT_EQ(VTABufferCPUPtr(nullptr, &host), &host);
  const char msg[] = "vta";
  VTABufferCopy(msg, 0, b, 10, sizeof msg, 1);
  EXPECT_STREQ(reinterpret_cast<char*>(data + 10), "vta");
  char back[4];
  VTABufferCopy(b, 10, back, 0, sizeof back, 2);
  EXPECT_STREQ(back, "vta");
  testing::internal::CaptureStderr();
  VTABufferCopy(msg, 0, b, 62, sizeof msg, 1);  // past the end: refused
  EXPECT_NE(testing::internal::GetCapturedStderr().find("exceeds"), std::string::npos);
  VTABufferFree(b);
}

// --- contexts: a runtime over a device and memory of its own, bound to a thread for a scope --------

// acc[0] + 1 -> out[0] through the C API with NULL handles (the bound runtime's queue).
int add_one_through_the_c_api(void* acc, void* out) {
  void* h = nullptr;
  VTALoadBuffer2D(nullptr, acc, 0, 1, 1, 1, 0, 0, 0, 0, 0, uint32_t(MemId::kAcc));
  VTAPushALUOp(&h, record_alu, nullptr, 0);  // ADD imm 1
  VTADepPush(nullptr, 2, 3);
  VTADepPop(nullptr, 2, 3);
  VTAStoreBuffer2D(nullptr, 0, 4, out, 0, 1, 1, 1);
  return VTASynchronize(nullptr, 0);
}

// A context over a memory of its own (not Dram::global(): a stream staged in the global memory would
// not be found there), with one accumulator element and one output element wrapped as buffers.
struct ContextWithBuffers {
  Config cfg = Config::default_config();
  Dram mem;
  int32_t* acc = static_cast<int32_t*>(mem.alloc(size_t(cfg.acc_elem_bytes())));
  int8_t* out = static_cast<int8_t*>(mem.alloc(size_t(cfg.out_elem_bytes())));
  Context ctx{make_fsim(cfg, options()), mem};
  void* accb = ctx.wrap_buffer(mem.phys_addr(acc), size_t(cfg.acc_elem_bytes()), "acc");
  void* outb = ctx.wrap_buffer(mem.phys_addr(out), size_t(cfg.out_elem_bytes()), "out");
  DeviceOptions options() {
    DeviceOptions fo;
    fo.dram = &mem;
    return fo;
  }
};

TEST(RuntimeContext, CallsInAScopeRunOnTheContextsDeviceAndMemoryFromAnyThread) {
  ContextWithBuffers c;
  Context& ctx = c.ctx;
  int32_t* acc = c.acc;
  int8_t* out = c.out;
  void *accb = c.accb, *outb = c.outb;
  EXPECT_EQ(buffer_bytes(outb), size_t(c.cfg.out_elem_bytes()));
  vta::runtime::clear_runtime_stats();  // the thread's own runtime, which must see nothing of this
  const size_t global_blocks = Dram::global().live_blocks();

  acc[0] = 41;
  std::thread([&] {
    Context::Scope use(ctx);
    EXPECT_EQ(VTATLSCommandHandle(), static_cast<void*>(&ctx.queue()));
    EXPECT_EQ(add_one_through_the_c_api(accb, outb), 0) << VTARuntimeGetLastError();
  }).join();
  EXPECT_EQ(out[0], 42);
  acc[0] = 9;
  {
    Context::Scope use(ctx);  // the same context, now on this thread
    EXPECT_EQ(add_one_through_the_c_api(accb, outb), 0) << VTARuntimeGetLastError();
  }
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(ctx.device().stats().alu_counter, 2u);
  EXPECT_EQ(ctx.queue().synchronize_count(), 2u);
  EXPECT_EQ(vta::runtime::runtime_stats().alu_counter, 0u) << "the thread's own runtime ran nothing";
  EXPECT_EQ(Dram::global().live_blocks(), global_blocks);
  EXPECT_NE(VTATLSCommandHandle(), static_cast<void*>(&ctx.queue())) << "outside the scope: the thread's own";
  ctx.release_buffer(accb);
  ctx.release_buffer(outb);
  EXPECT_EQ(buffer_bytes(outb), 0u);
  VTARuntimeShutdown();
}

TEST(RuntimeContext, HandlesAndErrorsStayWithTheirRuntime) {
  const Config cfg = Config::default_config();
  Dram mem;
  DeviceOptions fo;
  fo.dram = &mem;
  Context ctx(make_fsim(cfg, fo), mem);
  VTACommandHandle own = VTATLSCommandHandle();
  testing::internal::CaptureStderr();
  // the context's queue outside a scope, the thread's own inside one: refused by name
  EXPECT_NE(VTADepPush(&ctx.queue(), 2, 3), 0);
  EXPECT_NE(std::string(VTARuntimeGetLastError()).find("runtime context that is not in use on this thread"),
            std::string::npos)
      << VTARuntimeGetLastError();
  EXPECT_NE(VTASynchronize(own, 0), 0);  // ends the poisoned batch of the own runtime
  {
    Context::Scope use(ctx);
    EXPECT_EQ(std::string(VTARuntimeGetLastError()), "") << "the context has its own error state";
    EXPECT_NE(VTADepPush(own, 2, 3), 0);
    EXPECT_NE(std::string(VTARuntimeGetLastError()).find("this thread's own queue"), std::string::npos)
        << VTARuntimeGetLastError();
    EXPECT_NE(VTASynchronize(nullptr, 0), 0);
    ctx.reset();
    EXPECT_EQ(ctx.last_error(), "");
    VTADepPush(nullptr, 2, 3);
    VTADepPop(nullptr, 2, 3);
    EXPECT_EQ(VTASynchronize(nullptr, 0), 0) << VTARuntimeGetLastError();
  }
  testing::internal::GetCapturedStderr();
  EXPECT_THROW(ctx.wrap_buffer(0x1000, 64, "nowhere"), RuntimeError);
  VTARuntimeShutdown();
}

// The same program through the context's methods: no Scope, nothing of the calling thread's runtime.
TEST(RuntimeContext, ItsMethodsAreTheRuntimeCallsWithoutAnyBinding) {
  ContextWithBuffers c;
  vta::runtime::clear_runtime_stats();
  void* site = nullptr;
  auto add_one = [&](int32_t value) {
    c.acc[0] = value;
    EXPECT_EQ(c.ctx.load_buffer_2d(c.accb, 0, 1, 1, 1, 0, 0, 0, 0, 0, uint32_t(MemId::kAcc)), 0) << c.ctx.last_error();
    EXPECT_EQ(c.ctx.push_kernel(false, &site, 0, [](UopKernel& k) { k.push(1, 0, 0, 0, 0, 2, 1, 1); }), 0)
        << c.ctx.last_error();  // ADD imm 1, recorded once for the site
    EXPECT_EQ(c.ctx.dep_push(2, 3), 0);
    EXPECT_EQ(c.ctx.dep_pop(2, 3), 0);
    EXPECT_EQ(c.ctx.store_buffer_2d(0, 4, c.outb, 0, 1, 1, 1), 0);
    EXPECT_EQ(c.ctx.synchronize(0), 0) << c.ctx.last_error();
    return c.out[0];
  };
  std::thread([&] { EXPECT_EQ(add_one(41), 42); }).join();
  EXPECT_EQ(add_one(9), 10);
  EXPECT_NE(site, nullptr) << "the site's id was stored in its slot";
  EXPECT_EQ(c.ctx.device().stats().alu_counter, 2u);
  EXPECT_EQ(vta::runtime::runtime_stats().alu_counter, 0u) << "the thread's own runtime ran nothing";
  // a kernel's recording error is the push's, named as the C API names it, and poisons the batch
  testing::internal::CaptureStderr();
  void* other = nullptr;
  EXPECT_NE(c.ctx.push_kernel(true, &other, 0, [](UopKernel& k) { k.loop_end(); }), 0);
  EXPECT_EQ(c.ctx.last_error(), "VTAPushGEMMOp: VTAUopLoopEnd without a matching VTAUopLoopBegin");
  EXPECT_TRUE(c.ctx.batch_failed());
  EXPECT_NE(c.ctx.dep_push(2, 3), 0) << "a poisoned batch does nothing";
  EXPECT_NE(c.ctx.synchronize(0), 0);
  EXPECT_FALSE(c.ctx.batch_failed()) << "synchronize discarded it";
  EXPECT_NE(testing::internal::GetCapturedStderr().find("vta runtime: error: VTAPushGEMMOp"), std::string::npos);
  EXPECT_EQ(add_one(1), 2) << "the next batch runs";
  c.ctx.release_buffer(c.accb);
  c.ctx.release_buffer(c.outb);
  VTARuntimeShutdown();
}

}  // namespace
}  // namespace vta::runtime
