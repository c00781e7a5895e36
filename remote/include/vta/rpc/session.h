#pragma once
/// \file vta/rpc/session.h
/// The module-level client, as the tutorials' "RPC setup" works (docs/REMOTE.md): upload a built
/// module (a file of data, Module::save), load it on the server, allocate tensors in the remote
/// device's memory, call the module on them, read the statistics.
///
///   vta::rpc::Remote remote = vta::rpc::connect("127.0.0.1", 9091);   // or vta::rpc::local_session()
///   remote.upload("gemm.vtam");
///   vta::rpc::RemoteModule f = remote.load_module("gemm.vtam");
///   auto a = remote.empty({1, 64, 1, 16}, vta::runtime::DType::kInt8, "data");  // ... b, c
///   a.copy_from(a_host);
///   remote.clear_stats();
///   f(a, b, c);
///   c.copy_to(c_host);
///   vta::Stats s = remote.stats();
///
/// Requests whose answer nobody waits for (uploads, copies to the device, clearing the statistics,
/// freeing tensors) are queued and sent with the next request that needs an answer, in the same
/// round trip: the tutorials take one round trip per call, one per result read back, one per tensor
/// allocated and one for the upload and load together. An error of a queued request is thrown by the
/// call that sent it, naming the request. A Remote is used by one thread at a time.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vta/driver/device.h"
#include "vta/rpc/client.h"
#include "vta/runtime/tensor.h"

namespace vta::rpc {

/// A module call that failed on the server (a device error, a runtime error); what() is the
/// diagnostic, prefixed with the server.
class CallError : public RemoteError {
 public:
  CallError(const std::string& what, RunReply reply)
      : RemoteError(ErrorCode::kInternal, what), reply_(std::move(reply)) {}
  /// The device's state after the failed call (status, error class, statistics).
  const RunReply& reply() const { return reply_; }

 private:
  RunReply reply_;
};

namespace detail {
struct RemoteState;
}

/// A tensor in the remote device's memory, freed there when destroyed.
class RemoteTensor {
 public:
  ~RemoteTensor();
  RemoteTensor(RemoteTensor&&) noexcept;
  RemoteTensor& operator=(RemoteTensor&&) noexcept;
  RemoteTensor(const RemoteTensor&) = delete;
  RemoteTensor& operator=(const RemoteTensor&) = delete;

  const std::vector<int64_t>& shape() const { return shape_; }
  runtime::DType dtype() const { return dtype_; }
  const std::string& name() const { return name_; }
  size_t elements() const;
  size_t bytes() const { return packed_bytes(elements(), int(runtime::dtype_bits(dtype_))); }
  /// The tensor's physical address on the server.
  uint64_t phys() const { return phys_; }

  /// Copies to the device (queued, sent with the next request that waits for an answer). The element
  /// type must match dtype() (int8 values for an int4 tensor, packed on the way) and the count
  /// elements(); throws std::invalid_argument otherwise.
  void copy_from(std::span<const int8_t> host);
  void copy_from(std::span<const int32_t> host);
  /// Copies from the device (after everything queued has been sent).
  void copy_to(std::span<int8_t> host) const;
  void copy_to(std::span<int32_t> host) const;

 private:
  friend class Remote;
  friend class RemoteModule;
  RemoteTensor(std::shared_ptr<detail::RemoteState> state, std::vector<int64_t> shape, runtime::DType dtype,
               std::string name, uint64_t phys);
  void check(size_t count, runtime::DType t, const char* what) const;
  void send(const uint8_t* bytes, size_t n);  // queued Writes of at most a chunk each
  std::shared_ptr<detail::RemoteState> state_;
  std::vector<int64_t> shape_;
  runtime::DType dtype_;
  std::string name_;
  uint64_t phys_ = 0;
};

/// A module loaded on the server.
class RemoteModule {
 public:
  /// Its arguments, in order (names, element types, shapes).
  const std::vector<ModuleArg>& args() const { return args_; }
  const std::string& name() const { return name_; }
  /// Runs once on one tensor per argument (shapes and element types checked here first), with every
  /// queued request in the same round trip. Throws CallError with the server's diagnostic.
  void call(const std::vector<const RemoteTensor*>& tensors) const;
  template <class... T>
  void operator()(const T&... tensors) const {
    call({&tensors...});
  }

 private:
  friend class Remote;
  RemoteModule(std::shared_ptr<detail::RemoteState> state, std::string name, uint32_t handle,
               std::vector<ModuleArg> args);
  std::shared_ptr<detail::RemoteState> state_;
  std::string name_;
  uint32_t handle_ = 0;
  std::vector<ModuleArg> args_;
};

/// A session on a device server: the device, its memory, and the modules uploaded to it.
class Remote {
 public:
  ~Remote();
  Remote(Remote&&) noexcept;
  Remote& operator=(Remote&&) noexcept;

  /// Uploads the file at `path` under its file name (queued). Throws std::runtime_error when the
  /// file cannot be read, std::invalid_argument when its name is not an upload name.
  void upload(const std::string& path);
  /// Uploads `bytes` under `name` (valid_upload_name; queued).
  void upload(const std::string& name, std::span<const uint8_t> bytes);
  /// Loads an upload of this session as a module. Throws RemoteError naming the problem (nothing
  /// uploaded under that name, not a module, another configuration or target).
  RemoteModule load_module(const std::string& name);
  /// A zero-filled tensor in the remote device's memory.
  RemoteTensor empty(std::vector<int64_t> shape, runtime::DType dtype, std::string name = "");

  /// The device's statistics after the last call (sends what is queued first).
  Stats stats();
  /// Zeroes the statistics (queued).
  void clear_stats();
  /// Sends everything queued and waits for the answers.
  void flush();

  /// The server's backend ("fsim", "tsim") and "host:port".
  const std::string& target() const;
  const std::string& where() const;
  /// Round trips to the server so far, the handshake included.
  uint64_t round_trips() const;

 private:
  friend Remote connect(const std::string&, uint16_t, const ConnectionOptions&);
  friend Remote local_session(const std::string&);
  explicit Remote(std::shared_ptr<detail::RemoteState> state);
  std::shared_ptr<detail::RemoteState> state_;
};

/// A session on the server at host:port. Throws RemoteError naming the server and the reason.
Remote connect(const std::string& host, uint16_t port, const ConnectionOptions& options = {});
/// A session on a server started in this process on an ephemeral loopback port, serving `target`
/// ("fsim", "tsim"; empty: VTA_TARGET, else fsim); it stops when the Remote and everything made from
/// it are gone. The same code path as a remote server.
Remote local_session(const std::string& target = "");

}  // namespace vta::rpc
