#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

class Substitute final : public IRMutator {
 public:
  explicit Substitute(const VarMap& m) : m_(m) {}

 protected:
  Expr visit_var(const Expr& e, const VarNode&) override {
    auto it = m_.find(e.get());
    return it == m_.end() ? e : it->second;
  }

 private:
  const VarMap& m_;
};

}  // namespace

Expr substitute(const Expr& e, const VarMap& m) { return Substitute(m).mutate(e); }
Stmt substitute(const Stmt& s, const VarMap& m) { return Substitute(m).mutate(s); }

}  // namespace vta::compiler
