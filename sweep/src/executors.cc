// The executors (docs/SWEEP.md "running"): every task in a process of its own, a few at a time on
// this machine, or as the indices of one Slurm job array; each bounded.

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "internal.h"
#include "vta/driver/file.h"

namespace vta::sweep {
namespace {

// Runs a Slurm client command (bounded by `seconds`); its standard output without the final newline.
// Throws SweepError with its standard error when it fails.
std::string slurm_command(const std::string& name, const std::vector<std::string>& args, int seconds) {
  if (find_program(name).empty()) throw SweepError(name + " is not on the PATH (Debian's slurm-client; docs/SWEEP.md)");
  // (the outputs go to files: reading a pipe would wait for the command without a bound)
  const fs::path base = fs::temp_directory_path() / ("vta-sweep-" + std::to_string(::getpid()) + "-" + name);
  const fs::path out = base.string() + ".out", err = base.string() + ".err";
  const std::optional<int> status = run_bounded(name, args, std::chrono::seconds(seconds), out, err);
  std::string text = read_file_as<SweepError>(out, 1 << 20), errors = read_file_as<SweepError>(err, 1 << 20);
  fs::remove(out), fs::remove(err);
  if (!status) throw SweepError(name + " did not answer within " + std::to_string(seconds) + " s");
  if (*status != 0) throw SweepError(name + " failed (exit " + std::to_string(*status) + "): " + errors);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

void run_local(const fs::path& dir, int workers, int task_seconds, const fs::path& cache) {
  const std::vector<Task> tasks = read_tasks(dir);
  const fs::path self = self_path();
  std::vector<std::thread> pool;
  std::atomic<size_t> next{0};
  for (int w = 0; w < std::max(1, workers); ++w) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < tasks.size(); i = next++) {
        const fs::path log = dir / "results" / (std::to_string(i) + ".log");
        try {
          std::vector<std::string> args{"task", dir.string(), std::to_string(i)};
          if (!cache.empty()) args.insert(args.end(), {"--cache", cache.string()});
          if (!run_bounded(self.string(), args, std::chrono::seconds(task_seconds), log, log)) {
            std::ofstream(log, std::ios::app) << "vta-sweep: stopped after " << task_seconds << " s\n";
          }
        } catch (const std::exception& e) {  // (no result file: merge reports the task and points at its log)
          std::ofstream(log, std::ios::app) << "vta-sweep: the task could not start: " << e.what() << "\n";
        }
      }
    });
  }
  for (auto& t : pool) t.join();
}

void run_slurm(const fs::path& dir, const std::vector<std::string>& sbatch_args, int throttle, int seconds,
               const fs::path& cache) {
  const std::vector<Task> tasks = read_tasks(dir);
  const fs::path script = dir / "slurm_task.sh";
  {
    std::ofstream out(script, std::ios::trunc);
    out << "#!/bin/sh\n# one task of the sweep per array index (written by vta-sweep)\nexec '" << self_path().string()
        << "' task '" << fs::absolute(dir).string() << "' \"$SLURM_ARRAY_TASK_ID\""
        << (cache.empty() ? std::string() : " --cache '" + fs::absolute(cache).string() + "'") << "\n";
  }
  fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  fs::create_directories(dir / "logs");
  // (appended, not "%" + ...: GCC 12's -Wrestrict misreads that operator+ at -O3, its bug 105651)
  std::string array = "--array=0-" + std::to_string(tasks.size() - 1);
  if (throttle > 0) array.append("%").append(std::to_string(throttle));
  std::vector<std::string> args{"--parsable", "--job-name=vta-sweep", array,
                                "--output=" + (fs::absolute(dir) / "logs" / "%a.log").string()};
  args.insert(args.end(), sbatch_args.begin(), sbatch_args.end());
  args.push_back(fs::absolute(script).string());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  const std::string job = slurm_command("sbatch", args, 120);
  if (job.empty() || job.find_first_not_of("0123456789;") != std::string::npos) {
    throw SweepError("sbatch did not print a job id: \"" + job + "\"");
  }
  const std::string id = job.substr(0, job.find(';'));  // ("ID;CLUSTER" on a federation)
  // (polled every second: sbatch --wait's own polling backs off to half a minute)
  while (!slurm_command("squeue", {"--noheader", "--jobs=" + id, "--format=%i"}, 60).empty()) {
    if (std::chrono::steady_clock::now() > deadline) {
      slurm_command("scancel", {id}, 60);
      throw SweepError("the Slurm job array " + id + " did not finish within " + std::to_string(seconds) +
                       " s; cancelled");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace vta::sweep
