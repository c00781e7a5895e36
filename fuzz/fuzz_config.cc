// libFuzzer harness: a hardware configuration read from JSON text; valid or ConfigError, never a crash.
#include <cstdint>
#include <string_view>

#include "vta/driver/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const vta::Config c = vta::Config::from_json_text(std::string_view(reinterpret_cast<const char*>(data), size));
    (void)c.bitstream_name();
    (void)c.constants();
  } catch (const vta::ConfigError&) {
  }
  return 0;
}
