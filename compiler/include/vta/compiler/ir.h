#pragma once
/// \file vta/compiler/ir.h
/// The compiler's IR, shaped like Halide's and TVM's: immutable expression and statement nodes held by
/// shared pointers, tensors produced by operations (placeholders and computes), iteration variables.
/// Passes read nodes through visitors and build new ones through mutators (visitor.h).

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace vta::compiler {

/// Scalar types of the tutorials: int8 (inputs, weights, outputs), int32 (accumulators), bool.
enum class DType : uint8_t { kInt8, kInt32, kBool };
const char* to_string(DType t);
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
/// The expression kinds, each with the handler a visitor or mutator (visitor.h) calls for it. This list
/// is the one place a kind is declared: the enum, the kind names and every dispatch are generated from
/// it, so a new kind without a handler does not compile.
///   Int      integer constant (`value`)
///   Var      loop or let variable (`name`); compares by node, never by name
///   Add Sub Mul FloorDiv FloorMod Min Max   arithmetic on `a`, `b`
///   Shr      arithmetic shift right (the tutorials' `>>`)
///   Lt Ge And  comparisons and conjunction (bool)
///   Select   `cond` ? `a` : `b` (only the chosen side is evaluated)
///   Cast     `a` converted to `dtype` (wraps to its width)
///   Read     `tensor`[`indices`] (`flat`: one row-major offset)
///   Reduce   sum of `a` over `reduce_axes`, starting from `b` (0 when null; only at the top of a compute body)
// clang-format off
#define VTA_IR_BINARY_KINDS(X) \
  X(Add, binary) X(Sub, binary) X(Mul, binary) X(FloorDiv, binary) X(FloorMod, binary) X(Min, binary) \
  X(Max, binary) X(Shr, binary) X(Lt, binary) X(Ge, binary) X(And, binary)
#define VTA_IR_EXPR_KINDS(X) \
  X(Int, int) X(Var, var) VTA_IR_BINARY_KINDS(X) X(Select, select) X(Cast, cast) X(Read, read) X(Reduce, reduce)
// clang-format on

enum class ExprKind : uint8_t {
#define VTA_IR_ENUM(kind, handler) k##kind,
  VTA_IR_EXPR_KINDS(VTA_IR_ENUM)
};
/// The kind's name ("Add", "Read").
const char* to_string(ExprKind k);
/// Whether `k` is one of VTA_IR_BINARY_KINDS (operands `a` and `b`, evaluated by eval_binary).
bool is_binary(ExprKind k);

struct VarNode;
using Var = std::shared_ptr<const VarNode>;

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

struct ExprNode {
  ExprKind kind;
  DType dtype;
  int64_t value = 0;                    ///< Int
  std::string name;                     ///< Var
  Expr a, b;                            ///< operands (Cast: a only; Reduce: b the initial value or null)
  Expr cond;                            ///< Select
  Tensor tensor;                        ///< Read
  std::vector<Expr> indices;            ///< Read
  std::vector<Var> reduce_axes;         ///< Reduce
  std::vector<int64_t> reduce_extents;  ///< Reduce, one per axis
  bool flat = false;                    ///< Read: `indices` is one row-major offset into the buffer
  /// Identity of a variable: variables compare by node, never by name.
  bool same_as(const Expr& o) const { return this == o.get(); }
};
struct VarNode : ExprNode {};

Expr make_int(int64_t v, DType t = DType::kInt32);
Var make_var(const std::string& name);
Expr make_binary(ExprKind k, Expr a, Expr b);
/// `a op b` for the binary operator of `e` on operand values, not yet wrapped to e's type: the one
/// arithmetic of the interpreter, the host executor and constant folding (floor division and modulo;
/// `>>` by a negative amount shifts left). InternalError naming `e` for a division by zero or an
/// operator that is not binary.
int64_t eval_binary(const Expr& e, int64_t a, int64_t b);
Expr make_cast(DType t, Expr a);
Expr make_select(Expr cond, Expr a, Expr b);
Expr make_read(Tensor t, std::vector<Expr> indices);
/// A read / store at a row-major offset (after flattening).
Expr make_flat_read(Tensor t, Expr offset);
struct IterVar;
/// A sum over `axes` starting from `init` (nullptr: from 0); ScheduleError when init's type is not the body's.
Expr make_reduce(Expr body, const std::vector<IterVar>& axes, Expr init = nullptr);

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
/// The statement kinds with their handlers (see VTA_IR_EXPR_KINDS):
///   For       for (`var`, 0, `extent`) `body`
///   Store     `tensor`[`indices`] = `value` (`flat`: one row-major offset)
///   Seq       `seq` in order
///   Allocate  storage of `tensor` in `scope` (extents `shape`) around `body`
///   Attr      annotation `key` (= `value`, nullptr: 1) on loop `var` around `body`: the schedule's
///             pragmas, tensorize and virtual threads, and after the VTA passes the coprocessor scopes
///             (attr:: names in names.h)
///   Call      the intrinsic `name`(`args`) (intrin:: in names.h); a DMA reads `src`, writes `tensor`
// clang-format off
#define VTA_IR_STMT_KINDS(X) \
  X(For, for) X(Store, store) X(Seq, seq) X(Allocate, allocate) X(Attr, attr) X(Call, call)
// clang-format on

enum class StmtKind : uint8_t {
  VTA_IR_STMT_KINDS(VTA_IR_ENUM)
#undef VTA_IR_ENUM
};
const char* to_string(StmtKind k);

struct StmtNode {
  StmtKind kind;
  Var var;                     ///< For, Attr
  int64_t extent = 0;          ///< For
  Stmt body;                   ///< For, Allocate, Attr
  Tensor tensor;               ///< Store, Allocate; Call: the tensor written (DMA)
  std::vector<Expr> indices;   ///< Store
  Expr value;                  ///< Store; Attr: the annotation's value (nullptr: 1)
  std::vector<Stmt> seq;       ///< Seq
  std::string scope;           ///< Allocate: the storage scope ("global", "local.acc_buffer", ...)
  std::string key;             ///< Attr: the annotation (attr::kPragmaDmaCopy, ...)
  std::string name;            ///< Call: the intrinsic (intrin::kLoadBuffer2D, ...)
  std::vector<int64_t> shape;  ///< Allocate: the buffer's extents (the tensor's, or a region of it)
  bool flat = false;           ///< Store: `indices` is one row-major offset into the buffer
  Tensor src;                  ///< Call: the tensor read (DMA)
  std::vector<Expr> args;      ///< Call
};

Stmt make_for(Var v, int64_t extent, Stmt body);
Stmt make_store(Tensor t, std::vector<Expr> indices, Expr value);
Stmt make_flat_store(Tensor t, Expr offset, Expr value);
Stmt make_seq(std::vector<Stmt> stmts);
Stmt make_attr(Var v, std::string key, Stmt body, Expr value = nullptr);
/// An intrinsic call, e.g. VTALoadBuffer2D(src, src_offset, x_size, y_size, x_stride, pads..., dst_index, type).
Stmt make_call(std::string name, Tensor dst, Tensor src, std::vector<Expr> args);
/// Storage for `t` around `body`; `shape` = the buffer's extents (empty: the tensor's shape).
Stmt make_allocate(Tensor t, std::string scope, Stmt body, std::vector<int64_t> shape = {});

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
  int64_t elements() const;
};

/// A reduction axis over [0, extent) (te.reduce_axis).
IterVar reduce_axis(int64_t extent, const std::string& name);

}  // namespace vta::compiler
