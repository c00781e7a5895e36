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

/// `s` as a block of one stage (coproc scope), or as the virtual-thread attribute; nullptr otherwise.
const AttrNode* as_block(const Stmt& s) { return as_attr(s, attr::kCoprocScope); }
const AttrNode* as_thread(const Stmt& s) { return as_attr(s, attr::kVirtualThread); }
/// The stage a block runs in.
int stage(const AttrNode& block) { return int(block.value->to<IntNode>().value); }
/// The loop the thread attribute holds.
const ForNode& thread_loop(const AttrNode& thread) { return thread.body->to<ForNode>(); }

/// The stage of a statement that runs wholly in one stage; 0 when it mixes stages; throws for a
/// statement the accelerator cannot run.
class StageOf final : public StmtFunctor<int> {
 public:
  int operator()(const Stmt& s) { return dispatch(s); }

 private:
  int visit_call(const Stmt&, const CallNode& op) override {
    if (op.name == intrin::kLoadBuffer2D) {
      const Expr& type = op.args.back();
      // loads into the accumulator (ACC, and ACC_8BIT's sign-extended int8) run on the compute stage (spec 4.4)
      const bool acc = is_const(type, int(MemId::kAcc)) || is_const(type, int(MemId::kAcc8Bit));
      return acc ? kComputeStage : kLoadStage;
    }
    if (op.name == intrin::kStoreBuffer2D) return kStoreStage;
    throw InternalError("coproc_sync: unexpected call " + op.name);
  }
  int visit_attr(const Stmt& s, const AttrNode& op) override {
    if (op.key == attr::kCoprocUopScope) return kComputeStage;
    if (as_thread(s) != nullptr) return 0;
    throw ScheduleError("the annotation " + op.key + " on loop " + op.var->name + " was not lowered");
  }
  int visit_for(const Stmt&, const ForNode& op) override { return dispatch(op.body); }
  int visit_allocate(const Stmt&, const AllocateNode& op) override { return dispatch(op.body); }
  int visit_seq(const Stmt&, const SeqNode& op) override {
    int k = -1;
    for (const auto& c : op.seq) {
      const int ck = dispatch(c);
      if (k == -1) k = ck;
      if (ck != k) return 0;
    }
    return k < 0 ? 0 : k;
  }
  int visit_store(const Stmt&, const StoreNode& op) override {
    throw ScheduleError("the loops writing " + op.tensor->name + " are not mapped to the accelerator: give them a " +
                        "dma_copy or alu pragma, or tensorize them with gemm");
  }
};
int stage_of(const Stmt& s) { return StageOf()(s); }

Stmt block(int stage, Stmt body) { return make_attr(vta_var(), attr::kCoprocScope, std::move(body), make_int(stage)); }

/// Step 1: blocks.
Stmt group(const Stmt& s) {
  if (const AttrNode* t = as_thread(s)) {
    const ForNode& loop = thread_loop(*t);
    return make_attr(t->var, t->key, make_for(loop.var, loop.extent, group(loop.body)), t->value);
  }
  if (const auto* a = s->as<AllocateNode>()) return make_allocate(a->tensor, a->scope, group(a->body), a->shape);
  const int k = stage_of(s);
  if (k > 0) return block(k, s);
  if (const auto* f = s->as<ForNode>()) return make_for(f->var, f->extent, group(f->body));
  const auto* seq = s->as<SeqNode>();
  if (seq == nullptr) throw InternalError("coproc_sync: cannot group a statement");
  std::vector<Stmt> out, run;
  int run_stage = 0;
  auto flush = [&] {
    if (!run.empty()) out.push_back(block(run_stage, make_seq(run)));
    run.clear();
  };
  for (const auto& c : seq->seq) {
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
  if (const AttrNode* b = as_block(s)) return stage(*b);
  if (const auto* seq = s->as<SeqNode>()) return seq->seq.empty() ? 0 : first(seq->seq.front());
  if (const AttrNode* t = as_thread(s)) return first(thread_loop(*t).body);
  return first(body_of(s));
}
int last(const Stmt& s) {
  if (const AttrNode* b = as_block(s)) return stage(*b);
  if (const auto* seq = s->as<SeqNode>()) return seq->seq.empty() ? 0 : last(seq->seq.back());
  if (const AttrNode* t = as_thread(s)) return last(thread_loop(*t).body);
  return last(body_of(s));
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
  if (const AttrNode* b = as_block(s)) return stage(*b) == kLoadStage;
  if (const auto* seq = s->as<SeqNode>()) return std::any_of(seq->seq.begin(), seq->seq.end(), holds_load);
  if (const AttrNode* t = as_thread(s)) return holds_load(thread_loop(*t).body);
  return s->kind == StmtKind::kFor || s->kind == StmtKind::kAllocate ? holds_load(body_of(s)) : false;
}
/// A loop whose body goes from the load stage to the compute stage (the reduction over input tiles).
bool is_reduction_loop(const Stmt& s) {
  const auto* f = s->as<ForNode>();
  return f != nullptr && first(f->body) == kLoadStage && last(f->body) == kComputeStage;
}
/// A statement as the list of statements it runs one after the other (nested sequences flattened).
std::vector<Stmt> children(const Stmt& body) {
  const auto* seq = body->as<SeqNode>();
  if (seq == nullptr) return {body};
  std::vector<Stmt> out;
  for (const Stmt& c : seq->seq) {
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
  Stmt body = body_of(s);
  while (body->kind == StmtKind::kAllocate) body = body_of(body);
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
  if (const AttrNode* b = as_block(s)) {
    std::vector<Stmt> v;
    for (const auto& t : pops) v.push_back(pop(t));
    v.push_back(b->body);
    for (const auto& t : pushes) v.push_back(push(t));
    return make_attr(b->var, b->key, make_seq(std::move(v)), b->value);
  }
  if (const AttrNode* t = as_thread(s)) {
    const ForNode& loop = thread_loop(*t);
    return make_attr(t->var, t->key, make_for(loop.var, loop.extent, tokens(loop.body, pops, pushes, overlap, through)),
                     t->value);
  }
  if (const auto* a = s->as<AllocateNode>())
    return make_allocate(a->tensor, a->scope, tokens(a->body, pops, pushes, overlap, through), a->shape);
  if (const auto* seq = s->as<SeqNode>()) {
    const size_t n = seq->seq.size();
    std::vector<Tokens> p(n), q(n);
    if (n == 0) return s;
    p[0] = pops;
    q[n - 1] = pushes;
    for (size_t i = 0; i + 1 < n; ++i) {
      const Token t{last(seq->seq[i]), first(seq->seq[i + 1])};
      if (t.first == t.second) continue;
      check(t);
      q[i].push_back(t);
      p[i + 1].push_back(t);
    }
    // the token into the reduction loop comes from the previous tile's instead
    const int k = through ? load_child(seq->seq) : -1;
    if (k > 0 && take(q[size_t(k) - 1], kFreeLoadBuffers)) take(p[size_t(k)], kFreeLoadBuffers);
    std::vector<Stmt> v;
    for (size_t i = 0; i < n; ++i) v.push_back(tokens(seq->seq[i], p[i], q[i], overlap, int(i) == k));
    return make_seq(std::move(v));
  }
  const auto* for_node = s->as<ForNode>();
  if (for_node == nullptr) throw InternalError("coproc_sync: unexpected statement");
  const ForNode& s_loop = *for_node;
  const int f = first(s_loop.body), l = last(s_loop.body);
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
    loop = make_for(s_loop.var, s_loop.extent, tokens(s_loop.body, {}, {}, overlap, body_through));
  } else {
    const Tokens carried = carried_tokens(l, f);
    for (const Token& c : carried) {
      if (!take(pops, c)) v.push_back(push(c));  // prologue
      if (!take(pushes, c)) epilogues.push_back(c);
    }
    loop = make_for(s_loop.var, s_loop.extent, tokens(s_loop.body, carried, carried, overlap, body_through));
  }
  for (const auto& t : pops) v.push_back(pop(t));
  v.push_back(loop);
  for (const auto& t : epilogues) v.push_back(pop(t));
  for (const auto& t : pushes) v.push_back(push(t));
  return make_seq(std::move(v));
}

bool is_bare_pop(const Stmt& s) {
  const auto* c = s->as<CallNode>();
  return c != nullptr && c->name == intrin::kDepPop;
}

}  // namespace

Stmt coproc_sync(const Stmt& s, bool overlap_tiles) {
  // below the allocations: the program (maybe one virtual-thread loop)
  std::vector<const AllocateNode*> allocs;
  Stmt body = s;
  while (const auto* a = body->as<AllocateNode>()) {
    allocs.push_back(a);
    body = a->body;
  }
  if (const auto* seq = body->as<SeqNode>(); seq != nullptr && seq->seq.size() == 1) body = seq->seq[0];
  const Stmt sync = make_call(intrin::kSync, nullptr, nullptr, {});
  Stmt out = tokens(group(body), {}, {}, overlap_tiles);
  if (as_thread(out) != nullptr) {
    out = make_seq({out, sync});
  } else {
    const auto* seq = out->as<SeqNode>();
    std::vector<Stmt> v = seq != nullptr ? seq->seq : std::vector<Stmt>{out};
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
