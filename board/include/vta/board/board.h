#pragma once
/// \file vta/board/board.h
/// The board backend (`VTA_TARGET=fpga`): VTA on an FPGA under Linux, driven from user space. The
/// accelerator's AXI4-Lite register window is a UIO device (`mmap` of /dev/uioN, its interrupt read
/// from the same file); its memory is a u-dma-buf buffer (physically contiguous, `mmap` of
/// /dev/udmabufN, its physical address in sysfs), which becomes the process's Dram, so every buffer
/// the runtime allocates is one the accelerator can reach. Runs go through the same RunControl as the
/// tsim's, so verdicts, diagnostics and statistics are the same. docs/FPGA.md has the bring-up.
///
/// Without a board, `vta-board-emulator` serves the same files from the Verilated RTL: the DMA buffer
/// and its sysfs attributes are files, and the register window is a socket standing where /dev/uioN
/// would be (user space cannot see another process's stores to a shared page, so a register access is
/// a message there; it is the one thing that differs).
///
/// Settings (a board file, then the environment, which overrides it):
///   VTA_FPGA_BOARD=<file.json>  {"uio": ..., "dma": ..., "dma_sysfs": ..., "cached": false,
///                                "irq": true, "stall_seconds": 10}
///   VTA_FPGA_UIO                the register window (default /dev/uio0)
///   VTA_FPGA_DMA                the DMA buffer (default /dev/udmabuf0)
///   VTA_FPGA_DMA_SYSFS          its sysfs directory, holding phys_addr and size
///                               (default `/sys/class/u-dma-buf/<name of VTA_FPGA_DMA>`)
///   VTA_FPGA_CACHED=1           map the buffer cached and keep it coherent with sync_for_device /
///                               sync_for_cpu around each run (default: uncached, O_SYNC)
///   VTA_FPGA_IRQ=0              wait by polling CTRL instead of the UIO interrupt
///   VTA_FPGA_STALL_SECONDS      how long the cycle counter may stand still in a run, a reset may
///                               wait, or the emulator may take to answer, before an error (default 10)

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "vta/driver/device.h"
#include "vta/driver/memory.h"

namespace vta::board {

/// A board that cannot be used as it is set up: a malformed setting (the board file, a VTA_FPGA_*
/// variable), a device file that is missing or of the wrong kind, a DMA buffer the accelerator does not
/// see, registers that are not VTA's. The message names the setting or the file (Python: vta.BoardError,
/// a RuntimeError).
class BoardError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BoardSettings {
  std::string uio = "/dev/uio0";
  std::string dma = "/dev/udmabuf0";
  std::string dma_sysfs;  ///< "" = `/sys/class/u-dma-buf/<file name of dma>`
  bool cached = false;
  bool irq = true;
  double stall_seconds = 10;

  /// The settings the board file (VTA_FPGA_BOARD) and the VTA_FPGA_* variables give. Throws
  /// BoardError naming the file or variable whose value is malformed.
  static BoardSettings from_env();
  /// Reads a board file (keys as above, all optional). Throws BoardError naming the file.
  static BoardSettings from_file(const std::string& path);
  /// The board file's text for these settings.
  std::string to_json() const;
  /// dma_sysfs, or the default derived from dma.
  std::string sysfs_dir() const;
};

/// The accelerator's register window: 32-bit registers at byte offsets (vta/driver/vcr_map.h) and
/// its interrupt.
class RegisterWindow {
 public:
  virtual ~RegisterWindow() = default;
  virtual void write(uint32_t offset, uint32_t value) = 0;
  virtual uint32_t read(uint32_t offset) = 0;
  /// Waits up to `timeout_ms` for the accelerator's interrupt (enabling it first). Returns whether it
  /// came; false at once when the window has no interrupt (the caller polls).
  virtual bool wait_interrupt(int timeout_ms) = 0;
  /// A fault the hardware reported besides its registers (the emulator: an RTL assertion), "" if none;
  /// forgets it.
  virtual std::string take_fault() { return {}; }
  /// What the window is, for diagnostics ("/dev/uio0", "the board emulator at ...").
  virtual const std::string& name() const = 0;
};

/// Opens the register window `settings.uio` names: a UIO character device (mapped), or a board
/// emulator's socket. Throws std::runtime_error naming the file and what is wrong with it (missing,
/// neither kind, cannot be mapped, the emulator not answering).
std::unique_ptr<RegisterWindow> open_register_window(const BoardSettings& settings);

/// Maps the DMA buffer `settings.dma` names (its physical address and size from sysfs) as a Dram.
/// Throws std::runtime_error naming the file that is missing or malformed.
std::unique_ptr<Dram> open_dma_memory(const BoardSettings& settings);

/// The board backend over `window` and `memory` (which must be a DMA region: std::invalid_argument
/// otherwise, naming it). What make_device("fpga") makes with the process's memory.
std::unique_ptr<Device> make_fpga_device(const Config& config, std::unique_ptr<RegisterWindow> window, Dram& memory,
                                         const BoardSettings& settings);

}  // namespace vta::board
