// The board backend (VTA_TARGET=fpga) against the RTL through vta-board-emulator: programs give the
// tsim's statistics and cycles; its settings, a missing or wrong device file, a wrong physical address,
// an emulator that dies or stops mid-run, a second driver, a run past its budget each give a clear error
// within a bound, and the board resets after a failed run (CTRL_RESET, with bursts in flight).

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <tuple>

#include "emulator_process.h"
#include "test_paths.h"
#include "test_util.h"
#include "vta/board/board.h"
#include "vta/board/wire.h"
#include "vta/driver/build_config.h"
#include "vta/driver/file.h"
#include "vta/tsim/simulator.h"

namespace vta {
namespace {

using board::BoardSettings;
using Clock = std::chrono::steady_clock;

// A buffer in a memory of the test's choosing (the board's DMA buffer as this process maps it).
class Buffer {
 public:
  Buffer(Dram& d, size_t n) : d_(d), p_(static_cast<uint8_t*>(d.alloc(n))) {
    if (p_ == nullptr) throw std::runtime_error("out of DMA memory");
  }
  ~Buffer() { d_.free(p_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  PhysAddr phys() const { return d_.phys_addr(p_); }
  uint8_t* data() const { return p_; }
  uint32_t base(uint32_t unit) const { return uint32_t(phys() / unit); }

 private:
  Dram& d_;
  uint8_t* p_;
};

RunStatus run(Device& dev, Dram& d, const test::Program& p, uint64_t budget = 0) {
  Buffer insns(d, p.insns().size() * Config::kInsnElemBytes);
  store_insns(insns.data(), p.insns());
  return dev.run(insns.phys(), uint32_t(p.insns().size()), budget);
}

std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

// An emulator, its DMA buffer mapped here, and the board device over them.
struct Rig {
  explicit Rig(const std::vector<std::string>& extra = {}, const std::function<void(BoardSettings&)>& tweak = {})
      : emulator(extra), settings(emulator.settings()) {
    if (tweak) tweak(settings);
    memory = board::open_dma_memory(settings);
    dev = board::make_fpga_device(build_config(), board::open_register_window(settings), *memory, settings);
  }
  test::EmulatorProcess emulator;
  BoardSettings settings;
  std::unique_ptr<Dram> memory;
  std::unique_ptr<Device> dev;
};

// A GEMM of iter_out x iter_in micro-op steps: about that many cycles.
test::Program long_gemm(const Buffer& uops, uint32_t iter_out, uint32_t iter_in) {
  const Config& c = build_config();
  test::Program p(c);
  reinterpret_cast<uint32_t*>(uops.data())[0] = p.isa().encode(Uop{0, 0, 0});
  p.load(MemId::kUop, 0, uops.base(4), 1, 1, 1).gemm(test::gemm_insn(0, 1, iter_out, iter_in)).finish();
  return p;
}

// ---- settings and files, no emulator -------------------------------------------------------------

TEST(BoardSettingsTest, TheBoardFileIsReadAndItsMistakesNamed) {
  const auto path = test::scratch_path("board.json");
  write_file(path, R"({"uio": "/dev/uio3", "dma": "/dev/udmabuf1", "cached": true, "stall_seconds": 2.5})");
  const BoardSettings s = BoardSettings::from_file(path.string());
  EXPECT_EQ(s.uio, "/dev/uio3");
  EXPECT_EQ(s.dma, "/dev/udmabuf1");
  EXPECT_EQ(s.sysfs_dir(), "/sys/class/u-dma-buf/udmabuf1");
  EXPECT_TRUE(s.cached);
  EXPECT_TRUE(s.irq);
  EXPECT_EQ(s.stall_seconds, 2.5);
  // what the file says is what to_json writes back
  write_file(path, s.to_json());
  EXPECT_EQ(BoardSettings::from_file(path.string()).to_json(), s.to_json());

  write_file(path, R"({"uoi": "/dev/uio0"})");
  EXPECT_NE(what_of([&] { BoardSettings::from_file(path.string()); }).find("unknown key \"uoi\""), std::string::npos);
  write_file(path, R"({"stall_seconds": -1})");
  EXPECT_NE(what_of([&] { BoardSettings::from_file(path.string()); }).find("stall_seconds"), std::string::npos);
  write_file(path, "{not json");
  EXPECT_NE(what_of([&] { BoardSettings::from_file(path.string()); }).find("not JSON"), std::string::npos);
  std::filesystem::remove(path);
  EXPECT_NE(what_of([&] { BoardSettings::from_file(path.string()); }).find(path.string()), std::string::npos);
}

TEST(BoardSettingsTest, TheEnvironmentOverridesTheBoardFile) {
  const auto path = test::scratch_path("board-env.json");
  write_file(path, R"({"uio": "/dev/uio3", "irq": true})");
  ::setenv("VTA_FPGA_BOARD", path.c_str(), 1);
  ::setenv("VTA_FPGA_UIO", "/dev/uio7", 1);
  ::setenv("VTA_FPGA_IRQ", "0", 1);
  const BoardSettings s = BoardSettings::from_env();
  EXPECT_EQ(s.uio, "/dev/uio7");
  EXPECT_FALSE(s.irq);
  ::setenv("VTA_FPGA_STALL_SECONDS", "soon", 1);
  EXPECT_NE(what_of([] { BoardSettings::from_env(); }).find("VTA_FPGA_STALL_SECONDS=\"soon\""), std::string::npos);
  ::setenv("VTA_FPGA_STALL_SECONDS", "4.9e-324", 1);  // the smallest double: a number, if a short bound
  EXPECT_EQ(BoardSettings::from_env().stall_seconds, 4.9e-324);
  ::setenv("VTA_FPGA_STALL_SECONDS", "1\r", 1);
  EXPECT_NE(what_of([] { BoardSettings::from_env(); }).find("VTA_FPGA_STALL_SECONDS=\"1\\r\" is not a number"),
            std::string::npos);
  ::setenv("VTA_FPGA_CACHED", "maybe", 1);
  ::unsetenv("VTA_FPGA_STALL_SECONDS");
  EXPECT_NE(what_of([] { BoardSettings::from_env(); }).find("VTA_FPGA_CACHED=\"maybe\""), std::string::npos);
  for (const char* v : {"VTA_FPGA_BOARD", "VTA_FPGA_UIO", "VTA_FPGA_IRQ", "VTA_FPGA_CACHED"}) ::unsetenv(v);
  std::filesystem::remove(path);
}

TEST(BoardFiles, AMissingOrWrongDeviceFileIsNamed) {
  BoardSettings s;
  s.uio = "/nonexistent/uio9";
  const std::string missing = what_of([&] { board::open_register_window(s); });
  EXPECT_NE(missing.find("/nonexistent/uio9 (VTA_FPGA_UIO) does not exist"), std::string::npos) << missing;
  const auto plain = test::scratch_path("not-a-uio");
  write_file(plain, "x");
  s.uio = plain.string();
  const std::string wrong = what_of([&] { board::open_register_window(s); });
  EXPECT_NE(wrong.find("neither a UIO character device nor a board emulator's socket"), std::string::npos) << wrong;
  std::filesystem::remove(plain);
  s.dma = "/nonexistent/udmabuf9";
  const std::string dma = what_of([&] { board::open_dma_memory(s); });
  EXPECT_NE(dma.find("/sys/class/u-dma-buf/udmabuf9/phys_addr"), std::string::npos) << dma;
}

TEST(BoardFiles, MemoryThatIsNotTheDmaBufferIsRefused) {
  test::EmulatorProcess emulator;
  Dram simulated;
  const std::string e = what_of([&] {
    board::make_fpga_device(build_config(), board::open_register_window(emulator.settings()), simulated,
                            emulator.settings());
  });
  EXPECT_NE(e.find("not in the board's physically contiguous DMA buffer"), std::string::npos) << e;
}

// A file that maps as well as the DMA buffer but is not what the accelerator reads and writes: /dev/zero,
// or a copy of the buffer (runs "worked" with 519 of 1024 outputs wrong). Refused at open by a test
// program written there, naming the file.
TEST(BoardFiles, ADmaBufferTheAcceleratorDoesNotSeeIsRefused) {
  test::EmulatorProcess emulator;
  const auto copy = test::scratch_path("udmabuf-copy");
  std::filesystem::copy_file(emulator.settings().dma, copy, std::filesystem::copy_options::overwrite_existing);
  for (const std::string& dma : {std::string("/dev/zero"), copy.string()}) {
    BoardSettings s = emulator.settings();
    s.dma = dma;
    const std::string e = what_of([&] {
      auto memory = board::open_dma_memory(s);
      board::make_fpga_device(build_config(), board::open_register_window(s), *memory, s);
    });
    EXPECT_NE(e.find("the accelerator does not see the memory mapped from " + dma), std::string::npos) << e;
  }
  std::filesystem::remove(copy);
  // the buffer itself passes the same check
  auto memory = board::open_dma_memory(emulator.settings());
  EXPECT_NO_THROW(board::make_fpga_device(build_config(), board::open_register_window(emulator.settings()), *memory,
                                          emulator.settings()));
}

// A sysfs attribute with a CR before its newline, as a hand-made file might have: refused, and the
// text shown with its control characters escaped, not printed raw
TEST(BoardFiles, AnAttributesControlCharactersAreEscapedInItsError) {
  test::EmulatorProcess emulator;
  BoardSettings s = emulator.settings();
  write_file(std::filesystem::path(s.sysfs_dir()) / "phys_addr", "0x10000000\r\n");
  const std::string e = what_of([&] { board::open_dma_memory(s); });
  EXPECT_NE(e.find("holds \"0x10000000\\r\\n\", not a number"), std::string::npos) << e;
  EXPECT_EQ(e.find('\r'), std::string::npos) << e;
}

TEST(BoardFiles, AMalformedPhysicalAddressIsRefusedByName) {
  test::EmulatorProcess emulator({"--stated-phys", "0x10000800"});
  const std::string e = what_of([&] { board::open_dma_memory(emulator.settings()); });
  EXPECT_NE(e.find("not a multiple of 4096"), std::string::npos) << e;
  EXPECT_NE(e.find("phys_addr"), std::string::npos) << e;
}

// ---- through the emulator -------------------------------------------------------------------------

TEST(Board, ProgramsGiveTheTsimsStatisticsAndCycles) {
  Rig rig;
  tsim::Simulator::Options o;
  o.dram_memory = rig.memory.get();  // the tsim reads the same buffers
  auto tsim = tsim::make_tsim_device(o);
  const Config& c = build_config();
  uint64_t cycles = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    // the random differential programs allocate in the process's memory: here, build them by hand
    Buffer uops(*rig.memory, 64), data(*rig.memory, 1 << 16), out(*rig.memory, 1 << 14);
    test::Program p(c);
    auto* u = reinterpret_cast<uint32_t*>(uops.data());
    for (uint32_t i = 0; i < 4; ++i) u[i] = p.isa().encode(Uop{i, i, i});
    for (size_t i = 0; i < (1 << 16); ++i) data.data()[i] = uint8_t(i * seed);
    const uint32_t n = 1 + uint32_t(seed % 4);
    p.load(MemId::kUop, 0, uops.base(4), 1, 4, 4)
        .load(MemId::kInp, 0, data.base(c.inp_elem_bytes()), 4, 1, 1, {}, 0, 0, uint32_t(seed % 2), 0)
        .load(MemId::kWgt, 0, data.base(c.wgt_elem_bytes()), 4, 1, 1, test::push_next())
        .gemm([&] {
          GemmInsn g = test::gemm_insn(0, n, 2 + uint32_t(seed), 3);
          g.deps.pop_prev = true;
          g.deps.push_next = true;
          return g;
        }())
        .store(0, out.base(c.out_elem_bytes()), 4, 1, 1, test::pop_prev())
        .finish();
    // the random programs' shapes, on both
    tsim->clear_stats();
    rig.dev->clear_stats();
    ASSERT_EQ(run(*tsim, *rig.memory, p), RunStatus::kOk) << tsim->last_error();
    std::vector<uint8_t> want(out.data(), out.data() + (1 << 14));
    std::fill(out.data(), out.data() + (1 << 14), 0);
    ASSERT_EQ(run(*rig.dev, *rig.memory, p), RunStatus::kOk) << rig.dev->last_error();
    EXPECT_TRUE(std::equal(want.begin(), want.end(), out.data())) << "seed " << seed;
    EXPECT_EQ(rig.dev->stats(), tsim->stats())
        << "seed " << seed << ": fpga " << rig.dev->stats().to_json() << "\ntsim " << tsim->stats().to_json();
    cycles += rig.dev->stats().cycle_count.value_or(0);
  }
  EXPECT_GT(cycles, 0u);
}

TEST(Board, ARunPastItsBudgetIsATimeoutAndTheBoardResetsWithBurstsInFlight) {
  Rig rig;
  const Config& c = build_config();
  // 4,096 loads of 2,048 rows, memory-bound (about 17 M cycles, seconds of emulation: no
  // scheduling delay of this process lets the emulator finish it before the budget is looked at): the
  // budget ends the run with reads outstanding, which CTRL_RESET lets finish before it resets. (The
  // driver looks at the budget between waits of up to 10 ms, so a run stops somewhat past it:
  // docs/FPGA.md.)
  constexpr uint32_t kRows = 2048;
  Buffer data(*rig.memory, size_t(kRows) * c.inp_elem_bytes());
  test::Program endless(c);
  for (int i = 0; i < 4096; ++i) endless.load(MemId::kInp, 0, data.base(c.inp_elem_bytes()), kRows, 1, 1);
  endless.finish();
  for (const uint64_t budget : {20000, 50000}) {
    EXPECT_EQ(run(*rig.dev, *rig.memory, endless, budget), RunStatus::kTimeout);
    EXPECT_EQ(rig.dev->last_error_kind(), ErrorKind::kTimeout);
    EXPECT_NE(rig.dev->last_error().find("exceeded its cycle budget of " + std::to_string(budget)), std::string::npos)
        << rig.dev->last_error();
    EXPECT_EQ(rig.dev->tokens(), TokenCounts{});
    EXPECT_EQ(rig.dev->stats().inp_load_nbytes, 0u) << "a failed run counts nothing";
    // and the board runs the next program
    Buffer uops(*rig.memory, 64);
    EXPECT_EQ(run(*rig.dev, *rig.memory, long_gemm(uops, 10, 10)), RunStatus::kOk) << rig.dev->last_error();
  }
  rig.dev->clear_stats();
  test::Program some(c);
  for (int i = 0; i < 4; ++i) some.load(MemId::kInp, 0, data.base(c.inp_elem_bytes()), kRows, 1, 1);
  some.finish();
  EXPECT_EQ(run(*rig.dev, *rig.memory, some), RunStatus::kOk) << rig.dev->last_error();
  EXPECT_EQ(rig.dev->stats().inp_load_nbytes, uint64_t(4) * kRows * c.inp_elem_bytes());
}

TEST(Board, InvalidProgramsGetTheTsimsVerdictAndDiagnostic) {
  Rig rig;
  tsim::Simulator::Options o;
  o.dram_memory = rig.memory.get();
  auto tsim = tsim::make_tsim_device(o);
  Buffer data(*rig.memory, 4096);
  const Config& c = build_config();
  test::Program illegal(c), unfinished(c);
  illegal.raw(RawInsn{5, 0}).finish();
  unfinished.store(0, data.base(16), 1, 1, 1, test::pop_prev()).finish();
  const test::Program deadlock = test::deadlocking_program(c, data.base(16));
  for (const test::Program* p : std::initializer_list<const test::Program*>{&illegal, &unfinished, &deadlock}) {
    EXPECT_EQ(run(*tsim, *rig.memory, *p), RunStatus::kError);
    EXPECT_EQ(run(*rig.dev, *rig.memory, *p), RunStatus::kError);
    EXPECT_EQ(rig.dev->last_error_kind(), tsim->last_error_kind()) << rig.dev->last_error();
    std::string want = tsim->last_error();
    want.replace(want.find("vta tsim"), 8, "vta fpga");
    EXPECT_EQ(rig.dev->last_error(), want);
  }
}

TEST(Board, AWrongPhysicalAddressIsABusErrorNamingTheClient) {
  // the sysfs file says 0x20000000; the accelerator's memory is at 0x10000000: the check at open runs
  // its program there and gets the bus error, naming the client
  const auto t0 = Clock::now();
  const std::string e = what_of([] { Rig rig({"--stated-phys", "0x20000000"}); });
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
  EXPECT_NE(e.find("the accelerator does not see the memory mapped from"), std::string::npos) << e;
  EXPECT_NE(e.find("memory client: fetch"), std::string::npos) << e;
}

// Runs a 16 M-cycle program (seconds of emulation) while `sig` is sent to the emulator after `after`:
// what the run threw, and how long it took.
std::pair<std::string, Clock::duration> run_while_signalled(Rig& rig, int sig, std::chrono::milliseconds after) {
  Buffer uops(*rig.memory, 64);
  const test::Program p = long_gemm(uops, 4000, 4000);
  std::thread signaller([&] {
    std::this_thread::sleep_for(after);
    rig.emulator.signal(sig);
  });
  const auto t0 = Clock::now();
  std::string e = what_of([&] { run(*rig.dev, *rig.memory, p); });
  signaller.join();
  return {std::move(e), Clock::now() - t0};
}

TEST(Board, TheEmulatorDyingMidRunIsAnErrorAtOnce) {
  Rig rig;
  const auto [e, took] = run_while_signalled(rig, SIGKILL, std::chrono::milliseconds(300));
  EXPECT_LT(took, std::chrono::seconds(10));
  // in a wait or a register access: "closed the register window during ...", or "went away before ..."
  // when the death came between two requests
  EXPECT_TRUE(e.find("closed the register window") != std::string::npos || e.find("went away") != std::string::npos)
      << e;
}

TEST(Board, AStoppedEmulatorIsReportedWithinItsBound) {
  Rig rig({}, [](BoardSettings& s) { s.stall_seconds = 1; });
  const auto [e, took] = run_while_signalled(rig, SIGSTOP, std::chrono::milliseconds(200));
  EXPECT_LT(took, std::chrono::seconds(4));
  EXPECT_NE(e.find("did not answer"), std::string::npos) << e;
  EXPECT_NE(e.find("within 1 s"), std::string::npos) << e;
}

// A raw client of the emulator's register window (the wire protocol, vta/board/wire.h), each receive
// bounded: what a misbehaving or hostile driver can send.
class RawWindow {
 public:
  explicit RawWindow(const std::string& path) : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      throw std::runtime_error("cannot connect to " + path);
    }
    timeval bound{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  }
  ~RawWindow() { ::close(fd_); }
  RawWindow(const RawWindow&) = delete;
  RawWindow& operator=(const RawWindow&) = delete;
  void send(uint32_t op, uint32_t offset, uint32_t value) const {
    const board::wire::Request r{op, offset, value};
    ASSERT_EQ(::send(fd_, &r, sizeof r, MSG_NOSIGNAL), ssize_t(sizeof r));
  }
  // The next reply and its message; status -1 when the emulator closed the window.
  std::pair<board::wire::Reply, std::string> receive() const {
    board::wire::Reply r{};
    if (::recv(fd_, &r, sizeof r, MSG_WAITALL) != ssize_t(sizeof r)) return {{uint32_t(-1), 0, 0}, ""};
    std::string text(r.fault_length, '\0');
    if (r.fault_length > 0) ::recv(fd_, text.data(), text.size(), MSG_WAITALL);
    return {r, text};
  }

 private:
  int fd_;
};

TEST(BoardEmulator, AnInterruptWaitIsBoundedAndStopsAtSigterm) {
  test::EmulatorProcess emulator;
  RawWindow w(emulator.settings().uio);
  ASSERT_EQ(w.receive().first.value, board::wire::kMagic);
  // a wait of 2^32 - 1 ms (49 days) answers within the emulator's bound of a second: no interrupt
  auto t0 = Clock::now();
  w.send(uint32_t(board::wire::Op::kWaitIrq), 0, 0xFFFFFFFFu);
  auto [reply, text] = w.receive();
  EXPECT_EQ(reply.status, uint32_t(board::wire::Status::kOk));
  EXPECT_EQ(reply.value, 0u);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  // meanwhile a second driver is answered (refused) rather than left without a greeting
  w.send(uint32_t(board::wire::Op::kWaitIrq), 0, 0xFFFFFFFFu);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::string second = what_of([&] { board::open_register_window(emulator.settings()); });
  EXPECT_NE(second.find("another driver (process) has the board"), std::string::npos) << second;
  EXPECT_EQ(w.receive().first.status, uint32_t(board::wire::Status::kOk));
  // a register outside the window is a fault naming the offset, and the board still answers
  w.send(uint32_t(board::wire::Op::kRead), 0xFFFFFFF0u, 0);
  std::tie(reply, text) = w.receive();
  EXPECT_EQ(reply.status, uint32_t(board::wire::Status::kFault));
  EXPECT_NE(text.find("offset 0xfffffff0, outside the register window"), std::string::npos) << text;
  // SIGTERM in the middle of a wait ends the emulator promptly (it closes the window)
  w.send(uint32_t(board::wire::Op::kWaitIrq), 0, 0xFFFFFFFFu);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  t0 = Clock::now();
  emulator.signal(SIGTERM);
  const auto end = w.receive();  // the wait's reply, then the end of the stream
  if (end.first.status != uint32_t(-1)) {
    EXPECT_EQ(w.receive().first.status, uint32_t(-1));
  }
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(3));
}

TEST(BoardEmulator, ASecondOneOnItsDirectoryIsRefusedNamingTheFirst) {
  test::EmulatorProcess emulator;
  const std::filesystem::path dir = std::filesystem::path(emulator.settings().uio).parent_path();
  auto memory = board::open_dma_memory(emulator.settings());
  Buffer data(*memory, 4096);
  for (size_t i = 0; i < 4096; ++i) data.data()[i] = uint8_t(i * 7 + 1);
  const std::string command =
      "timeout 60 " + test::board_emulator_path() + " serve --dir " + dir.string() + " --dma-mib 32 2>&1";
  FILE* p = ::popen(command.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  const int status = ::pclose(p);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status << ": " << out;
  EXPECT_NE(out.find("another vta-board-emulator (PID " + std::to_string(emulator.pid()) + ") serves " + dir.string()),
            std::string::npos)
      << out;
  // the first one's buffer and files are as they were
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(data.data()[i], uint8_t(i * 7 + 1)) << i;
  EXPECT_TRUE(std::filesystem::exists(dir / "board.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "udmabuf0"));
  EXPECT_EQ(std::filesystem::file_size(dir / "udmabuf0"), 32u << 20);
}

TEST(Board, ASecondDriverIsRefused) {
  test::EmulatorProcess emulator;
  auto first = board::open_register_window(emulator.settings());
  const std::string e = what_of([&] { board::open_register_window(emulator.settings()); });
  EXPECT_NE(e.find("another driver (process) has the board"), std::string::npos) << e;
}

TEST(Board, PollingGivesTheSameCyclesAsTheInterrupt) {
  Stats by_irq, by_polling;
  for (const bool irq : {true, false}) {
    Rig rig({}, [irq](BoardSettings& s) { s.irq = irq; });
    Buffer uops(*rig.memory, 64);
    ASSERT_EQ(run(*rig.dev, *rig.memory, long_gemm(uops, 50, 20)), RunStatus::kOk) << rig.dev->last_error();
    (irq ? by_irq : by_polling) = rig.dev->stats();
  }
  EXPECT_EQ(by_irq, by_polling);
  EXPECT_EQ(by_irq.gemm_counter, 1000u);
}

TEST(Board, ACachedBufferIsSyncedAroundEachRun) {
  Rig rig({}, [](BoardSettings& s) { s.cached = true; });
  Buffer uops(*rig.memory, 64);
  ASSERT_EQ(run(*rig.dev, *rig.memory, long_gemm(uops, 2, 2)), RunStatus::kOk) << rig.dev->last_error();
  // the last sync was for the CPU, over the live buffers (the micro-ops and the instructions, freed
  // since: the span of what was live at the run)
  const std::string dir = rig.settings.sysfs_dir();
  EXPECT_EQ(read_file(dir + "/sync_direction", 64), "2");
  EXPECT_EQ(read_file(dir + "/sync_for_cpu", 64), "1");
  EXPECT_EQ(read_file(dir + "/sync_for_device", 64), "1");
  EXPECT_EQ(read_file(dir + "/sync_size", 64), std::to_string(2 * Dram::kPageBytes));
}

}  // namespace
}  // namespace vta
