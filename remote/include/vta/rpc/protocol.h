#pragma once
/// \file vta/rpc/protocol.h
/// The remote-device protocol (docs/REMOTE.md): versioned, length-prefixed binary frames and the
/// messages they carry, encoded and decoded without sockets. Every decoder checks a frame's header
/// (magic, version, type, length against the limits) before it reserves any memory, and every field
/// against the bytes that are left: a malformed frame is a ProtocolError naming the field and the
/// problem, never a crash or an unbounded allocation.

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "vta/driver/format.h"

namespace vta {
class Config;
struct Stats;
}  // namespace vta

namespace vta::rpc {

inline constexpr uint32_t kMagic = 0x52415456;  ///< "VTAR", little-endian
/// 2: WireStats carries the accumulator loads' DRAM bytes (Stats::acc_load_dram_nbytes).
inline constexpr uint16_t kVersion = 2;
inline constexpr size_t kHeaderBytes = 16;  ///< magic u32, version u16, type u16, id u32, payload length u32

/// Error codes carried by Error messages and ProtocolError (stable numbers, docs/REMOTE.md).
enum class ErrorCode : uint32_t {
  kBadMagic = 1,        ///< the first four bytes are not "VTAR"
  kBadVersion = 2,      ///< a protocol version this side does not speak
  kUnknownType = 3,     ///< a message type this version does not define
  kFrameTooLarge = 4,   ///< a payload length over the receiver's limit
  kTruncated = 5,       ///< a field reaches past the end of the payload
  kTrailingBytes = 6,   ///< bytes left after the last field
  kBadValue = 7,        ///< a field out of its range (a size, an enum, a string length)
  kUnexpected = 8,      ///< a message the receiver does not accept in this state (e.g. before Hello)
  kConfigMismatch = 9,  ///< client and server were built for different hardware configurations
  kAuthFailed = 10,     ///< the shared-secret proof did not match
  kNoSuchBuffer = 11,   ///< an address that is not inside a buffer of this session
  kOutOfMemory = 12,    ///< the session's memory cap or the device memory is exhausted
  kBusy = 13,           ///< the server's session limit is reached
  kTimeout = 14,        ///< the peer was idle for longer than its limit
  kInternal = 15,       ///< a server failure that is not the client's fault
};
const char* to_string(ErrorCode code);

/// A frame or message that breaks the protocol: `code` says how, what() names the field.
class ProtocolError : public std::runtime_error {
 public:
  ProtocolError(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

/// Message types: requests from the client, each answered by the reply of the same id (or Error).
enum class MsgType : uint16_t {
  kHello = 1,         ///< client -> server: version, config fingerprint, client nonce
  kHelloReply = 2,    ///< server -> client: server config fingerprint, challenge nonce, auth needed
  kAuth = 3,          ///< client -> server: proof of the shared secret over both nonces
  kAuthReply = 4,     ///< server -> client: accepted
  kAlloc = 5,         ///< allocate device memory
  kAllocReply = 6,    ///< its physical address
  kFree = 7,          ///< free a buffer
  kWrite = 8,         ///< copy bytes into device memory
  kRead = 9,          ///< copy bytes out of device memory
  kReadReply = 10,    ///< the bytes
  kRun = 11,          ///< run an instruction stream
  kRunReply = 12,     ///< status, error class, diagnostic, statistics, tokens
  kClearStats = 13,   ///< zero the statistics
  kGoodbye = 14,      ///< end the session (the server frees everything it held)
  kOk = 15,           ///< server -> client: a request without data succeeded
  kError = 16,        ///< server -> client: a request failed (code and message)
  kUpload = 17,       ///< a module file's bytes, kept under a name in the session's store
  kLoadModule = 18,   ///< read an uploaded module (checked, never executed as code)
  kModuleReply = 19,  ///< its handle and the arguments it takes
  kCall = 20,         ///< run a loaded module once on device buffers; answered with a RunReply
};
const char* to_string(MsgType type);

/// Receiver-side limits; a frame over them is refused before its payload is read.
struct Limits {
  uint32_t max_payload = 64u << 20;  ///< bytes in one frame (copies are split into chunks of at most this)
  uint32_t max_string = 1u << 16;    ///< bytes in one string field (names, diagnostics)
};

inline constexpr uint32_t kMaxModuleArgs = 64;  ///< arguments of one module (ModuleReply, Call)
inline constexpr uint32_t kMaxRank = 8;         ///< dimensions of one argument
inline constexpr size_t kMaxUploadName = 128;   ///< bytes of an upload's name

/// Whether `name` may name an upload: 1 to kMaxUploadName bytes of letters, digits, '.', '_' and
/// '-', not starting with '.'. Names are keys of the session's store, never paths on the server.
bool valid_upload_name(std::string_view name);
/// Whether `c` may appear in an upload name (a letter, a digit, '.', '_' or '-').
bool upload_name_char(char c);

struct FrameHeader {
  uint16_t version = kVersion;
  MsgType type = MsgType::kOk;
  uint32_t id = 0;
  uint32_t length = 0;  ///< payload bytes after the header
};

/// The device's counters as they travel: the seven statistics, the optional cycle count and the
/// optional accumulator loads' DRAM bytes (Stats::acc_load_dram_nbytes).
struct WireStats {
  uint64_t counters[7] = {};
  std::optional<uint64_t> cycles;
  std::optional<uint64_t> acc_load_dram;
  bool operator==(const WireStats&) const = default;
};
/// A device's statistics as they travel, and back.
WireStats to_wire(const Stats& s);
Stats from_wire(const WireStats& w);

struct Hello {
  uint16_t version = kVersion;
  uint64_t config_hash = 0;
  std::string config_name;  ///< the bitstream name, for the mismatch message
  uint64_t client_nonce = 0;
  bool operator==(const Hello&) const = default;
};
struct HelloReply {
  uint64_t config_hash = 0;
  std::string config_name;
  uint64_t server_nonce = 0;
  bool auth_required = false;
  std::string target;  ///< the backend of the session's device ("fsim", "tsim")
  bool operator==(const HelloReply&) const = default;
};
struct Auth {
  std::vector<uint8_t> proof;  ///< 32 bytes: HMAC-SHA256(secret, client_nonce || server_nonce)
  bool operator==(const Auth&) const = default;
};
struct AuthReply {
  bool operator==(const AuthReply&) const = default;
};
struct Alloc {
  uint64_t bytes = 0;
  uint64_t phys = 0;  ///< 0: anywhere; else exactly here (page-aligned): a client mirroring its own memory
  bool operator==(const Alloc&) const = default;
};
struct AllocReply {
  uint64_t phys = 0;
  bool operator==(const AllocReply&) const = default;
};
struct Free {
  uint64_t phys = 0;
  bool operator==(const Free&) const = default;
};
struct Write {
  uint64_t phys = 0;
  std::vector<uint8_t> data;
  bool operator==(const Write&) const = default;
};
struct Read {
  uint64_t phys = 0;
  uint32_t bytes = 0;
  bool operator==(const Read&) const = default;
};
struct ReadReply {
  std::vector<uint8_t> data;
  bool operator==(const ReadReply&) const = default;
};
struct Run {
  uint64_t insn_phys = 0;
  uint32_t count = 0;
  uint64_t budget = 0;
  bool operator==(const Run&) const = default;
};
struct RunReply {
  uint32_t status = 0;      ///< vta::RunStatus
  uint32_t error_kind = 0;  ///< vta::ErrorKind
  std::string diagnostic;
  WireStats stats;
  uint64_t tokens[4] = {};  ///< l2g, g2l, g2s, s2g
  bool operator==(const RunReply&) const = default;
};
struct ClearStats {
  bool operator==(const ClearStats&) const = default;
};
struct Goodbye {
  bool operator==(const Goodbye&) const = default;
};
struct Ok {
  bool operator==(const Ok&) const = default;
};
struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  bool operator==(const Error&) const = default;
};

struct Upload {
  std::string name;  ///< valid_upload_name; an upload of the same name replaces it
  std::vector<uint8_t> data;
  bool operator==(const Upload&) const = default;
};
struct LoadModule {
  std::string name;  ///< of an upload of this session
  bool operator==(const LoadModule&) const = default;
};
/// An argument of a loaded module: a tensor in device memory of this shape and element type.
struct ModuleArg {
  std::string name;
  uint8_t dtype = 0;  ///< 0 int8, 1 int32, 2 int4 (packed two a byte)
  std::vector<int64_t> shape;
  bool operator==(const ModuleArg&) const = default;
};
struct ModuleReply {
  uint32_t handle = 0;
  std::vector<ModuleArg> args;
  bool operator==(const ModuleReply&) const = default;
};
struct Call {
  uint32_t handle = 0;
  std::vector<uint64_t> args;  ///< the physical address of a buffer of this session per argument, in order
  bool operator==(const Call&) const = default;
};

/// One message of any type; the alternatives are in wire-type order (type_of is the index plus one).
using Message = std::variant<Hello, HelloReply, Auth, AuthReply, Alloc, AllocReply, Free, Write, Read, ReadReply, Run,
                             RunReply, ClearStats, Goodbye, Ok, Error, Upload, LoadModule, ModuleReply, Call>;
MsgType type_of(const Message& m);

/// The whole frame (header and payload) of `m` with request id `id`. Throws ProtocolError
/// (kFrameTooLarge, kBadValue) when `m` does not fit `limits`: the sender checks what the receiver will.
std::vector<uint8_t> encode(const Message& m, uint32_t id, const Limits& limits = {});

/// The frame of Write{phys, data} without its data bytes: a sender writes this, then `data` itself
/// (no copy of the bytes). Checks as encode does.
std::vector<uint8_t> encode_write_prefix(uint64_t phys, std::span<const uint8_t> data, uint32_t id,
                                         const Limits& limits = {});

/// The header at the start of `bytes` (at least kHeaderBytes), checked: magic, version, a known type
/// and a length within `limits`.
FrameHeader decode_header(std::span<const uint8_t> bytes, const Limits& limits = {});
/// The message in `payload` (exactly header.length bytes), every field checked.
Message decode_payload(const FrameHeader& header, std::span<const uint8_t> payload, const Limits& limits = {});

/// A frame as it is taken out of a byte stream.
struct Frame {
  FrameHeader header;
  Message message;
};
/// A frame whose payload is not decoded yet: a view into the decoder's buffer, valid until the
/// decoder is fed or asked for the next frame.
struct RawFrame {
  FrameHeader header;
  std::span<const uint8_t> payload;
};
/// A Write decoded in place: `data` points into the payload it came from (no copy of the bytes).
struct WriteRef {
  uint64_t phys = 0;
  std::span<const uint8_t> data;
};
/// Decodes the payload of a Write frame with every check decode_payload makes, without copying its data.
WriteRef decode_write(const FrameHeader& header, std::span<const uint8_t> payload, const Limits& limits = {});

/// Cuts a byte stream into frames: feed() what arrived, next() returns each complete frame. The
/// buffer never holds more than one frame's worth beyond what was fed (a header announcing a frame
/// over the limit fails at once, before its payload arrives). After a ProtocolError the decoder is
/// spent: the connection must be closed.
class FrameDecoder {
 public:
  explicit FrameDecoder(Limits limits = {}) : limits_(limits) {}
  void feed(std::span<const uint8_t> bytes);
  std::optional<Frame> next();
  /// The next complete frame with its header checked and its payload not decoded (a receiver that
  /// copies a Write's bytes straight to their destination: decode_write).
  std::optional<RawFrame> next_raw();
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  Limits limits_;
  std::vector<uint8_t> buf_;
  size_t pos_ = 0;
};

/// Token authentication (docs/REMOTE.md): client and server share a secret; in the handshake the
/// client proves it knows it without sending it, by HMAC-SHA256(secret, kAuthContext || client_nonce
/// || server_nonce) (nonces as little-endian u64); the server's fresh nonce makes every proof single-use.
inline constexpr size_t kProofBytes = 32;
inline constexpr size_t kMinTokenBytes = 16;
inline constexpr std::string_view kAuthContext = "VTAR auth v1";
std::vector<uint8_t> auth_proof(std::string_view secret, uint64_t client_nonce, uint64_t server_nonce);
/// Compares two proofs in constant time.
bool proofs_equal(std::span<const uint8_t> a, std::span<const uint8_t> b);
/// The secret in a token file (its contents less trailing newlines). Throws std::runtime_error naming
/// the file when it is missing, readable by group or others, or shorter than kMinTokenBytes.
std::string read_token_file(const std::string& path);

/// A 64-bit fingerprint of the derived hardware configuration (every constant of Config::constants()):
/// client and server compare it in the handshake.
uint64_t config_hash(const Config& config);

/// A device address as the server's messages write it ("0x1000"): the device layer's.
using vta::hex;

}  // namespace vta::rpc
