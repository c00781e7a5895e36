#pragma once
/// \file vta/runtime/command_queue.h
/// The runtime's command queue (spec section 6): builds the instruction stream of one synchronize
/// batch from runtime calls (lazy token pops, push merging, NOP encodings), manages micro-op kernels
/// and their residency in the micro-op SRAM, closes the batch with the token protocol and FINISH, and
/// runs it on a Device. The C API of vta/runtime.h is a thin layer over this class.

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "vta/driver/device.h"
#include "vta/driver/isa.h"

namespace vta::runtime {

/// A misuse of the runtime, with a message naming the call and the problem.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An error in recording a micro-op kernel (UopKernel::loop_begin, loop_end, push): the call that
/// pushes the kernel reports it under its own name.
class KernelError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/// A device data buffer (what VTABufferAlloc's handle points to).
struct DataBuffer {
  uint8_t* data = nullptr;
  PhysAddr phys = 0;
  size_t size = 0;
  std::string name;  ///< shown in the call trace
  /// Owner of the device memory when the buffer owns it (VTABufferAlloc): a batch that queues a
  /// transfer on the buffer keeps a copy until it has run or been discarded, so freeing the buffer
  /// early never lets the device touch reused memory.
  std::shared_ptr<void> memory;
};

/// One recording call of a micro-op kernel, kept so the trace can print the kernel as it was written.
struct KernelOp {
  enum Kind { kLoopBegin, kLoopEnd, kPush } kind;
  uint32_t a[8] = {};  ///< LoopBegin: extent, dst, src, wgt; Push: mode, reset, dst, src, wgt, opcode, use_imm, imm
};

/// A recorded micro-op kernel.
struct UopKernel {
  struct Loop {
    uint32_t extent, dst_factor, src_factor, wgt_factor;
  };
  int mode = -1;  ///< 0 GEMM, 1 ALU, -1 no micro-op yet
  bool reset = false;
  uint32_t opcode = 0, use_imm = 0;
  int32_t imm = 0;
  std::vector<Uop> uops;
  std::vector<Loop> loops;
  std::vector<KernelOp> ops;
  int open_loops = 0;
  // Residency in the micro-op SRAM for the current batch.
  bool resident = false;
  uint32_t sram_begin = 0;

  // Recording (what VTAUopLoopBegin, VTAUopLoopEnd and VTAUopPush do inside a kernel's finit): each
  // checks the call against the kernel recorded so far and throws KernelError naming the problem,
  // leaving the kernel unchanged.
  void loop_begin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor, uint32_t wgt_factor);
  void loop_end();
  void push(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index, uint32_t wgt_index,
            uint32_t opcode, uint32_t use_imm, int32_t imm_val);
};

/// Options of a command queue.
struct QueueOptions {
  /// Instructions per batch before an automatic synchronize (the reference: VTA_MAX_XFER / 16).
  size_t max_insns = Dram::kMaxTransferBytes / Config::kInsnElemBytes;
  /// Where the call trace goes (nullptr: none).
  std::FILE* trace = nullptr;
  /// The memory the device runs on, where each batch's instruction stream and micro-op image are
  /// staged (nullptr: Dram::global()). Must be the device's own.
  Dram* dram = nullptr;
};

class CommandQueue {
 public:
  CommandQueue(std::unique_ptr<Device> device, QueueOptions options = {});
  ~CommandQueue();
  CommandQueue(const CommandQueue&) = delete;
  CommandQueue& operator=(const CommandQueue&) = delete;

  Device& device() { return *device_; }
  const Isa& isa() const { return isa_; }
  void set_debug(int flags) { debug_ = flags; }
  void set_trace(std::FILE* trace) { options_.trace = trace; }

  // Runtime calls (each throws RuntimeError on misuse; see vta/runtime.h for the meaning).
  void load_buffer_2d(const DataBuffer& src, uint32_t src_elem_offset, uint32_t x_size, uint32_t y_size,
                      uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before, uint32_t x_pad_after,
                      uint32_t y_pad_after, uint32_t dst_sram_index, uint32_t dst_memory_type);
  void store_buffer_2d(uint32_t src_sram_index, uint32_t src_memory_type, const DataBuffer& dst,
                       uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride);
  void dep_push(int from, int to);
  void dep_pop(int from, int to);
  /// A new process-unique call-site id (what a VTAPushGEMMOp handle stores).
  static uint64_t new_site_id();
  /// Pushes the kernel of (call site, closure key), recording it with `record` the first time this
  /// queue sees that pair. The queue owns every kernel it recorded.
  void push_kernel(bool gemm, uint64_t site, int64_t key, const std::function<void(UopKernel&)>& record);
  /// Closes and runs the batch. Throws RuntimeError on a token imbalance or a device failure (the
  /// batch is discarded either way).
  void synchronize(uint32_t wait_cycles);
  /// Runs a batch that pops every token earlier batches left in the queues (the ledger), so the next
  /// batch starts from empty queues, as a fresh device's; nothing when none is left. A program whose
  /// pushes outnumber its pops (spec 4.1: they leak into the next run) then cannot change the cycles
  /// of what runs after it. Called between batches only (RuntimeError with one open).
  void drain_tokens(uint32_t wait_cycles);
  /// Drops the current batch, including its pending pops (after an error).
  void discard_batch();
  /// Where a batch stood before a caller added to it: taken when the batch has no instruction yet, it
  /// holds the pops still pending from before (a program that ends with a pop after its synchronize,
  /// as the tutorials' do, leaves one for the next program: the device holds its token).
  struct Checkpoint {
    bool valid = false;  ///< the batch was empty: discard_batch(checkpoint) can go back to it
    size_t batch = 0;    ///< synchronize_count() then: a later batch cannot go back to it
    bool pending_prev[3] = {false, false, false}, pending_next[3] = {false, false, false};
  };
  Checkpoint checkpoint() const;
  /// Drops the current batch and goes back to `back_to` when it was taken in this batch, keeping the
  /// pops it holds whose tokens the device still has (none after a failed run, which empties the
  /// queues); else as discard_batch(). What a caller that stops halfway (a module call) leaves, so the
  /// pops it found pending still meet their tokens.
  void discard_batch(const Checkpoint& back_to);

  /// For tests: the instructions of the current (unsynchronized) batch, and the token ledger: tokens
  /// each queue holds once everything emitted so far has run (l2g, g2l, g2s, s2g).
  const std::vector<RawInsn>& pending_insns() const { return insns_; }
  TokenCounts ledger() const;
  size_t synchronize_count() const { return syncs_; }
  /// The complete stream (with FINISH) of the last batch handed to the device.
  const std::vector<RawInsn>& last_stream() const { return last_stream_; }

  /// Trace helpers (also used by the C layer for calls that do not reach the queue).
  void trace_line(const std::string& line) const;
  std::string buffer_name(const DataBuffer& b) const;

 private:
  uint32_t dram_base(const std::string& call, const DataBuffer& b, uint64_t unit, uint32_t offset) const;
  /// Refuses a transfer whose rows reach outside the buffer it names, and pins the buffer's memory
  /// for this batch.
  void check_transfer(const std::string& call, const DataBuffer& b, uint64_t unit, uint32_t offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride);
  RawInsn encode_mem(const std::string& call, const MemInsn& m) const;
  void do_dep_push(int from, int to);  // dep_push without trace or overflow check
  void do_dep_pop(int from, int to);
  RawInsn& new_insn(Stage stage, RawInsn insn);
  void commit_pending_pops(Stage stage);
  void check_overflow();
  void emit_nop(Stage stage);
  std::optional<Stage> pipeline_stage(const RawInsn& r) const;
  void close_batch();
  void serialize();
  void dump(const std::vector<RawInsn>& insns) const;

  std::unique_ptr<Device> device_;
  QueueOptions options_;
  Isa isa_;
  int debug_ = 0;
  std::vector<RawInsn> insns_;
  // Pending pops per stage (index stage-1): pop_prev, pop_next.
  bool pending_prev_[3] = {false, false, false};
  bool pending_next_[3] = {false, false, false};
  int64_t ledger_[4] = {0, 0, 0, 0};  // l2g, g2l, g2s, s2g
  // Micro-op staging of this batch: the image and which LOAD UOP points where.
  std::vector<uint32_t> uop_image_;
  std::vector<std::pair<size_t, uint32_t>> uop_loads_;                          // (instruction index, image offset)
  std::map<std::pair<uint64_t, int64_t>, std::unique_ptr<UopKernel>> kernels_;  // by (site, closure key)
  std::vector<UopKernel*> resident_;
  uint32_t uop_cursor_ = 0;
  size_t syncs_ = 0;
  std::vector<RawInsn> last_stream_;
  std::set<std::shared_ptr<void>> pinned_;  ///< memory of the buffers this batch transfers
};

}  // namespace vta::runtime
