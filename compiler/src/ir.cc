#include "vta/compiler/ir.h"

#include <algorithm>
#include <limits>
#include <set>

#include "vta/compiler/printer.h"
#include "vta/compiler/te.h"
#include "vta/compiler/visitor.h"
#include "vta/driver/packing.h"

namespace vta::compiler {

const char* to_string(DType t) {
  switch (t) {
    case DType::kInt8: return "int8";
    case DType::kInt32: return "int32";
    case DType::kBool: return "bool";
    case DType::kInt4: return "int4";
  }
  return "?";
}

std::optional<DType> dtype_from_string(std::string_view name) {
  for (const DType t : {DType::kInt8, DType::kInt32, DType::kBool, DType::kInt4}) {
    if (name == to_string(t)) return t;
  }
  return std::nullopt;
}

namespace {

// The kinds' names, in the order the kind lists declare the enumerators.
#define VTA_IR_KIND_NAME(kind, handler, node) #kind,
constexpr const char* kExprKindNames[] = {VTA_IR_EXPR_KINDS(VTA_IR_KIND_NAME)};
constexpr const char* kStmtKindNames[] = {VTA_IR_STMT_KINDS(VTA_IR_KIND_NAME)};
#undef VTA_IR_KIND_NAME

template <class Kind, size_t N>
const char* kind_name(Kind k, const char* const (&names)[N]) {
  const auto i = static_cast<size_t>(k);
  return i < N ? names[i] : "?";
}

}  // namespace

const char* to_string(ExprKind k) { return kind_name(k, kExprKindNames); }
const char* to_string(StmtKind k) { return kind_name(k, kStmtKindNames); }

bool is_binary(ExprKind k) {
  switch (k) {
#define VTA_IR_BINARY(kind, handler, node) \
  case ExprKind::k##kind: return true;
    // NOLINTNEXTLINE(bugprone-branch-clone)
    VTA_IR_BINARY_KINDS(VTA_IR_BINARY)
#undef VTA_IR_BINARY
    default: return false;
  }
}

int bits(DType t) {
  switch (t) {
    case DType::kInt8: return 8;
    case DType::kInt32: return 32;
    case DType::kBool: return 1;
    case DType::kInt4: return 4;
  }
  return 0;
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> stride(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) stride[d - 1] = stride[d] * shape[d];
  return stride;
}

int64_t wrap(int64_t v, DType t) {
  switch (t) {
    case DType::kInt8: return narrow_lane(v, 8);
    case DType::kInt32: return int64_t(int32_t(uint32_t(uint64_t(v) & 0xffffffffu)));
    case DType::kBool: return v != 0;
    case DType::kInt4: return narrow_lane(v, 4);
  }
  return v;
}

int64_t TensorNode::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void throw_not_a(ExprKind k, const char* what) {
  throw InternalError(std::string("expected ") + what + ", found a " + to_string(k) + " expression");
}
void throw_not_a(StmtKind k, const char* what) {
  throw InternalError(std::string("expected ") + what + ", found a " + to_string(k) + " statement");
}

Expr make_int(int64_t v, DType t) { return std::make_shared<IntNode>(v, t); }
std::optional<int64_t> const_int(const Expr& e) {
  const auto* i = e ? e->as<IntNode>() : nullptr;
  return i != nullptr ? std::optional<int64_t>(i->value) : std::nullopt;
}
bool is_const(const Expr& e, int64_t v) { return const_int(e) == v; }

Var make_var(const std::string& name) { return std::make_shared<VarNode>(name); }

Expr make_binary(ExprKind k, Expr a, Expr b) {
  if (!is_binary(k)) throw InternalError(std::string("make_binary: ") + to_string(k) + " is not a binary operation");
  if (!a || !b) throw InternalError("make_binary: null operand");
  if (a->dtype != b->dtype) {
    throw ScheduleError(std::string("type mismatch: ") + to_string(a->dtype) + " and " + to_string(b->dtype) +
                        " operands (insert a cast)");
  }
  const bool cmp = is_comparison(k) || k == ExprKind::kAnd;
  const DType t = cmp ? DType::kBool : a->dtype;
  return std::make_shared<BinaryNode>(k, t, std::move(a), std::move(b));
}

namespace {
/// a >> b, arithmetic; a negative b shifts left (VTA's ALU SHR).
int64_t eval_shift_right(int64_t a, int64_t b) {
  if (b >= 63) return a < 0 ? -1 : 0;
  if (b >= 0) return a >> b;
  return int64_t(uint64_t(a) << std::min<uint64_t>(0 - uint64_t(b), 63));
}
}  // namespace

bool is_comparison(ExprKind k) {
  return k == ExprKind::kLt || k == ExprKind::kLe || k == ExprKind::kGt || k == ExprKind::kGe || k == ExprKind::kEq ||
         k == ExprKind::kNe;
}

int64_t eval_binary(const Expr& e, int64_t a, int64_t b) {
  switch (e->kind) {
    // 64-bit two's-complement arithmetic that wraps (as the casts to narrower types do), whatever the
    // values: a module file's constants are anyone's
    case ExprKind::kAdd: return int64_t(uint64_t(a) + uint64_t(b));
    case ExprKind::kSub: return int64_t(uint64_t(a) - uint64_t(b));
    case ExprKind::kMul: return int64_t(uint64_t(a) * uint64_t(b));
    case ExprKind::kMin: return std::min(a, b);
    case ExprKind::kMax: return std::max(a, b);
    case ExprKind::kLt: return a < b;
    case ExprKind::kLe: return a <= b;
    case ExprKind::kGt: return a > b;
    case ExprKind::kGe: return a >= b;
    case ExprKind::kEq: return a == b;
    case ExprKind::kNe: return a != b;
    case ExprKind::kAnd: return a && b;
    case ExprKind::kBitAnd: return a & b;
    case ExprKind::kBitOr: return a | b;
    case ExprKind::kShl:
      if (b < 0)
        return eval_shift_right(a, b == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -b);
      return int64_t(uint64_t(a) << std::min<uint64_t>(uint64_t(b), 63));
    case ExprKind::kShr: return eval_shift_right(a, b);
    case ExprKind::kFloorDiv:
    case ExprKind::kFloorMod: {
      if (b == 0) throw InternalError("division by zero in " + to_text(e));
      if (b == -1) return e->kind == ExprKind::kFloorDiv ? int64_t(0 - uint64_t(a)) : 0;  // INT64_MIN / -1 overflows
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return e->kind == ExprKind::kFloorDiv ? q : a - q * b;
    }
    default: throw InternalError("eval_binary: " + to_text(e) + " is not a binary operation");
  }
}

Expr make_cast(DType t, Expr value) {
  if (!value) throw InternalError("make_cast: null operand");
  return std::make_shared<CastNode>(t, std::move(value));
}

SelectNode::SelectNode(Expr c, Expr x, Expr y)
    : ExprNode(ExprKind::kSelect, x->dtype), cond(std::move(c)), a(std::move(x)), b(std::move(y)) {}
Expr make_select(Expr cond, Expr a, Expr b) {
  if (!cond || cond->dtype != DType::kBool) throw ScheduleError("select: the condition must be a comparison");
  if (!a || !b) throw InternalError("make_select: null branch");
  if (a->dtype != b->dtype) {
    throw ScheduleError(std::string("select: branches of types ") + to_string(a->dtype) + " and " +
                        to_string(b->dtype));
  }
  return std::make_shared<SelectNode>(std::move(cond), std::move(a), std::move(b));
}

ReadNode::ReadNode(Tensor t, std::vector<Expr> i, bool f)
    : ExprNode(ExprKind::kRead, t->dtype), tensor(std::move(t)), indices(std::move(i)), flat(f) {}
Expr make_read(Tensor t, std::vector<Expr> indices) {
  if (indices.size() != t->shape.size()) {
    throw ScheduleError("tensor " + t->name + " has " + std::to_string(t->shape.size()) + " dimensions, read with " +
                        std::to_string(indices.size()) + " indices");
  }
  return std::make_shared<ReadNode>(std::move(t), std::move(indices), false);
}
Expr make_flat_read(Tensor t, Expr offset) {
  return std::make_shared<ReadNode>(std::move(t), std::vector<Expr>{std::move(offset)}, true);
}

ReduceNode::ReduceNode(Expr b, std::vector<Var> a, std::vector<int64_t> e, Expr i)
    : ExprNode(ExprKind::kReduce, b->dtype),
      body(std::move(b)),
      axes(std::move(a)),
      extents(std::move(e)),
      init(std::move(i)) {}
Expr make_reduce(Expr body, const std::vector<IterVar>& axes, Expr init) {
  if (init && init->dtype != body->dtype) {
    throw ScheduleError("sum: the initial value " + to_text(init) + " is " + to_string(init->dtype) +
                        ", the summed body " + to_string(body->dtype) + " (cast one of them)");
  }
  std::vector<Var> vars;
  std::vector<int64_t> extents;
  for (const auto& iv : axes) {
    if (!iv.reduce) throw ScheduleError("sum over " + iv.var->name + ", which is not a reduce_axis");
    vars.push_back(iv.var);
    extents.push_back(iv.extent);
  }
  std::set<const ExprNode*> axis_nodes;
  for (const auto& v : vars) axis_nodes.insert(v.get());
  if (init && uses_any(init, axis_nodes)) {
    throw ScheduleError("sum: the initial value " + to_text(init) +
                        " uses a reduction axis (it is one value per output element)");
  }
  return std::make_shared<ReduceNode>(std::move(body), std::move(vars), std::move(extents), std::move(init));
}

Expr make_int_like(const Expr& other, int64_t v) { return make_int(v, other->dtype); }
namespace {
Expr like(const Expr& other, int64_t v) { return make_int_like(other, v); }
}  // namespace

Expr operator+(Expr a, Expr b) { return make_binary(ExprKind::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return make_binary(ExprKind::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return make_binary(ExprKind::kMul, std::move(a), std::move(b)); }
Expr operator>>(Expr a, Expr b) { return make_binary(ExprKind::kShr, std::move(a), std::move(b)); }
Expr operator+(const Expr& a, int64_t b) { return a + like(a, b); }
Expr operator*(const Expr& a, int64_t b) { return a * like(a, b); }
Expr operator>>(const Expr& a, int64_t b) { return a >> like(a, b); }
Expr max(Expr a, Expr b) { return make_binary(ExprKind::kMax, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return make_binary(ExprKind::kMin, std::move(a), std::move(b)); }
Expr max(const Expr& a, int64_t b) { return max(a, like(a, b)); }
Expr min(const Expr& a, int64_t b) { return min(a, like(a, b)); }
Expr floordiv(const Expr& a, int64_t b) { return make_binary(ExprKind::kFloorDiv, a, like(a, b)); }
Expr floormod(const Expr& a, int64_t b) { return make_binary(ExprKind::kFloorMod, a, like(a, b)); }
Expr cast(DType t, Expr a) { return make_cast(t, std::move(a)); }
Expr operator<(Expr a, Expr b) { return make_binary(ExprKind::kLt, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return make_binary(ExprKind::kGe, std::move(a), std::move(b)); }
Expr operator-(const Expr& a, int64_t b) { return a - like(a, b); }
Expr logical_and(Expr a, Expr b) {
  if (a->dtype != DType::kBool || b->dtype != DType::kBool)
    throw ScheduleError("&&: both operands must be comparisons");
  return make_binary(ExprKind::kAnd, std::move(a), std::move(b));
}
Expr select(Expr cond, Expr a, Expr b) { return make_select(std::move(cond), std::move(a), std::move(b)); }

Stmt make_for(Var v, int64_t extent, Stmt body) {
  if (!v || !body) throw InternalError("make_for: null variable or body");
  return std::make_shared<ForNode>(std::move(v), extent, std::move(body));
}

const AttrNode* as_attr(const Stmt& s, std::string_view key) {
  const auto* a = s->as<AttrNode>();
  return a != nullptr && a->key == key ? a : nullptr;
}
const ForNode* as_loop_over(const Stmt& s, const Var& v) {
  const auto* f = s->as<ForNode>();
  return f != nullptr && f->var == v ? f : nullptr;
}

const Stmt& body_of(const Stmt& s) {
  if (const auto* f = s->as<ForNode>()) return f->body;
  if (const auto* a = s->as<AllocateNode>()) return a->body;
  if (const auto* a = s->as<AttrNode>()) return a->body;
  throw InternalError(std::string("a ") + to_string(s->kind) + " statement has no body");
}

LoopNest perfect_nest(const Stmt& s) {
  LoopNest n{{}, s};
  while (const auto* loop = n.body->as<ForNode>()) {
    n.loops.push_back({loop->var, loop->extent});
    n.body = loop->body;
  }
  return n;
}

StoreNode::StoreNode(Tensor t, std::vector<Expr> i, Expr v, bool f)
    : StmtNode(StmtKind::kStore), tensor(std::move(t)), indices(std::move(i)), value(std::move(v)), flat(f) {}
Stmt make_store(Tensor t, std::vector<Expr> indices, Expr value) {
  return std::make_shared<StoreNode>(std::move(t), std::move(indices), std::move(value), false);
}
Stmt make_flat_store(Tensor t, Expr offset, Expr value) {
  return std::make_shared<StoreNode>(std::move(t), std::vector<Expr>{std::move(offset)}, std::move(value), true);
}

AttrNode::AttrNode(Var v, std::string k, Expr val, Stmt b)
    : StmtNode(StmtKind::kAttr), var(std::move(v)), key(std::move(k)), value(std::move(val)), body(std::move(b)) {}
Stmt make_attr(Var v, std::string key, Stmt body, Expr value) {
  return std::make_shared<AttrNode>(std::move(v), std::move(key), std::move(value), std::move(body));
}

CallNode::CallNode(std::string n, Tensor d, Tensor s, std::vector<Expr> a)
    : StmtNode(StmtKind::kCall), name(std::move(n)), dst(std::move(d)), src(std::move(s)), args(std::move(a)) {}
Stmt make_call(std::string name, Tensor dst, Tensor src, std::vector<Expr> args) {
  return std::make_shared<CallNode>(std::move(name), std::move(dst), std::move(src), std::move(args));
}

Stmt make_seq(std::vector<Stmt> stmts) {
  if (stmts.size() == 1) return stmts[0];
  return std::make_shared<SeqNode>(std::move(stmts));
}

AllocateNode::AllocateNode(Tensor t, std::string sc, std::vector<int64_t> sh, Stmt b)
    : StmtNode(StmtKind::kAllocate),
      tensor(std::move(t)),
      scope(std::move(sc)),
      shape(std::move(sh)),
      body(std::move(b)) {}
Stmt make_allocate(Tensor t, std::string scope, Stmt body, std::vector<int64_t> shape) {
  if (shape.empty()) shape = t->shape;
  if (shape.size() != t->shape.size()) throw InternalError("make_allocate: buffer rank differs from " + t->name);
  return std::make_shared<AllocateNode>(std::move(t), std::move(scope), std::move(shape), std::move(body));
}

IterVar reduce_axis(int64_t extent, const std::string& name) {
  if (extent <= 0)
    throw ScheduleError("reduce_axis " + name + ": extent " + std::to_string(extent) + " must be positive");
  return {make_var(name), extent, true};
}

// ---- the DSL ------------------------------------------------------------------------------------------
namespace {

void collect_inputs(const Expr& e, std::vector<Tensor>& out) {
  for_each_expr(e, [&](const Expr& x) {
    const auto* r = x->as<ReadNode>();
    if (r != nullptr && std::find(out.begin(), out.end(), r->tensor) == out.end()) out.push_back(r->tensor);
  });
}

void check_shape(const std::vector<int64_t>& shape, const std::string& name) {
  for (int64_t d : shape) {
    if (d <= 0) throw ScheduleError("tensor " + name + ": dimension " + std::to_string(d) + " must be positive");
  }
}

}  // namespace

Tensor placeholder(std::vector<int64_t> shape, const std::string& name, DType dtype) {
  check_shape(shape, name);
  auto op = std::make_shared<OperationNode>();
  op->kind = OperationNode::Kind::kPlaceholder, op->name = name;
  auto t = std::make_shared<TensorNode>();
  t->name = name, t->shape = std::move(shape), t->dtype = dtype, t->op = op;
  return t;
}

Tensor compute(std::vector<int64_t> shape, const std::function<Expr(const Indices&)>& body, const std::string& name) {
  std::vector<std::string> names;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string n = std::to_string(i);
    n.insert(n.begin(), 'i');  // (not "i" + ...: GCC 12 -O3 warns falsely about that concatenation)
    names.push_back(std::move(n));
  }
  return compute(std::move(shape), names, body, name);
}

Tensor compute(std::vector<int64_t> shape, const std::vector<std::string>& axis_names,
               const std::function<Expr(const Indices&)>& body, const std::string& name) {
  check_shape(shape, name);
  if (axis_names.size() != shape.size()) {
    throw ScheduleError("compute " + name + ": " + std::to_string(axis_names.size()) + " axis names for " +
                        std::to_string(shape.size()) + " dimensions");
  }
  auto op = std::make_shared<OperationNode>();
  op->kind = OperationNode::Kind::kCompute, op->name = name;
  Indices vars;
  for (size_t i = 0; i < shape.size(); ++i) {
    op->axis.push_back({make_var(axis_names[i]), shape[i], false});
    vars.push_back(op->axis.back().var);
  }
  op->body = body(vars);
  if (!op->body) throw ScheduleError("compute " + name + ": the body is empty");
  if (const auto* r = op->body->as<ReduceNode>()) {
    // the reduction axes' extents are recorded on the expression's vars by sum()
    for (size_t i = 0; i < r->axes.size(); ++i) op->reduce_axis.push_back({r->axes[i], r->extents[i], true});
  }
  collect_inputs(op->body, op->inputs);
  auto t = std::make_shared<TensorNode>();
  t->name = name, t->shape = std::move(shape), t->dtype = op->body->dtype, t->op = op;
  return t;
}

Expr read(const Tensor& t, std::vector<Expr> indices) { return make_read(t, std::move(indices)); }

Expr Tensor::operator()(std::vector<Expr> indices) const { return make_read(*this, std::move(indices)); }

Expr Tensor::operator()(const std::vector<Var>& indices) const {
  return make_read(*this, {indices.begin(), indices.end()});
}

Expr Tensor::index_expr(int64_t v) { return make_int(v); }

Expr sum(Expr body, const std::vector<IterVar>& axes) { return make_reduce(std::move(body), axes); }
Expr sum(Expr body, const std::vector<IterVar>& axes, Expr init) {
  if (!init) throw ScheduleError("sum: the initial value is empty");
  return make_reduce(std::move(body), axes, std::move(init));
}

}  // namespace vta::compiler

namespace vta::compiler {

Tensor pad(const Tensor& t, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           const std::string& name) {
  if (before.size() != t->shape.size() || after.size() != t->shape.size()) {
    throw ScheduleError("pad " + name + ": give one before and one after amount per dimension of " + t->name);
  }
  std::vector<int64_t> shape;
  for (size_t d = 0; d < t->shape.size(); ++d) {
    if (before[d] < 0 || after[d] < 0) throw ScheduleError("pad " + name + ": negative padding");
    shape.push_back(t->shape[d] + before[d] + after[d]);
  }
  return compute(
      shape,
      [&](const Indices& i) {
        Expr inside;
        std::vector<Expr> src;
        for (size_t d = 0; d < i.size(); ++d) {
          if (before[d] == 0 && after[d] == 0) {
            src.push_back(i[d]);
            continue;
          }
          Expr c = logical_and(Expr(i[d]) >= make_int(before[d]), Expr(i[d]) < make_int(before[d] + t->shape[d]));
          inside = inside ? logical_and(inside, c) : c;
          src.push_back(before[d] == 0 ? Expr(i[d]) : Expr(i[d]) - before[d]);
        }
        Expr value = read(t, src);
        return inside ? select(inside, value, make_int(0, t->dtype)) : value;
      },
      name);
}

}  // namespace vta::compiler
