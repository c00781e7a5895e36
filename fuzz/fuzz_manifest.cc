// libFuzzer harness: a weights manifest (manifest.json) read into a small ResNet-18 graph, beside one
// valid .npy file; the weights load or a GraphError names the problem, never a crash.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch.h"
#include "vta/network/npy.h"
#include "vta/network/resnet18.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vta::network;  // NOLINT
  static const std::filesystem::path dir = vta::fuzz::scratch_dir("vta_fuzz_manifest");
  static const Graph small = [] {
    ResNet18Options o;
    o.image = 32, o.classes = 10, o.width = 16;
    Graph g = resnet18(o);
    save_weights(g, dir);  // every weight's .npy, which a fuzzed manifest may name
    return g;
  }();
  {
    std::ofstream out(dir / "manifest.json", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  Graph g = small;
  try {
    load_weights(g, dir);
  } catch (const GraphError&) {
  } catch (const NpyError&) {
  }
  return 0;
}
