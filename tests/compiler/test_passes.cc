// Unit tests of the VTA passes: a small hand-built program in, the exact program out (printed).

#include <gtest/gtest.h>

#include "vta/compiler/lower.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/te.h"

namespace vta::compiler {
namespace {

const Env& env() {
  static const Env e(Config::default_config());
  return e;
}

Stmt call(const char* name, Tensor dst, Tensor src, const std::vector<int64_t>& args) {
  std::vector<Expr> a;
  a.reserve(args.size());
  for (int64_t v : args) a.push_back(make_int(v));
  return make_call(name, std::move(dst), std::move(src), std::move(a));
}
Stmt kernel(int64_t dst) {
  return make_attr(vta_var(), attr::kCoprocUopScope,
                   call(intrin::kUopPush, nullptr, nullptr, {0, 0, dst, 0, 0, 0, 0, 0}), make_int(0));
}

struct Buffers {
  Tensor x = placeholder({4, 1, 16}, "x", DType::kInt8);
  Tensor y = placeholder({4, 1, 16}, "y", DType::kInt8);
  Tensor inp = placeholder({1, 1, 16}, "inp", DType::kInt8);
  Tensor acc = placeholder({1, 1, 16}, "acc", DType::kInt32);
  Stmt load() const { return call(intrin::kLoadBuffer2D, inp, x, {0, 1, 1, 1, 0, 0, 0, 0, 0, 2}); }
  Stmt store() const { return call(intrin::kStoreBuffer2D, y, acc, {0, 4, 0, 1, 1, 1}); }
};

TEST(PassCoprocSync, BlocksTokensAndTheLoopCarriedToken) {
  Buffers b;
  const Var i = make_var("i"), k = make_var("k");
  // per i: reset (compute), per k: load then GEMM, then store
  const Stmt program =
      make_for(i, 2, make_seq({kernel(0), make_for(k, 3, make_seq({b.load(), kernel(1)})), b.store()}));
  EXPECT_EQ(to_text(coproc_sync(program)),
            "@tir.vta.coproc_dep_push(3, 2, dtype=int32)\n"
            "for (i: int32, 0, 2) {\n"
            "  attr [vta] \"coproc_scope\" = 2 {\n"
            "    @tir.vta.coproc_dep_pop(3, 2, dtype=int32)\n"
            "    attr [vta] \"coproc_uop_scope\" = \"VTAPushGEMMOp\" {\n"
            "      @tir.vta.uop_push(0, 0, 0, 0, 0, 0, 0, 0, dtype=int32)\n"
            "    }\n"
            "    @tir.vta.coproc_dep_push(2, 1, dtype=int32)\n"
            "  }\n"
            "  for (k: int32, 0, 3) {\n"
            "    attr [vta] \"coproc_scope\" = 1 {\n"
            "      @tir.vta.coproc_dep_pop(2, 1, dtype=int32)\n"
            "      @tir.call_extern(\"VTALoadBuffer2D\", x, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2, dtype=int32)\n"
            "      @tir.vta.coproc_dep_push(1, 2, dtype=int32)\n"
            "    }\n"
            "    attr [vta] \"coproc_scope\" = 2 {\n"
            "      @tir.vta.coproc_dep_pop(1, 2, dtype=int32)\n"
            "      attr [vta] \"coproc_uop_scope\" = \"VTAPushGEMMOp\" {\n"
            "        @tir.vta.uop_push(0, 0, 1, 0, 0, 0, 0, 0, dtype=int32)\n"
            "      }\n"
            "      @tir.vta.coproc_dep_push(2, 1, dtype=int32)\n"
            "    }\n"
            "  }\n"
            "  @tir.vta.coproc_dep_pop(2, 1, dtype=int32)\n"
            "  @tir.vta.coproc_dep_push(2, 3, dtype=int32)\n"
            "  attr [vta] \"coproc_scope\" = 3 {\n"
            "    @tir.vta.coproc_dep_pop(2, 3, dtype=int32)\n"
            "    @tir.call_extern(\"VTAStoreBuffer2D\", 0, 4, y, 0, 1, 1, 1, dtype=int32)\n"
            "    @tir.vta.coproc_dep_push(3, 2, dtype=int32)\n"
            "  }\n"
            "}\n"
            "@tir.vta.coproc_sync(, dtype=int32)\n"
            "@tir.vta.coproc_dep_pop(3, 2, dtype=int32)\n");
}

// overlap_tiles: the (2, 1) token pushed by the last GEMM of a tile frees the input buffer for the next
// tile's first load; the tiles loop carries it (one push before it, one pop after it) instead of the
// pop after the reduction loop and the push after the next tile's reset.
TEST(PassCoprocSync, OverlappingTilesCarryTheLoadToken) {
  Buffers b;
  const Var i = make_var("i"), k = make_var("k");
  const Stmt program =
      make_for(i, 2, make_seq({kernel(0), make_for(k, 3, make_seq({b.load(), kernel(1)})), b.store()}));
  EXPECT_EQ(to_text(coproc_sync(program, /*overlap_tiles=*/true)),
            "@tir.vta.coproc_dep_push(2, 1, dtype=int32)\n"
            "@tir.vta.coproc_dep_push(3, 2, dtype=int32)\n"
            "for (i: int32, 0, 2) {\n"
            "  attr [vta] \"coproc_scope\" = 2 {\n"
            "    @tir.vta.coproc_dep_pop(3, 2, dtype=int32)\n"
            "    attr [vta] \"coproc_uop_scope\" = \"VTAPushGEMMOp\" {\n"
            "      @tir.vta.uop_push(0, 0, 0, 0, 0, 0, 0, 0, dtype=int32)\n"
            "    }\n"
            "  }\n"
            "  for (k: int32, 0, 3) {\n"
            "    attr [vta] \"coproc_scope\" = 1 {\n"
            "      @tir.vta.coproc_dep_pop(2, 1, dtype=int32)\n"
            "      @tir.call_extern(\"VTALoadBuffer2D\", x, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2, dtype=int32)\n"
            "      @tir.vta.coproc_dep_push(1, 2, dtype=int32)\n"
            "    }\n"
            "    attr [vta] \"coproc_scope\" = 2 {\n"
            "      @tir.vta.coproc_dep_pop(1, 2, dtype=int32)\n"
            "      attr [vta] \"coproc_uop_scope\" = \"VTAPushGEMMOp\" {\n"
            "        @tir.vta.uop_push(0, 0, 1, 0, 0, 0, 0, 0, dtype=int32)\n"
            "      }\n"
            "      @tir.vta.coproc_dep_push(2, 1, dtype=int32)\n"
            "    }\n"
            "  }\n"
            "  @tir.vta.coproc_dep_push(2, 3, dtype=int32)\n"
            "  attr [vta] \"coproc_scope\" = 3 {\n"
            "    @tir.vta.coproc_dep_pop(2, 3, dtype=int32)\n"
            "    @tir.call_extern(\"VTAStoreBuffer2D\", 0, 4, y, 0, 1, 1, 1, dtype=int32)\n"
            "    @tir.vta.coproc_dep_push(3, 2, dtype=int32)\n"
            "  }\n"
            "}\n"
            "@tir.vta.coproc_sync(, dtype=int32)\n"
            "@tir.vta.coproc_dep_pop(2, 1, dtype=int32)\n"
            "@tir.vta.coproc_dep_pop(3, 2, dtype=int32)\n");
  // a tiles loop whose body loads outside the reduction loop keeps the plain tokens
  const Stmt two_loads =
      make_for(i, 2, make_seq({b.load(), kernel(0), make_for(k, 3, make_seq({b.load(), kernel(1)})), b.store()}));
  EXPECT_EQ(to_text(coproc_sync(two_loads, true)), to_text(coproc_sync(two_loads)));
}

TEST(PassCoprocSync, ALoopOnTheHostIsAUserError) {
  Buffers b;
  const Var i = make_var("i");
  const Stmt program = make_for(i, 2, make_store(b.acc, {make_int(0), make_int(0), i}, make_int(0)));
  EXPECT_THROW((void)coproc_sync(program), ScheduleError);
}

TEST(PassVirtualThreads, BlocksWithoutLoopsUnrollAndOthersLoop) {
  Buffers b;
  const Var tx = make_var("tx"), j = make_var("j");
  const Stmt load = make_call(intrin::kLoadBuffer2D, b.inp, b.x,
                              {Expr(tx) * 2, make_int(1), make_int(1), make_int(1), make_int(0), make_int(0),
                               make_int(0), make_int(0), Expr(tx), make_int(2)});
  const Stmt store_loop =
      make_for(j, 2,
               make_call(intrin::kStoreBuffer2D, b.y, b.acc,
                         {Expr(tx) + j, make_int(4), Expr(j), make_int(1), make_int(1), make_int(1)}));
  // (loops outside blocks are shared by the threads; blocks run once per thread)
  const Stmt store_block = make_attr(vta_var(), attr::kCoprocScope, store_loop, make_int(3));
  const Stmt program = make_attr(tx, attr::kVirtualThread, make_for(tx, 2, make_seq({load, store_block})));
  EXPECT_EQ(to_text(inject_virtual_threads(program)),
            "@tir.call_extern(\"VTALoadBuffer2D\", x, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2, dtype=int32)\n"
            "@tir.call_extern(\"VTALoadBuffer2D\", x, 2, 1, 1, 1, 0, 0, 0, 0, 1, 2, dtype=int32)\n"
            "for (cthread.s: int32, 0, 2) {\n"
            "  attr [vta] \"coproc_scope\" = 3 {\n"
            "    for (j: int32, 0, 2) {\n"
            "      @tir.call_extern(\"VTAStoreBuffer2D\", (cthread.s + j), 4, y, j, 1, 1, 1, dtype=int32)\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(PassReplicateThreadBuffers, BuffersWrittenByThreadsGetALeadingDimension) {
  const Tensor a = placeholder({2, 16}, "a", DType::kInt32);
  const Var tx = make_var("tx"), i = make_var("i");
  const Stmt body =
      make_attr(tx, attr::kVirtualThread, make_for(tx, 2, make_for(i, 16, make_store(a, {make_int(0), i}, Expr(tx)))));
  const Stmt program = make_allocate(a, "local.acc_buffer", body, {1, 16});
  EXPECT_EQ(to_text(replicate_thread_buffers(program)),
            "allocate(a: int32, [2, 1, 16]), storage_scope = local.acc_buffer {\n"
            "  attr [tx] \"virtual_thread\" = 1 {\n"
            "    for (tx: int32, 0, 2) {\n"
            "      for (i: int32, 0, 16) {\n"
            "        a[tx, 0, i] = tx\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(PassInplaceAlu, TheOutputTakesItsOperandsBuffer) {
  const Tensor gem = placeholder({4, 1, 16}, "gem", DType::kInt32), shr = placeholder({4, 1, 16}, "shr", DType::kInt32);
  const Tensor out = placeholder({4, 1, 16}, "out", DType::kInt8);
  const Var i = make_var("i"), c = make_var("c"), o = make_var("o");
  const std::vector<Expr> idx{i, make_int(0), c};
  const Stmt alu =
      make_attr(i, attr::kPragmaAlu, make_for(i, 4, make_for(c, 16, make_store(shr, idx, make_read(gem, idx) >> 8))));
  const Stmt copy = make_for(
      o, 4,
      make_for(c, 16, make_store(out, {o, make_int(0), c}, cast(DType::kInt8, make_read(shr, {o, make_int(0), c})))));
  const Stmt program = make_allocate(gem, env().acc_scope, make_allocate(shr, env().acc_scope, make_seq({alu, copy})));
  const std::string text = to_text(inplace_alu(program, env()));
  EXPECT_EQ(text.find("allocate(shr"), std::string::npos) << text;
  EXPECT_NE(text.find("gem[i, 0, c] = @tir.shift_right(gem[i, 0, c], 8, dtype=int32)"), std::string::npos) << text;
  EXPECT_NE(text.find("out[o, 0, c] = cast(int8, gem[o, 0, c])"), std::string::npos) << text;
}

TEST(PassInjectAlu, ContiguousLoopsFuseAndImmediatesAreDetected) {
  const Tensor acc = placeholder({2, 3, 1, 16}, "acc", DType::kInt32);
  const Var a = make_var("a"), b = make_var("b"), c = make_var("c");
  const std::vector<Expr> idx{a, b, make_int(0), c};
  const Stmt alu =
      make_attr(a, attr::kPragmaAlu,
                make_for(a, 2, make_for(b, 3, make_for(c, 16, make_store(acc, idx, max(make_read(acc, idx), 0))))));
  const Stmt program = make_allocate(acc, env().acc_scope, alu, {2, 3, 1, 16});
  EXPECT_EQ(to_text(inject_alu(program, env())),
            "allocate(acc: int32, [2, 3, 1, 16]), storage_scope = local.acc_buffer {\n"
            "  attr [vta] \"coproc_uop_scope\" = \"VTAPushALUOp\" {\n"
            "    @tir.call_extern(\"VTAUopLoopBegin\", 6, 1, 1, 0, dtype=int32)\n"
            "    @tir.vta.uop_push(1, 0, 0, 0, 0, 1, 1, 0, dtype=int32)\n"
            "    @tir.call_extern(\"VTAUopLoopEnd\", dtype=int32)\n"
            "  }\n"
            "}\n");
}

TEST(PassTensorizeGemm, TwoOuterLoopsFoldAndTheRestUnrolls) {
  const Tensor acc = placeholder({2, 1, 1, 16}, "acc", DType::kInt32);
  const Tensor inp = placeholder({3, 1, 1, 16}, "inp", DType::kInt8);
  const Tensor wgt = placeholder({2, 3, 16, 16}, "wgt", DType::kInt8);
  const Var o = make_var("o"), k = make_var("k"), r = make_var("r"), ci = make_var("ci"), kt = make_var("kt");
  const Stmt update = make_store(acc, {o, make_int(0), make_int(0), ci},
                                 make_read(acc, {o, make_int(0), make_int(0), ci}) +
                                     cast(DType::kInt32, make_read(inp, {k, make_int(0), make_int(0), kt})) *
                                         cast(DType::kInt32, make_read(wgt, {o, k, ci, kt})));
  const Stmt region = make_attr(ci, attr::kTensorizeGemm, make_for(ci, 16, make_for(kt, 16, update)));
  // loops o, k fold; r (extent 2, unused by the indices) unrolls into two micro-ops
  const Stmt nest = make_for(o, 2, make_for(k, 3, make_for(r, 2, region)));
  const Stmt program = make_allocate(
      acc, env().acc_scope,
      make_allocate(inp, env().inp_scope, make_allocate(wgt, env().wgt_scope, nest, {2, 3, 16, 16}), {3, 1, 1, 16}),
      {2, 1, 1, 16});
  const std::string text = to_text(tensorize_gemm(program, env()));
  for (const char* line : {"@tir.call_extern(\"VTAUopLoopBegin\", 2, 1, 0, 3, dtype=int32)",
                           "@tir.call_extern(\"VTAUopLoopBegin\", 3, 0, 1, 1, dtype=int32)", "for (r: int32, 0, 2) {",
                           "@tir.vta.uop_push(0, 0, 0, 0, 0, 0, 0, 0, dtype=int32)"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

TEST(PassSimplify, SumsAreCanonicalAndLoopRangesDecideMinMax) {
  const Var i = make_var("i"), j = make_var("j");
  // constants gather at the end (or first when the first term is subtracted), like terms combine
  EXPECT_EQ(to_text(simplify(((Expr(i) * 196 + -15) + Expr(j) * 14) + 1)), "(((i*196) + (j*14)) - 14)");
  EXPECT_EQ(to_text(simplify(make_int(9) - Expr(i) * 7 + 3)), "(12 - (i*7))");
  EXPECT_EQ(to_text(simplify(Expr(i) * 2 + Expr(j) + Expr(i) * 3)), "((i*5) + j)");
  EXPECT_EQ(to_text(simplify(Expr(i) + 4 - Expr(i))), "4");
  // without ranges nothing is decided; under `for (i, 0, 2)` i*7 - 6 <= 1 < 9 and 1 - i*7 <= 1
  const Tensor t = placeholder({4}, "t", DType::kInt32);
  const Expr top = max(min(make_int(1) - Expr(i) * 7, 9), 0), bottom = max(min((Expr(i) * 7 + 9) - 15, 9), 0);
  EXPECT_EQ(to_text(simplify(top)), "max(min((1 - (i*7)), 9), 0)");
  EXPECT_EQ(to_text(simplify(make_for(i, 2, make_store(t, {make_int(0)}, top + bottom)))),
            "for (i: int32, 0, 2) {\n  t[0] = (max((1 - (i*7)), 0) + max(((i*7) - 6), 0))\n}\n");
  // a range that makes the whole max constant: i*4 - 4 <= 0 for i < 2
  EXPECT_EQ(to_text(simplify(make_for(i, 2, make_store(t, {make_int(0)}, max(Expr(i) * 4 - 4, 0))))),
            "for (i: int32, 0, 2) {\n  t[0] = 0\n}\n");
  // the range ends with its loop
  EXPECT_EQ(to_text(simplify(make_seq({make_for(i, 2, make_store(t, {Expr(i)}, min(Expr(i), 5))),
                                       make_store(t, {make_int(0)}, min(Expr(i), 5))}))),
            "for (i: int32, 0, 2) {\n  t[i] = i\n}\nt[0] = min(i, 5)\n");
}

}  // namespace
}  // namespace vta::compiler
