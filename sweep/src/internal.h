#pragma once
// Inside vta-sweep's library (not installed): what its files share. spec.cc expands a spec into tasks,
// workloads.cc runs one task's workload in this process, build_cache.cc finds or builds the tree of a
// task's configuration, executors.cc runs the tasks (local workers, a Slurm job array), report.cc
// merges the results (tables, the Pareto chart, RTL coverage); common.cc holds the helpers below.

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "build_facts.h"
#include "vta/driver/json_field.h"
#include "vta/sweep/sweep.h"

namespace vta::sweep {

namespace fs = std::filesystem;
using json = nlohmann::json;

inline constexpr int kMaxTasks = 100000;

/// A JSON file (at most 64 MiB); SweepError naming the file and `what` it is when unreadable or not JSON.
json read_json(const fs::path& path, const std::string& what);
/// Writes `j` whole or not at all (a reader never sees half a result); SweepError when it cannot.
void write_json(const fs::path& path, const json& j);
/// FNV-1a 64 of `text` as 16 hexadecimal digits: a configuration's hash (of its canonical text), a run's id.
std::string hash_of(const std::string& text);
/// The hash of this build's configuration.
const std::string& this_build_hash();
/// A field of a spec entry with its type checked (vta/driver/json_field.h): a SweepError naming
/// `where` and the key; `fallback` when the key is absent.
template <class T>
T field(const json& entry, const char* key, T fallback, const std::string& where) {
  if (!entry.is_object() || !entry.contains(key)) return fallback;
  try {
    return json_field<T>(entry, key);
  } catch (const std::invalid_argument& e) {
    throw SweepError(where + ": " + e.what());
  }
}
/// The kernels of a suite folder: built modules (.vtam) and captured runs (.vtacap), sorted.
std::vector<fs::path> suite_files(const fs::path& folder);
/// A task as tasks.json and its result hold it.
json task_json(const Task& t);
/// This program (vta-sweep), for the processes it starts.
fs::path self_path();
/// `program` as given when it is a path (it has a '/'), else found on the PATH; empty when it is not there.
fs::path find_program(const std::string& program);
/// Runs `program args` (found as find_program does) and waits for it at most `limit`: its exit status,
/// or nothing when it ran out of time (it is then terminated). Its standard output goes to `out` and
/// its standard error to `err` (the same file when both name it; "/dev/null" discards); empty paths
/// leave both to this process's. SweepError when the program is not found or cannot start. The one
/// place vta-sweep starts a process (Boost.Process is compiled in common.cc alone).
std::optional<int> run_bounded(const std::string& program, const std::vector<std::string>& args,
                               std::chrono::seconds limit, const fs::path& out = {}, const fs::path& err = {},
                               const fs::path& cwd = {});
/// run_bounded with both outputs in `log`; SweepError naming `what` (the program when empty) and the log
/// when it fails or runs out of time.
void run_logged(const std::string& program, const std::vector<std::string>& args, const fs::path& log,
                std::chrono::seconds limit, const fs::path& cwd = {}, const std::string& what = {});
/// An onnx workload's "calibration": `random:N` (vta/network/calibration.h; default random:2) or an
/// .npy file of inputs (the spec's path made absolute by spec.cc), as calibration_from_spec reads it;
/// SweepError naming `where` for a bad `random:` spelling.
std::string onnx_calibration(const json& w, const std::string& where);
/// Task `index` of `tasks`; SweepError naming `dir` when there is none.
const Task& task_at(const std::vector<Task>& tasks, const fs::path& dir, int index);

/// The file that marks a folder of a build cache as a tree vta-sweep made (build_cache.cc): only such
/// folders are ever removed from a cache.
inline constexpr const char* kTreeMarker = "vta-sweep-tree";
/// Removes the trees of `cache` that vta-sweep made (kTreeMarker) for a clone that is gone (their
/// CMakeCache.txt names a source folder that no longer exists); nothing else in the folder.
void remove_orphaned_trees(const fs::path& cache);

/// Runs `t` in this process (its configuration must be this build's) and writes its result
/// (workloads.cc); the verdict as an exit status.
int run_here(const fs::path& dir, const Task& t);

}  // namespace vta::sweep
