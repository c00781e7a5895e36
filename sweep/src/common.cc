// vta-sweep's shared helpers (declared in internal.h): JSON files, hashes, tasks as JSON, bounded
// waits for the processes it starts.

#include <boost/process.hpp>
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

namespace {

namespace bp = boost::process;

// Waits for `c` at most `limit` (Boost 1.74's child::wait_for can spin forever once the child has
// exited: polled instead); false, with the child terminated, when it ran out of time.
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

}  // namespace

fs::path find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  return bp::search_path(program).string();
}

std::optional<int> run_bounded(const std::string& program, const std::vector<std::string>& args,
                               std::chrono::seconds limit, const fs::path& out, const fs::path& err,
                               const fs::path& cwd) {
  const fs::path exe = find_program(program);
  if (exe.empty()) throw SweepError(program + " is not on the PATH (scripts/setup.sh installs it)");
  const std::string dir = cwd.empty() ? fs::current_path().string() : cwd.string();
  try {
    auto wait = [&](bp::child c) -> std::optional<int> {
      if (!wait_bounded(c, limit)) return std::nullopt;
      return c.exit_code();
    };
    if (out.empty() && err.empty()) return wait(bp::child(exe.string(), bp::args(args), bp::start_dir(dir)));
    const std::string o = out.empty() ? "/dev/null" : out.string(), e = err.empty() ? "/dev/null" : err.string();
    if (o == e)
      return wait(bp::child(exe.string(), bp::args(args), (bp::std_out & bp::std_err) > o, bp::start_dir(dir)));
    return wait(bp::child(exe.string(), bp::args(args), bp::std_out > o, bp::std_err > e, bp::start_dir(dir)));
  } catch (const bp::process_error& e) {
    throw SweepError(exe.string() + " could not start: " + e.what());
  }
}

void run_logged(const std::string& program, const std::vector<std::string>& args, const fs::path& log,
                std::chrono::seconds limit, const fs::path& cwd, const std::string& what) {
  const std::string name = what.empty() ? program : what;
  const std::optional<int> status = run_bounded(program, args, limit, log, log, cwd);
  if (!status) {
    throw SweepError(name + " did not finish within " + std::to_string(limit.count()) + " s (" + log.string() + ")");
  }
  if (*status != 0) throw SweepError(name + " failed: see " + log.string());
}

std::string onnx_calibration(const json& w, const std::string& where) {
  std::string cal = w.value("calibration", "random:2");
  try {
    (void)network::parse_random_spec(cal, where + ": calibration");  // (nothing: a file)
  } catch (const network::ImportError& e) {
    throw SweepError(e.what());
  }
  return cal;
}

const Task& task_at(const std::vector<Task>& tasks, const fs::path& dir, int index) {
  if (index < 0 || index >= int(tasks.size())) {
    throw SweepError(dir.string() + ": no task " + std::to_string(index) + " (" + std::to_string(tasks.size()) +
                     " tasks)");
  }
  return tasks[size_t(index)];
}

}  // namespace vta::sweep
