// vta-board-emulator: the files a board's Linux gives VTA_TARGET=fpga (a UIO register window, a
// u-dma-buf DMA buffer and its sysfs attributes), served from the Verilated RTL, so the board driver runs
// here unchanged but for its register accesses (docs/FPGA.md).
//
//   vta-board-emulator serve --dir D        serves until SIGINT/SIGTERM (VTA_FPGA_BOARD=D/board.json)
//   vta-board-emulator run [--dir D] -- COMMAND ARGS...
//                                           runs COMMAND with VTA_TARGET=fpga and VTA_FPGA_BOARD set, serves
//                                           it, and exits with its status

#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "emulator.h"
#include "vta/driver/guarded_main.h"
#include "vta/driver/interrupt.h"

namespace {

namespace fs = std::filesystem;

// A directory of our own under TMPDIR, removed at the end.
struct TempDir {
  TempDir() {
    const char* t = std::getenv("TMPDIR");
    std::string pattern = std::string(t != nullptr && *t != '\0' ? t : "/tmp") + "/vta-board.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a directory under " + pattern);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

int run(int argc, char** argv) {
  CLI::App app{
      "Emulate a VTA board (its UIO register window and u-dma-buf DMA buffer) with the Verilated RTL, "
      "for VTA_TARGET=fpga without a board (docs/FPGA.md)"};
  app.require_subcommand(1);
  std::string dir;
  uint64_t dma_mib = 256;
  std::string phys = "0x10000000";
  std::optional<std::string> stated_phys;
  auto add_common = [&](CLI::App* c) {
    c->add_option("--dma-mib", dma_mib, "size of the DMA buffer, MiB")->check(CLI::Range(1, 2048));
    c->add_option("--phys", phys, "physical address of the DMA buffer (a multiple of 4096)");
    c->add_option("--stated-phys", stated_phys,
                  "physical address the sysfs file states, when it should differ (to see a driver given a wrong one)");
  };
  CLI::App* serve = app.add_subcommand("serve", "serve the board's files in --dir until SIGINT or SIGTERM");
  serve->add_option("--dir", dir, "directory for the board's files (VTA_FPGA_BOARD=DIR/board.json)")->required();
  add_common(serve);
  std::vector<std::string> command;
  CLI::App* run_cmd = app.add_subcommand("run", "run a command against the emulated board and exit with its status");
  run_cmd->add_option("--dir", dir, "directory for the board's files (default: a new one under TMPDIR)");
  run_cmd->add_option("command", command, "the command, after --")->required();
  add_common(run_cmd);
  VTA_CLI_PARSE(app, argc, argv);

  auto parse_addr = [](const std::string& s, const char* what) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (s.empty() || *end != '\0' || s[0] == '-')
      throw std::invalid_argument(std::string(what) + " \"" + s + "\" is not a number");
    return vta::PhysAddr(v);
  };
  std::optional<TempDir> temp;
  if (dir.empty()) dir = temp.emplace().path;

  vta::board::EmulatorOptions o;
  o.dir = dir;
  o.dma_bytes = dma_mib << 20;
  o.dma_phys = parse_addr(phys, "--phys");
  if (stated_phys) o.stated_phys = parse_addr(*stated_phys, "--stated-phys");
  o.sim = vta::tsim::Simulator::Options::from_env();  // VTA_TSIM_* latencies, VTA_WAVE, as the tsim
  const vta::StopSignals signals;
  vta::board::Emulator emulator(o);

  if (serve->parsed()) {
    std::printf("vta-board-emulator: serving the board in %s (VTA_TARGET=fpga VTA_FPGA_BOARD=%s)\n", dir.c_str(),
                emulator.board_file().c_str());
    std::fflush(stdout);
    emulator.serve([] { return vta::stop_signal() != 0; });
    return 0;
  }

  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("cannot start " + command[0]);
  if (child == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::setenv("VTA_TARGET", "fpga", 1);
    ::setenv("VTA_FPGA_BOARD", emulator.board_file().c_str(), 1);
    std::vector<char*> args;
    args.reserve(command.size() + 1);
    for (auto& a : command) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "vta-board-emulator: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  // Serve until the command ends; a signal is passed on to it (once), and the command's end ends this.
  int status = 0;
  bool ended = false, forwarded = false;
  emulator.serve([&] {
    if (!forwarded && vta::stop_signal() != 0) {
      ::kill(child, vta::stop_signal());
      forwarded = true;
    }
    ended = ::waitpid(child, &status, WNOHANG) == child;
    return ended;
  });
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

int main(int argc, char** argv) {
  return vta::guarded_main("vta-board-emulator", [&] { return run(argc, argv); });
}
