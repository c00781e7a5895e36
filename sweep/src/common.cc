// vta-sweep's shared helpers (declared in internal.h): JSON files, hashes, tasks as JSON, bounded
// waits for the processes it starts.

#include <fstream>
#include <thread>

#include "internal.h"
#include "vta/driver/build_config.h"
#include "vta/driver/file.h"
#include "vta/driver/hash.h"
#include "vta/network/calibration.h"

namespace vta::sweep {

json read_json(const fs::path& path, const std::string& what) {
  const std::string text = read_file_as<SweepError>(path, 64 << 20, what + ": ");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw SweepError(path.string() + ": " + what + " is not JSON: " + e.what());
  }
}

void write_json(const fs::path& path, const json& j) {
  try {
    write_file(path, j.dump(2) + "\n");  // whole or not at all: a reader never sees half a result
  } catch (const FileError& e) {
    throw SweepError(e.what());
  }
}

std::string hash_of(const std::string& text) { return hex64(fnv1a64(text)); }

const std::string& this_build_hash() {
  static const std::string h = hash_of(build_config().to_json_text());
  return h;
}

std::vector<fs::path> suite_files(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.is_regular_file() && (e.path().extension() == ".vtam" || e.path().extension() == ".vtacap")) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

json task_json(const Task& t) {
  json j = {
      {"index", t.index}, {"config", t.config},  {"config_hash", t.config_hash}, {"workload", json::parse(t.workload)},
      {"label", t.label}, {"backend", t.backend}};
  if (t.coverage) j["coverage"] = true;
  return j;
}

fs::path self_path() { return fs::read_symlink("/proc/self/exe"); }

bool wait_bounded(bp::child& c, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (c.running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      c.terminate();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  c.wait();
  return true;
}

int64_t onnx_calibration_count(const json& w, const std::string& where) {
  const std::string cal = w.value("calibration", "random:2");
  try {
    if (const auto count = network::parse_random_spec(cal, where + ": calibration")) return *count;
  } catch (const network::ImportError& e) {
    throw SweepError(e.what());
  }
  throw SweepError(where + ": calibration \"" + cal + "\" (random:N)");
}

const Task& task_at(const std::vector<Task>& tasks, const fs::path& dir, int index) {
  if (index < 0 || index >= int(tasks.size())) {
    throw SweepError(dir.string() + ": no task " + std::to_string(index) + " (" + std::to_string(tasks.size()) +
                     " tasks)");
  }
  return tasks[size_t(index)];
}

}  // namespace vta::sweep
