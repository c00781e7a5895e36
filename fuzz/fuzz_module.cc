// libFuzzer harness: a module file read and, when the reader accepts it, run on the fsim with every
// argument allocated. The reader must refuse what the executor cannot run; the executor must end
// every accepted program with a result or an exception (never a crash, a sanitizer report or a hang).
#include <cstdint>
#include <string_view>
#include <vector>

#include "vta/compiler/build.h"
#include "vta/runtime/tensor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vta::compiler;  // NOLINT
  std::optional<Module> m;
  try {
    m.emplace(Module::from_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz"));
  } catch (const ModuleError&) {
    return 0;
  }
  // arguments the size of a small program's (a real module's may be larger: not what is fuzzed here)
  int64_t elements = 0;
  for (const Tensor& t : m->args()) {
    if (t->dtype == DType::kBool) return 0;
    int64_t n = 1;
    for (int64_t d : t->shape) n = d > (int64_t{1} << 20) / n ? (int64_t{1} << 21) : n * d;
    elements += n;
  }
  if (elements > (int64_t{1} << 20)) return 0;
  std::vector<vta::runtime::DeviceTensor> tensors;
  std::vector<const vta::runtime::DeviceTensor*> args;
  tensors.reserve(m->args().size());
  for (const Tensor& t : m->args()) {
    tensors.emplace_back(t->shape, t->dtype == DType::kInt32 ? vta::runtime::DType::kInt32 : vta::runtime::DType::kInt8,
                         t->name);
  }
  for (const auto& t : tensors) args.push_back(&t);
  CallLimits limits;
  limits.max_host_steps = 1 << 16;  // a fuzz input runs in milliseconds
  try {
    (*m)(args, limits);
  } catch (const std::exception&) {
  }
  return 0;
}
