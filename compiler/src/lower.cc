// Schedule -> loop nest (one nest per stage, loops in the stage's leaf order, original axes rebuilt
// from the split relations), the TIR-like printer, and the reference interpreter.

#include "vta/compiler/lower.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace vta::compiler {
namespace {

using VarMap = std::map<const ExprNode*, Expr>;

Expr substitute(const Expr& e, const VarMap& m) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::kInt: return e;
    case ExprKind::kVar: {
      auto it = m.find(e.get());
      return it == m.end() ? e : it->second;
    }
    case ExprKind::kRead: {
      std::vector<Expr> idx;
      for (const auto& i : e->indices) idx.push_back(substitute(i, m));
      return make_read(e->tensor, std::move(idx));
    }
    case ExprKind::kCast: return make_cast(e->dtype, substitute(e->a, m));
    case ExprKind::kReduce: throw InternalError("substitute: a reduction inside an expression");
    default: return make_binary(e->kind, substitute(e->a, m), substitute(e->b, m));
  }
}

Stmt nest(const std::vector<IterVar>& loops, Stmt body) {
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) body = make_for(it->var, it->extent, std::move(body));
  return body;
}

Stmt lower_stage(const Stage& s, const Tensor& out) {
  const OperationNode& op = *s.op();
  // original axis -> expression of the leaf loops (later splits refine earlier ones)
  VarMap m;
  for (auto it = s.splits().rbegin(); it != s.splits().rend(); ++it) {
    auto value_of = [&](const IterVar& iv) -> Expr {
      auto f = m.find(iv.var.get());
      return f == m.end() ? Expr(iv.var) : f->second;
    };
    m[it->parent.var.get()] = value_of(it->outer) * it->factor + value_of(it->inner);
  }
  std::vector<Expr> idx;
  for (const auto& a : op.axis) idx.push_back(substitute(a.var, m));

  if (op.body->kind != ExprKind::kReduce) return nest(s.leaves(), make_store(out, idx, substitute(op.body, m)));

  const Stmt init = make_store(out, idx, make_int(0, out->dtype));
  const Stmt update = make_store(out, idx, make_read(out, idx) + substitute(op.body->a, m));
  // Init inside the data-parallel loops when every reduction loop is inside all of them (as TVM);
  // otherwise a separate initialisation nest first.
  std::vector<IterVar> outer, inner;
  bool in_reduce = false, interleaved = false;
  for (const auto& l : s.leaves()) {
    if (l.reduce) in_reduce = true;
    else if (in_reduce) interleaved = true;
    (in_reduce ? inner : outer).push_back(l);
  }
  if (!interleaved) return nest(outer, make_seq({init, nest(inner, update)}));
  std::vector<IterVar> parallel;
  for (const auto& l : s.leaves()) {
    if (!l.reduce) parallel.push_back(l);
  }
  return make_seq({nest(parallel, init), nest(s.leaves(), update)});
}

// ---- printing -------------------------------------------------------------------------------------
const char* infix(ExprKind k) {
  switch (k) {
    case ExprKind::kAdd: return " + ";
    case ExprKind::kSub: return " - ";
    case ExprKind::kMul: return "*";
    case ExprKind::kLt: return " < ";
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
    case StmtKind::kAllocate:
      o << pad << "allocate(" << s->tensor->name << ": " << to_string(s->tensor->dtype) << ", [";
      for (size_t i = 0; i < s->tensor->shape.size(); ++i) o << (i ? ", " : "") << s->tensor->shape[i];
      o << "]), storage_scope = " << s->scope << " {\n";
      print(o, s->body, indent + 1);
      o << pad << "}\n";
      return;
  }
}

// ---- interpreter ------------------------------------------------------------------------------------
int64_t wrap(int64_t v, DType t) {
  switch (t) {
    case DType::kInt8: return int64_t(int8_t(uint8_t(uint64_t(v) & 0xff)));
    case DType::kInt32: return int64_t(int32_t(uint32_t(uint64_t(v) & 0xffffffffu)));
    case DType::kBool: return v != 0;
  }
  return v;
}

struct Interp {
  std::map<const TensorNode*, std::vector<int64_t>*> buffers;
  std::map<const ExprNode*, int64_t> vars;
  std::vector<std::unique_ptr<std::vector<int64_t>>> owned;

  size_t offset(const Tensor& t, const std::vector<Expr>& idx) {
    size_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t i = eval(idx[d]);
      if (i < 0 || i >= t->shape[d]) {
        throw InternalError("run: index " + std::to_string(i) + " of dimension " + std::to_string(d) + " of " + t->name +
                            " is outside [0, " + std::to_string(t->shape[d]) + ")");
      }
      off = off * size_t(t->shape[d]) + size_t(i);
    }
    return off;
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
      case ExprKind::kRead: return buffer(e->tensor)[offset(e->tensor, e->indices)];
      case ExprKind::kCast: return wrap(eval(e->a), e->dtype);
      case ExprKind::kReduce: throw InternalError("run: an unlowered reduction");
      default: break;
    }
    const int64_t a = eval(e->a), b = eval(e->b);
    int64_t r = 0;
    switch (e->kind) {
      case ExprKind::kAdd: r = a + b; break;
      case ExprKind::kSub: r = a - b; break;
      case ExprKind::kMul: r = a * b; break;
      case ExprKind::kMin: r = std::min(a, b); break;
      case ExprKind::kMax: r = std::max(a, b); break;
      case ExprKind::kLt: r = a < b; break;
      case ExprKind::kShr: r = b >= 63 ? (a < 0 ? -1 : 0) : (b >= 0 ? a >> b : a << std::min<int64_t>(-b, 63)); break;
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod: {
        if (b == 0) throw InternalError("run: division by zero");
        int64_t q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
        r = e->kind == ExprKind::kFloorDiv ? q : a - q * b;
        break;
      }
      default: throw InternalError("run: unknown expression");
    }
    return wrap(r, e->dtype);
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
        buffer(s->tensor)[offset(s->tensor, s->indices)] = v;
        return;
      }
      case StmtKind::kSeq:
        for (const auto& x : s->seq) exec(x);
        return;
      case StmtKind::kAllocate: {
        owned.push_back(std::make_unique<std::vector<int64_t>>(size_t(s->tensor->elements()), 0));
        buffers[s->tensor.get()] = owned.back().get();
        exec(s->body);
        buffers.erase(s->tensor.get());
        return;
      }
    }
  }
};

}  // namespace

Stmt lower(const Schedule& s, const std::vector<Tensor>& args) {
  std::vector<Stmt> nests;
  std::vector<std::pair<Tensor, std::string>> intermediates;
  for (const auto& st : s.stages()) {
    // the tensor this stage produces
    Tensor out;
    std::function<void(const Tensor&)> find = [&](const Tensor& t) {
      if (out) return;
      if (t->op == st.op()) { out = t; return; }
      for (const auto& in : t->op->inputs) find(in);
    };
    for (const auto& o : s.outputs()) find(o);
    if (!out) throw InternalError("lower: stage " + st.name() + " produces no reachable tensor");
    nests.push_back(lower_stage(st, out));
    if (std::find(args.begin(), args.end(), out) == args.end()) intermediates.push_back({out, st.scope()});
  }
  for (const auto& o : s.outputs()) {
    if (std::find(args.begin(), args.end(), o) == args.end()) {
      throw ScheduleError("lower: the output " + o->name + " must be one of the arguments");
    }
  }
  Stmt body = make_seq(std::move(nests));
  for (auto it = intermediates.rbegin(); it != intermediates.rend(); ++it) body = make_allocate(it->first, it->second, body);
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
