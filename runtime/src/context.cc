// Runtimes: their state and error rules (context_state.h), the buffer and queue registries, the
// thread's own runtime and the Contexts a program makes.

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "context_state.h"
#include "vta/driver/build_config.h"

namespace vta::runtime {
namespace {

// Buffer handles handed out by VTABufferAlloc and wrap_buffer. The handle is the DataBuffer's address;
// its device memory is shared with every batch that queued a transfer on it, so freeing a buffer
// before the batch runs only invalidates the handle (the memory is released when the batch is done
// with it).
std::mutex g_buffers_mu;
std::map<const void*, std::unique_ptr<DataBuffer>> g_buffers;

// A handle that is not here (after VTARuntimeShutdown) or that is not the calling thread's current
// queue is refused by name (runtime_api.cc).
std::mutex g_queues_mu;
std::map<const void*, std::optional<std::thread::id>> g_queues;

thread_local ContextState t_own;               // the thread's own runtime
thread_local ContextState* t_bound = nullptr;  // a Context bound by Context::Scope, if any

// The trace file named by VTA_TRACE_CALLS, opened (truncated) when the thread's queue is created.
Trace open_trace() {
  Trace t;
  const char* env = std::getenv("VTA_TRACE_CALLS");
  if (env == nullptr || *env == '\0') return t;
  t.claim = PathClaim(env, PathClaim::Suffix::kAppend);
  t.partial = std::make_unique<PartialFile>(t.claim.path());
  t.file.reset(std::fopen(t.partial->partial_path().c_str(), "w"));
  if (t.file == nullptr) {
    throw RuntimeError("cannot open the VTA_TRACE_CALLS file " + t.claim.path() + ": " + std::strerror(errno));
  }
  return t;
}

// A context's device: every call keeps the calling thread's Scope binding, whatever runs on the same
// OS thread while the device waits (another SC_THREAD with a Scope of its own).
class BindingKeeper final : public ForwardingDevice {
 public:
  using ForwardingDevice::ForwardingDevice;
  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    const Keep keep;
    return ForwardingDevice::run(insn_addr, count, budget);
  }
  const Stats& stats() const override {
    const Keep keep;
    return ForwardingDevice::stats();
  }
  void clear_stats() override {
    const Keep keep;
    ForwardingDevice::clear_stats();
  }
  TokenCounts tokens() const override {
    const Keep keep;
    return ForwardingDevice::tokens();
  }

 private:
  struct Keep {
    ContextState* kept = t_bound;
    Keep() = default;
    Keep(const Keep&) = delete;
    Keep& operator=(const Keep&) = delete;
    ~Keep() { t_bound = kept; }
  };
};

}  // namespace

DataBuffer* as_buffer(const void* handle) {
  std::lock_guard lock(g_buffers_mu);
  auto it = g_buffers.find(handle);
  return it == g_buffers.end() ? nullptr : it->second.get();
}

void* add_buffer(std::unique_ptr<DataBuffer> b) {
  DataBuffer* handle = b.get();
  std::lock_guard lock(g_buffers_mu);
  g_buffers[handle] = std::move(b);
  return handle;
}

std::unique_ptr<DataBuffer> remove_buffer(const void* handle) {
  std::lock_guard lock(g_buffers_mu);
  auto it = g_buffers.find(handle);
  if (it == g_buffers.end()) return nullptr;
  std::unique_ptr<DataBuffer> b = std::move(it->second);
  g_buffers.erase(it);
  return b;
}

DataBuffer& require_buffer(void* handle, const char* call) {
  DataBuffer* b = as_buffer(handle);
  if (b == nullptr) {
    throw RuntimeError(std::string(call) +
                       ": argument is not a live buffer from VTABufferAlloc (NULL, freed, or a data pointer instead "
                       "of the handle)");
  }
  return *b;
}

size_t buffer_bytes(const void* handle) {
  const DataBuffer* b = as_buffer(handle);
  return b == nullptr ? 0 : b->size;
}

void* buffer_view(const void* handle, size_t offset, size_t bytes, std::string name) {
  const DataBuffer* whole = as_buffer(handle);
  if (whole == nullptr) throw std::invalid_argument("buffer view " + name + ": not a live buffer");
  if (bytes == 0 || offset > whole->size || bytes > whole->size - offset) {
    throw std::invalid_argument("buffer view " + name + ": bytes [" + std::to_string(offset) + ", " +
                                std::to_string(offset + bytes) + ") leave the buffer's " + std::to_string(whole->size));
  }
  auto b = std::make_unique<DataBuffer>();
  b->data = whole->data + offset;
  b->phys = whole->phys + offset;
  b->size = bytes;
  b->name = std::move(name);
  b->memory = whole->memory;
  return add_buffer(std::move(b));
}

std::optional<std::optional<std::thread::id>> queue_owner(const void* handle) {
  std::lock_guard lock(g_queues_mu);
  auto it = g_queues.find(handle);
  if (it == g_queues.end()) return std::nullopt;
  return it->second;
}

Trace& Trace::operator=(Trace&& o) noexcept {
  release();
  claim = std::move(o.claim);
  partial = std::move(o.partial);
  file = std::move(o.file);
  return *this;
}

void Trace::release() {
  if (file) {
    const bool written = std::fflush(file.get()) == 0 && std::ferror(file.get()) == 0;
    file.reset();  // closed, then renamed onto its name, before the name is free again
    try {
      if (written && partial) partial->commit();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "vta runtime: VTA_TRACE_CALLS: %s\n", e.what());
    }
    if (!written) std::fprintf(stderr, "vta runtime: VTA_TRACE_CALLS: cannot write %s\n", claim.path().c_str());
  }
  partial.reset();
  claim.release();
}

// ---- the state of one runtime ------------------------------------------------------------------

CommandQueue& ContextState::get_queue() {
  if (queue) return *queue;
  if (!thread_own) throw RuntimeError("runtime context: its queue is closed");
  try {
    auto device = make_device(default_target(), build_config(), DeviceOptions::from_env());
    QueueOptions options;
    Trace t = open_trace();
    options.trace = t.file.get();
    auto q = std::make_unique<CommandQueue>(std::move(device), options);
    trace = std::move(t);
    adopt(std::move(q), std::this_thread::get_id());
  } catch (const RuntimeError&) {
    throw;
  } catch (const std::exception& e) {
    throw RuntimeError(std::string("cannot create the VTA device: ") + e.what());
  }
  return *queue;
}

void ContextState::adopt(std::unique_ptr<CommandQueue> q, std::optional<std::thread::id> thread) {
  queue = std::move(q);
  std::lock_guard lock(g_queues_mu);
  g_queues[queue.get()] = thread;
}

void ContextState::close() {
  if (queue) {
    std::lock_guard lock(g_queues_mu);
    g_queues.erase(queue.get());
  }
  queue.reset();
  trace.release();
}

void ContextState::fail(const std::string& message) {
  if (!poisoned) {
    std::fprintf(stderr, "vta runtime: error: %s\n", message.c_str());
    error = message;
  }
  poisoned = true;
}

int ContextState::guarded(const std::function<void()>& f) {
  if (poisoned) return -1;
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    fail(e.what());
    return -1;
  }
}

int ContextState::outside_batch(const std::function<void()>& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    error = e.what();
    std::fprintf(stderr, "vta runtime: error: %s\n", e.what());
    return -1;
  }
}

void ContextState::push_kernel(bool gemm, void** uop_handle, int64_t key,
                               const std::function<void(UopKernel&)>& record) {
  const char* call = gemm ? "VTAPushGEMMOp" : "VTAPushALUOp";
  // The handle only identifies the call site; the queue owns the kernels, so nothing dangles when a
  // queue is shut down or a handle goes out of scope. Threads running the same kernel code share
  // the (static) handle: it is claimed atomically.
  std::atomic_ref<void*> slot(*uop_handle);
  void* site_handle = slot.load();
  if (site_handle == nullptr) {
    // the handle is an opaque site number, never dereferenced
    void* fresh = reinterpret_cast<void*>(uintptr_t(CommandQueue::new_site_id()));  // NOLINT(performance-no-int-to-ptr)
    if (slot.compare_exchange_strong(site_handle, fresh)) site_handle = fresh;
  }
  const auto site = uint64_t(reinterpret_cast<uintptr_t>(site_handle));
  get_queue().push_kernel(gemm, site, key, [&](UopKernel& k) {
    try {
      record(k);
    } catch (const KernelError& e) {
      throw RuntimeError(std::string(call) + ": " + e.what());
    }
  });
}

int ContextState::synchronize(uint32_t wait_cycles) {
  CommandQueue& q = get_queue();
  if (poisoned) {
    q.trace_line("VTASynchronize()");
    q.discard_batch();
    poisoned = false;  // the error stays readable through VTARuntimeGetLastError
    std::fprintf(stderr, "vta runtime: VTASynchronize: batch discarded after the error above\n");
    return -1;
  }
  error.clear();
  const int rc = guarded([&] { q.synchronize(wait_cycles); });
  poisoned = false;
  return rc;
}

ContextState& current_state() { return t_bound != nullptr ? *t_bound : own_state(); }

ContextState& own_state() {
  if (t_own.owner == nullptr) {
    thread_local Context own(t_own);  // the wrapper Context::current() returns
    (void)own;
  }
  return t_own;
}

// ---- Context -------------------------------------------------------------------------------------

Context::Context(std::unique_ptr<Device> device, Dram& dram)
    : dram_(dram), owned_(std::make_unique<ContextState>()), state_(owned_.get()) {
  if (!device) throw std::invalid_argument("runtime context: no device");
  state_->owner = this;
  QueueOptions options;
  options.dram = &dram;
  state_->adopt(std::make_unique<CommandQueue>(std::make_unique<BindingKeeper>(std::move(device)), options),
                std::nullopt);
}

Context::Context(ContextState& own) : dram_(Dram::global()), state_(&own) {
  own.owner = this;
  own.thread_own = true;
}

Context::~Context() {
  // a scope still binding this context on the destroying thread would leave a dangling pointer
  if (t_bound == state_) t_bound = nullptr;
  if (!owned_) state_->owner = nullptr;
}

Context& Context::current() { return *current_state().owner; }

int Context::open() {
  try {
    (void)state_->get_queue();
    return 0;
  } catch (const std::exception& e) {
    state_->fail(e.what());
    return -1;
  }
}

CommandQueue& Context::queue() { return state_->get_queue(); }

void* Context::wrap_buffer(PhysAddr phys, size_t bytes, std::string name) {
  uint8_t* data = dram_.translate(phys, bytes);
  if (data == nullptr || bytes == 0) {
    throw RuntimeError("runtime context: " + std::to_string(bytes) + " bytes at physical address " +
                       std::to_string(phys) + " are not inside one allocation of the context's memory");
  }
  auto b = std::make_unique<DataBuffer>();
  b->data = data;
  b->phys = phys;
  b->size = bytes;
  b->name = std::move(name);
  return add_buffer(std::move(b));
}

void Context::release_buffer(void* handle) { (void)remove_buffer(handle); }

int Context::load_buffer_2d(void* buffer, uint32_t src_elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride,
                            uint32_t x_pad_before, uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                            uint32_t dst_sram_index, uint32_t dst_memory_type) {
  return state_->guarded([&] {
    CommandQueue& q = state_->get_queue();
    q.load_buffer_2d(require_buffer(buffer, "VTALoadBuffer2D"), src_elem_offset, x_size, y_size, x_stride, x_pad_before,
                     y_pad_before, x_pad_after, y_pad_after, dst_sram_index, dst_memory_type);
  });
}

int Context::store_buffer_2d(uint32_t src_sram_index, uint32_t src_memory_type, void* buffer, uint32_t dst_elem_offset,
                             uint32_t x_size, uint32_t y_size, uint32_t x_stride) {
  return state_->guarded([&] {
    CommandQueue& q = state_->get_queue();
    q.store_buffer_2d(src_sram_index, src_memory_type, require_buffer(buffer, "VTAStoreBuffer2D"), dst_elem_offset,
                      x_size, y_size, x_stride);
  });
}

int Context::dep_push(int from, int to) {
  return state_->guarded([&] { state_->get_queue().dep_push(from, to); });
}

int Context::dep_pop(int from, int to) {
  return state_->guarded([&] { state_->get_queue().dep_pop(from, to); });
}

int Context::push_kernel(bool gemm, void** site, int64_t closure, const std::function<void(UopKernel&)>& record) {
  return state_->guarded([&] { state_->push_kernel(gemm, site, closure, record); });
}

int Context::synchronize(uint32_t wait_cycles) {
  try {
    return state_->synchronize(wait_cycles);
  } catch (const std::exception& e) {  // the queue could not be opened: there is no batch to discard
    state_->fail(e.what());
    state_->poisoned = false;
    return -1;
  }
}

bool Context::batch_failed() const { return state_->poisoned; }

void Context::abandon_batch() {
  if (state_->queue) state_->queue->discard_batch();
  state_->clear_batch_state();  // the error stays readable through VTARuntimeGetLastError
}

CommandQueue::Checkpoint Context::checkpoint() {
  return state_->queue ? state_->queue->checkpoint() : CommandQueue::Checkpoint{};
}

void Context::abandon_batch(const CommandQueue::Checkpoint& back_to) {
  if (state_->queue) state_->queue->discard_batch(back_to);
  state_->clear_batch_state();
}

void Context::clear_error() { state_->clear_errors(); }

void Context::reset() {
  if (state_->queue) state_->queue->discard_batch();
  state_->clear_errors();
}

const std::string& Context::last_error() const { return state_->error; }

Context::Scope::Scope(Context& ctx) : previous_(t_bound) { t_bound = ctx.state_; }
Context::Scope::~Scope() { t_bound = previous_; }

}  // namespace vta::runtime
