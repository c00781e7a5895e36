#pragma once
/// \file vta/compiler/ir.h
/// The compiler's IR, shaped like Halide's and TVM's: immutable expression and statement nodes held by
/// shared pointers, tensors produced by operations (placeholders and computes), iteration variables.
/// Passes read nodes through visitors and build new ones through mutators (visitor.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace vta::compiler {

/// Scalar types of the tutorials: int8 (inputs, weights, outputs), int32 (accumulators), bool, and
/// int4: the inputs', weights' and outputs' type on a configuration of 4-bit elements (Env::inp_dtype,
/// Env::wgt_dtype; packed two a byte in DRAM, docs/ISA.md "Element widths").
enum class DType : uint8_t { kInt8, kInt32, kBool, kInt4 };
const char* to_string(DType t);
/// The type to_string names ("int8", "int32", "bool", "int4"); nothing for any other name. The one reader of
/// type names: module files, the Python binding.
std::optional<DType> dtype_from_string(std::string_view name);
int bits(DType t);
/// Row-major strides (elements) of a shape: the last dimension has stride 1.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape);
/// `v` wrapped to the type's width (two's complement), as stores and casts do.
int64_t wrap(int64_t v, DType t);

/// A user error in a computation or a schedule: names the stage, the axis and the reason.
class ScheduleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// A broken invariant inside the compiler (reported as such, never a user mistake).
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

struct ExprNode;
struct StmtNode;
struct TensorNode;
struct OperationNode;
using Expr = std::shared_ptr<const ExprNode>;
using Stmt = std::shared_ptr<const StmtNode>;
class Tensor;
using Operation = std::shared_ptr<const OperationNode>;

// ---- expressions ----------------------------------------------------------------------------------
/// The expression kinds, each with the handler a visitor or mutator (visitor.h) calls for it and the
/// node struct that holds it (`<Node>Node` below). This list is the one place a kind is declared: the
/// enum, the kind names, the checked downcasts and every dispatch are generated from it, so a new kind
/// without a node or a handler does not compile.
///   Int      integer constant (IntNode)
///   Var      loop or let variable (VarNode); compares by node, never by name
///   Add Sub Mul FloorDiv FloorMod Min Max   arithmetic on two operands (BinaryNode)
///   Shr      arithmetic shift right (the tutorials' `>>`)
///   Lt Ge And  comparisons and conjunction (bool)
///   Select   a condition choosing one of two values (SelectNode)
///   Cast     a value converted to the node's type (CastNode)
///   Read     an element of a tensor (ReadNode)
///   Reduce   a sum over reduction axes (ReduceNode; only at the top of a compute body)
// clang-format off
#define VTA_IR_BINARY_KINDS(X) \
  X(Add, binary, Binary) X(Sub, binary, Binary) X(Mul, binary, Binary) X(FloorDiv, binary, Binary) \
  X(FloorMod, binary, Binary) X(Min, binary, Binary) X(Max, binary, Binary) X(Shr, binary, Binary) \
  X(Shl, binary, Binary) X(BitAnd, binary, Binary) X(BitOr, binary, Binary) \
  X(Lt, binary, Binary) X(Le, binary, Binary) X(Gt, binary, Binary) X(Ge, binary, Binary) X(Eq, binary, Binary) \
  X(Ne, binary, Binary) X(And, binary, Binary)
#define VTA_IR_EXPR_KINDS(X) \
  X(Int, int, Int) X(Var, var, Var) VTA_IR_BINARY_KINDS(X) X(Select, select, Select) X(Cast, cast, Cast) \
  X(Read, read, Read) X(Reduce, reduce, Reduce)
// clang-format on

enum class ExprKind : uint8_t {
#define VTA_IR_ENUM(kind, handler, node) k##kind,
  VTA_IR_EXPR_KINDS(VTA_IR_ENUM)
};
/// The kind's name ("Add", "Read").
const char* to_string(ExprKind k);
/// Whether `k` is one of VTA_IR_BINARY_KINDS (operands `a` and `b`, evaluated by eval_binary).
bool is_binary(ExprKind k);
/// Whether `k` compares its operands (< <= > >= == !=): a bool.
bool is_comparison(ExprKind k);

struct VarNode;
using Var = std::shared_ptr<const VarNode>;
struct IterVar;

/// A tensor: shared, immutable (a shared_ptr to its node), and callable as the tutorials write reads:
/// `data(i, ic, j)` or `data(indices)` is `read(data, {...})` (te.h), the number of indices checked.
class Tensor : public std::shared_ptr<const TensorNode> {
 public:
  using std::shared_ptr<const TensorNode>::shared_ptr;
  Tensor() = default;
  Tensor(std::shared_ptr<const TensorNode> node) : std::shared_ptr<const TensorNode>(std::move(node)) {}
  Expr operator()(std::vector<Expr> indices) const;
  Expr operator()(const std::vector<Var>& indices) const;
  /// Indices as expressions, variables or integer constants.
  template <class... I>
  Expr operator()(const I&... indices) const {
    return (*this)(std::vector<Expr>{index_expr(indices)...});
  }

 private:
  static Expr index_expr(const Expr& e) { return e; }
  static Expr index_expr(int64_t v);
};

// The expression nodes: one struct per node of VTA_IR_EXPR_KINDS, each made (and checked) by one
// function, make_int, make_var, make_binary, ... below: the only way passes and the DSL build a node.
#define VTA_IR_DECLARE(kind, handler, node) struct node##Node;
VTA_IR_EXPR_KINDS(VTA_IR_DECLARE)
#undef VTA_IR_DECLARE

// Whether a node of kind `k` is held by the node struct T (generated from the kind lists; the binary
// kinds share one struct).
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define VTA_IR_HOLDS(kind, handler, node) \
  case K::k##kind: return std::is_same_v<T, node##Node>;
template <class T>
constexpr bool holds(ExprKind k) {
  using K = ExprKind;
  switch (k) {
    VTA_IR_EXPR_KINDS(VTA_IR_HOLDS)  // NOLINT(bugprone-branch-clone)
  }
  return false;
}
enum class StmtKind : uint8_t;  // (below)
template <class T>
constexpr bool holds(StmtKind k);
[[noreturn]] void throw_not_a(ExprKind k, const char* what);
[[noreturn]] void throw_not_a(StmtKind k, const char* what);

/// What every node has: its kind, and the checked downcasts to the struct of its kind.
template <class Kind>
struct Node {
  Kind kind;
  /// The node as T (IntNode, ForNode, ...), or nullptr when it is of a kind T does not hold.
  template <class T>
  const T* as() const {
    return holds<T>(kind) ? static_cast<const T*>(this) : nullptr;
  }
  /// The node as T; InternalError naming the node's kind when it is not one of T's.
  template <class T>
  const T& to() const {
    if (const T* n = as<T>()) return *n;
    throw_not_a(kind, T::kWhat);
  }

 protected:
  explicit Node(Kind k) : kind(k) {}
};

/// What every expression has besides its kind: its type; the rest is its node's (as<T>()).
struct ExprNode : Node<ExprKind> {
  DType dtype;
  /// Identity of a variable: variables compare by node, never by name.
  bool same_as(const Expr& o) const { return this == o.get(); }

 protected:
  ExprNode(ExprKind k, DType t) : Node(k), dtype(t) {}
};

struct IntNode final : ExprNode {
  static constexpr const char* kWhat = "an integer constant";
  int64_t value;
  IntNode(int64_t v, DType t) : ExprNode(ExprKind::kInt, t), value(v) {}
};
struct VarNode final : ExprNode {
  static constexpr const char* kWhat = "a variable";
  std::string name;
  explicit VarNode(std::string n) : ExprNode(ExprKind::kVar, DType::kInt32), name(std::move(n)) {}
};
/// `a op b` for the arithmetic, comparison and conjunction kinds (VTA_IR_BINARY_KINDS).
struct BinaryNode final : ExprNode {
  static constexpr const char* kWhat = "a binary operation";
  Expr a, b;
  BinaryNode(ExprKind k, DType t, Expr x, Expr y) : ExprNode(k, t), a(std::move(x)), b(std::move(y)) {}
};
/// `cond` ? `a` : `b`; only the chosen side is evaluated.
struct SelectNode final : ExprNode {
  static constexpr const char* kWhat = "a select";
  Expr cond, a, b;
  SelectNode(Expr c, Expr x, Expr y);
};
/// `value` converted to the node's type (wrapping to its width).
struct CastNode final : ExprNode {
  static constexpr const char* kWhat = "a cast";
  Expr value;
  CastNode(DType t, Expr v) : ExprNode(ExprKind::kCast, t), value(std::move(v)) {}
};
/// `tensor`[`indices`]; when `flat`, `indices` is one row-major offset into the buffer.
struct ReadNode final : ExprNode {
  static constexpr const char* kWhat = "a read";
  Tensor tensor;
  std::vector<Expr> indices;
  bool flat;
  ReadNode(Tensor t, std::vector<Expr> i, bool f);
};
/// The sum of `body` over `axes` (each with its extent), starting from `init` (0 when null).
struct ReduceNode final : ExprNode {
  static constexpr const char* kWhat = "a reduction";
  Expr body;
  std::vector<Var> axes;
  std::vector<int64_t> extents;  ///< one per axis
  Expr init;
  ReduceNode(Expr b, std::vector<Var> a, std::vector<int64_t> e, Expr i);
};

Expr make_int(int64_t v, DType t = DType::kInt32);
/// The value of `e` when it is an integer constant; none for any other node, or null.
std::optional<int64_t> const_int(const Expr& e);
/// Whether `e` is the integer constant `v`.
bool is_const(const Expr& e, int64_t v);
Var make_var(const std::string& name);
/// `a op b`; ScheduleError when the operands' types differ, InternalError when `k` is not binary.
Expr make_binary(ExprKind k, Expr a, Expr b);
/// `a op b` for the binary operator of `e` on operand values, not yet wrapped to e's type: the one
/// arithmetic of the interpreter, the host executor and constant folding (floor division and modulo;
/// `>>` by a negative amount shifts left). InternalError naming `e` for a division by zero or an
/// operator that is not binary.
int64_t eval_binary(const Expr& e, int64_t a, int64_t b);
Expr make_cast(DType t, Expr value);
/// ScheduleError when the condition is not a comparison or the branches' types differ.
Expr make_select(Expr cond, Expr a, Expr b);
/// ScheduleError when the number of indices is not the tensor's rank.
Expr make_read(Tensor t, std::vector<Expr> indices);
/// A read / store at a row-major offset (after flattening).
Expr make_flat_read(Tensor t, Expr offset);
/// A sum over `axes` starting from `init` (nullptr: from 0); ScheduleError when an axis is not a
/// reduce_axis, init's type is not the body's or init uses an axis.
Expr make_reduce(Expr body, const std::vector<IterVar>& axes, Expr init = nullptr);

/// An integer constant of `other`'s type: the DSL's promotion of an integer operand (the operators
/// below, the Python binding's).
Expr make_int_like(const Expr& other, int64_t v);

// DSL operators (the tutorials' lambda bodies): integer constants promote to the other side's type.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator>>(Expr a, Expr b);
Expr operator+(const Expr& a, int64_t b);
Expr operator*(const Expr& a, int64_t b);
Expr operator>>(const Expr& a, int64_t b);
Expr max(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(const Expr& a, int64_t b);
Expr min(const Expr& a, int64_t b);
Expr floordiv(const Expr& a, int64_t b);
Expr floormod(const Expr& a, int64_t b);
Expr cast(DType t, Expr a);
Expr operator<(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
/// a && b on conditions (a function, not operator&&: that would capture tests of the pointers).
Expr logical_and(Expr a, Expr b);
Expr operator-(const Expr& a, int64_t b);
Expr select(Expr cond, Expr a, Expr b);

// ---- statements -----------------------------------------------------------------------------------
/// The statement kinds with their handlers and nodes (see VTA_IR_EXPR_KINDS):
///   For       a loop (ForNode)
///   Store     an element of a tensor written (StoreNode)
///   Seq       statements in order (SeqNode)
///   Allocate  storage of a tensor in a scope around a body (AllocateNode)
///   Attr      an annotation on a loop around a body (AttrNode): the schedule's pragmas, tensorize and
///             virtual threads, and after the VTA passes the coprocessor scopes (attr:: names in names.h)
///   Call      an intrinsic (CallNode; intrin:: in names.h)
// clang-format off
#define VTA_IR_STMT_KINDS(X) \
  X(For, for, For) X(Store, store, Store) X(Seq, seq, Seq) X(Allocate, allocate, Allocate) X(Attr, attr, Attr) \
  X(Call, call, Call)
// clang-format on

enum class StmtKind : uint8_t {
  VTA_IR_STMT_KINDS(VTA_IR_ENUM)
#undef VTA_IR_ENUM
};
const char* to_string(StmtKind k);

// The statement nodes: one struct per node of VTA_IR_STMT_KINDS (see the expression nodes).
#define VTA_IR_DECLARE(kind, handler, node) struct node##Node;
VTA_IR_STMT_KINDS(VTA_IR_DECLARE)
#undef VTA_IR_DECLARE

template <class T>
constexpr bool holds(StmtKind k) {
  using K = StmtKind;
  switch (k) { VTA_IR_STMT_KINDS(VTA_IR_HOLDS) }
  return false;
}
#undef VTA_IR_HOLDS

/// A statement: its kind; the rest is its node's (as<T>()).
struct StmtNode : Node<StmtKind> {
 protected:
  explicit StmtNode(StmtKind k) : Node(k) {}
};

/// for (`var`, 0, `extent`) `body`
struct ForNode final : StmtNode {
  static constexpr const char* kWhat = "a loop";
  Var var;
  int64_t extent;
  Stmt body;
  ForNode(Var v, int64_t e, Stmt b) : StmtNode(StmtKind::kFor), var(std::move(v)), extent(e), body(std::move(b)) {}
};
/// `tensor`[`indices`] = `value`; when `flat`, `indices` is one row-major offset into the buffer.
struct StoreNode final : StmtNode {
  static constexpr const char* kWhat = "a store";
  Tensor tensor;
  std::vector<Expr> indices;
  Expr value;
  bool flat;
  StoreNode(Tensor t, std::vector<Expr> i, Expr v, bool f);
};
/// `seq` in order.
struct SeqNode final : StmtNode {
  static constexpr const char* kWhat = "a sequence";
  std::vector<Stmt> seq;
  explicit SeqNode(std::vector<Stmt> s) : StmtNode(StmtKind::kSeq), seq(std::move(s)) {}
};
/// Storage of `tensor` in `scope` (the buffer's extents `shape`) around `body`.
struct AllocateNode final : StmtNode {
  static constexpr const char* kWhat = "an allocation";
  Tensor tensor;
  std::string scope;  ///< "global", "local.acc_buffer", ...
  std::vector<int64_t> shape;
  Stmt body;
  AllocateNode(Tensor t, std::string sc, std::vector<int64_t> sh, Stmt b);
};
/// The annotation `key` (= `value`; null: 1) on loop `var` around `body`.
struct AttrNode final : StmtNode {
  static constexpr const char* kWhat = "an annotation";
  Var var;
  std::string key;  ///< attr::kPragmaDmaCopy, ...
  Expr value;
  Stmt body;
  AttrNode(Var v, std::string k, Expr val, Stmt b);
};
/// The intrinsic `name`(`args`) (intrin::kLoadBuffer2D, ...); a DMA reads `src` and writes `dst`.
struct CallNode final : StmtNode {
  static constexpr const char* kWhat = "a call";
  std::string name;
  Tensor dst, src;
  std::vector<Expr> args;
  CallNode(std::string n, Tensor d, Tensor s, std::vector<Expr> a);
};

Stmt make_for(Var v, int64_t extent, Stmt body);
Stmt make_store(Tensor t, std::vector<Expr> indices, Expr value);
Stmt make_flat_store(Tensor t, Expr offset, Expr value);
/// The statements in order (one statement: itself).
Stmt make_seq(std::vector<Stmt> stmts);
Stmt make_attr(Var v, std::string key, Stmt body, Expr value = nullptr);
/// An intrinsic call, e.g. VTALoadBuffer2D(src, src_offset, x_size, y_size, x_stride, pads..., dst_index, type).
Stmt make_call(std::string name, Tensor dst, Tensor src, std::vector<Expr> args);
/// Storage for `t` around `body`; `shape` = the buffer's extents (empty: the tensor's shape); InternalError
/// when its rank is not the tensor's.
Stmt make_allocate(Tensor t, std::string scope, Stmt body, std::vector<int64_t> shape = {});

/// `s` as the annotation `key`; nullptr when it is another statement or another annotation.
const AttrNode* as_attr(const Stmt& s, std::string_view key);
/// `s` as a loop over `v`; nullptr when it is another statement or a loop over another variable.
const ForNode* as_loop_over(const Stmt& s, const Var& v);

/// The body of a loop, an allocation or an annotation; InternalError for any other statement.
const Stmt& body_of(const Stmt& s);

/// One loop of a nest: its variable and extent.
struct Loop {
  Var var;
  int64_t extent;
};
/// A perfect loop nest: the loops directly nested in `s`, outermost first (none when `s` is no loop),
/// and the statement inside the innermost.
struct LoopNest {
  std::vector<Loop> loops;
  Stmt body;
};
LoopNest perfect_nest(const Stmt& s);

// ---- tensors and operations -------------------------------------------------------------------------
/// An iteration variable: a variable with the range [0, extent), data-parallel or a reduction.
struct IterVar {
  Var var;
  int64_t extent = 0;
  bool reduce = false;
};

struct OperationNode {
  enum class Kind : uint8_t { kPlaceholder, kCompute } kind;
  std::string name;
  std::vector<IterVar> axis;         ///< one per output dimension (compute)
  std::vector<IterVar> reduce_axis;  ///< compute with a kReduce body
  Expr body;                         ///< compute: the value at `axis`
  std::vector<Tensor> inputs;        ///< tensors the body reads (compute)
};

struct TensorNode {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype;
  Operation op;
  /// A buffer replicated per virtual thread (replicate_thread_buffers): the threads, its first extent.
  int64_t thread_copies = 0;
  int64_t elements() const;
};

/// A reduction axis over [0, extent) (te.reduce_axis).
IterVar reduce_axis(int64_t extent, const std::string& name);

}  // namespace vta::compiler
