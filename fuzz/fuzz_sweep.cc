// libFuzzer harness: vta-sweep's readers (docs/SWEEP.md). The first byte chooses what the rest is:
// 0, a spec (expand: configurations, workloads, backends; then the tasks read back and merged);
// 1, a sweep directory's tasks.json (read_tasks, then merge); 2, a task's result file beside a valid
// task list (merge). Every refusal is a SweepError naming the file and the key; nothing else escapes,
// nothing crashes. No task is run.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch.h"
#include "vta/sweep/sweep.h"

namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using vta::sweep::SweepError;
  static const fs::path base = vta::fuzz::scratch_dir("vta_fuzz_sweep");
  if (size == 0) return 0;
  const fs::path spec = base / "spec.json", dir = base / "sweep";
  try {
    switch (data[0] % 3) {
      case 0:
        write(spec, data + 1, size - 1);
        (void)vta::sweep::expand(spec, dir);
        (void)vta::sweep::read_tasks(dir);
        (void)vta::sweep::merge(dir);
        break;
      case 1:
        fs::remove_all(dir);
        fs::create_directories(dir / "results");
        write(dir / "tasks.json", data + 1, size - 1);
        (void)vta::sweep::read_tasks(dir);
        (void)vta::sweep::merge(dir);
        break;
      default: {
        static const char kSpec[] = R"({"workloads": [{"kind": "tutorial", "name": "matmul"}]})";
        write(spec, reinterpret_cast<const uint8_t*>(kSpec), sizeof kSpec - 1);
        (void)vta::sweep::expand(spec, dir);
        write(dir / "results" / "0.json", data + 1, size - 1);
        (void)vta::sweep::merge(dir);
        break;
      }
    }
  } catch (const SweepError&) {
  }
  return 0;
}
