#pragma once
// A harness's scratch directory (for readers that take a path): one per process under the temporary
// directory, removed with everything in it when the fuzzer exits.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace vta::fuzz {

inline std::filesystem::path scratch_dir(const std::string& name) {
  static auto* made = new std::vector<std::filesystem::path>;  // (read by the exit handler: never destroyed)
  static const bool registered = [] {
    std::atexit([] {
      for (const auto& d : *made) {
        std::error_code ignored;
        std::filesystem::remove_all(d, ignored);
      }
    });
    return true;
  }();
  (void)registered;
  auto d = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  made->push_back(d);
  return d;
}

}  // namespace vta::fuzz
