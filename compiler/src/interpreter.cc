// The reference interpreter: runs lowered IR on host buffers, the independent check of every pass.

#include "vta/compiler/interpreter.h"

#include <memory>

#include "evaluator.h"
#include "sram.h"
#include "vta/compiler/names.h"
#include "vta/compiler/printer.h"

namespace vta::compiler {
namespace {

class Interpreter final : public Evaluator, private StmtFunctor<void> {
 public:
  explicit Interpreter(const Stmt& program) : Evaluator("run"), sram_(std::make_unique<SramPlan>(program)) {}
  void exec(const Stmt& s) { StmtFunctor<void>::dispatch(s); }

  std::map<const TensorNode*, std::vector<int64_t>*> buffers;

 private:
  std::map<const TensorNode*, std::vector<int64_t>> shapes_;  // buffer extents (a region for some)
  std::vector<std::unique_ptr<std::vector<int64_t>>> owned_;
  std::unique_ptr<SramPlan> sram_;  // where each on-chip buffer starts (DMA calls index from there)

  size_t offset(const Tensor& t, const std::vector<Expr>& idx) {
    auto sh = shapes_.find(t.get());
    const std::vector<int64_t>& shape = sh == shapes_.end() ? t->shape : sh->second;
    size_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t i = eval(idx[d]);
      if (i < 0 || i >= shape[d]) {
        throw InternalError("run: index " + std::to_string(i) + " of dimension " + std::to_string(d) + " of " +
                            t->name + " is outside [0, " + std::to_string(shape[d]) + ")");
      }
      off = off * size_t(shape[d]) + size_t(i);
    }
    return off;
  }
  size_t flat_offset(const Tensor& t, const Expr& e) {
    const int64_t i = eval(e);
    const int64_t n = int64_t(buffer(t).size());
    if (i < 0 || i >= n) {
      throw InternalError("run: offset " + std::to_string(i) + " of " + t->name + " is outside [0, " +
                          std::to_string(n) + ")");
    }
    return size_t(i);
  }
  std::vector<int64_t>& buffer(const Tensor& t) {
    auto it = buffers.find(t.get());
    if (it == buffers.end()) throw InternalError("run: no storage for tensor " + t->name);
    return *it->second;
  }

  int64_t visit_read(const Expr&, const ReadNode& op) override {
    return buffer(op.tensor)[op.flat ? flat_offset(op.tensor, op.indices[0]) : offset(op.tensor, op.indices)];
  }

  void visit_for(const Stmt&, const ForNode& op) override {
    for (int64_t i = 0; i < op.extent; ++i) {
      bind(op.var, i);
      exec(op.body);
    }
    unbind(op.var);
  }
  void visit_store(const Stmt&, const StoreNode& op) override {
    const int64_t v = wrap(eval(op.value), op.tensor->dtype);
    buffer(op.tensor)[op.flat ? flat_offset(op.tensor, op.indices[0]) : offset(op.tensor, op.indices)] = v;
  }
  void visit_seq(const Stmt&, const SeqNode& op) override {
    for (const auto& x : op.seq) exec(x);
  }
  void visit_attr(const Stmt&, const AttrNode& op) override { exec(op.body); }
  void visit_allocate(const Stmt&, const AllocateNode& op) override {
    int64_t n = 1;
    for (int64_t d : op.shape) n *= d;
    owned_.push_back(std::make_unique<std::vector<int64_t>>(size_t(n), 0));
    buffers[op.tensor.get()] = owned_.back().get();
    shapes_[op.tensor.get()] = op.shape;
    exec(op.body);
    buffers.erase(op.tensor.get());
    shapes_.erase(op.tensor.get());
  }
  /// The DMA intrinsics, element by element (an element = the product of the last two dimensions).
  void visit_call(const Stmt&, const CallNode& s) override {
    std::vector<int64_t> a;
    for (const auto& e : s.args) a.push_back(eval(e));
    std::vector<int64_t>& dst = buffer(s.dst);
    std::vector<int64_t>& src = buffer(s.src);
    const size_t rank = s.dst->shape.size();
    const int64_t elem = s.dst->shape[rank - 1] * s.dst->shape[rank - 2];
    int64_t src_off, dst_off, x_size, y_size, stride, xp0 = 0, yp0 = 0, xp1 = 0, yp1 = 0;
    const bool load = s.name == intrin::kLoadBuffer2D;
    // SRAM indices count from the start of the scope's SRAM: subtract where the buffer starts
    auto base = [&](const Tensor& t) {
      const SramBuffer* b = sram_->find(t);
      return b == nullptr ? 0 : b->base;
    };
    if (load) {
      src_off = a[0], x_size = a[1], y_size = a[2], stride = a[3], xp0 = a[4], yp0 = a[5], xp1 = a[6], yp1 = a[7];
      dst_off = a[8] - base(s.dst);
    } else if (s.name == intrin::kStoreBuffer2D) {
      src_off = a[0] - base(s.src), dst_off = a[2], x_size = a[3], y_size = a[4], stride = a[5];
    } else {
      throw InternalError("run: unknown intrinsic " + s.name);
    }
    const int64_t width = xp0 + x_size + xp1, height = yp0 + y_size + yp1;
    for (int64_t y = 0; y < height; ++y) {
      for (int64_t x = 0; x < width; ++x) {
        const bool pad = y < yp0 || y >= yp0 + y_size || x < xp0 || x >= xp0 + x_size;
        const int64_t se = load ? src_off + (y - yp0) * stride + (x - xp0) : src_off + y * x_size + x;
        const int64_t de = load ? dst_off + y * width + x : dst_off + y * stride + x;
        for (int64_t k = 0; k < elem; ++k) {
          const size_t di = size_t(de * elem + k);
          if (di >= dst.size()) throw InternalError("run: " + s.name + " outside " + s.dst->name);
          if (pad) {
            dst[di] = 0;
            continue;
          }
          const size_t si = size_t(se * elem + k);
          if (se < 0 || si >= src.size()) throw InternalError("run: " + s.name + " outside " + s.src->name);
          dst[di] = wrap(src[si], s.dst->dtype);
        }
      }
    }
  }
};

}  // namespace

void run(const Stmt& s, const Buffers& args) {
  Interpreter in(s);
  for (const auto& [t, b] : args) {
    if (b->size() != size_t(t->elements())) {
      throw std::invalid_argument("run: buffer of " + t->name + " has " + std::to_string(b->size()) +
                                  " elements, not " + std::to_string(t->elements()));
    }
    in.buffers[t] = b;
  }
  in.exec(s);
}

}  // namespace vta::compiler
