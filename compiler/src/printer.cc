// The TIR-like printer: readable text in the style of the seeds' listings.

#include "vta/compiler/printer.h"

#include <optional>
#include <sstream>

#include "vta/compiler/names.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

class Printer final : public IRVisitor {
 public:
  explicit Printer(std::ostream& o) : o_(o) {}
  using IRVisitor::visit;

 protected:
  void visit_int(const Expr&, const IntNode& op) override { o_ << op.value; }
  void visit_var(const Expr&, const VarNode& op) override { o_ << op.name; }
  void visit_binary(const Expr&, const BinaryNode& op) override {
    switch (op.kind) {
      case ExprKind::kShr: return call("@tir.shift_right", {op.a, op.b}, op.dtype);
      case ExprKind::kShl: return call("@tir.shift_left", {op.a, op.b}, op.dtype);
      case ExprKind::kBitAnd: return call("@tir.bitwise_and", {op.a, op.b}, op.dtype);
      case ExprKind::kBitOr: return call("@tir.bitwise_or", {op.a, op.b}, op.dtype);
      case ExprKind::kMin: return call("min", {op.a, op.b});
      case ExprKind::kMax: return call("max", {op.a, op.b});
      case ExprKind::kFloorDiv: return call("floordiv", {op.a, op.b});
      case ExprKind::kFloorMod: return call("floormod", {op.a, op.b});
      default: break;
    }
    o_ << "(";
    visit(op.a);
    o_ << infix(op.kind);
    visit(op.b);
    o_ << ")";
  }
  void visit_select(const Expr&, const SelectNode& op) override {
    call("@tir.if_then_else", {op.cond, op.a, op.b}, op.dtype);
  }
  void visit_cast(const Expr&, const CastNode& op) override {
    o_ << "cast(" << to_string(op.dtype) << ", ";
    visit(op.value);
    o_ << ")";
  }
  void visit_read(const Expr&, const ReadNode& op) override {
    o_ << op.tensor->name << "[";
    list(op.indices);
    o_ << "]";
  }
  void visit_reduce(const Expr&, const ReduceNode& op) override {
    if (op.init)
      call("sum", {op.body, op.init});
    else
      call("sum", {op.body});
  }

  void visit_for(const Stmt&, const ForNode& op) override {
    o_ << pad() << "for (" << op.var->name << ": int32, 0, " << op.extent << ") {\n";
    block(op.body);
  }
  void visit_store(const Stmt&, const StoreNode& op) override {
    o_ << pad() << op.tensor->name << "[";
    list(op.indices);
    o_ << "] = ";
    visit(op.value);
    o_ << "\n";
  }
  void visit_attr(const Stmt&, const AttrNode& op) override {
    o_ << pad() << "attr [" << op.var->name << "] \"" << op.key << "\" = ";
    if (op.key == attr::kCoprocUopScope) {
      const bool alu = is_const(op.value, attr::kUopKernelAlu);
      o_ << '"' << (alu ? intrin::kPushAluOp : intrin::kPushGemmOp) << '"';
    } else if (op.value) {
      visit(op.value);
    } else {
      o_ << 1;
    }
    o_ << " {\n";
    block(op.body);
  }
  void visit_allocate(const Stmt&, const AllocateNode& op) override {
    o_ << pad() << "allocate(" << op.tensor->name << ": " << to_string(op.tensor->dtype) << ", [";
    for (size_t i = 0; i < op.shape.size(); ++i) o_ << (i ? ", " : "") << op.shape[i];
    o_ << "]), storage_scope = " << op.scope << " {\n";
    block(op.body);
  }
  void visit_call(const Stmt&, const CallNode& op) override {
    if (op.name.rfind(intrin::kVtaPrefix, 0) == 0) {  // the VTA intrinsics (tokens, micro-ops, sync)
      o_ << pad() << "@tir." << op.name << "(";
      list(op.args);
      o_ << ", dtype=int32)\n";
      return;
    }
    o_ << pad() << "@tir.call_extern(\"" << op.name << "\"";
    for (size_t i = 0; i < op.args.size(); ++i) {
      // the DRAM tensor goes before its offset (the runtime's order)
      if (op.name == intrin::kLoadBuffer2D && i == 0) o_ << ", " << op.src->name;
      if (op.name == intrin::kStoreBuffer2D && i == 2) o_ << ", " << op.dst->name;
      o_ << ", ";
      visit(op.args[i]);
    }
    o_ << ", dtype=int32)\n";
  }

 private:
  static const char* infix(ExprKind k) {
    switch (k) {
      case ExprKind::kAdd: return " + ";
      case ExprKind::kSub: return " - ";
      case ExprKind::kMul: return "*";
      case ExprKind::kLt: return " < ";
      case ExprKind::kLe: return " <= ";
      case ExprKind::kGt: return " > ";
      case ExprKind::kGe: return " >= ";
      case ExprKind::kEq: return " == ";
      case ExprKind::kNe: return " != ";
      case ExprKind::kAnd: return " && ";
      default: throw InternalError(std::string("print: no infix form for ") + to_string(k));
    }
  }
  std::string pad() const { return std::string(size_t(indent_) * 2, ' '); }
  void list(const std::vector<Expr>& v) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) o_ << ", ";
      visit(v[i]);
    }
  }
  /// f(args...), with `, dtype=T` for the @tir intrinsics.
  void call(const char* f, const std::vector<Expr>& args, std::optional<DType> t = std::nullopt) {
    o_ << f << "(";
    list(args);
    if (t) o_ << ", dtype=" << to_string(*t);
    o_ << ")";
  }
  /// The body of a scope statement, one level deeper, and its closing brace.
  void block(const Stmt& body) {
    ++indent_;
    visit(body);
    --indent_;
    o_ << pad() << "}\n";
  }

  std::ostream& o_;
  int indent_ = 0;
};

}  // namespace

std::string to_text(const Stmt& s) {
  std::ostringstream o;
  Printer(o).visit(s);
  return o.str();
}

std::string to_text(const Expr& e) {
  std::ostringstream o;
  Printer(o).visit(e);
  return o.str();
}

}  // namespace vta::compiler
