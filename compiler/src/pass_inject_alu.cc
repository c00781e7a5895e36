// ALU lowering. The region under `pragma alu` is an element-wise, in-place operation on accumulator
// buffers (see inplace_alu):
//   acc[i] = acc[i] op imm     -> micro-op (1, 0, dst, dst, 0, opcode, 1, imm)
//   acc[i] = acc[i] op src[j]  -> micro-op (1, 0, dst, src, 0, opcode, 0, 0)
// with op one of min, max, + (and - an immediate), >> (SHR; `>> -c` shifts left), * (MUL, the low 32
// bits). A copy `acc[i] = src[j]` from another buffer is two kernels, as the ISA has no MOV: MUL by the
// immediate 0, then ADD src (the spec's semantics; TVM's `SHR by 0` copy only works in place). The loops over the
// element's last two dimensions must be whole; the loops around them whose index steps chain
// (outer step = inner step * inner extent on both sides) are fused, then the kernel folds two loops
// and unrolls the rest (uop.h).

#include <algorithm>

#include "linear.h"
#include "sram.h"
#include "uop.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/printer.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

enum AluOpcode : int { kMin = 0, kMax = 1, kAdd = 2, kShr = 3, kMul = 4 };

class InjectAlu final : public IRMutator {
 public:
  InjectAlu(const Stmt& s, const Env& env) : env_(env), plan_(s, env) {}

 private:
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override {
    return op.key == attr::kPragmaAlu ? region(op) : IRMutator::visit_attr(s, op);
  }

  Stmt region(const AttrNode& attr) {
    const LoopNest nest = perfect_nest(attr.body);
    std::string where = "alu pragma at axis " + attr.var->name;
    const auto* store = nest.body->as<StoreNode>();
    if (store == nullptr || store->flat) {
      throw ScheduleError(where + ": the loops under the pragma must hold one element-wise statement");
    }
    const StoreNode& s = *store;
    const Tensor& dst = s.tensor;
    where = "stage " + dst->name + ", " + where;
    if (plan_.scope_of(dst) != env_.acc_scope) {
      throw ScheduleError(where + ": the ALU works on " + env_.acc_scope + " buffers; " + dst->name + " is in " +
                          plan_.scope_of(dst));
    }
    const Expr& v = s.value;
    // a copy from another buffer: dst = dst * 0, then dst = dst + src
    const auto* read = v->as<ReadNode>();
    const bool copy = read != nullptr;
    if (copy && read->tensor == dst) {
      throw ScheduleError(where + ": a copy within " + dst->name + " (" + to_text(v) +
                          ") is not an ALU operation; copy from another buffer");
    }
    const int opcode = alu_opcode(v, copy, where);
    const Expr b = second_operand(s, copy, where);
    const std::vector<const ExprNode*> element = element_vars(nest.loops, s, where);
    std::vector<Expr> push = uop_args(s, b, opcode, where);
    const std::vector<Loop> fused = fuse_loops(nest.loops, element, push);
    Stmt kernel = make_uop_kernel(fused, push, true, env_, where);
    if (!copy) return kernel;
    std::vector<Expr> zero = push;
    zero[kUopOpcode] = make_int(kMul);
    zero[kUopSrc] = zero[kUopDst];
    zero[kUopUseImm] = make_int(1);
    zero[kUopImm] = make_int(0);
    return make_seq({make_uop_kernel(fused, zero, true, env_, where), kernel});
  }

  // The ALU opcode of the statement's value (a copy is an ADD after a MUL by 0).
  static int alu_opcode(const Expr& v, bool copy, const std::string& where) {
    switch (copy ? ExprKind::kRead : v->kind) {
      case ExprKind::kRead: return kAdd;
      case ExprKind::kMin: return kMin;
      case ExprKind::kMax: return kMax;
      case ExprKind::kAdd:
      case ExprKind::kSub: return kAdd;
      case ExprKind::kShr:
      case ExprKind::kShl: return kShr;
      case ExprKind::kMul: return kMul;
      default:
        throw ScheduleError(where + ": " + to_text(v) +
                            " is not an ALU operation (min, max, +, - immediate, >>, << immediate, *, a copy)");
    }
  }

  // The operand the ALU reads besides the destination (dst = dst op src: the destination must be one of
  // the operands, at the same element).
  static Expr second_operand(const StoreNode& s, bool copy, const std::string& where) {
    const Tensor& dst = s.tensor;
    const Expr& v = s.value;
    auto same_access = [&](const Expr& e) {
      const auto* r = e->as<ReadNode>();
      if (r == nullptr || r->tensor != dst) return false;
      for (size_t d = 0; d < r->indices.size(); ++d) {
        if (to_text(r->indices[d]) != to_text(s.indices[d])) return false;
      }
      return true;
    };
    // (not a copy: alu_opcode has checked that the value is an operation on two operands)
    Expr a = copy ? make_read(dst, s.indices) : v->to<BinaryNode>().a, b = copy ? v : v->to<BinaryNode>().b;
    if (!same_access(a) && v->kind != ExprKind::kSub && v->kind != ExprKind::kShr && v->kind != ExprKind::kShl &&
        same_access(b)) {
      std::swap(a, b);
    }
    if (!same_access(a)) {
      throw ScheduleError(where + ": the ALU computes in place (dst = dst op src), but " + to_text(v) +
                          " does not start from " + dst->name +
                          " at the same element (is its operand read by "
                          "another stage too?)");
    }
    return b;
  }

  // The element loops: the last two dimensions of the destination, each covered whole by a loop.
  std::vector<const ExprNode*> element_vars(const std::vector<Loop>& loops, const StoreNode& s,
                                            const std::string& where) const {
    const size_t r = s.indices.size();
    std::vector<const ExprNode*> element;
    const int64_t extents[2] = {env_.BATCH, env_.BLOCK_OUT};
    for (size_t d = r - 2; d < r; ++d) {
      const Expr& i = s.indices[d];
      const int64_t ext = extents[d - (r - 2)];
      if (ext == 1 && is_const(i, 0)) continue;
      bool ok = false;
      for (const auto& l : loops) ok = ok || (l.var.get() == i.get() && l.extent == ext);
      if (!ok) {
        throw ScheduleError(where + ": dimension " + std::to_string(d) + " of " + s.tensor->name +
                            " is not covered whole by a loop under the pragma (the ALU takes whole elements)");
      }
      element.push_back(i.get());
    }
    return element;
  }

  // The micro-op's fields: the destination, and the source buffer or the immediate.
  std::vector<Expr> uop_args(const StoreNode& s, const Expr& operand, int opcode, const std::string& where) const {
    const Expr& v = s.value;
    const size_t r = s.indices.size();
    std::vector<Expr> push(8, make_int(0));
    push[kUopMode] = make_int(1);
    push[kUopOpcode] = make_int(opcode);
    push[kUopDst] = plan_.sram_index(s.tensor, s.indices);
    const auto* b = operand->as<ReadNode>();
    // x - k is an ADD of -k, x << k a SHR by -k (the ALU shifts left by a negative amount): an immediate only
    const bool negated = v->kind == ExprKind::kSub || v->kind == ExprKind::kShl;
    if (const auto k = const_int(operand)) {
      int64_t imm = negated ? -*k : *k;
      if (imm < -32768 || imm > 32767) {
        throw ScheduleError(where + ": the immediate " + std::to_string(imm) + " does not fit the ALU's 16 bits");
      }
      push[kUopSrc] = push[kUopDst];
      push[kUopUseImm] = make_int(1);
      push[kUopImm] = make_int(imm);
    } else if (b != nullptr && !negated) {
      if (plan_.scope_of(b->tensor) != env_.acc_scope) {
        throw ScheduleError(where + ": the operand " + b->tensor->name + " is in " + plan_.scope_of(b->tensor) +
                            ", not " + env_.acc_scope);
      }
      const size_t rb = b->indices.size();
      for (size_t d = 0; d < 2; ++d) {
        if (to_text(b->indices[rb - 2 + d]) != to_text(s.indices[r - 2 + d])) {
          throw ScheduleError(where + ": the operand " + b->tensor->name + " is not read at the same element");
        }
      }
      push[kUopSrc] = plan_.sram_index(b->tensor, b->indices);
    } else {
      throw ScheduleError(
          where + ": the second operand of " + to_text(v) + " is neither an immediate nor a buffer" +
          (negated ? " (a subtraction or a left shift takes an immediate: the ALU applies its negation)" : ""));
    }
    return push;
  }

  // The loops over elements, innermost first, fused where their steps chain; `push`'s indices rewritten
  // for the fused loops.
  static std::vector<Loop> fuse_loops(const std::vector<Loop>& loops, const std::vector<const ExprNode*>& element,
                                      std::vector<Expr>& push) {
    struct Group {
      std::vector<Loop> loops;  // outermost first
      int64_t extent, dst, src;
    };
    std::vector<Group> groups;  // innermost first
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      if (std::find(element.begin(), element.end(), it->var.get()) != element.end()) continue;
      const int64_t cd = to_linear(push[kUopDst]).coef(it->var.get()),
                    cs = to_linear(push[kUopSrc]).coef(it->var.get());
      if (!groups.empty()) {
        Group& g = groups.back();
        if (cd == g.dst * g.extent && cs == g.src * g.extent) {
          g.loops.insert(g.loops.begin(), *it);
          g.extent *= it->extent;
          continue;
        }
      }
      groups.push_back({{*it}, it->extent, cd, cs});
    }
    std::vector<Loop> fused;
    for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
      if (it->loops.size() == 1) {
        fused.push_back(it->loops[0]);
        continue;
      }
      const Var f = make_var(it->loops.front().var->name + ".fused");
      VarMap zero;
      for (const auto& l : it->loops) zero[l.var.get()] = make_int(0);
      push[kUopDst] = simplify(substitute(push[kUopDst], zero) + Expr(f) * it->dst);
      push[kUopSrc] = simplify(substitute(push[kUopSrc], zero) + Expr(f) * it->src);
      fused.push_back({f, it->extent});
    }
    return fused;
  }

  const Env& env_;
  SramPlan plan_;
};

}  // namespace

Stmt inject_alu(const Stmt& s, const Env& env) { return InjectAlu(s, env).mutate(s); }

}  // namespace vta::compiler
