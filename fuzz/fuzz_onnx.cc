// libFuzzer harness: an ONNX model imported from bytes; a float graph or ImportError, never a crash or
// an allocation past the importer's bounds. Small graphs that import are also run by the float
// reference and quantized (one calibration input), which must not crash either.
#include <cstdint>
#include <string_view>

#include "vta/driver/build_config.h"
#include "vta/network/onnx.h"

namespace {

bool small(const vta::network::FloatGraph& g) {
  for (const auto& [name, shape] : g.shapes) {
    if (vta::network::shape_elements(shape) > 4096) return false;
  }
  for (const auto& [name, c] : g.constants) {
    if (c.values.size() > 4096) return false;
  }
  return g.ops.size() <= 32;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto g =
        vta::network::import_onnx_bytes(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.onnx");
    if (!small(g)) return 0;
    const std::vector<float> x(size_t(g.elements(g.input)), 0.5f);
    (void)vta::network::run_float(g, x);
    (void)vta::network::quantize(g, {x}, vta::build_config());
  } catch (const vta::network::GraphError&) {  // ImportError, and the quantized graph's own refusals
  }
  return 0;
}
