// A model of the user's own through the installed libvta: an ONNX file imported, quantized with one
// calibration input, compiled and run on the default backend, every step checked against the int8
// reference. Usage: onnx MODEL.onnx
#include <vta/driver/build_config.h>
#include <vta/network/executor.h>
#include <vta/network/onnx.h>
#include <vta/network/reference.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  try {
    const auto g = vta::network::import_onnx(argv[1]);
    const std::vector<float> x(size_t(g.elements(g.input)), 0.25f);
    const auto q = vta::network::quantize(g, {x}, vta::build_config());
    vta::network::Executor ex(q.graph, vta::build_config());
    const auto in = q.quantize_input(x);
    const auto ref = vta::network::run_reference(q.graph, in);
    const bool ok = ex.run(in, {}, &ref).verified();
    std::printf("onnx: %zu operators, %zu steps, %s\n", g.ops.size(), ex.steps().size(), ok ? "verified" : "DIFFERENT");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnx: %s\n", e.what());
    return 1;
  }
}
