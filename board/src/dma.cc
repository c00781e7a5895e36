// The DMA buffer: a u-dma-buf device (or the board emulator's file standing for it), mapped as the
// process's Dram.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "vta/board/board.h"
#include "vta/driver/file.h"
#include "vta/driver/parse.h"

namespace vta::board {
namespace {

// A number in a sysfs attribute ("0x1f000000\n", "67108864\n").
uint64_t read_sysfs_number(const std::string& dir, const char* attribute) {
  const std::string path = dir + "/" + attribute;
  std::string text;
  try {
    text = read_file(path, 64);
  } catch (const FileError& e) {
    throw BoardError(std::string("fpga: cannot read the DMA buffer's ") + attribute + ": " + e.what() +
                     " (VTA_FPGA_DMA_SYSFS; is the u-dma-buf module loaded? docs/FPGA.md)");
  }
  const std::optional<uint64_t> v = parse_u64(text, Trailing::kNewline);
  if (!v) throw BoardError("fpga: " + path + " holds " + quoted(text, 32) + ", not a number");
  return *v;
}

}  // namespace

std::unique_ptr<Dram> open_dma_memory(const BoardSettings& settings) {
  const std::string sysfs = settings.sysfs_dir();
  const uint64_t phys = read_sysfs_number(sysfs, "phys_addr");
  const uint64_t size = read_sysfs_number(sysfs, "size");
  // O_SYNC: the buffer is mapped uncached, so neither side sees stale lines; cached, each run is
  // bracketed by sync_for_device / sync_for_cpu (the board device).
  const UniqueFd fd(::open(settings.dma.c_str(), O_RDWR | O_CLOEXEC | (settings.cached ? 0 : O_SYNC)));
  if (!fd.valid()) {
    throw BoardError("fpga: cannot open the DMA buffer " + settings.dma + " (VTA_FPGA_DMA): " + std::strerror(errno) +
                     " (is the u-dma-buf module loaded? docs/FPGA.md)");
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) < size) {
    throw BoardError("fpga: the DMA buffer " + settings.dma + " holds " + std::to_string(st.st_size) +
                     " bytes, fewer than the " + std::to_string(size) + " its " + sysfs + "/size says");
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);  // (it stays when fd closes)
  const int map_errno = errno;
  if (p == MAP_FAILED) {
    throw BoardError("fpga: cannot map the DMA buffer " + settings.dma + " (" + std::to_string(size) +
                     " bytes): " + std::strerror(map_errno));
  }
  DramRegion region;
  region.host = static_cast<uint8_t*>(p);
  region.phys = phys;
  region.bytes = size;
  region.name = settings.dma;
  region.release = [p, size] { ::munmap(p, size); };
  try {
    return std::make_unique<Dram>(std::move(region));
  } catch (const std::invalid_argument& e) {
    ::munmap(p, size);
    throw BoardError(std::string("fpga: ") + e.what() + " (from " + sysfs + "/phys_addr and size)");
  }
}

}  // namespace vta::board
