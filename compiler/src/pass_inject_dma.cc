// DMA copy injection: a loop nest under `pragma dma_copy` that copies between a DRAM tensor and an
// SRAM buffer becomes one 2D transfer of VTA elements (the last two dimensions, BATCH x BLOCK):
//   VTALoadBuffer2D(src, src_offset, x_size, y_size, x_stride, 0, 0, 0, 0, dst_index, memory_type)
// (memory_type ACC_8BIT when an int8 tensor is loaded into the accumulator: sign-extended lanes)
//   VTAStoreBuffer2D(src_index, memory_type, dst, dst_offset, x_size, y_size, x_stride)
// (element units, the runtime's argument order). At most two loops may remain around the element
// after its dimensions; the SRAM side must be contiguous.

#include <set>

#include "linear.h"
#include "sram.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/printer.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

/// An index as the coefficients of the copied loops plus the rest (an expression of outer loops).
struct Affine {
  Linear form;   // the loops' terms
  Linear other;  // everything else
  int64_t coef(const Var& loop) const { return form.coef(loop.get()); }
  Expr rest() const { return other.to_expr(); }
};

Affine affine(const Expr& e, const std::set<const ExprNode*>& loops) {
  Affine a;
  const Linear l = to_linear(e);
  a.other.c = l.c;
  for (const auto& [t, k] : l.terms) {
    if (loops.count(t.get())) {
      a.form.terms.push_back({t, k});
    } else if (uses_any(t, loops)) {
      throw ScheduleError("dma_copy: the index " + to_text(t) + " is not affine in the copied loops");
    } else {
      a.other.terms.push_back({t, k});
    }
  }
  return a;
}

class InjectDma final : public IRMutator {
 public:
  InjectDma(const Env& env, const Stmt& s) : plan_(s, env, /*check=*/false) {}

 private:
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override {
    return op.key == attr::kPragmaDmaCopy ? copy(op.body, op.var->name) : IRMutator::visit_attr(s, op);
  }

  std::optional<MemId> memory_type(const std::string& scope) const { return plan_.memory_type(scope); }
  std::string scope_of(const Tensor& t) const { return plan_.scope_of(t); }
  const std::vector<int64_t>& shape_of(const Tensor& t) const { return plan_.shape_of(t); }
  /// Where an SRAM buffer starts in its SRAM (elements), added to the SRAM side's index.
  Expr sram_base(const Tensor& t, const Expr& index) const {
    const SramBuffer* b = plan_.find(t);
    return b == nullptr || b->base == 0 ? index : simplify(make_int(b->base) + index);
  }

  // One copy under a dma_copy pragma, as this pass reads it.
  struct Transfer {
    std::string where;
    std::vector<Loop> loops;           // the nest under the pragma
    const StoreNode* store = nullptr;  // dst[...] = value (in the tree under the pragma)
    const ReadNode* value = nullptr;   // the read of src (any cast or padding select taken off)
    Expr inside;                       // the padding condition, or null
    Tensor dst, src;
    bool load = false;                    // DRAM -> SRAM (else SRAM -> DRAM)
    std::set<const ExprNode*> loop_vars;  // the loops the offsets are affine in
  };

  Transfer read_copy(const Stmt& body, const std::string& axis) const {
    const LoopNest nest = perfect_nest(body);
    Transfer t;
    t.where = "dma_copy at loop " + axis;
    t.loops = nest.loops;
    const auto* s = nest.body->as<StoreNode>();
    // the copied value: a read, or (the tutorials' output) a narrowing cast of one, which the
    // store's int32 -> int8 truncation performs
    Expr value = s != nullptr ? s->value : nullptr;
    if (const auto* c = value ? value->as<CastNode>() : nullptr) value = c->value;
    // zero padding (the tutorials' pad stage): select(inside, src[...], 0)
    if (const auto* sel = value ? value->as<SelectNode>() : nullptr; sel != nullptr && is_const(sel->b, 0)) {
      t.inside = sel->cond;
      value = sel->a;
    }
    const auto* read = value ? value->as<ReadNode>() : nullptr;
    if (s == nullptr || s->flat || read == nullptr) {
      throw ScheduleError(t.where + ": the loops under the pragma must copy one tensor into another");
    }
    t.store = s;
    t.value = read;
    t.dst = s->tensor;
    t.src = read->tensor;
    t.load = memory_type(scope_of(t.dst)).has_value() && scope_of(t.src) == kGlobalScope;
    const bool store = memory_type(scope_of(t.src)) == MemId::kAcc && scope_of(t.dst) == kGlobalScope;
    if (!t.load && !store) {
      throw ScheduleError(t.where + ": copies " + t.src->name + " (" + scope_of(t.src) + ") to " + t.dst->name + " (" +
                          scope_of(t.dst) + "): a DMA moves between DRAM and an SRAM scope");
    }
    // (ranks may differ: a buffer replicated per virtual thread has one more leading dimension)
    if (t.dst->shape.size() < 2 || t.src->shape.size() < 2) {
      throw ScheduleError(t.where + ": a DMA copies tensors of at least two dimensions (BATCH x BLOCK elements)");
    }
    for (const auto& l : t.loops) t.loop_vars.insert(l.var.get());
    return t;
  }

  // The loops around the element (the last two dimensions, indexed by whole-range loops, or 0 for
  // extent 1), outermost first.
  static std::vector<Loop> outer_loops(const Transfer& t) {
    std::set<const ExprNode*> element_vars;
    auto check_element = [&](const std::vector<Expr>& idx, const Tensor& x) {
      const size_t rank = x->shape.size();
      for (size_t d = rank - 2; d < rank; ++d) {
        const Expr& i = idx[d];
        if (is_const(i, 0) && x->shape[d] == 1) continue;
        bool ok = false;
        for (const auto& l : t.loops) ok = ok || (i.get() == l.var.get() && l.extent == x->shape[d]);
        if (!ok) {
          throw ScheduleError(t.where + ": dimension " + std::to_string(d) + " of " + x->name +
                              " is not copied whole (a DMA moves whole BATCH x BLOCK elements)");
        }
        element_vars.insert(i.get());
      }
    };
    check_element(t.store->indices, t.dst);
    check_element(t.value->indices, t.src);
    std::vector<Loop> outer;
    for (const auto& l : t.loops) {
      if (!element_vars.count(l.var.get())) outer.push_back(l);
    }
    return outer;
  }

  // The element offset of one side: the sum over the leading dimensions of index * stride.
  Affine element_offset(const Transfer& t, const Tensor& x, const std::vector<Expr>& idx) const {
    const std::vector<int64_t> stride = plan_.strides_of(x);
    Expr off = make_int(0);
    for (size_t d = 0; d < stride.size(); ++d) off = off + idx[d] * stride[d];  // outermost first, as the seeds
    return affine(simplify(off), t.loop_vars);
  }

  // Padding: per loop, the condition's bounds lo <= a + v < hi give the pads of the loop's range
  // [0, extent): before = clamp(lo - a, 0, extent), after = clamp(a + extent - hi, 0, extent).
  // pad[x|y][before|after].
  static void padding(const Transfer& t, const Loop* x, const Loop* y, Expr (&pad)[2][2]) {
    if (!t.load) throw ScheduleError(t.where + ": a store cannot pad");
    // the conjuncts, left to right
    std::vector<Expr> terms, todo{t.inside};
    while (!todo.empty()) {
      const Expr c = todo.back();
      todo.pop_back();
      if (const auto* both = c->as<BinaryNode>(); both != nullptr && both->kind == ExprKind::kAnd) {
        todo.push_back(both->b);
        todo.push_back(both->a);
      } else {
        terms.push_back(c);
      }
    }
    for (const Expr& term : terms) {
      const auto* c = term->as<BinaryNode>();
      const std::optional<int64_t> bound = c != nullptr ? const_int(c->b) : std::nullopt;
      if (c == nullptr || (c->kind != ExprKind::kGe && c->kind != ExprKind::kLt) || !bound) {
        throw ScheduleError(t.where + ": the padding condition " + to_text(term) + " is not a range bound");
      }
      const Affine a = affine(c->a, t.loop_vars);
      int which = -1;
      for (int k = 0; k < 2; ++k) {
        const Loop* l = k == 0 ? x : y;
        if (l && a.form.terms.size() == 1 && a.coef(l->var) == 1) which = k;
      }
      if (which < 0) {
        throw ScheduleError(t.where + ": the padding condition " + to_text(term) + " is not on a copied row or column");
      }
      const Loop* l = which == 0 ? x : y;
      const Expr start = a.rest();
      const Expr ext = make_int(l->extent);
      if (c->kind == ExprKind::kGe) {
        pad[which][0] = simplify(max(min(make_int(*bound) - start, ext), 0));
      } else {
        pad[which][1] = simplify(max(min(start + l->extent - make_int(*bound), ext), 0));
      }
    }
  }

  Stmt copy(const Stmt& body, const std::string& axis) {
    Transfer t = read_copy(body, axis);
    const std::string& where = t.where;
    std::vector<Loop> outer = outer_loops(t);
    const std::vector<Expr>&src_idx = t.value->indices, &dst_idx = t.store->indices;
    Affine sa = element_offset(t, t.src, src_idx), da = element_offset(t, t.dst, dst_idx);
    // Loops that walk both sides contiguously one after the other fuse into one (e.g. a 3x3 kernel
    // window as 9 elements): outer step = inner step * inner extent on both sides. Loops the padding
    // condition tests stay apart.
    auto padded = [&](const Loop& l) { return t.inside && uses_any(t.inside, {l.var.get()}); };
    for (size_t i = outer.size(); i-- > 1;) {
      Loop& in = outer[i];
      const Loop& out = outer[i - 1];
      if (padded(in) || padded(out)) continue;
      if (sa.coef(out.var) == sa.coef(in.var) * in.extent && da.coef(out.var) == da.coef(in.var) * in.extent) {
        in.extent *= out.extent;
        outer.erase(outer.begin() + std::ptrdiff_t(i - 1));
      }
    }
    // A 2D transfer takes two loops (rows and columns); loops further out stay loops around the call.
    std::vector<Loop> peeled;
    if (outer.size() > 2) {
      peeled.assign(outer.begin(), outer.end() - 2);
      outer.erase(outer.begin(), outer.end() - 2);
      for (const auto& l : peeled) {
        if (padded(l)) throw ScheduleError(where + ": padding along loop " + l.var->name + ", outside the 2D transfer");
        t.loop_vars.erase(l.var.get());
      }
      sa = element_offset(t, t.src, src_idx), da = element_offset(t, t.dst, dst_idx);
    }
    auto wrap = [&](Stmt call) {
      for (auto it = peeled.rbegin(); it != peeled.rend(); ++it) call = make_for(it->var, it->extent, call);
      return call;
    };
    const Loop* x = outer.empty() ? nullptr : &outer.back();
    const Loop* y = outer.size() == 2 ? &outer.front() : nullptr;
    if (outer.size() == 1 && (t.load ? sa : da).coef(x->var) != 1) std::swap(x, y);  // rows of one element
    auto coef = [](const Affine& a, const Loop* l) -> int64_t { return l == nullptr ? 0 : a.coef(l->var); };
    const int64_t x_extent = x ? x->extent : 1, y_extent = y ? y->extent : 1;
    const Affine& dram = t.load ? sa : da;
    const Affine& sram = t.load ? da : sa;
    if (x && coef(dram, x) != 1) throw ScheduleError(where + ": the inner loop is not contiguous in DRAM");
    if (x && coef(sram, x) != 1) throw ScheduleError(where + ": the inner loop is not contiguous in SRAM");
    if (y && coef(sram, y) != x_extent) throw ScheduleError(where + ": the SRAM side is not one contiguous block");
    const int64_t x_stride = y ? coef(dram, y) : x_extent;
    auto base = [](const Affine& a) { return simplify(a.rest()); };
    Expr pad[2][2] = {{make_int(0), make_int(0)}, {make_int(0), make_int(0)}};  // [x|y][before|after]
    if (t.inside) padding(t, x, y, pad);
    const Expr x_size = simplify(make_int(x_extent) - pad[0][0] - pad[0][1]);
    const Expr y_size = simplify(make_int(y_extent) - pad[1][0] - pad[1][1]);
    if (t.load) {
      // DRAM starts at the first unpadded element
      const Expr src_off = simplify(base(sa) + pad[1][0] * x_stride + pad[0][0]);
      // an int8 tensor loaded into the accumulator (a residual) is sign-extended by ACC_8BIT
      MemId type = *memory_type(scope_of(t.dst));
      if (type == MemId::kAcc && t.src->dtype == DType::kInt4) {
        throw ScheduleError(where +
                            ": an int4 tensor cannot be loaded into the accumulator (its 8-bit load reads "
                            "one byte an element); load it as int8 or int32");
      }
      if (type == MemId::kAcc && t.src->dtype == DType::kInt8) type = MemId::kAcc8Bit;
      return wrap(make_call(intrin::kLoadBuffer2D, t.dst, t.src,
                            {src_off, x_size, y_size, make_int(x_stride), pad[0][0], pad[1][0], pad[0][1], pad[1][1],
                             sram_base(t.dst, base(da)), make_int(int(type))}));
    }
    return wrap(make_call(
        intrin::kStoreBuffer2D, t.dst, t.src,
        {sram_base(t.src, base(sa)), make_int(int(MemId::kOut)), base(da), x_size, y_size, make_int(x_stride)}));
  }

  SramPlan plan_;
};

}  // namespace

Stmt inject_dma(const Stmt& s, const Env& env) { return InjectDma(env, s).mutate(s); }

}  // namespace vta::compiler
