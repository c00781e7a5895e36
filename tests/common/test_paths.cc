#include "test_paths.h"

#include <unistd.h>

namespace vta::test {

std::filesystem::path source_path(const std::filesystem::path& relative) {
  return std::filesystem::path(VTA_SOURCE_DIR) / relative;
}

std::filesystem::path generated_sv_package() { return VTA_GENERATED_SV_PACKAGE; }

std::filesystem::path scratch_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
}

}  // namespace vta::test
