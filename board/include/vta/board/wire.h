#pragma once
/// \file vta/board/wire.h
/// The board emulator's register-window protocol (vta-board-emulator and the board backend): a UNIX
/// stream socket where /dev/uioN would be. On connecting, the emulator sends a Reply: {kOk, kMagic},
/// or {kBusy, length} and a message (another driver has the board). Then each Request gets one Reply;
/// a Reply with kFault carries the value as usual and then a message of `fault_length` bytes (an RTL
/// assertion failed in the emulated design).

#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace vta::board::wire {

inline constexpr uint32_t kMagic = 0x56544131;  // "VTA1"

enum class Op : uint32_t {
  kRead = 1,     ///< value: unused; reply value: the register
  kWrite = 2,    ///< value: the value written
  kWaitIrq = 3,  ///< value: timeout in ms; reply value: 1 when the interrupt is high
};

struct Request {
  uint32_t op = 0;
  uint32_t offset = 0;
  uint32_t value = 0;
};

enum class Status : uint32_t { kOk = 0, kFault = 1, kBusy = 2 };

struct Reply {
  uint32_t status = 0;
  uint32_t value = 0;
  uint32_t fault_length = 0;  ///< bytes of message after the reply (kFault, kBusy)
};

/// Sends the `n` bytes at `data` on the stream socket `fd` whole (partial sends continued, interrupted
/// ones retried; never SIGPIPE): false when the other end is gone, errno saying why. Both sides' one
/// send loop.
inline bool send_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= size_t(k);
  }
  return true;
}

}  // namespace vta::board::wire
