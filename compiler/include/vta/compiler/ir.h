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
using Tensor = std::shared_ptr<const TensorNode>;
using Operation = std::shared_ptr<const OperationNode>;

// ---- expressions ----------------------------------------------------------------------------------
enum class ExprKind : uint8_t {
  kInt,       ///< integer constant
  kVar,       ///< loop or let variable
  kAdd, kSub, kMul, kFloorDiv, kFloorMod, kMin, kMax,
  kShr,       ///< arithmetic shift right (the tutorials' `>>`)
  kLt,        ///< a < b (bool)
  kGe,        ///< a >= b (bool)
  kAnd,       ///< a && b (bool)
  kSelect,    ///< cond ? a : b (only the chosen side is evaluated)
  kCast,      ///< conversion to `dtype` (wraps to its width)
  kRead,      ///< tensor[indices]
  kReduce,    ///< sum of `a` over `reduce_axes` (only at the top of a compute body)
};

struct VarNode;
using Var = std::shared_ptr<const VarNode>;

struct ExprNode {
  ExprKind kind;
  DType dtype;
  int64_t value = 0;          ///< kInt
  std::string name;           ///< kVar
  Expr a, b;                  ///< operands (kCast, kReduce: a only)
  Expr cond;                  ///< kSelect
  Tensor tensor;              ///< kRead
  std::vector<Expr> indices;  ///< kRead
  std::vector<Var> reduce_axes;  ///< kReduce
  std::vector<int64_t> reduce_extents;  ///< kReduce, one per axis
  bool flat = false;          ///< kRead: `indices` is one row-major offset into the buffer
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
Expr make_reduce(Expr body, const std::vector<IterVar>& axes);

// DSL operators (the tutorials' lambda bodies): integer constants promote to the other side's type.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator>>(Expr a, Expr b);
Expr operator+(Expr a, int64_t b);
Expr operator*(Expr a, int64_t b);
Expr operator>>(Expr a, int64_t b);
Expr max(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, int64_t b);
Expr min(Expr a, int64_t b);
Expr floordiv(Expr a, int64_t b);
Expr floormod(Expr a, int64_t b);
Expr cast(DType t, Expr a);
Expr operator<(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
/// a && b on conditions (a function, not operator&&: that would capture tests of the pointers).
Expr logical_and(Expr a, Expr b);
Expr operator-(Expr a, int64_t b);
Expr select(Expr cond, Expr a, Expr b);

// ---- statements -----------------------------------------------------------------------------------
enum class StmtKind : uint8_t {
  kFor,       ///< for (var, 0, extent) body
  kStore,     ///< tensor[indices] = value
  kSeq,       ///< stmts in order
  kAllocate,  ///< a tensor's storage (scope) around body
  kAttr,      ///< an annotation `key` on loop `var` around body (pragmas, tensorize, virtual threads,
              ///< and after the VTA passes "coproc_scope" = stage, "coproc_uop_scope" = kernel kind)
  kCall,      ///< a runtime intrinsic `scope`(args) moving data between `src` and `tensor` (DMA)
};

struct StmtNode {
  StmtKind kind;
  Var var;                    ///< kFor
  int64_t extent = 0;         ///< kFor
  Stmt body;                  ///< kFor, kAllocate, kAttr
  Tensor tensor;              ///< kStore, kAllocate
  std::vector<Expr> indices;  ///< kStore
  Expr value;                 ///< kStore; kAttr: the annotation's value (nullptr: 1)
  std::vector<Stmt> seq;      ///< kSeq
  std::string scope;          ///< kAllocate; kAttr: the key (e.g. "pragma_dma_copy")
  std::vector<int64_t> shape; ///< kAllocate: the buffer's extents (the tensor's, or a region of it)
  bool flat = false;          ///< kStore: `indices` is one row-major offset into the buffer
  Tensor src;                 ///< kCall: the tensor read (`tensor` is the one written)
  std::vector<Expr> args;     ///< kCall
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
