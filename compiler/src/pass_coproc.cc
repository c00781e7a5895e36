// Coprocessor scopes, dependency tokens and synchronisation.
//
// 1. Every accelerator statement belongs to a stage: loads into the input and weight buffers to the
//    load stage (1), micro-op kernels and loads into the accumulator to the compute stage (2),
//    stores to the store stage (3). Consecutive statements of one stage (and loops holding only one
//    stage) form a block `attr [vta] "coproc_scope" = stage`.
// 2. Tokens order the stages as data flows (load -> compute -> store) and back (a buffer is refilled
//    only after its last reader is done): between consecutive blocks of stages a != b, the first
//    pushes a token (a, b) at its end and the second pops it at its start. A loop whose body starts in
//    stage f and ends in stage l != f carries a token (l, f) from each iteration to the next: pushed
//    once before the loop (unless the statement before pushes exactly that token) and popped once
//    after it (unless the statement after pops exactly that token).
//    (A body from load to store carries two tokens, through the compute stage.)
//    Tokens entering or leaving a loop for its first or last iteration become bare pops / pushes just
//    before or after it: the runtime attaches them to the next / last instruction of their stage.
// 3. The program ends with a synchronisation: before the final bare pops, or after everything when
//    the program runs virtual threads (whose thread loop is transparent here: tokens are inserted in
//    the single-thread program; inject_virtual_threads interleaves the threads afterwards).

#include <algorithm>

#include "vta/compiler/lower.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

using Token = std::pair<int, int>;
using Tokens = std::vector<Token>;

Stmt token_call(const char* name, Token t) {
  return make_call(name, nullptr, nullptr, {make_int(t.first), make_int(t.second)});
}
Stmt push(Token t) { return token_call(intrin::kDepPush, t); }
Stmt pop(Token t) { return token_call(intrin::kDepPop, t); }

bool is_block(const Stmt& s) { return s->kind == StmtKind::kAttr && s->key == attr::kCoprocScope; }
bool is_thread(const Stmt& s) { return s->kind == StmtKind::kAttr && s->key == attr::kVirtualThread; }

/// The stage of a statement that runs wholly in one stage; 0 when it mixes stages; throws for a
/// statement the accelerator cannot run.
class StageOf final : public StmtFunctor<int> {
 public:
  int operator()(const Stmt& s) { return dispatch(s); }

 private:
  int visit_call(const Stmt& s) override {
    if (s->name == intrin::kLoadBuffer2D) {
      const Expr& type = s->args.back();
      // loads into the accumulator (ACC, and ACC_8BIT's sign-extended int8) run on the compute stage (spec 4.4)
      const bool acc =
          type->kind == ExprKind::kInt && (type->value == int(MemId::kAcc) || type->value == int(MemId::kAcc8Bit));
      return acc ? kComputeStage : kLoadStage;
    }
    if (s->name == intrin::kStoreBuffer2D) return kStoreStage;
    throw InternalError("coproc_sync: unexpected call " + s->name);
  }
  int visit_attr(const Stmt& s) override {
    if (s->key == attr::kCoprocUopScope) return kComputeStage;
    if (is_thread(s)) return 0;
    throw ScheduleError("the annotation " + s->key + " on loop " + s->var->name + " was not lowered");
  }
  int visit_for(const Stmt& s) override { return dispatch(s->body); }
  int visit_allocate(const Stmt& s) override { return dispatch(s->body); }
  int visit_seq(const Stmt& s) override {
    int k = -1;
    for (const auto& c : s->seq) {
      const int ck = dispatch(c);
      if (k == -1) k = ck;
      if (ck != k) return 0;
    }
    return k < 0 ? 0 : k;
  }
  int visit_store(const Stmt& s) override {
    throw ScheduleError("the loops writing " + s->tensor->name + " are not mapped to the accelerator: give them a " +
                        "dma_copy or alu pragma, or tensorize them with gemm");
  }
};
int stage_of(const Stmt& s) { return StageOf()(s); }

Stmt block(int stage, Stmt body) { return make_attr(vta_var(), attr::kCoprocScope, std::move(body), make_int(stage)); }

/// Step 1: blocks.
Stmt group(const Stmt& s) {
  if (is_thread(s)) {
    return make_attr(s->var, s->key, make_for(s->body->var, s->body->extent, group(s->body->body)), s->value);
  }
  if (s->kind == StmtKind::kAllocate) return make_allocate(s->tensor, s->scope, group(s->body), s->shape);
  const int k = stage_of(s);
  if (k > 0) return block(k, s);
  if (s->kind == StmtKind::kFor) return make_for(s->var, s->extent, group(s->body));
  if (s->kind != StmtKind::kSeq) throw InternalError("coproc_sync: cannot group a statement");
  std::vector<Stmt> out, run;
  int run_stage = 0;
  auto flush = [&] {
    if (!run.empty()) out.push_back(block(run_stage, make_seq(run)));
    run.clear();
  };
  for (const auto& c : s->seq) {
    const int ck = stage_of(c);
    if (ck == 0) {
      flush();
      out.push_back(group(c));
      continue;
    }
    if (ck != run_stage) flush();
    run_stage = ck;
    run.push_back(c);
  }
  flush();
  return make_seq(std::move(out));
}

int first(const Stmt& s);
int last(const Stmt& s);
int first(const Stmt& s) {
  if (is_block(s)) return int(s->value->value);
  if (s->kind == StmtKind::kSeq) return s->seq.empty() ? 0 : first(s->seq.front());
  if (is_thread(s)) return first(s->body->body);
  return first(s->body);
}
int last(const Stmt& s) {
  if (is_block(s)) return int(s->value->value);
  if (s->kind == StmtKind::kSeq) return s->seq.empty() ? 0 : last(s->seq.back());
  if (is_thread(s)) return last(s->body->body);
  return last(s->body);
}

void check(Token t) {
  if (std::abs(t.first - t.second) != 1) {
    static const char* names[] = {"", "load", "compute", "store"};
    throw ScheduleError(std::string("the program passes data from the ") + names[t.first] + " stage directly to the " +
                        names[t.second] + " stage; VTA's dependency queues connect only neighbouring stages " +
                        "(load-compute, compute-store)");
  }
}

/// The tokens a loop whose body starts in stage f and ends in stage l carries to its next iteration.
/// Load and store have no queue between them: a body from load to store carries store -> compute and
/// compute -> load (the runtime attaches a pop to the next instruction of its stage and a push to the
/// last one, so both sit at the body's ends).
Tokens carried_tokens(int l, int f) {
  if (l == kStoreStage && f == kLoadStage) return {{kStoreStage, kComputeStage}, {kComputeStage, kLoadStage}};
  if (l == kLoadStage && f == kStoreStage) return {{kLoadStage, kComputeStage}, {kComputeStage, kStoreStage}};
  return {{l, f}};
}

bool take(Tokens& v, Token t) {
  auto it = std::find(v.begin(), v.end(), t);
  if (it == v.end()) return false;
  v.erase(it);
  return true;
}

/// The token that frees the load stage's buffers (compute -> load), which overlap_tiles carries from
/// one tile's reduction loop to the next tile's.
constexpr Token kFreeLoadBuffers{kComputeStage, kLoadStage};

bool holds_load(const Stmt& s) {
  if (is_block(s)) return s->value->value == kLoadStage;
  if (s->kind == StmtKind::kSeq) return std::any_of(s->seq.begin(), s->seq.end(), holds_load);
  if (is_thread(s)) return holds_load(s->body->body);
  return s->kind == StmtKind::kFor || s->kind == StmtKind::kAllocate ? holds_load(s->body) : false;
}
/// A loop whose body goes from the load stage to the compute stage (the reduction over input tiles).
bool is_reduction_loop(const Stmt& s) {
  return s->kind == StmtKind::kFor && first(s->body) == kLoadStage && last(s->body) == kComputeStage;
}
/// A statement as the list of statements it runs one after the other (nested sequences flattened).
std::vector<Stmt> children(const Stmt& body) {
  if (body->kind != StmtKind::kSeq) return {body};
  std::vector<Stmt> out;
  for (const Stmt& c : body->seq) {
    const std::vector<Stmt> inner = children(c);
    out.insert(out.end(), inner.begin(), inner.end());
  }
  return out;
}
/// Where the load stage is in a loop body: the index of the one child holding it (-1: none or more).
int load_child(const std::vector<Stmt>& kids) {
  int k = -1;
  for (size_t i = 0; i < kids.size(); ++i) {
    if (!holds_load(kids[i])) continue;
    if (k >= 0) return -1;
    k = int(i);
  }
  return k;
}
/// Whether the tiles loop `s` can carry kFreeLoadBuffers to a reduction loop inside it: the load stage
/// appears in its body only in one loop, which is a reduction loop entered from the compute stage or
/// again such a tiles loop.
bool carries_to_reduction(const Stmt& s) {
  if (s->kind != StmtKind::kFor || is_reduction_loop(s)) return false;
  Stmt body = s->body;
  while (body->kind == StmtKind::kAllocate) body = body->body;
  const std::vector<Stmt> kids = children(body);
  const int k = load_child(kids);
  if (k < 0 || kids[size_t(k)]->kind != StmtKind::kFor) return false;
  const Stmt& inner = kids[size_t(k)];
  if (is_reduction_loop(inner)) return k > 0 && last(kids[size_t(k) - 1]) == kComputeStage;
  return carries_to_reduction(inner);
}

/// Step 2: `pops` run at the start of `s`'s first block, `pushes` at the end of its last. `through`:
/// an enclosing loop carries kFreeLoadBuffers into and out of the reduction loop inside `s`.
Stmt tokens(const Stmt& s, Tokens pops, Tokens pushes, bool overlap, bool through = false) {
  if (is_block(s)) {
    std::vector<Stmt> v;
    for (const auto& t : pops) v.push_back(pop(t));
    v.push_back(s->body);
    for (const auto& t : pushes) v.push_back(push(t));
    return make_attr(s->var, s->key, make_seq(std::move(v)), s->value);
  }
  if (is_thread(s)) {
    return make_attr(s->var, s->key,
                     make_for(s->body->var, s->body->extent, tokens(s->body->body, pops, pushes, overlap, through)),
                     s->value);
  }
  if (s->kind == StmtKind::kAllocate)
    return make_allocate(s->tensor, s->scope, tokens(s->body, pops, pushes, overlap, through), s->shape);
  if (s->kind == StmtKind::kSeq) {
    const size_t n = s->seq.size();
    std::vector<Tokens> p(n), q(n);
    if (n == 0) return s;
    p[0] = pops;
    q[n - 1] = pushes;
    for (size_t i = 0; i + 1 < n; ++i) {
      const Token t{last(s->seq[i]), first(s->seq[i + 1])};
      if (t.first == t.second) continue;
      check(t);
      q[i].push_back(t);
      p[i + 1].push_back(t);
    }
    // the token into the reduction loop comes from the previous tile's instead
    const int k = through ? load_child(s->seq) : -1;
    if (k > 0 && take(q[size_t(k) - 1], kFreeLoadBuffers)) take(p[size_t(k)], kFreeLoadBuffers);
    std::vector<Stmt> v;
    for (size_t i = 0; i < n; ++i) v.push_back(tokens(s->seq[i], p[i], q[i], overlap, int(i) == k));
    return make_seq(std::move(v));
  }
  if (s->kind != StmtKind::kFor) throw InternalError("coproc_sync: unexpected statement");
  const int f = first(s->body), l = last(s->body);
  std::vector<Stmt> v;
  Stmt loop;
  Tokens epilogues;
  // the reduction loop under a carrying loop: its first iteration's pop and last iteration's push
  // pair with the neighbouring tiles' (no prologue, no epilogue)
  const bool reduction_through = through && is_reduction_loop(s);
  if (reduction_through) {
    pops.push_back(kFreeLoadBuffers);
    pushes.push_back(kFreeLoadBuffers);
  }
  // the outermost tiles loop that can carry the token: one push before it, one pop after it
  const bool carry = overlap && !through && carries_to_reduction(s);
  if (carry) {
    if (!take(pops, kFreeLoadBuffers)) v.push_back(push(kFreeLoadBuffers));
    if (!take(pushes, kFreeLoadBuffers)) epilogues.push_back(kFreeLoadBuffers);
  }
  const bool body_through = (through && !reduction_through) || carry;
  if (f == l) {
    loop = make_for(s->var, s->extent, tokens(s->body, {}, {}, overlap, body_through));
  } else {
    const Tokens carried = carried_tokens(l, f);
    for (const Token& c : carried) {
      if (!take(pops, c)) v.push_back(push(c));  // prologue
      if (!take(pushes, c)) epilogues.push_back(c);
    }
    loop = make_for(s->var, s->extent, tokens(s->body, carried, carried, overlap, body_through));
  }
  for (const auto& t : pops) v.push_back(pop(t));
  v.push_back(loop);
  for (const auto& t : epilogues) v.push_back(pop(t));
  for (const auto& t : pushes) v.push_back(push(t));
  return make_seq(std::move(v));
}

bool is_bare_pop(const Stmt& s) { return s->kind == StmtKind::kCall && s->name == intrin::kDepPop; }

}  // namespace

Stmt coproc_sync(const Stmt& s, bool overlap_tiles) {
  // below the allocations: the program (maybe one virtual-thread loop)
  std::vector<Stmt> allocs;
  Stmt body = s;
  while (body->kind == StmtKind::kAllocate) {
    allocs.push_back(body);
    body = body->body;
  }
  if (body->kind == StmtKind::kSeq && body->seq.size() == 1) body = body->seq[0];
  const Stmt sync = make_call(intrin::kSync, nullptr, nullptr, {});
  Stmt out = tokens(group(body), {}, {}, overlap_tiles);
  if (is_thread(out)) {
    out = make_seq({out, sync});
  } else {
    std::vector<Stmt> v = out->kind == StmtKind::kSeq ? out->seq : std::vector<Stmt>{out};
    size_t at = v.size();
    while (at > 0 && is_bare_pop(v[at - 1])) --at;
    v.insert(v.begin() + std::ptrdiff_t(at), sync);
    out = make_seq(std::move(v));
  }
  for (auto it = allocs.rbegin(); it != allocs.rend(); ++it) {
    out = make_allocate((*it)->tensor, (*it)->scope, out, (*it)->shape);
  }
  return out;
}

}  // namespace vta::compiler
