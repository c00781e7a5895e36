// Schedule -> loop nests: one nest per stage, loops in the stage's leaf order, original axes rebuilt
// from the split relations, bound inference for stages computed at a loop, and the rebasing of the
// buffers that hold only a region.

#include "schedule_ops.h"

#include <algorithm>
#include <functional>
#include <set>

#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

// ---- bound inference ---------------------------------------------------------------------------
/// Where a stage's original axis d starts (a linear form of enclosing loop variables) and its extent.
struct Domain {
  std::vector<Linear> lo;
  std::vector<int64_t> extent;
};

/// A split whose factor does not divide its parent's extent (in the part being generated): `whole`
/// iterations of the factor, then one of `rest`. Lowered as a loop of the whole iterations followed by
/// the last one (the loops inside generated again with the inner extent `rest`), as TVM's loop
/// partitioning does; bound inference covers both parts.
struct Partial {
  int64_t whole, rest;
};

struct Lowering {
  const Schedule& s;
  std::map<const OperationNode*, Domain> domains;
  std::map<const OperationNode*, Tensor> tensors;
  std::map<const VarNode*, int64_t> extents;  // leaf extents after bound inference (+ init loops)
  std::map<const VarNode*, Partial> partial;  // the inexact splits, by their outer variable
  std::set<const VarNode*> tails;             // outer variables whose last iteration is being generated
  /// The stages computed at a loop, as generated (the whole iterations' part: their own tensors) ...
  std::vector<std::pair<const OperationNode*, Domain>> generated;
  /// ... and their copies in the last iterations of inexact splits: a buffer of that part's region each,
  /// sharing its stage's storage (sram.h), so that every transfer into it is one contiguous block.
  struct Copy {
    Tensor tensor;
    const Stage* stage;
    Domain domain;
  };
  std::vector<Copy> copies;

  const Stage& stage_of(const OperationNode* op) const {
    for (const auto& st : s.stages()) {
      if (st.op().get() == op) return st;
    }
    throw InternalError("lower: no stage for an operation");
  }

  /// Leaf extents of a stage whose axes span `dom` (splits re-applied to the inferred extents; an
  /// inexact split's outer loop counts its whole iterations, or 1 while its last one is generated).
  void set_extents(const Stage& st, const Domain& dom) {
    const OperationNode& op = *st.op();
    for (size_t d = 0; d < op.axis.size(); ++d) extents[op.axis[d].var.get()] = dom.extent[d];
    for (const auto& r : op.reduce_axis) extents[r.var.get()] = r.extent;
    for (const auto& sp : st.splits()) {
      const int64_t parent = extents.at(sp.parent.var.get());
      const VarNode* outer = sp.outer.var.get();
      const int64_t whole = parent / sp.factor, rest = parent % sp.factor;
      if (rest == 0) {
        partial.erase(outer);
        extents[outer] = whole;
        extents[sp.inner.var.get()] = sp.factor;
      } else {
        partial[outer] = {whole, rest};
        const bool tail = tails.count(outer) != 0;
        extents[outer] = tail ? 1 : whole;
        extents[sp.inner.var.get()] = tail ? rest : sp.factor;
      }
    }
  }

  /// Original axes (data and reduction) as expressions of the leaf loops, offset by the domain.
  VarMap axis_values(const Stage& st) const {
    VarMap m;
    for (auto it = st.splits().rbegin(); it != st.splits().rend(); ++it) {
      auto value_of = [&](const IterVar& iv) -> Expr {
        auto f = m.find(iv.var.get());
        return f == m.end() ? Expr(iv.var) : f->second;
      };
      m[it->parent.var.get()] = value_of(it->outer) * it->factor + value_of(it->inner);
    }
    const Domain& dom = domains.at(st.op().get());
    for (size_t d = 0; d < st.op()->axis.size(); ++d) {
      const Var& v = st.op()->axis[d].var;
      auto f = m.find(v.get());
      const Expr local = f == m.end() ? Expr(v) : f->second;
      m[v.get()] = dom.lo[d].constant() && dom.lo[d].c == 0 ? local : dom.lo[d].to_expr() + local;
    }
    return m;
  }

  /// Calls `visit` once per part of `c`'s iteration space the leaves after position `fixed` range over:
  /// each inexact split whose outer loop ranges there contributes its whole iterations and its last one
  /// (splits in creation order: a split of a split's inner loop sees the extent that part gives it).
  void for_each_part(const Stage& c, size_t fixed, const std::function<void()>& visit) {
    std::vector<const VarNode*> outers;
    for (size_t i = fixed; i < c.leaves().size(); ++i) {
      for (const auto& sp : c.splits()) {
        if (sp.outer.var == c.leaves()[i].var) outers.push_back(sp.outer.var.get());
      }
    }
    const Domain& dom = domains.at(c.op().get());
    std::function<void(size_t)> choose = [&](size_t j) {
      set_extents(c, dom);
      if (j == outers.size()) return visit();
      if (partial.count(outers[j]) == 0) return choose(j + 1);
      const bool was_tail = tails.count(outers[j]) != 0;
      tails.erase(outers[j]);
      choose(j + 1);
      tails.insert(outers[j]);
      choose(j + 1);
      if (!was_tail) tails.erase(outers[j]);
      set_extents(c, dom);
    };
    choose(0);
  }

  /// The region of `producer` read by consumer `c` whose leaves after position `fixed` range.
  void infer_from(const Stage& c, size_t fixed, const OperationNode* producer, std::vector<Interval>& region,
                  bool& any) {
    const VarMap values = axis_values(c);
    for_each_part(c, fixed, [&] {
      Ranges ranges;
      for (size_t i = fixed; i < c.leaves().size(); ++i) {
        const VarNode* l = c.leaves()[i].var.get();
        if (tails.count(l) != 0 && partial.count(l) != 0) {
          ranges[l] = {Linear::of(partial.at(l).whole), Linear::of(partial.at(l).whole)};
        } else if (extents.at(l) == 0) {
          return;  // (no whole iteration: this part is empty)
        } else {
          ranges[l] = {Linear::of(0), Linear::of(extents.at(l) - 1)};
        }
      }
      for_each_expr(c.op()->body, [&](const Expr& e) {
        const auto* r = e->as<ReadNode>();
        if (r == nullptr || r->tensor->op.get() != producer) return;
        for (size_t d = 0; d < r->indices.size(); ++d) {
          const Interval iv = interval(substitute(r->indices[d], values), ranges, c.name());
          if (!any) {
            region[d] = iv;
          } else {
            const Linear dlo = iv.lo - region[d].lo, dhi = iv.hi - region[d].hi;
            if (!dlo.constant() || !dhi.constant()) {
              throw ScheduleError("compute_at: the reads of " + producer->name + " do not form one rectangle");
            }
            if (dlo.c < 0) region[d].lo = iv.lo;
            if (dhi.c > 0) region[d].hi = iv.hi;
          }
        }
        any = true;
      });
    });
  }

  void infer() {
    // consumers before producers
    for (auto it = s.stages().rbegin(); it != s.stages().rend(); ++it) {
      const Stage& st = *it;
      const OperationNode& op = *st.op();
      Domain dom;
      if (st.attach_op() == nullptr) {
        for (const auto& a : op.axis) dom.lo.push_back(Linear::of(0)), dom.extent.push_back(a.extent);
      } else {
        std::vector<Interval> region(op.axis.size());
        bool any = false;
        for (const auto& c : s.stages()) {
          bool reads = false;
          for (const auto& in : c.op()->inputs) reads = reads || in->op == st.op();
          if (!reads) continue;
          if (c.op().get() == st.attach_op()) {
            size_t fixed = 0;
            while (c.leaves()[fixed].var != st.attach_var()) ++fixed;
            infer_from(c, fixed + 1, st.op().get(), region, any);
          } else if (c.attach_op() == st.attach_op() && c.attach_var() == st.attach_var()) {
            infer_from(c, 0, st.op().get(), region, any);
          } else {
            throw ScheduleError("compute_at: stage " + st.name() + " is read by stage " + c.name() +
                                ", which is not computed inside the same loop (" + st.attach_var()->name + ")");
          }
        }
        if (!any) throw InternalError("compute_at: stage " + st.name() + " has no consumer");
        for (size_t d = 0; d < op.axis.size(); ++d) {
          const Linear ext = region[d].hi - region[d].lo;
          if (!ext.constant()) {
            throw ScheduleError("compute_at: the region of stage " + st.name() + " along axis " + op.axis[d].var->name +
                                " has no constant extent");
          }
          dom.lo.push_back(region[d].lo);
          dom.extent.push_back(ext.c + 1);
        }
      }
      domains[st.op().get()] = dom;
      set_extents(st, dom);
    }
  }

  /// One loop nest: `loops` outermost first around `innermost()`; after entering each loop, the stages
  /// computed at it (`attach_from`'s; nullptr: none) and the loop's annotations around it (`annotate`).
  /// `origin` maps a loop to the stage's leaf it stands for (the initialisation nest's copies).
  struct NestSpec {
    const std::vector<IterVar>& loops;
    std::function<Stmt()> innermost;
    const Stage* attach_from;
    std::function<Stmt(const IterVar&, Stmt)> annotate;
    std::function<const VarNode*(const IterVar&)> origin;
  };
  Stmt nest(const NestSpec& n, size_t i = 0) {
    if (i == n.loops.size()) return n.innermost();
    const IterVar& l = n.loops[i];
    const VarNode* leaf = n.origin(l);
    auto body = [&] {
      return make_seq_flat({n.attach_from != nullptr ? attached(*n.attach_from, l.var) : nullptr, nest(n, i + 1)});
    };
    auto p = partial.find(leaf);
    if (p == partial.end()) return n.annotate(l, make_for(l.var, extents.at(leaf), body()));
    // an inexact split: its whole iterations, then the last one with the loops inside it shorter
    const Partial part = p->second;
    std::vector<Stmt> parts;
    if (part.whole > 0) parts.push_back(n.annotate(l, make_for(l.var, part.whole, body())));
    tails.insert(leaf);
    infer();
    const size_t first = generated.size();
    Stmt tail = body();
    // the stages computed inside the last iteration hold its (smaller) regions: copies of their tensors
    std::map<const TensorNode*, Tensor> rename;
    for (size_t k = first; k < generated.size(); ++k) {
      const Tensor& t = tensors.at(generated[k].first);
      auto copy = std::make_shared<TensorNode>(*t);
      rename[t.get()] = copy;
      copies.push_back({copy, &stage_of(generated[k].first), generated[k].second});
    }
    generated.resize(first);
    tail = RenameTensors(std::move(rename)).mutate(tail);
    parts.push_back(n.annotate(l, make_attr(l.var, attr::kSplitTail, tail, make_int(part.whole))));
    tails.erase(leaf);
    infer();
    return make_seq(std::move(parts));
  }
  static Stmt make_seq_flat(std::vector<Stmt> v) {
    std::vector<Stmt> out;
    for (auto& x : v) {
      if (x) out.push_back(std::move(x));
    }
    return make_seq(std::move(out));
  }
  /// The nests of the stages computed inside `st`'s loop `v`, producers first (empty: nullptr).
  Stmt attached(const Stage& st, const Var& v) {
    std::vector<Stmt> parts;
    for (const auto& p : s.stages()) {
      if (p.attach_op() == st.op().get() && p.attach_var() == v) parts.push_back(stage_nest(p));
    }
    return parts.empty() ? nullptr : make_seq(std::move(parts));
  }

  /// An inexact split's loops may not be bound to virtual threads, and its inner loop stays inside its
  /// outer one (the last iteration is generated from the outer loop inward).
  void check_partial_splits(const Stage& st) const {
    for (const auto& sp : st.splits()) {
      if (partial.count(sp.outer.var.get()) == 0) continue;
      const int64_t parent = partial.at(sp.outer.var.get()).whole * sp.factor + partial.at(sp.outer.var.get()).rest;
      const std::string what = "split on stage " + st.name() + ", axis " + sp.parent.var->name + ": factor " +
                               std::to_string(sp.factor) + " does not divide the extent " + std::to_string(parent);
      for (const auto& [v, key] : st.annotations()) {
        if (key == attr::kVirtualThread && (v == sp.outer.var || v == sp.inner.var)) {
          throw ScheduleError(what + ", and loop " + v->name +
                              " is bound to a virtual thread: the threads of VTA run one program each on equal "
                              "parts (pick a factor or nparts that divides the extent)");
        }
      }
      // the leaves the inner loop became (itself, or the loops of its own splits)
      std::set<const VarNode*> inside{sp.inner.var.get()};
      for (const auto& other : st.splits()) {
        if (inside.count(other.parent.var.get()) != 0) {
          inside.insert(other.outer.var.get());
          inside.insert(other.inner.var.get());
        }
      }
      if (std::none_of(st.leaves().begin(), st.leaves().end(),
                       [&](const IterVar& l) { return l.var == sp.outer.var; })) {
        throw ScheduleError(what + ", and its outer loop " + sp.outer.var->name +
                            " is split again: split the inner loop instead, or pick a factor that divides the extent");
      }
      bool outer_seen = false;
      for (const auto& l : st.leaves()) {
        outer_seen = outer_seen || l.var == sp.outer.var;
        if (inside.count(l.var.get()) != 0 && !outer_seen) {
          throw ScheduleError(what + ", and loop " + l.var->name + " of its inner part is outside its outer loop " +
                              sp.outer.var->name +
                              ": the shorter last iteration is made from the outer loop inward (keep the inner "
                              "loops inside, or pick a factor that divides the extent)");
        }
      }
    }
  }

  Stmt stage_nest(const Stage& st) {
    const OperationNode& op = *st.op();
    const Tensor& out = tensors.at(st.op().get());
    if (st.attach_op() != nullptr) generated.push_back({st.op().get(), domains.at(st.op().get())});
    check_partial_splits(st);

    const VarMap m = axis_values(st);
    std::vector<Expr> idx;
    for (const auto& a : op.axis) idx.push_back(substitute(a.var, m));
    auto annotate = [&st](const IterVar& l, Stmt body) {
      for (const auto& [v, key] : st.annotations()) {
        if (v == l.var) body = make_attr(l.var, key, body);
      }
      return body;
    };
    auto itself = [](const IterVar& l) { return l.var.get(); };
    const auto* sum = op.body->as<ReduceNode>();
    if (sum == nullptr) {
      Stmt store = make_store(out, idx, substitute(op.body, m));  // (returned by copy from the nests)
      return nest({st.leaves(), [&] { return store; }, &st, annotate, itself});
    }

    // the value the sum starts from: 0, or its `init` at this element
    const Expr start_value = sum->init ? substitute(sum->init, m) : make_int(0, out->dtype);
    const Stmt init = make_store(out, idx, start_value);
    Stmt update = make_store(out, idx, make_read(out, idx) + substitute(sum->body, m));
    // Init inside the data-parallel loops when every reduction loop is inside all of them (as TVM);
    // otherwise a separate initialisation nest first.
    std::vector<IterVar> outer, inner;
    bool in_reduce = false, interleaved = false;
    for (const auto& l : st.leaves()) {
      if (l.reduce)
        in_reduce = true;
      else if (in_reduce)
        interleaved = true;
      (in_reduce ? inner : outer).push_back(l);
    }
    bool tensorized = false;
    for (const auto& a : st.annotations()) tensorized = tensorized || a.second.rfind(attr::kTensorizePrefix, 0) == 0;
    // (a tensorized reduction always gets its own initialisation nest: a reset kernel)
    if (!interleaved && !tensorized) {
      return nest({outer,
                   [&] {
                     return make_seq({init, nest({inner, [&] { return update; }, &st, annotate, itself})});
                   },
                   &st, annotate, itself});
    }
    // the initialisation nest has its own loop variables (name.init, as TVM prints them)
    std::vector<IterVar> parallel;
    VarMap fresh;
    std::map<const VarNode*, const VarNode*> leaf_of;
    for (const auto& l : st.leaves()) {
      if (l.reduce) continue;
      IterVar c{make_var(l.var->name + ".init"), l.extent, false};
      fresh[l.var.get()] = c.var;
      leaf_of[c.var.get()] = l.var.get();
      parallel.push_back(c);
    }
    std::vector<Expr> init_idx;
    init_idx.reserve(idx.size());
    for (const auto& i : idx) init_idx.push_back(substitute(i, fresh));
    // the init nest carries the tensorize annotation of its loops (a GEMM reset); a sum starting from
    // another tensor's value is a copy, which inplace_alu removes by accumulating in that tensor
    Stmt init_store = make_store(out, init_idx, substitute(start_value, fresh));
    if (sum->init) tensorized = false;
    auto annotate_init = [&](const IterVar& l, Stmt body) {
      for (const auto& [v, key] : st.annotations()) {
        if (tensorized && key.rfind(attr::kTensorizePrefix, 0) == 0 && v.get() == leaf_of.at(l.var.get())) {
          body = make_attr(l.var, key, body);
        }
      }
      return body;
    };
    Stmt init_nest = nest({parallel, [&] { return init_store; }, nullptr, annotate_init,
                           [&](const IterVar& l) { return leaf_of.at(l.var.get()); }});
    return make_seq({init_nest, nest({st.leaves(), [&] { return update; }, &st, annotate, itself})});
  }
};

/// The last iteration of each inexact split: its loop variable bound to its value.
class BindSplitTails final : public IRMutator {
 protected:
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override {
    if (op.key != attr::kSplitTail) return IRMutator::visit_attr(s, op);
    return substitute(mutate(op.body), {{op.var.get(), op.value}});
  }
};

/// Reads and stores of tensors whose buffer holds a region are indexed from the region's start.
class Rebase final : public IRMutator {
 public:
  explicit Rebase(const RegionStarts& lo) : lo_(lo) {}

 protected:
  Expr visit_read(const Expr&, const ReadNode& op) override {
    return make_read(op.tensor, indices(op.tensor, op.indices));
  }
  Stmt visit_store(const Stmt&, const StoreNode& op) override {
    return make_store(op.tensor, indices(op.tensor, op.indices), mutate(op.value));
  }

 private:
  std::vector<Expr> indices(const Tensor& t, const std::vector<Expr>& idx) {
    auto it = lo_.find(t.get());
    std::vector<Expr> out;
    for (size_t d = 0; d < idx.size(); ++d) {
      Expr i = mutate(idx[d]);
      if (it != lo_.end() && !(it->second[d].constant() && it->second[d].c == 0)) {
        const Interval iv = interval(i, {}, t->name);  // affine: lo == hi
        i = (iv.lo - it->second[d]).to_expr();
      }
      out.push_back(i);
    }
    return out;
  }
  const RegionStarts& lo_;
};

}  // namespace

ScheduledNests schedule_ops(const Schedule& s, const std::vector<Tensor>& args, const Env* env) {
  Lowering l{s, {}, {}, {}, {}, {}, {}, {}};
  std::vector<Tensor> intermediates;
  for (const auto& st : s.stages()) {
    // the tensor this stage produces
    Tensor out;
    std::function<void(const Tensor&)> find = [&](const Tensor& t) {
      if (out) return;
      if (t->op == st.op()) {
        out = t;
        return;
      }
      for (const auto& in : t->op->inputs) find(in);
    };
    for (const auto& o : s.outputs()) find(o);
    if (!out) throw InternalError("lower: stage " + st.name() + " produces no reachable tensor");
    l.tensors[st.op().get()] = out;
    if (std::find(args.begin(), args.end(), out) == args.end()) intermediates.push_back(out);
  }
  for (const auto& o : s.outputs()) {
    if (std::find(args.begin(), args.end(), o) == args.end()) {
      throw ScheduleError("lower: the output " + o->name + " must be one of the arguments");
    }
  }
  for (const auto& st : s.stages()) {
    if (st.attach_op() == nullptr) continue;
    const Stage& parent = l.stage_of(st.attach_op());
    bool leaf = false;
    for (const auto& lv : parent.leaves()) leaf = leaf || lv.var == st.attach_var();
    if (!leaf) {
      throw ScheduleError("compute_at: stage " + st.name() + " is computed at loop " + st.attach_var()->name +
                          " of stage " + parent.name() + ", which is no longer a loop (it was split): compute it at " +
                          "one of the split's loops");
    }
  }
  l.infer();
  std::vector<Stmt> nests;
  for (const auto& st : s.stages()) {
    if (st.attach_op() == nullptr) nests.push_back(l.stage_nest(st));
  }
  // Intermediates computed at a loop hold only their region (allocated once, at the top); the copies
  // of the last iterations of inexact splits theirs, inside (after them in program order: sram.h).
  RegionStarts lo;
  Stmt body = make_seq(std::move(nests));
  auto allocate = [&](const Tensor& t, const Stage& st, const std::vector<int64_t>& extent) {
    const std::string& scope = st.scope();
    if (env != nullptr && env->capacity(scope) > 0) {
      int64_t elements = 1;
      for (int64_t d : extent) elements *= d;
      const int64_t bytes = elements * bits(t->dtype) / 8, cap = env->capacity(scope);
      if (bytes > cap) {
        std::string shape;
        for (int64_t d : extent) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
        throw ScheduleError("stage " + st.name() + ": its buffer [" + shape + "] of " + std::to_string(bytes) +
                            " bytes does not fit the " + scope + " SRAM of " + std::to_string(cap) +
                            " bytes (block the computation more finely, or compute it at an inner loop)");
      }
    }
    body = make_allocate(t, scope, body, extent);
  };
  for (auto it = l.copies.rbegin(); it != l.copies.rend(); ++it) {
    lo[it->tensor.get()] = it->domain.lo;
    allocate(it->tensor, *it->stage, it->domain.extent);
  }
  for (auto it = intermediates.rbegin(); it != intermediates.rend(); ++it) {
    const Tensor& t = *it;
    const Stage& st = l.stage_of(t->op.get());
    if (st.attach_op() == nullptr) {
      allocate(t, st, t->shape);
      continue;
    }
    // (a stage only the last iterations compute has no buffer of its own, only its copies')
    for (const auto& [op, domain] : l.generated) {
      if (op != t->op.get()) continue;
      lo[t.get()] = domain.lo;
      allocate(t, st, domain.extent);
      break;
    }
  }
  return {body, lo};
}

Stmt rebase_regions(const Stmt& s, const RegionStarts& regions) {
  return BindSplitTails().mutate(Rebase(regions).mutate(s));
}

}  // namespace vta::compiler
