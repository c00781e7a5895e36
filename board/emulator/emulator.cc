// The board emulator (emulator.h).

#include "emulator.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "vta/board/wire.h"
#include "vta/driver/file.h"
#include "vta/driver/format.h"
#include "vta/driver/vcr_map.h"

namespace vta::board {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Cycles clocked between two looks at the socket while the accelerator runs.
constexpr uint64_t kSlice = 2048;
// Seconds a driver has to finish sending a request it began (or to take a reply).
constexpr long kRequestSeconds = 10;
// Longest fault message sent to a driver.
constexpr size_t kMaxFault = 16 << 10;
// The longest one interrupt wait holds the emulator, in ms, whatever a request asks: the board driver
// waits in slices far shorter (board/src/device.cc) and asks again, and meanwhile the emulator must see
// SIGINT/SIGTERM and answer other drivers' greetings (a wait of 2^32 - 1 ms held it for 49 days).
constexpr uint32_t kMaxWaitMs = 1000;
// The register window's bytes: one page, as the UIO map of the board's registers.
constexpr uint32_t kWindowBytes = 4096;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

bool send_reply(int fd, wire::Status status, uint32_t value, const std::string& message = {}) {
  const std::string text = message.substr(0, kMaxFault);
  const wire::Reply r{uint32_t(status), value, uint32_t(text.size())};
  return wire::send_all(fd, &r, sizeof r) && wire::send_all(fd, text.data(), text.size());
}

}  // namespace

struct Emulator::Impl {
  explicit Impl(EmulatorOptions o) : options(std::move(o)) {}
  ~Impl() {
    if (client >= 0) ::close(client);
    if (listener >= 0) ::close(listener);
    sim.reset();
    memory.reset();
    if (dma != nullptr) ::munmap(dma, options.dma_bytes);
    std::error_code ec;
    for (const auto& p : made) fs::remove_all(p, ec);
    if (lock >= 0) ::close(lock);  // (last: the files are gone before another emulator may take the directory)
  }

  void accept_driver() {
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    if (client >= 0 && gone(client)) drop_driver();  // its end may be seen here first
    if (client >= 0) {                               // a board has one driver at a time
      send_reply(fd, wire::Status::kBusy, 0, "another driver (process) has the board");
      ::close(fd);
      return;
    }
    client = fd;
    // a request is 12 bytes sent at once: one that stops half-way does not hold the board for ever
    timeval bound{kRequestSeconds, 0};
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
    ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &bound, sizeof bound);
    if (!send_reply(client, wire::Status::kOk, wire::kMagic)) drop_driver();
  }

  // Whether the driver closed its end (nothing left to read before the end of the stream).
  static bool gone(int fd) {
    char c;
    return ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }

  void drop_driver() {
    ::close(client);
    client = -1;
    // the accelerator goes on with what it was doing, as on a board; the next driver resets it
  }

  // Drivers waiting to connect while this one holds the board: refused at once with kBusy.
  void refuse_waiting_drivers() {
    pollfd fd{listener, POLLIN, 0};
    while (::poll(&fd, 1, 0) > 0 && (fd.revents & POLLIN)) accept_driver();
  }

  // One request from the driver; false when it has gone. `stop` ends an interrupt wait early.
  bool handle(const std::function<bool()>& stop) {
    wire::Request r;
    const ssize_t k = ::recv(client, &r, sizeof r, MSG_WAITALL);
    if (k != sizeof r) {
      if (k > 0) std::fprintf(stderr, "vta-board-emulator: a driver sent %zd bytes of a request and stopped\n", k);
      return false;
    }
    const bool reg = wire::Op(r.op) == wire::Op::kRead || wire::Op(r.op) == wire::Op::kWrite;
    if (reg && (r.offset >= kWindowBytes || r.offset % 4 != 0)) {
      return send_reply(client, wire::Status::kFault, 0,
                        "the board emulator got an access at offset " + hex(r.offset) +
                            ", outside the register window (4-byte aligned offsets below " + hex(kWindowBytes) + ")\n");
    }
    uint32_t value = 0;
    switch (wire::Op(r.op)) {
      case wire::Op::kRead: value = sim->read_reg(r.offset); break;
      case wire::Op::kWrite:
        sim->write_reg(r.offset, r.value);
        if (r.offset == vcr::kCtrl && (r.value & vcr::bit("CTRL_LAUNCH"))) running = true;
        if (r.offset == vcr::kCtrl && (r.value & vcr::bit("CTRL_RESET"))) resetting = true;
        break;
      case wire::Op::kWaitIrq: {
        const auto deadline = Clock::now() + std::chrono::milliseconds(std::min(r.value, kMaxWaitMs));
        bool irq = sim->clock_until_irq(0);
        while (!irq && Clock::now() < deadline && !stop()) {
          irq = sim->clock_until_irq(kSlice);
          refuse_waiting_drivers();
        }
        value = irq ? 1 : 0;
        break;
      }
      default:
        return send_reply(client, wire::Status::kFault, 0,
                          "the board emulator got an unknown request " + std::to_string(r.op) + "\n");
    }
    const std::string fault = sim->take_fault();
    return send_reply(client, fault.empty() ? wire::Status::kOk : wire::Status::kFault, value, fault);
  }

  // The clock of a board: runs while the accelerator has work (a run, a reset draining its bursts).
  void clock() {
    if (running) {
      if (sim->clock_until_irq(kSlice)) running = false;
    } else if (resetting) {
      sim->clock_until_irq(kSlice);
      resetting = vcr::extract(sim->read_reg(vcr::kStatus), vcr::field("STATUS_RESET_PENDING")) != 0;
    }
  }

  EmulatorOptions options;
  std::vector<fs::path> made;
  uint8_t* dma = nullptr;
  std::unique_ptr<Dram> memory;
  std::unique_ptr<tsim::Simulator> sim;
  int listener = -1, client = -1, lock = -1;
  bool running = false, resetting = false;
};

Emulator::Emulator(EmulatorOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl& m = *impl_;
  const EmulatorOptions& o = m.options;
  if (o.dir.empty()) throw std::invalid_argument("no directory given for the board's files");
  if (o.dma_bytes == 0 || o.dma_bytes % Dram::kPageBytes != 0 || o.dma_bytes > (uint64_t{1} << 31)) {
    throw std::invalid_argument(
        "the DMA buffer's size must be a whole number of 4 KiB pages "
        "up to 2 GiB, not " +
        std::to_string(o.dma_bytes));
  }
  const fs::path dir = fs::absolute(o.dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot make " + dir.string() + ": " + ec.message());

  // the directory is this emulator's while it runs: a second one on it would truncate the DMA buffer
  // under the first's driver and remove its files on exit (the lock goes with the process)
  const fs::path lock = dir / ".vta-board-emulator.lock";
  m.lock = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (m.lock < 0) fail("cannot make " + lock.string());
  if (::flock(m.lock, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    const ssize_t n = ::pread(m.lock, pid, sizeof pid - 1, 0);
    std::string holder = n > 0 ? std::string(pid, size_t(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    throw std::runtime_error("another vta-board-emulator" + (holder.empty() ? "" : " (PID " + holder + ")") +
                             " serves " + dir.string() + ": stop it, or give this one another --dir");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(m.lock, 0) != 0 || ::pwrite(m.lock, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
    fail("cannot write " + lock.string());
  }

  // the DMA buffer: a file both processes map
  const fs::path dma = dir / "udmabuf0";
  const UniqueFd fd(::open(dma.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd.valid()) fail("cannot make " + dma.string());
  m.made.push_back(dma);
  if (::ftruncate(fd.get(), off_t(o.dma_bytes)) != 0) fail("cannot size " + dma.string());
  void* p = ::mmap(nullptr, o.dma_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);  // (it stays)
  if (p == MAP_FAILED) fail("cannot map " + dma.string());
  m.dma = static_cast<uint8_t*>(p);
  DramRegion region{m.dma, o.dma_phys, o.dma_bytes, dma.string(), /*zeroed=*/true, {}};  // a new file
  m.memory = std::make_unique<Dram>(std::move(region));
  // the accelerator reaches the whole buffer: one allocation spanning it
  if (m.memory->alloc_at(o.dma_phys, o.dma_bytes) == nullptr) {
    throw std::runtime_error("cannot take the DMA buffer at " + hex(o.dma_phys));
  }

  // its sysfs attributes, as u-dma-buf makes them
  const fs::path sysfs = dir / "u-dma-buf" / "udmabuf0";
  fs::create_directories(sysfs, ec);
  if (ec) throw std::runtime_error("cannot make " + sysfs.string() + ": " + ec.message());
  m.made.push_back(dir / "u-dma-buf");
  write_file(sysfs / "phys_addr", hex(o.stated_phys.value_or(o.dma_phys)) + "\n");
  write_file(sysfs / "size", std::to_string(o.dma_bytes) + "\n");
  for (const char* a : {"sync_offset", "sync_size", "sync_direction", "sync_for_cpu", "sync_for_device"})
    write_file(sysfs / a, "0\n");

  // the register window
  const fs::path uio = dir / "uio0";
  m.listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (m.listener < 0) fail("cannot make a socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (uio.string().size() >= sizeof addr.sun_path) {
    throw std::invalid_argument("" + uio.string() + " is too long a path for a socket (" +
                                std::to_string(sizeof addr.sun_path - 1) + " characters at most): use a shorter --dir");
  }
  std::memcpy(addr.sun_path, uio.c_str(), uio.string().size() + 1);
  fs::remove(uio, ec);
  if (::bind(m.listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fail("cannot make " + uio.string());
  m.made.push_back(uio);
  if (::listen(m.listener, 4) != 0) fail("cannot listen on " + uio.string());

  // the design, its memory the buffer
  tsim::Simulator::Options so = o.sim;
  so.dram_memory = m.memory.get();
  m.sim = std::make_unique<tsim::Simulator>(so);

  settings_.uio = uio.string();
  settings_.dma = dma.string();
  settings_.dma_sysfs = sysfs.string();
  const fs::path board = dir / "board.json";
  write_file(board, settings_.to_json());  // last: a driver waiting for it finds everything made
  m.made.push_back(board);
}

Emulator::~Emulator() = default;

std::string Emulator::board_file() const { return (fs::absolute(impl_->options.dir) / "board.json").string(); }

void Emulator::serve(const std::function<bool()>& stop) {
  Impl& m = *impl_;
  while (!stop()) {
    const bool busy = m.running || m.resetting;
    pollfd fds[2] = {{m.listener, POLLIN, 0}, {m.client, POLLIN, 0}};
    const int n = ::poll(fds, m.client >= 0 ? 2 : 1, busy ? 0 : 50);
    if (n < 0 && errno != EINTR) fail("poll");
    // the driver first: a driver that closed and a new one connecting are seen in that order
    if (n > 0 && m.client >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      if (!m.handle(stop)) m.drop_driver();
    }
    if (n > 0 && (fds[0].revents & POLLIN)) m.accept_driver();
    m.clock();
  }
}

}  // namespace vta::board
