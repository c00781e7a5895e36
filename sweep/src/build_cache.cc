// The build tree of a task's configuration (docs/SWEEP.md "configurations"): one per configuration,
// beside this build tree or in a shared cache, built once under a lock, its vta-sweep running the task.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "internal.h"
#include "vta/driver/file.h"

namespace vta::sweep {

// The trees of clones that are gone are removed from a shared cache: nothing can use them, and each is
// about 100 MB. Only the trees this program marked as its own are looked at (a user's own build tree in
// the same folder is left alone, whatever its state).
void remove_orphaned_trees(const fs::path& cache) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache, ec)) {
    if (!fs::is_regular_file(entry.path() / kTreeMarker, ec)) continue;
    std::ifstream in(entry.path() / "CMakeCache.txt");
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with(key)) continue;
      if (!fs::exists(line.substr(key.size()), ec)) fs::remove_all(entry.path(), ec);
      break;
    }
  }
}

namespace {

// Whether `program` starts: a tree whose vta-sweep was cut short (a full disk, a build killed while it
// linked) has a file ninja thinks is up to date and the kernel cannot run.
bool program_starts(const fs::path& program) {
  std::error_code ec;
  if (!fs::is_regular_file(program, ec)) return false;
  try {
    return run_bounded(program.string(), {"--help"}, std::chrono::seconds(60), "/dev/null", "/dev/null") == 0;
  } catch (const std::exception&) {  // (execve failed: not a program)
    return false;
  }
}

// Whether this program is the vta-sweep of the build tree it was built in (not an installed copy).
bool runs_from_build_tree() {
  std::error_code ec;
  const fs::path tree(kBuild.binary_dir);
  return fs::exists(tree / "CMakeCache.txt", ec) && fs::equivalent(self_path(), tree / "tools" / "vta-sweep", ec);
}

// Where the tree of configuration `hash` goes. With no cache named, beside this build tree:
// <build>-sweep-<hash>, at the build tree's own depth, so the compiler cache (which rewrites paths under the
// source tree relative to each compile's directory) serves every object that does not read the
// configuration: about 35 s of CPU for a tree instead of 5 minutes (measured). A named cache (or an installed
// vta-sweep, whose trees go to ~/.cache/vta/sweep-trees) is shared by clones: <cache>/<hash>-<source>, the
// source tree's hash telling the trees of two clones apart (a tree configured from another clone would
// build that clone's sources, or fail once the clone is gone).
fs::path tree_path(const fs::path& cache, const std::string& hash, bool coverage) {
  const std::string suffix = coverage ? "-coverage" : "";
  if (cache.empty() && runs_from_build_tree()) {
    const fs::path build(kBuild.binary_dir);
    return build.parent_path() / (build.filename().string() + "-sweep-" + hash + suffix);
  }
  fs::path shared = cache;
  if (shared.empty()) {
    const char* home = std::getenv("HOME");
    shared = fs::path(home != nullptr ? home : "/tmp") / ".cache" / "vta" / "sweep-trees";
  }
  fs::create_directories(shared);
  remove_orphaned_trees(shared);
  static const std::string source = hash_of(kBuild.source_dir).substr(0, 8);
  return shared / (hash + "-" + source + suffix);
}

// This configuration's build tree brought up to date with this source tree (made by the first task that
// needs it; the others wait on the tree's lock, then find nothing to do); its vta-sweep. A coverage tree
// (VTA_TSIM_COVERAGE) is a tree of its own.
fs::path tree_for(const fs::path& dir, const std::string& hash, const fs::path& cache, bool coverage) {
  const fs::path tree = tree_path(cache, hash, coverage);
  fs::create_directories(tree);
  fs::path program = tree / "tools" / "vta-sweep";
  const UniqueFd lock(::open((tree / "vta-sweep.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644));
  if (!lock.valid()) throw SweepError("cannot open the lock of " + tree.string());
  ::flock(lock.get(), LOCK_EX);  // (released when it closes, or when the process ends)
  std::ofstream(tree / kTreeMarker) << "a build tree of vta-sweep's, for configuration " << hash << "\n";
  const fs::path log = tree / "vta-sweep-build.log";
  auto build_tree = [&] {
    run_logged("bash",
               {std::string(kBuild.source_dir) + "/scripts/build.sh", tree.string(), "-DCMAKE_BUILD_TYPE=Release",
                "-DVTA_CONFIG=" + (dir / "configs" / (hash + ".json")).string(), "-DVTA_BUILD_BENCHMARKS=OFF",
                "-DVTA_BUILD_HW_TESTS=OFF", "-DVTA_BUILD_PYTHON=OFF",
                std::string("-DVTA_TSIM_COVERAGE=") + (coverage ? "ON" : "OFF"), "--target", "vta-sweep"},
               log, std::chrono::hours(2), {}, "building " + tree.string());
  };
  build_tree();
  if (!program_starts(program)) {  // a damaged program: linked again from its objects
    std::error_code ec;
    fs::remove(program, ec);
    build_tree();
    if (!program_starts(program)) {
      throw SweepError(program.string() + " was built but does not start (see " + log.string() + ")");
    }
  }
  return program;
}

}  // namespace

void check_cache(const fs::path& cache) {
  if (cache.empty()) return;
  const std::string name = "the build cache " + cache.string();
  std::error_code ec;
  fs::create_directories(cache, ec);
  if (ec) throw SweepError(name + " cannot be made: " + ec.message());
  if (!fs::is_directory(cache, ec)) throw SweepError(name + " is not a folder");
  const fs::path probe = cache / (".vta-sweep-probe-" + std::to_string(::getpid()));
  if (!UniqueFd(::open(probe.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644)).valid()) {
    throw SweepError(name + " is not writable: " + std::error_code(errno, std::generic_category()).message());
  }
  fs::remove(probe, ec);
}

int run_task(const fs::path& dir, int index, const fs::path& cache) {
  const std::vector<Task> tasks = read_tasks(dir);
  const Task& t = task_at(tasks, dir, index);
  // a coverage task needs a coverage build; any other task runs in this build if its configuration is
  // this build's (a coverage build runs it too, counting nothing: building a second tree for it took
  // minutes)
  if (t.config_hash != this_build_hash() || (t.coverage && !kBuild.tsim_coverage)) {
    const fs::path program = tree_for(dir, t.config_hash, cache, t.coverage);
    // (the task's own bound is its starter's: the local executor's --task-seconds, Slurm's time limit)
    const std::optional<int> status =
        run_bounded(program.string(), {"task", dir.string(), std::to_string(index), "--here"}, std::chrono::hours(24));
    if (!status) throw SweepError("task " + std::to_string(index) + " ran more than 24 hours in " + program.string());
    return *status;
  }
  return run_here(dir, t);
}

}  // namespace vta::sweep
