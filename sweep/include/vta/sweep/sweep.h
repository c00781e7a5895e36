#pragma once
/// \file vta/sweep/sweep.h
/// Sweeps and regressions (docs/SWEEP.md): a spec names configurations, workloads and backends; it
/// expands into independent tasks (one configuration x one workload x one backend each) in a sweep
/// directory; each task runs in a process of its own (on this machine, or as one index of a Slurm job
/// array) and writes one JSON result; merging joins the results into one table (JSON, CSV, Markdown)
/// and a JUnit file. A task whose configuration is not this build's runs the vta-sweep of a build tree
/// made for that configuration (named by the configuration's hash, built once under a lock).

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace vta::sweep {

/// A spec, a sweep directory or a task that cannot be used; the message names the file and the entry.
class SweepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Task {
  int index = 0;
  std::string config;       ///< the configuration's name (its file's, or base + the varied keys)
  std::string config_hash;  ///< of its canonical JSON: its file is <dir>/configs/<hash>.json
  std::string workload;     ///< the workload as JSON text ({"kind": "tutorial", "name": "matmul"}, ...)
  std::string label;        ///< the workload in a few words ("tutorial matmul", "resnet18 64")
  std::string backend;      ///< fsim, tsim, systemc (yosys for a synthesis task)
  bool coverage = false;    ///< run in a coverage tree, writing <dir>/coverage/raw/ (docs/COVERAGE.md)
  std::string run;          ///< the run that expanded it (tasks.json's "run"): its result carries it
};

/// Reads `spec` and writes the sweep directory `dir`: configs/<hash>.json, tasks.json, results/ (empty).
/// A `dir` holding an earlier sweep is emptied first (one directory, one run); one holding anything
/// else is refused. Throws SweepError naming the spec and the entry (an unknown key or a key of the
/// wrong type, a configuration that does not validate, an unknown workload or backend, no tasks, more
/// than 100,000).
std::vector<Task> expand(const std::filesystem::path& spec, const std::filesystem::path& dir);
/// The tasks of a sweep directory.
std::vector<Task> read_tasks(const std::filesystem::path& dir);

/// Runs task `index` of `dir` in this process (its configuration must be this build's) and writes
/// results/<index>.json; the verdict as an exit status (0 verified, 1 not).
int run_task_here(const std::filesystem::path& dir, int index);
/// Runs task `index`: here when its configuration is this build's, else through the vta-sweep of the
/// build tree of its configuration (built first when missing): beside this build tree,
/// <build>-sweep-<hash>, when `cache` is empty (an installed vta-sweep: ~/.cache/vta/sweep-trees), else
/// <cache>/<hash>-<source> (a cache shared by clones).
int run_task(const std::filesystem::path& dir, int index, const std::filesystem::path& cache);
/// Checks before any task runs that `cache` (when named) is a folder this user can write in, made when
/// missing; SweepError naming the path and the cause otherwise (a file, /dev/null, a folder under /proc).
/// The cache's trees are marked as the sweep's own (a file vta-sweep-tree in each): nothing else in the
/// folder is ever removed.
void check_cache(const std::filesystem::path& cache);

/// Runs every task on this machine, `workers` at a time, each bounded by `task_seconds`.
void run_local(const std::filesystem::path& dir, int workers, int task_seconds, const std::filesystem::path& cache);
/// Runs every task as one Slurm job array (sbatch --wait; `sbatch_args` added, e.g. --partition, and
/// `throttle` tasks at once when > 0), bounded by `seconds` in all. SLURM_CONF as the environment says.
void run_slurm(const std::filesystem::path& dir, const std::vector<std::string>& sbatch_args, int throttle, int seconds,
               const std::filesystem::path& cache);

struct Summary {
  int tasks = 0, verified = 0, failed = 0, missing = 0;
  std::string coverage;  ///< the merged RTL coverage's one-line figure, when the tasks counted it
};
/// Joins results/*.json into results.json, results.csv, results.md and junit.xml in `dir`; with
/// coverage files under coverage/raw/, also coverage/merged.dat (verilator_coverage), the lcov file,
/// coverage/html/ (genhtml) and the figure and unreached cover points in results.md.
Summary merge(const std::filesystem::path& dir);

}  // namespace vta::sweep
