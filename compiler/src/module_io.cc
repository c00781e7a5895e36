// A built module as data (docs/COMPILER.md, "Modules as files"): the final lowered program, its
// tensors and its arguments as JSON. Reading checks every node, field and reference and names the
// path of the first bad one; nothing in the file is executed but through the executor's runtime calls.

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "vta/compiler/build.h"
#include "vta/compiler/names.h"
#include "vta/compiler/te.h"
#include "vta/driver/build_config.h"
#include "vta/driver/file.h"

namespace vta::compiler {
namespace {

using json = nlohmann::json;
constexpr const char* kFormat = "vta-module";
constexpr int kVersion = 1;

// ---- writing ---------------------------------------------------------------------------------------
class Writer {
 public:
  json module(const Module& m, const std::string& target) {
    json args = json::array();
    for (const Tensor& t : m.args()) args.push_back(tensor(t));
    json program = stmt(m.program());
    return json{{"format", kFormat},   {"version", kVersion}, {"config", m.hardware()}, {"target", target},
                {"tensors", tensors_}, {"vars", vars_},       {"args", args},           {"program", program}};
  }

 private:
  int tensor(const Tensor& t) {
    if (t == nullptr) return -1;
    auto [it, fresh] = tensor_ids_.try_emplace(t.get(), int(tensors_.size()));
    if (fresh) tensors_.push_back({{"name", t->name}, {"shape", t->shape}, {"dtype", to_string(t->dtype)}});
    return it->second;
  }
  int var(const Var& v) {
    if (v == nullptr) return -1;
    auto [it, fresh] = var_ids_.try_emplace(v.get(), int(vars_.size()));
    if (fresh) vars_.push_back(v->name);
    return it->second;
  }
  json expr(const Expr& e) {
    if (e == nullptr) return nullptr;
    if (const auto* i = e->as<IntNode>()) return {{"k", "Int"}, {"v", i->value}, {"t", to_string(e->dtype)}};
    if (e->kind == ExprKind::kVar) return {{"k", "Var"}, {"var", var(std::static_pointer_cast<const VarNode>(e))}};
    if (const auto* s = e->as<SelectNode>()) {
      return {{"k", "Select"}, {"cond", expr(s->cond)}, {"a", expr(s->a)}, {"b", expr(s->b)}};
    }
    if (const auto* c = e->as<CastNode>()) return {{"k", "Cast"}, {"t", to_string(e->dtype)}, {"a", expr(c->value)}};
    if (const auto* b = e->as<BinaryNode>()) return {{"k", to_string(e->kind)}, {"a", expr(b->a)}, {"b", expr(b->b)}};
    throw ScheduleError(std::string("module: a ") + to_string(e->kind) +
                        " in the final program (a module holds no host computation)");
  }
  json exprs(const std::vector<Expr>& es) {
    json out = json::array();
    for (const auto& e : es) out.push_back(expr(e));
    return out;
  }
  json stmt(const Stmt& s) {
    if (const auto* f = s->as<ForNode>()) {
      return {{"k", "For"}, {"var", var(f->var)}, {"extent", f->extent}, {"body", stmt(f->body)}};
    }
    if (const auto* q = s->as<SeqNode>()) {
      json seq = json::array();
      for (const auto& c : q->seq) seq.push_back(stmt(c));
      return {{"k", "Seq"}, {"seq", seq}};
    }
    if (const auto* a = s->as<AllocateNode>()) {
      return {{"k", "Allocate"},
              {"tensor", tensor(a->tensor)},
              {"scope", a->scope},
              {"shape", a->shape},
              {"body", stmt(a->body)}};
    }
    if (const auto* a = s->as<AttrNode>()) {
      return {{"k", "Attr"}, {"var", var(a->var)}, {"key", a->key}, {"value", expr(a->value)}, {"body", stmt(a->body)}};
    }
    if (const auto* c = s->as<CallNode>()) {
      return {{"k", "Call"},
              {"name", c->name},
              {"tensor", tensor(c->dst)},
              {"src", tensor(c->src)},
              {"args", exprs(c->args)}};
    }
    throw ScheduleError("module: a host store to " + s->to<StoreNode>().tensor->name + " in the final program");
  }

  std::map<const TensorNode*, int> tensor_ids_;
  std::map<const ExprNode*, int> var_ids_;
  json tensors_ = json::array(), vars_ = json::array();
};

// ---- reading ---------------------------------------------------------------------------------------
class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  Module module(const json& j) {
    const std::string format = field(j, "format", "").get<std::string>();
    if (format != kFormat) fail("", "not a VTA module (format \"" + format + "\", expected \"" + kFormat + "\")");
    const int64_t version = integer(j, "version", "");
    if (version != kVersion) {
      fail("version",
           "version " + std::to_string(version) + " (this build reads version " + std::to_string(kVersion) + ")");
    }
    const std::string config = string(j, "config", "");
    if (config != vta::build_config().bitstream_name()) {
      fail("config", "built for hardware configuration " + config + ", this program runs " +
                         vta::build_config().bitstream_name());
    }
    const std::string target = string(j, "target", "");
    const json& ts = array(j, "tensors", "");
    for (size_t i = 0; i < ts.size(); ++i) {
      const std::string at = "tensors[" + std::to_string(i) + "]";
      const json& t = object(ts[i], at);
      std::vector<int64_t> shape;
      for (const json& d : array(t, "shape", at)) {
        if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > (int64_t{1} << 32)) {
          fail(at + ".shape", "extents are integers from 1 to 2^32");
        }
        shape.push_back(d.get<int64_t>());
      }
      tensors_.push_back(placeholder(shape, string(t, "name", at), dtype(string(t, "dtype", at), at + ".dtype")));
    }
    const json& vs = array(j, "vars", "");
    for (size_t i = 0; i < vs.size(); ++i) {
      if (!vs[i].is_string()) fail("vars[" + std::to_string(i) + "]", "a variable is its name, a string");
      vars_.push_back(make_var(vs[i].get<std::string>()));
    }
    const json& as = array(j, "args", "");
    for (size_t i = 0; i < as.size(); ++i) {
      const std::string at = "args[" + std::to_string(i) + "]";
      Tensor t = tensor_ref(as[i], at, false);
      if (std::find(args_.begin(), args_.end(), t) != args_.end()) fail(at, t->name + " is an argument twice");
      args_.push_back(std::move(t));
    }
    Stmt program = stmt(field(j, "program", ""), "program");
    return Module(std::move(program), args_, target, config);
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw ModuleError(origin_ + ": " + (path.empty() ? "" : path + ": ") + what);
  }
  const json& field(const json& j, const char* key, const std::string& at) const {
    if (!j.is_object()) fail(at, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) fail(at, std::string("missing \"") + key + "\"");
    return *it;
  }
  const json& object(const json& j, const std::string& at) const {
    if (!j.is_object()) fail(at, "expected an object");
    return j;
  }
  const json& array(const json& j, const char* key, const std::string& at) const {
    const json& a = field(j, key, at);
    if (!a.is_array()) fail(join(at, key), "expected an array");
    return a;
  }
  std::string string(const json& j, const char* key, const std::string& at) const {
    const json& s = field(j, key, at);
    if (!s.is_string()) fail(join(at, key), "expected a string");
    return s.get<std::string>();
  }
  int64_t integer(const json& j, const char* key, const std::string& at) const {
    const json& v = field(j, key, at);
    if (!v.is_number_integer()) fail(join(at, key), "expected an integer");
    return v.get<int64_t>();
  }
  static std::string join(const std::string& at, const std::string& key) { return at.empty() ? key : at + "." + key; }
  DType dtype(const std::string& name, const std::string& at) const {
    if (const auto t = dtype_from_string(name)) return *t;
    fail(at, "unknown element type \"" + name + "\" (int8, int32, bool)");
  }
  // The entry of `table` a reference names (-1: none, when `optional`); `what` names the table's kind.
  template <class T>
  T ref(const std::vector<T>& table, const char* what, const json& j, const std::string& at, bool optional) const {
    if (!j.is_number_integer()) fail(at, std::string("a ") + what + " reference is an index");
    const int64_t i = j.get<int64_t>();
    if (i == -1 && optional) return nullptr;
    if (i < 0 || size_t(i) >= table.size()) fail(at, std::string("no ") + what + " " + std::to_string(i));
    return table[size_t(i)];
  }
  Tensor tensor_ref(const json& j, const std::string& at, bool optional) const {
    return ref(tensors_, "tensor", j, at, optional);
  }
  Var var_ref(const json& j, const std::string& at, bool optional) const {
    return ref(vars_, "variable", j, at, optional);
  }

  // `evaluated`: the executor computes it, so every variable in it must be bound by a loop around it.
  Expr expr(const json& j, const std::string& at, int depth = 0, bool evaluated = true) const {
    if (depth > kMaxDepth) fail(at, "nested deeper than " + std::to_string(kMaxDepth));
    const std::string k = string(j, "k", at);
    auto sub = [&](const char* key) { return expr(field(j, key, at), at + "." + key, depth + 1, evaluated); };
    if (k == "Int") {
      return make_int(integer(j, "v", at), dtype(string(j, "t", at), at + ".t"));
    }
    if (k == "Var") {
      Var v = var_ref(field(j, "var", at), at + ".var", false);
      if (evaluated && std::find(bound_.begin(), bound_.end(), v.get()) == bound_.end()) {
        fail(at + ".var", "the variable " + v->name + " is not bound by a loop around its use");
      }
      return v;
    }
    if (k == "Select") return make_select(sub("cond"), sub("a"), sub("b"));
    if (k == "Cast") return make_cast(dtype(string(j, "t", at), at + ".t"), sub("a"));
#define VTA_MODULE_BINARY(kind, handler, node) \
  if (k == #kind) return make_binary(ExprKind::k##kind, sub("a"), sub("b"));
    VTA_IR_BINARY_KINDS(VTA_MODULE_BINARY)
#undef VTA_MODULE_BINARY
    fail(at + ".k", "unknown expression kind \"" + k + "\"");
  }

  // Statements are read in their context: the loop variables bound around them and whether they stand
  // inside a micro-op kernel. A program that reads is one the executor can run: every variable it
  // evaluates bound by a loop around it, every call with its intrinsic's arguments in its place.
  Stmt stmt(const json& j, const std::string& at, int depth = 0) {
    if (depth > kMaxDepth) fail(at, "nested deeper than " + std::to_string(kMaxDepth));
    const std::string k = string(j, "k", at);
    auto body = [&] { return stmt(field(j, "body", at), at + ".body", depth + 1); };
    if (k == "For") {
      const int64_t extent = integer(j, "extent", at);
      if (extent < 1 || extent > (int64_t{1} << 32)) fail(at + ".extent", "loop extents are from 1 to 2^32");
      Var v = var_ref(field(j, "var", at), at + ".var", false);
      if (std::find(bound_.begin(), bound_.end(), v.get()) != bound_.end()) {
        fail(at + ".var", "the variable " + v->name + " is bound by a loop around this one already");
      }
      bound_.push_back(v.get());
      Stmt b = body();
      bound_.pop_back();
      return make_for(std::move(v), extent, std::move(b));
    }
    if (k == "Seq") {
      std::vector<Stmt> seq;
      const json& items = array(j, "seq", at);
      for (size_t i = 0; i < items.size(); ++i) {
        seq.push_back(stmt(items[i], at + ".seq[" + std::to_string(i) + "]", depth + 1));
      }
      return make_seq(std::move(seq));
    }
    if (in_kernel_ && k != "Call") fail(at + ".k", "a " + k + " inside a micro-op kernel (loops, sequences and calls)");
    if (k == "Allocate") {
      std::vector<int64_t> shape;
      for (const json& d : array(j, "shape", at)) {
        if (!d.is_number_integer() || d.get<int64_t>() < 1) fail(at + ".shape", "extents are positive integers");
        shape.push_back(d.get<int64_t>());
      }
      return make_allocate(tensor_ref(field(j, "tensor", at), at + ".tensor", false), string(j, "scope", at), body(),
                           shape);
    }
    if (k == "Attr") {
      const json& value = field(j, "value", at);
      const std::string key = string(j, "key", at);
      // an annotation's value is never evaluated but for a kernel's kind
      Expr v = value.is_null() ? nullptr : expr(value, at + ".value", depth + 1, false);
      Var var = var_ref(field(j, "var", at), at + ".var", true);
      const bool kernel = key == attr::kCoprocUopScope;
      if (kernel && !is_const(v, attr::kUopKernelGemm) && !is_const(v, attr::kUopKernelAlu)) {
        fail(at + ".value", std::string("a micro-op kernel is of kind ") + std::to_string(attr::kUopKernelGemm) +
                                " (GEMM) or " + std::to_string(attr::kUopKernelAlu) + " (ALU)");
      }
      in_kernel_ = kernel;  // (a kernel holds no Attr: outside one, in_kernel_ was false)
      Stmt b = body();
      in_kernel_ = false;
      return make_attr(std::move(var), key, std::move(b), std::move(v));
    }
    if (k == "Call") return call(j, at, depth);
    fail(at + ".k", "unknown statement kind \"" + k + "\"");
  }

  Stmt call(const json& j, const std::string& at, int depth) {
    const std::string name = string(j, "name", at);
    const intrin::Signature* sig = intrin::signature(name);
    if (sig == nullptr) fail(at + ".name", "unknown intrinsic \"" + name + "\"");
    if (sig->in_kernel != in_kernel_) {
      fail(at + ".name", name + (sig->in_kernel ? " outside a micro-op kernel" : " inside a micro-op kernel"));
    }
    const json& as = array(j, "args", at);
    if (as.size() != size_t(sig->args)) {
      fail(at + ".args", name + " takes " + std::to_string(sig->args) + " arguments, not " + std::to_string(as.size()));
    }
    std::vector<Expr> args;
    for (size_t i = 0; i < as.size(); ++i) {
      const std::string arg_at = at + ".args[" + std::to_string(i) + "]";
      args.push_back(expr(as[i], arg_at, depth + 1));
      if (args.back()->dtype == DType::kBool) fail(arg_at, "an argument is an integer, not a comparison");
    }
    Tensor dst = tensor_ref(field(j, "tensor", at), at + ".tensor", true);
    Tensor src = tensor_ref(field(j, "src", at), at + ".src", true);
    if (!sig->tensors && (dst != nullptr || src != nullptr)) fail(at, name + " names no tensor");
    if (sig->tensors) {
      if (dst == nullptr || src == nullptr) fail(at, name + " names the tensor it writes and the tensor it reads");
      // the DRAM side of a transfer is one of the module's arguments: the buffer the caller gives
      const bool load = name == intrin::kLoadBuffer2D;
      const Tensor& dram = load ? src : dst;
      if (std::find(args_.begin(), args_.end(), dram) == args_.end()) {
        fail(at + (load ? ".src" : ".tensor"),
             name + " " + (load ? "reads " : "writes ") + dram->name + ", which is not an argument of the module");
      }
    }
    return make_call(name, std::move(dst), std::move(src), std::move(args));
  }

  static constexpr int kMaxDepth = 256;  // a bound on recursion for any input
  std::string origin_;
  std::vector<Tensor> tensors_;
  std::vector<Var> vars_;
  std::vector<Tensor> args_;
  std::vector<const ExprNode*> bound_;  // the loop variables around the statement being read
  bool in_kernel_ = false;
};

}  // namespace

std::string Module::to_json() const { return Writer().module(*this, target_).dump(1); }

Module Module::from_json(std::string_view text, const std::string& origin) {
  json j;
  try {
    // the parser recurses too: refuse a document nested past any module's depth before it does
    j = json::parse(text, [&](int depth, json::parse_event_t, json&) {
      if (depth > 4 * 256)
        throw ModuleError(origin + ": nested deeper than any module (" + std::to_string(depth) + ")");
      return true;
    });
  } catch (const json::exception& e) {
    throw ModuleError(origin + ": not JSON: " + e.what());
  }
  try {
    return Reader(origin).module(j);
  } catch (const ModuleError&) {
    throw;
  } catch (const std::exception& e) {  // a node the IR's constructors refuse
    throw ModuleError(origin + ": " + e.what());
  }
}

void Module::save(const std::string& path) const {
  const std::string text = to_json();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw ModuleError(path + ": cannot be written");
}

// ResNet-18's largest module file is under 1 MiB
constexpr uint64_t kMaxModuleFileBytes = uint64_t{256} << 20;

Module Module::load(const std::string& path) {
  return from_json(read_file_as<ModuleError>(path, kMaxModuleFileBytes), path);
}

}  // namespace vta::compiler
