// The tsim's coverage totals (coverage.h).

#include "coverage.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include "vta/driver/file.h"

#if VM_COVERAGE
#include <verilated_cov.h>
#endif

namespace vta::tsim {
#if VM_COVERAGE
namespace {

struct Totals {
  std::mutex mutex;
  std::map<std::string, unsigned long long> counts;  // by the point's key (Verilator's encoding)
  std::filesystem::path file;
};

Totals& totals() {
  static Totals* t = new Totals;  // (never destroyed: the exit handler uses it)
  return *t;
}

// Writes the totals in Verilator's coverage format ("C '<key>' <count>" per point).
void write_totals() {
  Totals& t = totals();
  const std::lock_guard<std::mutex> lock(t.mutex);
  if (t.counts.empty()) return;
  std::ostringstream text;
  text << "# SystemC::Coverage-3\n";
  for (const auto& [key, count] : t.counts) text << "C '" << key << "' " << count << "\n";
  try {
    write_file(t.file, text.str());  // (whole or not at all: a merge never reads half a file)
  } catch (const FileError& e) {
    std::fprintf(stderr, "vta tsim: cannot write coverage: %s\n", e.what());
  }
}

// Adds the points of a file Verilator wrote to the totals.
void add_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  Totals& t = totals();
  const std::lock_guard<std::mutex> lock(t.mutex);
  while (std::getline(in, line)) {
    if (line.size() < 5 || line[0] != 'C') continue;
    const size_t open = line.find('\'');
    const size_t close = line.rfind('\'');
    if (open == std::string::npos || close <= open) continue;
    t.counts[line.substr(open + 1, close - open - 1)] += std::strtoull(line.c_str() + close + 1, nullptr, 10);
  }
}

}  // namespace
#endif

void collect_coverage([[maybe_unused]] VerilatedContext& ctx) {
#if VM_COVERAGE
  const char* dir = std::getenv("VTA_COVERAGE_DIR");
  if (dir == nullptr || *dir == '\0') return;
  static const bool registered = [&] {
    char host[256] = "host";
    ::gethostname(host, sizeof host - 1);
    std::filesystem::create_directories(dir);
    totals().file = std::filesystem::path(dir) / (std::string(host) + "-" + std::to_string(::getpid()) + ".dat");
    std::atexit(write_totals);
    return true;
  }();
  (void)registered;
  static std::atomic<unsigned> models{0};  // (models may end on several threads at once)
  const std::filesystem::path tmp = totals().file.string() + "." + std::to_string(models++) + ".model";
  ctx.coveragep()->write(tmp.c_str());
  add_file(tmp);
  std::filesystem::remove(tmp);
#endif
}

}  // namespace vta::tsim
