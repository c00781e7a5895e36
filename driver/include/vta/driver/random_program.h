#pragma once
/// \file vta/driver/random_program.h
/// Random VTA programs for differential testing (fsim against tsim and any later backend): the
/// hardware tests, `vta_tsim_diff_tests` and a sweep's `random` workload use them.
//
// Each program first loads every SRAM region it uses (so no result depends on what an earlier
// program left behind), then issues random instructions of all kinds for two "threads" that own
// the two halves of every buffer: 2D loads with padding into INP, WGT, ACC (and ACC_8BIT), micro-op
// kernels with two-level loops (GEMM with and without reset, every ALU opcode with immediates and
// vectors), and stores with strides. Dependency tokens are derived from the data hazards between the
// stages (load <-> compute on INP/WGT halves, compute <-> store on ACC halves): a push on the latest
// instruction of the producing stage and a pop on the consumer, always earlier in program order, so
// the program is race-free (both backends must agree byte for byte) and deadlock-free; a closing
// sequence lets FINISH wait for every stage.
//
// inject() then turns a valid program into an invalid one with exactly one defect of a chosen
// class (a row past its allocation, an SRAM range or micro-op index past a buffer, a token never
// pushed, no FINISH, a count past the instruction buffer, an illegal opcode, zero iterations): every
// backend must give the same return code and error class.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vta/driver/device.h"
#include "vta/driver/fsim.h"
#include "vta/driver/isa.h"
#include "vta/driver/memory.h"
#include "vta/driver/program.h"

namespace vta {

/// A zero-filled buffer in the global physical memory (Dram::global()), freed on destruction.
class DramBuffer {
 public:
  explicit DramBuffer(size_t bytes) : host_(static_cast<uint8_t*>(Dram::global().alloc(bytes))), size_(bytes) {
    if (host_ == nullptr) throw std::runtime_error("device allocation failed");
  }
  ~DramBuffer() { Dram::global().free(host_); }
  DramBuffer(const DramBuffer&) = delete;
  DramBuffer(DramBuffer&& o) noexcept : host_(std::exchange(o.host_, nullptr)), size_(o.size_) {}
  DramBuffer& operator=(const DramBuffer&) = delete;

  uint8_t* data() const { return host_; }
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(host_);
  }
  size_t size() const { return size_; }
  PhysAddr phys() const { return Dram::global().phys_addr(host_); }
  /// dram_base of this buffer's start in units of `unit` bytes.
  uint32_t base(uint64_t unit) const { return static_cast<uint32_t>(phys() / unit); }

 private:
  uint8_t* host_;
  size_t size_;
};

class RandomProgram {
 public:
  RandomProgram(const Config& c, uint64_t seed);
  ~RandomProgram();
  RandomProgram(RandomProgram&&) noexcept;
  RandomProgram& operator=(RandomProgram&&) noexcept;
  RandomProgram(const RandomProgram&) = delete;
  RandomProgram& operator=(const RandomProgram&) = delete;

  /// Restores the DRAM inputs and clears the output buffer (before each backend runs).
  void reset_memory();
  RunStatus run(Device& dev);

  /// The defects inject() can add, one per program.
  enum class Defect {
    kDramRange,
    kSramRange,
    kIndexRange,
    kMissingPush,
    kNoFinish,
    kCountPastBuffer,
    kIllegalMemoryType,
    kZeroIterations,
    kCount
  };
  static const char* name(Defect d) {
    static const char* kNames[] = {"dram_range", "sram_range",        "index_range",         "missing_push",
                                   "no_finish",  "count_past_buffer", "illegal_memory_type", "zero_iterations"};
    return kNames[int(d)];
  }
  /// Makes the program invalid with one defect; returns the error class every backend must report.
  ErrorKind inject(Defect d);
  std::vector<uint8_t> output() const;
  /// Its instructions.
  size_t size() const;
  /// Its instructions disassembled, one per line.
  std::string listing() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// One program of a differential run that did not agree: its seed, why, its listing.
struct DifferentialMismatch {
  uint64_t seed = 0;
  std::string why, listing;
};
struct DifferentialResult {
  uint64_t programs = 0, instructions = 0, cycles = 0;  ///< cycles: the device under test's, when clocked
  Stats stats;                                          ///< the device under test's, summed
  std::vector<DifferentialMismatch> mismatches;         ///< at most `max_mismatches`
};

/// Runs the random programs of seeds [first, first + count) on `reference` and on `dut`: every
/// output byte and the counters must agree; stops after `max_mismatches` mismatches.
DifferentialResult differential(const Config& c, Device& reference, Device& dut, const std::string& dut_name,
                                uint64_t first, uint64_t count, uint64_t max_mismatches = 5);

}  // namespace vta
