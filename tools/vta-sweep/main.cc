// vta-sweep: sweeps and regressions (docs/SWEEP.md). `run` expands a spec into tasks and runs them on
// this machine or as a Slurm job array, then merges; `task` runs one task (what each worker and
// array index runs); `merge` joins a sweep directory's results again. Exit status: 0 every task
// verified, 1 a task failed or did not finish, 2 a usage or spec error.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "vta/driver/energy.h"
#include "vta/driver/guarded_main.h"
#include "vta/sweep/sweep.h"

namespace {

namespace fs = std::filesystem;

// A shared cache of other configurations' build trees named by the environment; none: the trees go beside
// this build tree (docs/SWEEP.md)
fs::path default_cache() {
  if (const char* c = std::getenv("VTA_SWEEP_CACHE"); c != nullptr && *c != '\0') return c;
  return {};
}

int report(const vta::sweep::Summary& s, const fs::path& dir) {
  std::printf("%d of %d tasks verified%s; results: %s/results.{json,csv,md}, %s/junit.xml\n", s.verified, s.tasks,
              s.missing ? (", " + std::to_string(s.missing) + " did not finish").c_str() : "", dir.c_str(),
              dir.c_str());
  if (!s.coverage.empty()) std::printf("%s; report: %s/coverage/html/index.html\n", s.coverage.c_str(), dir.c_str());
  return s.verified == s.tasks ? 0 : 1;
}

int run(int argc, char** argv) {
  CLI::App app{"vta-sweep: configurations x workloads x backends as independent tasks, locally or on Slurm"};
  app.require_subcommand(1);
  std::string spec, dir, executor = "local", cache = default_cache().string();
  int workers = int(std::max(1u, std::thread::hardware_concurrency())), throttle = 0, seconds = 86400,
      task_seconds = 7200, index = -1;
  bool here = false;
  std::vector<std::string> sbatch_args;
  CLI::App* run_cmd = app.add_subcommand("run", "expand SPEC into DIR, run every task, merge");
  run_cmd->add_option("spec", spec, "the sweep's spec (JSON, docs/SWEEP.md)")->required()->check(CLI::ExistingFile);
  run_cmd->add_option("--out", dir, "the sweep directory (tasks, configurations, results)")->required();
  run_cmd->add_option("--executor", executor, "local (worker processes) or slurm (one job array)")
      ->check(CLI::IsMember({"local", "slurm"}));
  run_cmd->add_option("--workers", workers, "local: tasks at once (default: the cores)")->check(CLI::Range(1, 1024));
  run_cmd->add_option("--sbatch-arg", sbatch_args, "slurm: an sbatch option, e.g. --sbatch-arg=--partition=compute");
  run_cmd->add_option("--throttle", throttle, "slurm: at most this many array tasks at once (0: no limit)")
      ->check(CLI::Range(0, 100000));
  run_cmd->add_option("--timeout", seconds, "slurm: seconds for the whole array (default a day)")
      ->check(CLI::Range(1, 365 * 86400));
  run_cmd->add_option("--task-timeout", task_seconds, "local: seconds per task (default 2 hours)")
      ->check(CLI::Range(1, 30 * 86400));
  run_cmd->add_option("--cache", cache,
                      "a shared cache of other configurations' build trees (default $VTA_SWEEP_CACHE; "
                      "without either, beside this build tree)");
  CLI::App* expand_cmd = app.add_subcommand("expand", "expand SPEC into DIR and list the tasks, running nothing");
  expand_cmd->add_option("spec", spec, "the sweep's spec")->required()->check(CLI::ExistingFile);
  expand_cmd->add_option("--out", dir, "the sweep directory")->required();
  CLI::App* task_cmd = app.add_subcommand("task", "run task INDEX of DIR and write its result");
  task_cmd->add_option("dir", dir)->required()->check(CLI::ExistingDirectory);
  task_cmd->add_option("index", index)->required();
  task_cmd->add_option("--cache", cache, "build trees of other configurations");
  task_cmd->add_flag("--here", here, "run in this process (its configuration must be this build's)");
  CLI::App* merge_cmd = app.add_subcommand("merge", "join DIR's results into tables and a JUnit file");
  merge_cmd->add_option("dir", dir)->required()->check(CLI::ExistingDirectory);
  VTA_CLI_PARSE(app, argc, argv);
  try {
    if (task_cmd->parsed())
      return here ? vta::sweep::run_task_here(dir, index) : vta::sweep::run_task(dir, index, cache);
    if (merge_cmd->parsed()) return report(vta::sweep::merge(dir), dir);
    if (run_cmd->parsed()) {  // what every task would find wrong, refused before any runs
      vta::sweep::check_cache(cache);
      try {
        vta::EnergyTable::from_environment();
      } catch (const vta::EnergyTableError& e) {
        throw vta::sweep::SweepError(std::string("VTA_ENERGY_TABLE: ") + e.what());
      }
    }
    const auto tasks = vta::sweep::expand(spec, dir);
    if (expand_cmd->parsed()) {
      for (const auto& t : tasks) {
        std::printf("%4d  %-40s %-18s %-8s %s\n", t.index, t.config.c_str(), t.label.c_str(), t.backend.c_str(),
                    t.config_hash.c_str());
      }
      return 0;
    }
    std::printf("%zu tasks in %s (%s executor)\n", tasks.size(), dir.c_str(), executor.c_str());
    if (executor == "local") {
      vta::sweep::run_local(dir, workers, task_seconds, cache);
    } else {
      vta::sweep::run_slurm(dir, sbatch_args, throttle, seconds, cache);
    }
    return report(vta::sweep::merge(dir), dir);
  } catch (const vta::sweep::SweepError& e) {
    std::fprintf(stderr, "vta-sweep: error: %s\n", e.what());
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  return vta::guarded_main("vta-sweep", [&] { return run(argc, argv); });
}
