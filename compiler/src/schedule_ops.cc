// Schedule -> loop nests: one nest per stage, loops in the stage's leaf order, original axes rebuilt
// from the split relations, bound inference for stages computed at a loop, and the rebasing of the
// buffers that hold only a region.

#include "schedule_ops.h"

#include <algorithm>
#include <functional>

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

struct Lowering {
  const Schedule& s;
  std::map<const OperationNode*, Domain> domains;
  std::map<const OperationNode*, Tensor> tensors;
  mutable std::map<const VarNode*, int64_t> extents;  // leaf extents after bound inference (+ init loops)

  const Stage& stage_of(const OperationNode* op) const {
    for (const auto& st : s.stages()) {
      if (st.op().get() == op) return st;
    }
    throw InternalError("lower: no stage for an operation");
  }

  /// Leaf extents of a stage whose axes span `dom` (splits re-applied to the inferred extents).
  void set_extents(const Stage& st, const Domain& dom) {
    const OperationNode& op = *st.op();
    for (size_t d = 0; d < op.axis.size(); ++d) extents[op.axis[d].var.get()] = dom.extent[d];
    for (const auto& r : op.reduce_axis) extents[r.var.get()] = r.extent;
    for (const auto& sp : st.splits()) {
      const int64_t parent = extents.at(sp.parent.var.get());
      if (parent % sp.factor != 0) {
        throw ScheduleError("split on stage " + st.name() + ", axis " + sp.parent.var->name + ": factor " +
                            std::to_string(sp.factor) + " does not divide the extent " + std::to_string(parent) +
                            " this axis has after compute_at");
      }
      extents[sp.outer.var.get()] = parent / sp.factor;
      extents[sp.inner.var.get()] = sp.factor;
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

  /// The region of `producer` read by consumer `c` whose leaves after position `fixed` range.
  void infer_from(const Stage& c, size_t fixed, const OperationNode* producer, std::vector<Interval>& region,
                  bool& any) {
    Ranges ranges;
    for (size_t i = fixed; i < c.leaves().size(); ++i) {
      const auto& l = c.leaves()[i];
      ranges[l.var.get()] = {Linear::of(0), Linear::of(extents.at(l.var.get()) - 1)};
    }
    const VarMap values = axis_values(c);
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

  /// Loops around `body`; after entering each loop, the stages computed at it (st == nullptr: none).
  Stmt nest(const std::vector<IterVar>& loops, Stmt body, const Stage* st) const {
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      body = make_for(it->var, extents.at(it->var.get()),
                      make_seq_flat({st != nullptr ? attached(*st, it->var) : nullptr, body}));
      if (st == nullptr) continue;
      for (const auto& [v, key] : st->annotations()) {
        if (v == it->var) body = make_attr(it->var, key, body);
      }
    }
    return body;
  }
  static Stmt make_seq_flat(std::vector<Stmt> v) {
    std::vector<Stmt> out;
    for (auto& x : v) {
      if (x) out.push_back(std::move(x));
    }
    return make_seq(std::move(out));
  }
  /// The nests of the stages computed inside `st`'s loop `v`, producers first (empty: nullptr).
  Stmt attached(const Stage& st, const Var& v) const {
    std::vector<Stmt> parts;
    for (const auto& p : s.stages()) {
      if (p.attach_op() == st.op().get() && p.attach_var() == v) parts.push_back(stage_nest(p));
    }
    return parts.empty() ? nullptr : make_seq(std::move(parts));
  }

  Stmt stage_nest(const Stage& st) const {
    const OperationNode& op = *st.op();
    const Tensor& out = tensors.at(st.op().get());
    const VarMap m = axis_values(st);
    std::vector<Expr> idx;
    for (const auto& a : op.axis) idx.push_back(substitute(a.var, m));
    const auto* sum = op.body->as<ReduceNode>();
    if (sum == nullptr) return nest(st.leaves(), make_store(out, idx, substitute(op.body, m)), &st);

    // the value the sum starts from: 0, or its `init` at this element
    const Expr start = sum->init ? substitute(sum->init, m) : make_int(0, out->dtype);
    const Stmt init = make_store(out, idx, start);
    const Stmt update = make_store(out, idx, make_read(out, idx) + substitute(sum->body, m));
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
    for (const auto& a : st.annotations()) tensorized = tensorized || a.second == attr::kTensorizeGemm;
    // (a tensorized reduction always gets its own initialisation nest: a reset kernel)
    if (!interleaved && !tensorized) return nest(outer, make_seq({init, nest(inner, update, &st)}), &st);
    // the initialisation nest has its own loop variables (name.init, as TVM prints them)
    std::vector<IterVar> parallel;
    VarMap fresh;
    for (const auto& l : st.leaves()) {
      if (l.reduce) continue;
      IterVar c{make_var(l.var->name + ".init"), l.extent, false};
      extents[c.var.get()] = extents.at(l.var.get());
      fresh[l.var.get()] = c.var;
      parallel.push_back(c);
    }
    std::vector<Expr> init_idx;
    init_idx.reserve(idx.size());
    for (const auto& i : idx) init_idx.push_back(substitute(i, fresh));
    // the init nest carries the tensorize annotation of its loops (a GEMM reset); a sum starting from
    // another tensor's value is a copy, which inplace_alu removes by accumulating in that tensor
    Stmt init_nest = make_store(out, init_idx, substitute(start, fresh));
    if (sum->init) tensorized = false;
    for (auto it = parallel.rbegin(); it != parallel.rend(); ++it) {
      init_nest = make_for(it->var, extents.at(it->var.get()), init_nest);
      for (const auto& [v, key] : st.annotations()) {
        auto f = fresh.find(v.get());
        if (tensorized && key == attr::kTensorizeGemm && f != fresh.end() && f->second.get() == it->var.get()) {
          init_nest = make_attr(it->var, key, init_nest);
        }
      }
    }
    return make_seq({init_nest, nest(st.leaves(), update, &st)});
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
  Lowering l{s, {}, {}, {}};
  std::vector<std::pair<Tensor, std::string>> intermediates;
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
    if (std::find(args.begin(), args.end(), out) == args.end()) intermediates.push_back({out, st.scope()});
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
  // Intermediates computed at a loop hold only their region (allocated once, at the top).
  RegionStarts lo;
  Stmt body = make_seq(std::move(nests));
  for (auto it = intermediates.rbegin(); it != intermediates.rend(); ++it) {
    const Tensor& t = it->first;
    const Stage& st = l.stage_of(t->op.get());
    std::vector<int64_t> extent = t->shape;
    if (st.attach_op() != nullptr) {
      const Domain& dom = l.domains.at(t->op.get());
      lo[t.get()] = dom.lo;
      extent = dom.extent;
    }
    if (env != nullptr && env->capacity(it->second) > 0) {
      int64_t elements = 1;
      for (int64_t d : extent) elements *= d;
      const int64_t bytes = elements * bits(t->dtype) / 8, cap = env->capacity(it->second);
      if (bytes > cap) {
        std::string shape;
        for (int64_t d : extent) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
        throw ScheduleError("stage " + st.name() + ": its buffer [" + shape + "] of " + std::to_string(bytes) +
                            " bytes does not fit the " + it->second + " SRAM of " + std::to_string(cap) +
                            " bytes (block the computation more finely, or compute it at an inner loop)");
      }
    }
    body = make_allocate(t, it->second, body, extent);
  }
  return {body, lo};
}

Stmt rebase_regions(const Stmt& s, const RegionStarts& regions) { return Rebase(regions).mutate(s); }

}  // namespace vta::compiler
