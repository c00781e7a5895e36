// libFuzzer harness: a capture file read and, when the reader accepts it, replayed on the fsim under
// a small budget. Reader and replay must refuse or report, never crash.
#include <cstdint>
#include <string>

#include "vta/driver/capture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vta::Capture c;
  try {
    c = vta::Capture::from_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const std::exception&) {
    return 0;
  }
  vta::ReplayOptions o;
  o.target = "fsim";
  o.budget = 1 << 16;
  try {
    (void)vta::replay(c, o);
  } catch (const std::exception&) {
  }
  return 0;
}
