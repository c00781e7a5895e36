// Schedule -> loop nest (one nest per stage, loops in the stage's leaf order, original axes rebuilt
// from the split relations), the TIR-like printer, and the reference interpreter.

#include "vta/compiler/lower.h"

#include "linear.h"
#include "sram.h"

#include "vta/compiler/mutator.h"
#include "vta/compiler/pass.h"

#include <algorithm>
#include <functional>
#include <sstream>

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
    std::function<void(const Expr&)> walk = [&](const Expr& e) {
      if (!e) return;
      if (e->kind == ExprKind::kRead && e->tensor->op.get() == producer) {
        for (size_t d = 0; d < e->indices.size(); ++d) {
          const Interval iv = interval(substitute(e->indices[d], values), ranges, c.name());
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
      }
      for (const auto& i : e->indices) walk(i);
      walk(e->cond);
      walk(e->a);
      walk(e->b);
    };
    walk(c.op()->body);
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
    if (op.body->kind != ExprKind::kReduce) return nest(st.leaves(), make_store(out, idx, substitute(op.body, m)), &st);

    const Stmt init = make_store(out, idx, make_int(0, out->dtype));
    const Stmt update = make_store(out, idx, make_read(out, idx) + substitute(op.body->a, m));
    // Init inside the data-parallel loops when every reduction loop is inside all of them (as TVM);
    // otherwise a separate initialisation nest first.
    std::vector<IterVar> outer, inner;
    bool in_reduce = false, interleaved = false;
    for (const auto& l : st.leaves()) {
      if (l.reduce) in_reduce = true;
      else if (in_reduce) interleaved = true;
      (in_reduce ? inner : outer).push_back(l);
    }
    bool tensorized = false;
    for (const auto& a : st.annotations()) tensorized = tensorized || a.second == "tensorize_gemm";
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
    for (const auto& i : idx) init_idx.push_back(substitute(i, fresh));
    // the init nest carries the tensorize annotation of its loops (a GEMM reset)
    Stmt init_nest = make_store(out, init_idx, make_int(0, out->dtype));
    for (auto it = parallel.rbegin(); it != parallel.rend(); ++it) {
      init_nest = make_for(it->var, extents.at(it->var.get()), init_nest);
      for (const auto& [v, key] : st.annotations()) {
        auto f = fresh.find(v.get());
        if (key == "tensorize_gemm" && f != fresh.end() && f->second.get() == it->var.get()) {
          init_nest = make_attr(it->var, key, init_nest);
        }
      }
    }
    return make_seq({init_nest, nest(st.leaves(), update, &st)});
  }
};

// ---- printing -------------------------------------------------------------------------------------
const char* infix(ExprKind k) {
  switch (k) {
    case ExprKind::kAdd: return " + ";
    case ExprKind::kSub: return " - ";
    case ExprKind::kMul: return "*";
    case ExprKind::kLt: return " < ";
    case ExprKind::kGe: return " >= ";
    case ExprKind::kAnd: return " && ";
    default: return nullptr;
  }
}

void print(std::ostream& o, const Expr& e) {
  switch (e->kind) {
    case ExprKind::kInt: o << e->value; return;
    case ExprKind::kVar: o << e->name; return;
    case ExprKind::kRead:
      o << e->tensor->name << "[";
      for (size_t i = 0; i < e->indices.size(); ++i) {
        if (i) o << ", ";
        print(o, e->indices[i]);
      }
      o << "]";
      return;
    case ExprKind::kCast: o << "cast(" << to_string(e->dtype) << ", "; print(o, e->a); o << ")"; return;
    case ExprKind::kSelect:
      o << "@tir.if_then_else("; print(o, e->cond); o << ", "; print(o, e->a); o << ", "; print(o, e->b);
      o << ", dtype=" << to_string(e->dtype) << ")";
      return;
    case ExprKind::kReduce: o << "sum("; print(o, e->a); o << ")"; return;
    case ExprKind::kShr:
      o << "@tir.shift_right("; print(o, e->a); o << ", "; print(o, e->b); o << ", dtype=" << to_string(e->dtype) << ")";
      return;
    case ExprKind::kMin: case ExprKind::kMax: case ExprKind::kFloorDiv: case ExprKind::kFloorMod: {
      const char* f = e->kind == ExprKind::kMin ? "min" : e->kind == ExprKind::kMax ? "max"
                      : e->kind == ExprKind::kFloorDiv ? "floordiv" : "floormod";
      o << f << "("; print(o, e->a); o << ", "; print(o, e->b); o << ")";
      return;
    }
    default:
      o << "("; print(o, e->a); o << infix(e->kind); print(o, e->b); o << ")";
  }
}

void print(std::ostream& o, const Stmt& s, int indent) {
  const std::string pad(size_t(indent) * 2, ' ');
  switch (s->kind) {
    case StmtKind::kFor:
      o << pad << "for (" << s->var->name << ": int32, 0, " << s->extent << ") {\n";
      print(o, s->body, indent + 1);
      o << pad << "}\n";
      return;
    case StmtKind::kStore:
      o << pad << s->tensor->name << "[";
      for (size_t i = 0; i < s->indices.size(); ++i) {
        if (i) o << ", ";
        print(o, s->indices[i]);
      }
      o << "] = ";
      print(o, s->value);
      o << "\n";
      return;
    case StmtKind::kSeq:
      for (const auto& x : s->seq) print(o, x, indent);
      return;
    case StmtKind::kCall:
      if (s->scope.rfind("vta.", 0) == 0) {  // the VTA intrinsics (tokens, micro-ops, sync)
        o << pad << "@tir." << s->scope << "(";
        for (size_t i = 0; i < s->args.size(); ++i) {
          if (i) o << ", ";
          print(o, s->args[i]);
        }
        o << ", dtype=int32)\n";
        return;
      }
      o << pad << "@tir.call_extern(\"" << s->scope << "\"";
      for (size_t i = 0; i < s->args.size(); ++i) {
        // the DRAM tensor goes before its offset (the runtime's order)
        if (s->scope == "VTALoadBuffer2D" && i == 0) o << ", " << s->src->name;
        if (s->scope == "VTAStoreBuffer2D" && i == 2) o << ", " << s->tensor->name;
        o << ", ";
        print(o, s->args[i]);
      }
      o << ", dtype=int32)\n";
      return;
    case StmtKind::kAttr:
      o << pad << "attr [" << s->var->name << "] \"" << s->scope << "\" = ";
      if (s->scope == "coproc_uop_scope") {
        o << '"' << (s->value && s->value->value == 1 ? "VTAPushALUOp" : "VTAPushGEMMOp") << '"';
      } else if (s->value) {
        print(o, s->value);
      } else {
        o << 1;
      }
      o << " {\n";
      print(o, s->body, indent + 1);
      o << pad << "}\n";
      return;
    case StmtKind::kAllocate:
      o << pad << "allocate(" << s->tensor->name << ": " << to_string(s->tensor->dtype) << ", [";
      for (size_t i = 0; i < s->shape.size(); ++i) o << (i ? ", " : "") << s->shape[i];
      o << "]), storage_scope = " << s->scope << " {\n";
      print(o, s->body, indent + 1);
      o << pad << "}\n";
      return;
  }
}

// ---- interpreter ------------------------------------------------------------------------------------

struct Interp {
  std::map<const TensorNode*, std::vector<int64_t>*> buffers;
  std::map<const TensorNode*, std::vector<int64_t>> shapes;  // buffer extents (a region for some)
  std::map<const ExprNode*, int64_t> vars;
  std::vector<std::unique_ptr<std::vector<int64_t>>> owned;
  std::unique_ptr<SramPlan> sram;  // where each on-chip buffer starts (DMA calls index from there)

  size_t offset(const Tensor& t, const std::vector<Expr>& idx) {
    auto sh = shapes.find(t.get());
    const std::vector<int64_t>& shape = sh == shapes.end() ? t->shape : sh->second;
    size_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t i = eval(idx[d]);
      if (i < 0 || i >= shape[d]) {
        throw InternalError("run: index " + std::to_string(i) + " of dimension " + std::to_string(d) + " of " + t->name +
                            " is outside [0, " + std::to_string(shape[d]) + ")");
      }
      off = off * size_t(shape[d]) + size_t(i);
    }
    return off;
  }
  size_t flat_offset(const Tensor& t, const Expr& e) {
    const int64_t i = eval(e);
    const int64_t n = int64_t(buffer(t).size());
    if (i < 0 || i >= n) {
      throw InternalError("run: offset " + std::to_string(i) + " of " + t->name + " is outside [0, " + std::to_string(n) + ")");
    }
    return size_t(i);
  }
  std::vector<int64_t>& buffer(const Tensor& t) {
    auto it = buffers.find(t.get());
    if (it == buffers.end()) throw InternalError("run: no storage for tensor " + t->name);
    return *it->second;
  }

  int64_t eval(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kInt: return e->value;
      case ExprKind::kVar: {
        auto it = vars.find(e.get());
        if (it == vars.end()) throw InternalError("run: variable " + e->name + " is not bound");
        return it->second;
      }
      case ExprKind::kRead: return buffer(e->tensor)[e->flat ? flat_offset(e->tensor, e->indices[0]) : offset(e->tensor, e->indices)];
      case ExprKind::kCast: return wrap(eval(e->a), e->dtype);
      case ExprKind::kSelect: return eval(e->cond) != 0 ? eval(e->a) : eval(e->b);
      case ExprKind::kReduce: throw InternalError("run: an unlowered reduction");
      default: break;
    }
    return wrap(eval_binary(e, eval(e->a), eval(e->b)), e->dtype);
  }

  /// The DMA intrinsics, element by element (an element = the product of the last two dimensions).
  void call(const StmtNode& s) {
    std::vector<int64_t> a;
    for (const auto& e : s.args) a.push_back(eval(e));
    std::vector<int64_t>& dst = buffer(s.tensor);
    std::vector<int64_t>& src = buffer(s.src);
    const size_t rank = s.tensor->shape.size();
    const int64_t elem = s.tensor->shape[rank - 1] * s.tensor->shape[rank - 2];
    int64_t src_off, dst_off, x_size, y_size, stride, xp0 = 0, yp0 = 0, xp1 = 0, yp1 = 0;
    const bool load = s.scope == "VTALoadBuffer2D";
    // SRAM indices count from the start of the scope's SRAM: subtract where the buffer starts
    auto base = [&](const Tensor& t) {
      const SramBuffer* b = sram->find(t);
      return b == nullptr ? 0 : b->base;
    };
    if (load) {
      src_off = a[0], x_size = a[1], y_size = a[2], stride = a[3], xp0 = a[4], yp0 = a[5], xp1 = a[6], yp1 = a[7];
      dst_off = a[8] - base(s.tensor);
    } else if (s.scope == "VTAStoreBuffer2D") {
      src_off = a[0] - base(s.src), dst_off = a[2], x_size = a[3], y_size = a[4], stride = a[5];
    } else {
      throw InternalError("run: unknown intrinsic " + s.scope);
    }
    const int64_t width = xp0 + x_size + xp1, height = yp0 + y_size + yp1;
    for (int64_t y = 0; y < height; ++y) {
      for (int64_t x = 0; x < width; ++x) {
        const bool pad = y < yp0 || y >= yp0 + y_size || x < xp0 || x >= xp0 + x_size;
        const int64_t se = load ? src_off + (y - yp0) * stride + (x - xp0) : src_off + y * x_size + x;
        const int64_t de = load ? dst_off + y * width + x : dst_off + y * stride + x;
        for (int64_t k = 0; k < elem; ++k) {
          const size_t di = size_t(de * elem + k);
          if (di >= dst.size()) throw InternalError("run: " + s.scope + " outside " + s.tensor->name);
          if (pad) {
            dst[di] = 0;
            continue;
          }
          const size_t si = size_t(se * elem + k);
          if (se < 0 || si >= src.size()) throw InternalError("run: " + s.scope + " outside " + s.src->name);
          dst[di] = wrap(src[si], s.tensor->dtype);
        }
      }
    }
  }

  void exec(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kFor:
        for (int64_t i = 0; i < s->extent; ++i) {
          vars[s->var.get()] = i;
          exec(s->body);
        }
        vars.erase(s->var.get());
        return;
      case StmtKind::kStore: {
        const int64_t v = wrap(eval(s->value), s->tensor->dtype);
        buffer(s->tensor)[s->flat ? flat_offset(s->tensor, s->indices[0]) : offset(s->tensor, s->indices)] = v;
        return;
      }
      case StmtKind::kSeq:
        for (const auto& x : s->seq) exec(x);
        return;
      case StmtKind::kAttr:
        exec(s->body);
        return;
      case StmtKind::kCall:
        call(*s);
        return;
      case StmtKind::kAllocate: {
        int64_t n = 1;
        for (int64_t d : s->shape) n *= d;
        owned.push_back(std::make_unique<std::vector<int64_t>>(size_t(n), 0));
        buffers[s->tensor.get()] = owned.back().get();
        shapes[s->tensor.get()] = s->shape;
        exec(s->body);
        buffers.erase(s->tensor.get());
        shapes.erase(s->tensor.get());
        return;
      }
    }
  }
};

}  // namespace

/// Reads and stores of tensors whose buffer holds a region are indexed from the region's start.
class Rebase final : public IRMutator {
 public:
  explicit Rebase(const std::map<const TensorNode*, std::vector<Linear>>& lo) : lo_(lo) {}

 protected:
  Expr visit_read(const Expr& e) override { return make_read(e->tensor, indices(e->tensor, e->indices)); }
  Stmt visit_store(const Stmt& s) override {
    return make_store(s->tensor, indices(s->tensor, s->indices), mutate(s->value));
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
  const std::map<const TensorNode*, std::vector<Linear>>& lo_;
};

Stmt lower(const Schedule& s, const std::vector<Tensor>& args, const Env* env) {
  LowerOptions o;
  o.env = env;
  return lower(s, args, o);
}

Stmt lower(const Schedule& s, const std::vector<Tensor>& args, const LowerOptions& options) {
  const Env* env = options.env;
  auto log = [&](const char* pass, const Stmt& ir) {
    if (options.log != nullptr) *options.log << "// after " << pass << "\n" << to_text(ir);
  };
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
  std::map<const TensorNode*, std::vector<Linear>> lo;
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
  log("schedule_ops", body);
  body = Rebase(lo).mutate(body);
  log("rebase_regions", body);
  body = simplify(body);
  log("simplify", body);
  if (env != nullptr && options.vta) {
    body = replicate_thread_buffers(body);
    log("replicate_thread_buffers", body);
    body = inplace_alu(body, *env);
    log("inplace_alu", body);
  }
  if (env != nullptr) {
    body = simplify(inject_dma(body, *env));
    log("inject_dma", body);
  }
  if (env != nullptr && options.vta) {
    body = tensorize_gemm(body, *env);
    log("tensorize_gemm", body);
    body = inject_alu(body, *env);
    log("inject_alu", body);
    body = coproc_sync(body);
    log("coproc_sync", body);
    body = inject_virtual_threads(body);
    log("inject_virtual_threads", body);
    body = simplify(body);
    log("simplify", body);
  }
  if (options.flatten) {
    body = flatten(body);
    log("flatten", body);
  }
  return body;
}

std::string to_text(const Stmt& s) {
  std::ostringstream o;
  print(o, s, 0);
  return o.str();
}

std::string to_text(const Expr& e) {
  std::ostringstream o;
  print(o, e);
  return o.str();
}

void run(const Stmt& s, const Buffers& args) {
  Interp in;
  in.sram = std::make_unique<SramPlan>(s);
  for (const auto& [t, b] : args) {
    if (b->size() != size_t(t->elements())) {
      throw std::invalid_argument("run: buffer of " + t->name + " has " + std::to_string(b->size()) + " elements, not " +
                                  std::to_string(t->elements()));
    }
    in.buffers[t] = b;
  }
  in.exec(s);
}

}  // namespace vta::compiler
