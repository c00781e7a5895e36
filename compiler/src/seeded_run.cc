// A module run with seeded inputs (vta/compiler/seeded_run.h).

#include "vta/compiler/seeded_run.h"

#include <algorithm>
#include <random>
#include <span>
#include <stdexcept>

#include "vta/driver/hash.h"
#include "vta/driver/memory.h"
#include "vta/runtime/context.h"
#include "vta/runtime/tensor.h"

namespace vta::compiler {

uint64_t SeededRun::checksum() const { return fnv1a64(output); }

SeededRun run_seeded(const Module& module, std::unique_ptr<Device> device, uint32_t seed) {
  if (module.args().empty()) throw std::invalid_argument("the module has no arguments");
  runtime::Context ctx(std::move(device), Dram::global());
  std::mt19937 rng(seed);
  std::vector<runtime::DeviceTensor> tensors;
  tensors.reserve(module.args().size());
  for (size_t i = 0; i < module.args().size(); ++i) {
    const Tensor& t = module.args()[i];
    tensors.emplace_back(t->shape, device_dtype(t->dtype), t->name);
    if (i + 1 == module.args().size()) break;  // the output
    // values over the whole range of the type (int4: [-8, 7])
    const int64_t top = (int64_t{1} << std::min(bits(t->dtype) - 1, 7)) - 1;
    std::uniform_int_distribution<int> dist(int(-top - 1), int(top));
    if (t->dtype == DType::kInt32) {
      std::vector<int32_t> v(tensors.back().elements());
      for (auto& x : v) x = dist(rng);
      tensors.back().copy_from(v);
    } else {
      std::vector<int8_t> v(tensors.back().elements());
      for (auto& x : v) x = int8_t(dist(rng));
      tensors.back().copy_from(v);
    }
  }
  std::vector<void*> args;
  args.reserve(tensors.size());
  for (const auto& t : tensors) args.push_back(t.handle());
  SeededRun r;
  try {
    module.call(ctx, args);
  } catch (const std::exception& e) {
    r.result.status = RunStatus::kError;
    r.result.kind = ErrorKind::kInternal;
    r.result.error = e.what();
  }
  r.result.stats = ctx.device().stats();
  const runtime::DeviceTensor& out = tensors.back();
  r.output_name = out.name();
  r.output_elements = out.elements();
  if (r.result.status == RunStatus::kOk) {
    // (int4 outputs one int8 value an element, as copy_to unpacks them)
    r.output.resize(out.dtype() == runtime::DType::kInt4 ? out.elements() : out.bytes());
    if (out.dtype() == runtime::DType::kInt32) {
      out.copy_to(std::span<int32_t>(reinterpret_cast<int32_t*>(r.output.data()), out.elements()));
    } else {
      out.copy_to(std::span<int8_t>(reinterpret_cast<int8_t*>(r.output.data()), out.elements()));
    }
  }
  return r;
}

}  // namespace vta::compiler
