#pragma once
// The board emulator: the files a board's Linux gives the board backend (docs/FPGA.md), served from the
// Verilated RTL. In a directory it makes
//   udmabuf0                      the DMA buffer (a file both processes map: the accelerator's memory)
//   u-dma-buf/udmabuf0/phys_addr  its physical address, and size, sync_* (u-dma-buf's sysfs attributes)
//   uio0                          a UNIX socket where /dev/uio0 would be: register accesses and interrupt
//                                 waits as messages (vta/board/wire.h), applied to the RTL's AXI4-Lite
//                                 port; the RTL's AXI4 master reads and writes the DMA buffer
//   board.json                    the settings naming them (VTA_FPGA_BOARD)
// and serves one driver at a time. The accelerator is clocked while a run or a reset is in progress,
// as a board's clock runs; its cycles are the tsim's (the same DRAM model and latencies).

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "vta/board/board.h"
#include "vta/tsim/simulator.h"

namespace vta::board {

struct EmulatorOptions {
  std::string dir;                           ///< where the files are made (created if missing)
  uint64_t dma_bytes = uint64_t{256} << 20;  ///< the DMA buffer's size
  PhysAddr dma_phys = 0x10000000;            ///< its physical address
  tsim::Simulator::Options sim;              ///< DRAM timing, waveform, ... (dram_memory is the buffer)
  /// When set, the physical address the sysfs file states (a driver given a wrong one: tests).
  std::optional<PhysAddr> stated_phys;
};

class Emulator {
 public:
  /// Makes the files and the design. Throws std::runtime_error naming what could not be made.
  explicit Emulator(EmulatorOptions options);
  ~Emulator();  ///< removes the files it made
  Emulator(const Emulator&) = delete;
  Emulator& operator=(const Emulator&) = delete;

  /// The settings a driver is given (also in board_file()).
  const BoardSettings& settings() const { return settings_; }
  std::string board_file() const;
  /// Serves drivers until `stop` returns true (asked at least every 50 ms).
  void serve(const std::function<bool()>& stop);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  BoardSettings settings_;
};

}  // namespace vta::board
