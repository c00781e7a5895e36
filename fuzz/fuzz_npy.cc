// libFuzzer harness: a NumPy .npy file read (written to a temporary file first: the readers take a
// path) by both readers (int8/int32 weights; any numeric type as floats); an array or NpyError, never
// a crash or an allocation past the reader's bound.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch.h"
#include "vta/network/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path path = vta::fuzz::scratch_dir("vta_fuzz_npy") / "input.npy";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  try {
    (void)vta::network::read_npy(path);
  } catch (const vta::network::NpyError&) {
  }
  try {
    (void)vta::network::read_npy_floats(path);
  } catch (const vta::network::NpyError&) {
  }
  return 0;
}
