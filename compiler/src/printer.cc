// The TIR-like printer: readable text in the style of the seeds' listings.

#include <optional>
#include <sstream>

#include "vta/compiler/lower.h"
#include "vta/compiler/names.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

class Printer final : public IRVisitor {
 public:
  explicit Printer(std::ostream& o) : o_(o) {}
  using IRVisitor::visit;

 protected:
  void visit_int(const Expr& e) override { o_ << e->value; }
  void visit_var(const Expr& e) override { o_ << e->name; }
  void visit_binary(const Expr& e) override {
    switch (e->kind) {
      case ExprKind::kShr: return call("@tir.shift_right", {e->a, e->b}, e->dtype);
      case ExprKind::kMin: return call("min", {e->a, e->b});
      case ExprKind::kMax: return call("max", {e->a, e->b});
      case ExprKind::kFloorDiv: return call("floordiv", {e->a, e->b});
      case ExprKind::kFloorMod: return call("floormod", {e->a, e->b});
      default: break;
    }
    o_ << "(";
    visit(e->a);
    o_ << infix(e->kind);
    visit(e->b);
    o_ << ")";
  }
  void visit_select(const Expr& e) override { call("@tir.if_then_else", {e->cond, e->a, e->b}, e->dtype); }
  void visit_cast(const Expr& e) override {
    o_ << "cast(" << to_string(e->dtype) << ", ";
    visit(e->a);
    o_ << ")";
  }
  void visit_read(const Expr& e) override {
    o_ << e->tensor->name << "[";
    list(e->indices);
    o_ << "]";
  }
  void visit_reduce(const Expr& e) override {
    if (e->b)
      call("sum", {e->a, e->b});
    else
      call("sum", {e->a});
  }

  void visit_for(const Stmt& s) override {
    o_ << pad() << "for (" << s->var->name << ": int32, 0, " << s->extent << ") {\n";
    block(s->body);
  }
  void visit_store(const Stmt& s) override {
    o_ << pad() << s->tensor->name << "[";
    list(s->indices);
    o_ << "] = ";
    visit(s->value);
    o_ << "\n";
  }
  void visit_attr(const Stmt& s) override {
    o_ << pad() << "attr [" << s->var->name << "] \"" << s->key << "\" = ";
    if (s->key == attr::kCoprocUopScope) {
      const bool alu = s->value && s->value->value == attr::kUopKernelAlu;
      o_ << '"' << (alu ? intrin::kPushAluOp : intrin::kPushGemmOp) << '"';
    } else if (s->value) {
      visit(s->value);
    } else {
      o_ << 1;
    }
    o_ << " {\n";
    block(s->body);
  }
  void visit_allocate(const Stmt& s) override {
    o_ << pad() << "allocate(" << s->tensor->name << ": " << to_string(s->tensor->dtype) << ", [";
    for (size_t i = 0; i < s->shape.size(); ++i) o_ << (i ? ", " : "") << s->shape[i];
    o_ << "]), storage_scope = " << s->scope << " {\n";
    block(s->body);
  }
  void visit_call(const Stmt& s) override {
    if (s->name.rfind(intrin::kVtaPrefix, 0) == 0) {  // the VTA intrinsics (tokens, micro-ops, sync)
      o_ << pad() << "@tir." << s->name << "(";
      list(s->args);
      o_ << ", dtype=int32)\n";
      return;
    }
    o_ << pad() << "@tir.call_extern(\"" << s->name << "\"";
    for (size_t i = 0; i < s->args.size(); ++i) {
      // the DRAM tensor goes before its offset (the runtime's order)
      if (s->name == intrin::kLoadBuffer2D && i == 0) o_ << ", " << s->src->name;
      if (s->name == intrin::kStoreBuffer2D && i == 2) o_ << ", " << s->tensor->name;
      o_ << ", ";
      visit(s->args[i]);
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
      case ExprKind::kGe: return " >= ";
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
