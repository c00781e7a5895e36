#include "emulator_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "test_paths.h"

namespace vta::test {
namespace {
int g_instances = 0;
}

EmulatorProcess::EmulatorProcess(const std::vector<std::string>& extra)
    : dir_(scratch_path("board-" + std::to_string(g_instances++))) {
  std::filesystem::remove_all(dir_);
  std::vector<std::string> args = {board_emulator_path(), "serve", "--dir", dir_.string(), "--dma-mib", "32"};
  args.insert(args.end(), extra.begin(), extra.end());
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("cannot fork");
  if (pid_ == 0) {
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // the board file is written last, once everything is made
  const auto board = dir_ / "board.json";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(board)) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("vta-board-emulator exited before serving (status " + std::to_string(status) + ")");
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("vta-board-emulator did not start in 60 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  settings_ = board::BoardSettings::from_file(board.string());
}

EmulatorProcess::~EmulatorProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGTERM);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (::waitpid(pid_, &status, WNOHANG) != pid_) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace vta::test
