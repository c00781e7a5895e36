// Flattening: every multi-dimensional access becomes one row-major offset into its buffer (the
// allocation's extents for intermediates, the tensor's shape for arguments), as the seeds print.

#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

class Flatten final : public IRMutator {
 protected:
  Expr visit_read(const Expr& e, const ReadNode& op) override {
    return op.flat ? e : make_flat_read(op.tensor, offset(op.tensor, op.indices));
  }
  Stmt visit_store(const Stmt& s, const StoreNode& op) override {
    return op.flat ? s : make_flat_store(op.tensor, offset(op.tensor, op.indices), mutate(op.value));
  }
  Stmt visit_allocate(const Stmt& s, const AllocateNode& op) override {
    shapes_[op.tensor.get()] = op.shape;
    return IRMutator::visit_allocate(s, op);
  }

 private:
  Expr offset(const Tensor& t, const std::vector<Expr>& idx) {
    auto it = shapes_.find(t.get());
    const std::vector<int64_t>& shape = it == shapes_.end() ? t->shape : it->second;
    // sum of index * stride, outermost first (the seeds' form: ((co*16384) + (ic*256)) + ...)
    const std::vector<int64_t> stride = row_major_strides(shape);
    Expr off;
    for (size_t d = 0; d < idx.size(); ++d) {
      Expr term = simplify(mutate(idx[d]) * stride[d]);
      if (is_const(term, 0)) continue;
      off = off ? off + term : term;
    }
    return off ? simplify(off) : make_int(0);
  }
  std::map<const TensorNode*, std::vector<int64_t>> shapes_;
};

}  // namespace

Stmt flatten(const Stmt& s) { return Flatten{}.mutate(s); }

}  // namespace vta::compiler
