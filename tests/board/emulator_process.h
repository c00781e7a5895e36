#pragma once
// A vta-board-emulator serving a board of its own to one test (a child process, ended with the test).

#include <signal.h>
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "vta/board/board.h"

namespace vta::test {

/// Where this build's vta-board-emulator is (board_emulator_path.cc).
std::string board_emulator_path();

class EmulatorProcess {
 public:
  /// Starts `vta-board-emulator serve` in a new directory with `extra` arguments, and waits (bounded)
  /// until its board file is there.
  explicit EmulatorProcess(const std::vector<std::string>& extra = {});
  ~EmulatorProcess();
  EmulatorProcess(const EmulatorProcess&) = delete;
  EmulatorProcess& operator=(const EmulatorProcess&) = delete;

  const board::BoardSettings& settings() const { return settings_; }
  pid_t pid() const { return pid_; }
  /// Sends `sig` (SIGKILL, SIGSTOP, SIGCONT).
  void signal(int sig) const { ::kill(pid_, sig); }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  board::BoardSettings settings_;
};

}  // namespace vta::test
