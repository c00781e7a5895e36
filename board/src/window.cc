// The register window: a UIO device on a board, the board emulator's socket without one.

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>

#include "vta/board/board.h"
#include "vta/board/wire.h"
#include "vta/driver/file.h"
#include "vta/driver/format.h"
#include "vta/driver/parse.h"
#include "vta/driver/vcr_map.h"

namespace vta::board {
namespace {

std::string errno_text() { return std::strerror(errno); }

// A UIO device: map 0 is the register window; reading the file waits for the interrupt, writing 1
// enables it again (uio_pdrv_genirq and generic-uio do so; a UIO device without an interrupt refuses
// the write, and the window is then polled).
class UioWindow final : public RegisterWindow {
 public:
  UioWindow(const std::string& path, bool irq) : name_(path), irq_(irq) {
    fd_.reset(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!fd_.valid()) throw BoardError("fpga: cannot open the register window " + path + ": " + errno_text());
    const size_t size = map_size(path);
    if (size < vcr::kWindowBytes) {
      throw BoardError("fpga: the register window " + path + " maps " + std::to_string(size) +
                       " bytes, fewer than VTA's " + std::to_string(vcr::kWindowBytes) +
                       " (is it the accelerator's UIO device?)");
    }
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
    if (p == MAP_FAILED) throw BoardError("fpga: cannot map the register window " + path + ": " + errno_text());
    regs_ = static_cast<volatile uint32_t*>(p);
    size_ = size;
  }
  ~UioWindow() override { ::munmap(const_cast<uint32_t*>(regs_), size_); }
  void write(uint32_t offset, uint32_t value) override { regs_[offset / 4] = value; }
  uint32_t read(uint32_t offset) override { return regs_[offset / 4]; }
  bool wait_interrupt(int timeout_ms) override {
    if (!irq_) return false;
    const uint32_t enable = 1;
    if (::write(fd_.get(), &enable, sizeof enable) != sizeof enable) {
      irq_ = false;  // no interrupt on this device: the caller polls from now on
      return false;
    }
    pollfd p{fd_.get(), POLLIN, 0};
    const int n = ::poll(&p, 1, timeout_ms);
    if (n <= 0) return false;
    uint32_t count = 0;
    return ::read(fd_.get(), &count, sizeof count) == sizeof count;
  }
  const std::string& name() const override { return name_; }

 private:
  // The size of map 0 from sysfs (/sys/class/uio/uioN/maps/map0/size), or a page when it is not there.
  static size_t map_size(const std::string& path) {
    const std::string sysfs = "/sys/class/uio/" + std::filesystem::path(path).filename().string() + "/maps/map0/size";
    std::error_code ec;
    if (!std::filesystem::exists(sysfs, ec)) return 4096;
    const std::string text = read_file(sysfs, 64);
    const std::optional<uint64_t> size = parse_u64(text, Trailing::kNewline);
    if (!size || *size == 0 || *size > (uint64_t(1) << 32)) {
      throw BoardError("fpga: " + sysfs + " holds " + quoted(text, 32) + ", not a map size (1 to 4 GiB)");
    }
    return size_t(*size);
  }

  std::string name_;
  bool irq_;
  UniqueFd fd_;
  volatile uint32_t* regs_ = nullptr;
  size_t size_ = 0;
};

// The board emulator's socket: one message per access (wire.h).
class EmulatorWindow final : public RegisterWindow {
 public:
  EmulatorWindow(const std::string& path, double stall_seconds)
      : name_("the board emulator at " + path),
        timeout_ms_(int(stall_seconds * 1000)),
        stall_text_(format_seconds(stall_seconds) + " s") {
    fd_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd_.valid()) throw BoardError("fpga: cannot make a socket: " + errno_text());
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
      throw BoardError("fpga: the register window's path " + path + " is longer than a socket's " +
                       std::to_string(sizeof addr.sun_path - 1) + " characters");
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      throw BoardError("fpga: cannot reach " + name_ + ": " + errno_text() + " (is vta-board-emulator running?)");
    }
    const wire::Reply hello = receive(nullptr, timeout_ms_);
    if (hello.status != uint32_t(wire::Status::kOk) || hello.value != wire::kMagic) {
      throw BoardError("fpga: " + name_ + " refused the connection" + (fault_.empty() ? std::string() : ": " + fault_));
    }
  }

  void write(uint32_t offset, uint32_t value) override {
    call({uint32_t(wire::Op::kWrite), offset, value}, timeout_ms_);
  }
  uint32_t read(uint32_t offset) override { return call({uint32_t(wire::Op::kRead), offset, 0}, timeout_ms_); }
  bool wait_interrupt(int timeout_ms) override {
    return call({uint32_t(wire::Op::kWaitIrq), 0, uint32_t(timeout_ms)}, timeout_ms + timeout_ms_) != 0;
  }
  std::string take_fault() override { return std::exchange(fault_, {}); }
  const std::string& name() const override { return name_; }

 private:
  // What a request is, for a diagnostic (the greeting when `r` is null); made only when one is raised.
  static std::string describe(const wire::Request* r) {
    if (r == nullptr) return "its greeting";
    switch (wire::Op(r->op)) {
      case wire::Op::kRead: return "a read of register " + hex(r->offset);
      case wire::Op::kWrite: return "a write of register " + hex(r->offset);
      case wire::Op::kWaitIrq: return "an interrupt wait";
    }
    return "a request";
  }

  uint32_t call(const wire::Request& r, int timeout_ms) {
    send_all(r);
    return receive(&r, timeout_ms).value;
  }

  void send_all(const wire::Request& r) {
    if (!wire::send_all(fd_.get(), &r, sizeof r)) {
      throw BoardError("fpga: " + name_ + " went away before " + describe(&r) + ": " + errno_text());
    }
  }

  void receive_all(void* data, size_t n, const wire::Request* what, int timeout_ms) {
    auto* p = static_cast<char*>(data);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (n > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd pf{fd_.get(), POLLIN, 0};
      const int ready = left.count() > 0 ? ::poll(&pf, 1, int(left.count())) : 0;
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        throw BoardError("fpga: " + name_ + " did not answer " + describe(what) + " within " + stall_text_ +
                         " of its due time (VTA_FPGA_STALL_SECONDS): the emulator hangs or is stopped");
      }
      const ssize_t k = ::recv(fd_.get(), p, n, 0);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        throw BoardError("fpga: " + name_ + " closed the register window during " + describe(what) +
                         " (the emulator exited or crashed)");
      }
      p += k, n -= size_t(k);
    }
  }

  wire::Reply receive(const wire::Request* what, int timeout_ms) {
    wire::Reply reply;
    receive_all(&reply, sizeof reply, what, timeout_ms);
    if (reply.fault_length > (1u << 20)) {
      throw BoardError("fpga: " + name_ + " sent a malformed reply to " + describe(what) + " (a message of " +
                       std::to_string(reply.fault_length) + " bytes)");
    }
    if (reply.fault_length > 0) {
      std::string text(reply.fault_length, '\0');
      receive_all(text.data(), text.size(), what, timeout_ms_);
      fault_ += text;
    }
    return reply;
  }

  std::string name_;
  int timeout_ms_;
  std::string stall_text_;  ///< the bound as the diagnostics write it ("10 s")
  UniqueFd fd_;
  std::string fault_;
};

}  // namespace

std::unique_ptr<RegisterWindow> open_register_window(const BoardSettings& settings) {
  struct stat st {};
  if (::stat(settings.uio.c_str(), &st) != 0) {
    throw BoardError("fpga: the register window " + settings.uio + " (VTA_FPGA_UIO) " +
                     (errno == ENOENT ? std::string("does not exist") : "cannot be read: " + errno_text()) +
                     ": is the bitstream loaded and its device-tree overlay applied? (docs/FPGA.md)");
  }
  if (S_ISCHR(st.st_mode)) return std::make_unique<UioWindow>(settings.uio, settings.irq);
  if (S_ISSOCK(st.st_mode)) return std::make_unique<EmulatorWindow>(settings.uio, settings.stall_seconds);
  throw BoardError("fpga: the register window " + settings.uio +
                   " (VTA_FPGA_UIO) is neither a UIO character device nor a board emulator's socket");
}

}  // namespace vta::board
