#include "vta/tsim/rtl_assert.h"

#include <cstdio>

namespace vta::tsim {
namespace {

thread_local AssertionLog* t_active = nullptr;

// The RTL is Verilated with paths relative to the directory that builds the model
// (cmake/VtaVerilate.cmake): "../hw/rtl/vta_fetch.sv" is named as the repository's hw/rtl/vta_fetch.sv.
const char* source_name(const char* file) {
  while (file[0] == '.' && file[1] == '.' && file[2] == '/') file += 3;
  return file;
}

}  // namespace

std::string AssertionFailure::to_string() const { return path + " (" + file + ":" + std::to_string(line) + ")"; }

AssertionLog::Scope::Scope(AssertionLog& log) : outer_(t_active) { t_active = &log; }
AssertionLog::Scope::~Scope() { t_active = outer_; }

void AssertionLog::record(const char* name, const char* path, const char* file, int line) {
  for (auto& f : failures_) {
    if (f.path == path) {
      ++f.count;
      return;
    }
  }
  if (failures_.size() < kMaxDistinct) failures_.push_back({name, path, source_name(file), line, 1});
}

std::string AssertionLog::take_report(uint64_t cycle) {
  if (failures_.empty()) return {};
  std::string d = "RTL assertion " + failures_.front().name + " failed by cycle " + std::to_string(cycle) +
                  " (a hardware or bus-model bug: please report it)\n";
  for (const auto& f : failures_)
    d += "  " + f.to_string() + (f.count > 1 ? ", " + std::to_string(f.count) + " times" : "") + "\n";
  failures_.clear();
  return d;
}

}  // namespace vta::tsim

extern "C" void vta_assert_failed(const char* name, const char* path, const char* file, int line) {
  if (vta::tsim::t_active != nullptr) {
    vta::tsim::t_active->record(name, path, file, line);
    return;
  }
  std::fprintf(stderr, "vta: RTL assertion %s failed: %s (%s:%d)\n", name, path, vta::tsim::source_name(file), line);
}
