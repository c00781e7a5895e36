#include "vta/driver/build_config.h"

#include "vta/hw_config.h"

namespace vta {

const Config& build_config() {
  static const Config config = Config::from_json_text(VTA_CONFIG_JSON, "the build's configuration (vta/hw_config.h)");
  return config;
}

}  // namespace vta
