// The remote-device protocol's codec. Each message's fields are listed once, in an io() function
// that both the writer and the reader run, so encoding and decoding cannot disagree on a layout.

#include "vta/rpc/protocol.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "vta/driver/config.h"
#include "vta/driver/device.h"
#include "vta/driver/file.h"
#include "vta/driver/hash.h"

namespace vta::rpc {
namespace {

/// Writes fields little-endian into `out`.
class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out, const Limits& limits) : out_(out), limits_(limits) {}
  void u8(const uint8_t& v, const char*) { out_.push_back(v); }
  void u16(const uint16_t& v, const char*) { put(v, 2); }
  void u32(const uint32_t& v, const char*) { put(v, 4); }
  void u64(const uint64_t& v, const char*) { put(v, 8); }
  void boolean(const bool& v, const char*) { out_.push_back(v ? 1 : 0); }
  void bytes(const std::vector<uint8_t>& v, const char* field) {
    if (v.size() > limits_.max_payload) {
      throw ProtocolError(ErrorCode::kFrameTooLarge, std::string(field) + ": " + std::to_string(v.size()) +
                                                         " bytes, over the frame limit of " +
                                                         std::to_string(limits_.max_payload));
    }
    put(uint32_t(v.size()), 4);
    out_.insert(out_.end(), v.begin(), v.end());
  }
  void str(const std::string& v, const char* field) {
    if (v.size() > limits_.max_string) {
      throw ProtocolError(ErrorCode::kBadValue, std::string(field) + ": a string of " + std::to_string(v.size()) +
                                                    " bytes, over the limit of " + std::to_string(limits_.max_string));
    }
    put(uint32_t(v.size()), 4);
    out_.insert(out_.end(), v.begin(), v.end());
  }
  void opt_u64(const std::optional<uint64_t>& v, const char* field) {
    boolean(v.has_value(), field);
    u64(v.value_or(0), field);
  }
  /// The element count of a list of at most `max` elements (each at least `min_bytes` on the wire).
  void count(const uint32_t& n, uint32_t max, size_t /*min_bytes*/, const char* field) {
    if (n > max) {
      throw ProtocolError(ErrorCode::kBadValue, std::string(field) + ": " + std::to_string(n) +
                                                    " elements, over the limit of " + std::to_string(max));
    }
    u32(n, field);
  }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(uint8_t(v >> (8 * i)));
  }
  std::vector<uint8_t>& out_;
  const Limits& limits_;
};

/// Reads fields from a payload, checking each against the bytes left and its range.
class Reader {
 public:
  Reader(std::span<const uint8_t> in, const Limits& limits, const char* message)
      : in_(in), limits_(limits), message_(message) {}
  void u8(uint8_t& v, const char* field) { v = uint8_t(get(1, field)); }
  void u16(uint16_t& v, const char* field) { v = uint16_t(get(2, field)); }
  void u32(uint32_t& v, const char* field) { v = uint32_t(get(4, field)); }
  void u64(uint64_t& v, const char* field) { v = get(8, field); }
  void boolean(bool& v, const char* field) {
    const uint64_t b = get(1, field);
    if (b > 1) fail(ErrorCode::kBadValue, field, "a boolean of value " + std::to_string(b));
    v = b != 0;
  }
  void bytes(std::vector<uint8_t>& v, const char* field) {
    const std::span<const uint8_t> s = view(field);
    v.assign(s.begin(), s.end());
  }
  /// A bytes field, without copying it.
  std::span<const uint8_t> view(const char* field) {
    const uint64_t n = get(4, field);
    need(n, field);  // before anything is reserved
    const std::span<const uint8_t> s = in_.subspan(pos_, size_t(n));
    pos_ += n;
    return s;
  }
  void str(std::string& v, const char* field) {
    const uint64_t n = get(4, field);
    if (n > limits_.max_string) {
      fail(ErrorCode::kBadValue, field,
           "a string of " + std::to_string(n) + " bytes, over the limit of " + std::to_string(limits_.max_string));
    }
    need(n, field);
    v.assign(reinterpret_cast<const char*>(in_.data()) + pos_, n);
    pos_ += n;
  }
  void opt_u64(std::optional<uint64_t>& v, const char* field) {
    bool present = false;
    uint64_t x = 0;
    boolean(present, field);
    u64(x, field);
    if (present) {
      v = x;
    } else {
      v.reset();
    }
  }
  void count(uint32_t& n, uint32_t max, size_t min_bytes, const char* field) {
    u32(n, field);
    if (n > max) {
      fail(ErrorCode::kBadValue, field, std::to_string(n) + " elements, over the limit of " + std::to_string(max));
    }
    need(uint64_t(n) * min_bytes, field);  // before the list is sized
  }
  void finish() const {
    if (pos_ != in_.size()) {
      throw ProtocolError(ErrorCode::kTrailingBytes, std::string(message_) + ": " + std::to_string(in_.size() - pos_) +
                                                         " bytes after the last field");
    }
  }
  [[noreturn]] void fail(ErrorCode code, const char* field, const std::string& what) const {
    throw ProtocolError(code, std::string(message_) + "." + field + ": " + what);
  }

 private:
  void need(uint64_t n, const char* field) const {
    if (n > in_.size() - pos_) {
      fail(ErrorCode::kTruncated, field,
           "truncated (" + std::to_string(n) + " bytes needed, " + std::to_string(in_.size() - pos_) + " left)");
    }
  }
  uint64_t get(int n, const char* field) {
    need(uint64_t(n), field);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(in_[pos_ + size_t(i)]) << (8 * i);
    pos_ += size_t(n);
    return v;
  }
  std::span<const uint8_t> in_;
  const Limits& limits_;
  const char* message_;
  size_t pos_ = 0;
};

// ---- the fields of every message, in wire order -------------------------------------------------
template <class A>
void io(A& a, Hello& m) {
  a.u16(m.version, "version");
  a.u64(m.config_hash, "config_hash");
  a.str(m.config_name, "config_name");
  a.u64(m.client_nonce, "client_nonce");
}
template <class A>
void io(A& a, HelloReply& m) {
  a.u64(m.config_hash, "config_hash");
  a.str(m.config_name, "config_name");
  a.u64(m.server_nonce, "server_nonce");
  a.boolean(m.auth_required, "auth_required");
  a.str(m.target, "target");
}
template <class A>
void io(A& a, Auth& m) {
  a.bytes(m.proof, "proof");
}
template <class A>
void io(A& a, Alloc& m) {
  a.u64(m.bytes, "bytes");
  a.u64(m.phys, "phys");
}
template <class A>
void io(A& a, AllocReply& m) {
  a.u64(m.phys, "phys");
}
template <class A>
void io(A& a, Free& m) {
  a.u64(m.phys, "phys");
}
template <class A>
void io(A& a, Write& m) {
  a.u64(m.phys, "phys");
  a.bytes(m.data, "data");
}
template <class A>
void io(A& a, Read& m) {
  a.u64(m.phys, "phys");
  a.u32(m.bytes, "bytes");
}
template <class A>
void io(A& a, ReadReply& m) {
  a.bytes(m.data, "data");
}
template <class A>
void io(A& a, Run& m) {
  a.u64(m.insn_phys, "insn_phys");
  a.u32(m.count, "count");
  a.u64(m.budget, "budget");
}
template <class A>
void io(A& a, RunReply& m) {
  a.u32(m.status, "status");
  a.u32(m.error_kind, "error_kind");
  a.str(m.diagnostic, "diagnostic");
  for (uint64_t& c : m.stats.counters) a.u64(c, "stats");
  a.opt_u64(m.stats.cycles, "cycles");
  a.opt_u64(m.stats.acc_load_dram, "acc_load_dram");
  for (uint64_t& t : m.tokens) a.u64(t, "tokens");
}
template <class A>
void io(A& a, Error& m) {
  uint32_t code = uint32_t(m.code);
  a.u32(code, "code");
  m.code = ErrorCode(code);
  a.str(m.message, "message");
}
// A list: its count, then each element (`each` runs the element's fields).
template <class A, class T, class F>
void list(A& a, std::vector<T>& v, uint32_t max, size_t min_bytes, const char* field, F&& each) {
  uint32_t n = v.size() > UINT32_MAX ? UINT32_MAX : uint32_t(v.size());
  a.count(n, max, min_bytes, field);
  v.resize(n);  // the writer's list keeps its size; the reader's is bounded by the bytes left
  for (T& x : v) each(x);
}
template <class A>
void io(A& a, Upload& m) {
  a.str(m.name, "name");
  a.bytes(m.data, "data");
}
template <class A>
void io(A& a, LoadModule& m) {
  a.str(m.name, "name");
}
template <class A>
void io(A& a, ModuleReply& m) {
  a.u32(m.handle, "handle");
  list(a, m.args, kMaxModuleArgs, 4 + 1 + 4, "args", [&](ModuleArg& arg) {
    a.str(arg.name, "args.name");
    a.u8(arg.dtype, "args.dtype");
    list(a, arg.shape, kMaxRank, 8, "args.shape", [&](int64_t& d) {
      uint64_t v = uint64_t(d);
      a.u64(v, "args.shape");
      d = int64_t(v);
    });
  });
}
template <class A>
void io(A& a, Call& m) {
  a.u32(m.handle, "handle");
  list(a, m.args, kMaxModuleArgs, 8, "args", [&](uint64_t& phys) { a.u64(phys, "args"); });
}
// AuthReply, ClearStats, Goodbye, Ok: no fields
template <class A>
void io(A&, AuthReply&) {}
template <class A>
void io(A&, ClearStats&) {}
template <class A>
void io(A&, Goodbye&) {}
template <class A>
void io(A&, Ok&) {}

constexpr const char* kNameRule =
    " (1 to 128 letters, digits, '.', '_' or '-', not starting with '.'; a name, never a path)";

// Range checks beyond the layout (both directions: the sender refuses what the receiver would).
void check(const Message& m, const Limits& limits, const char* name) {
  auto bad = [&](const char* field, const std::string& what) {
    throw ProtocolError(ErrorCode::kBadValue, std::string(name) + "." + field + ": " + what);
  };
  if (const auto* a = std::get_if<Auth>(&m); a && a->proof.size() != kProofBytes) {
    bad("proof", std::to_string(a->proof.size()) + " bytes, not " + std::to_string(kProofBytes));
  }
  if (const auto* r = std::get_if<Read>(&m); r && (r->bytes == 0 || r->bytes > limits.max_payload - 4)) {
    bad("bytes", std::to_string(r->bytes) + " is outside [1, " + std::to_string(limits.max_payload - 4) + "]");
  }
  if (const auto* a = std::get_if<Alloc>(&m)) {
    if (a->bytes == 0) bad("bytes", "0: nothing to allocate");
    if (a->phys % 4096 != 0) bad("phys", std::to_string(a->phys) + " is not page-aligned (4096 bytes)");
  }
  if (const auto* w = std::get_if<Write>(&m); w && w->data.empty()) bad("data", "empty: nothing to write");
  if (const auto* r = std::get_if<RunReply>(&m)) {
    if (r->status > 2) bad("status", std::to_string(r->status) + " is not a run status (0-2)");
    if (r->error_kind > uint32_t(vta::kLastErrorKind)) {
      bad("error_kind", std::to_string(r->error_kind) + " is not an error class (0-" +
                            std::to_string(uint32_t(vta::kLastErrorKind)) + ")");
    }
  }
  if (const auto* u = std::get_if<Upload>(&m)) {
    if (!valid_upload_name(u->name)) bad("name", "'" + u->name + "' is not an upload name" + kNameRule);
    if (u->data.empty()) bad("data", "empty: nothing to upload");
  }
  if (const auto* l = std::get_if<LoadModule>(&m); l && !valid_upload_name(l->name)) {
    bad("name", "'" + l->name + "' is not an upload name" + kNameRule);
  }
  if (const auto* r = std::get_if<ModuleReply>(&m)) {
    for (const ModuleArg& arg : r->args) {
      if (arg.dtype > 2) {
        bad("args.dtype", std::to_string(arg.dtype) + " is not an element type (0 int8, 1 int32, 2 int4)");
      }
      for (int64_t d : arg.shape) {
        if (d < 1 || d > (int64_t{1} << 32)) bad("args.shape", std::to_string(d) + " is not a dimension in [1, 2^32]");
      }
    }
  }
  if (const auto* e = std::get_if<Error>(&m)) {
    const auto c = uint32_t(e->code);
    if (c < uint32_t(ErrorCode::kBadMagic) || c > uint32_t(ErrorCode::kInternal)) {
      bad("code", std::to_string(c) + " is not an error code (1-15)");
    }
  }
}

// The variant alternative for a wire type.
template <size_t I = 0>
Message make(MsgType t) {
  if constexpr (I == std::variant_size_v<Message>) {
    throw ProtocolError(ErrorCode::kUnknownType, "unknown message type " + std::to_string(uint32_t(t)));
  } else {
    Message m{std::in_place_index<I>};
    if (type_of(m) == t) return m;
    return make<I + 1>(t);
  }
}

uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint16_t load_u16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

}  // namespace

static_assert(std::size(WireStats{}.counters) == std::size(kStatFields), "one wire counter per statistic");

WireStats to_wire(const Stats& s) {
  WireStats w;
  for (size_t i = 0; i < std::size(kStatFields); ++i) w.counters[i] = s.*kStatFields[i].member;
  w.cycles = s.cycle_count;
  w.acc_load_dram = s.acc_load_dram_nbytes;
  return w;
}

Stats from_wire(const WireStats& w) {
  Stats s;
  for (size_t i = 0; i < std::size(kStatFields); ++i) s.*kStatFields[i].member = w.counters[i];
  s.cycle_count = w.cycles;
  s.acc_load_dram_nbytes = w.acc_load_dram;
  return s;
}

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadMagic: return "bad-magic";
    case ErrorCode::kBadVersion: return "bad-version";
    case ErrorCode::kUnknownType: return "unknown-type";
    case ErrorCode::kFrameTooLarge: return "frame-too-large";
    case ErrorCode::kTruncated: return "truncated";
    case ErrorCode::kTrailingBytes: return "trailing-bytes";
    case ErrorCode::kBadValue: return "bad-value";
    case ErrorCode::kUnexpected: return "unexpected";
    case ErrorCode::kConfigMismatch: return "config-mismatch";
    case ErrorCode::kAuthFailed: return "auth-failed";
    case ErrorCode::kNoSuchBuffer: return "no-such-buffer";
    case ErrorCode::kOutOfMemory: return "out-of-memory";
    case ErrorCode::kBusy: return "busy";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kInternal: return "internal";
  }
  return "unknown";
}

bool upload_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool valid_upload_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxUploadName || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), upload_name_char);
}

const char* to_string(MsgType type) {
  switch (type) {
    case MsgType::kHello: return "Hello";
    case MsgType::kHelloReply: return "HelloReply";
    case MsgType::kAuth: return "Auth";
    case MsgType::kAuthReply: return "AuthReply";
    case MsgType::kAlloc: return "Alloc";
    case MsgType::kAllocReply: return "AllocReply";
    case MsgType::kFree: return "Free";
    case MsgType::kWrite: return "Write";
    case MsgType::kRead: return "Read";
    case MsgType::kReadReply: return "ReadReply";
    case MsgType::kRun: return "Run";
    case MsgType::kRunReply: return "RunReply";
    case MsgType::kClearStats: return "ClearStats";
    case MsgType::kGoodbye: return "Goodbye";
    case MsgType::kOk: return "Ok";
    case MsgType::kError: return "Error";
    case MsgType::kUpload: return "Upload";
    case MsgType::kLoadModule: return "LoadModule";
    case MsgType::kModuleReply: return "ModuleReply";
    case MsgType::kCall: return "Call";
  }
  return "unknown";
}

MsgType type_of(const Message& m) {
  // the alternatives are declared in wire-type order, from kHello = 1
  return MsgType(uint16_t(m.index() + 1));
}

namespace {

// The header of a frame of `type` whose payload has `length` bytes; refuses a payload over the limit.
std::vector<uint8_t> frame_header(MsgType type, uint32_t id, uint64_t length, const Limits& limits) {
  if (length > limits.max_payload) {
    throw ProtocolError(ErrorCode::kFrameTooLarge, std::string(to_string(type)) + ": a payload of " +
                                                       std::to_string(length) + " bytes, over the limit of " +
                                                       std::to_string(limits.max_payload));
  }
  std::vector<uint8_t> head;
  head.reserve(kHeaderBytes);
  Writer h(head, limits);
  h.u32(kMagic, "magic");
  h.u16(kVersion, "version");
  h.u16(uint16_t(type), "type");
  h.u32(id, "id");
  h.u32(uint32_t(length), "length");
  return head;
}

}  // namespace

std::vector<uint8_t> encode(const Message& m, uint32_t id, const Limits& limits) {
  check(m, limits, to_string(type_of(m)));
  std::vector<uint8_t> out(kHeaderBytes);
  Writer w(out, limits);
  std::visit([&](const auto& msg) { io(w, const_cast<std::decay_t<decltype(msg)>&>(msg)); }, m);
  const std::vector<uint8_t> head = frame_header(type_of(m), id, out.size() - kHeaderBytes, limits);
  std::memcpy(out.data(), head.data(), kHeaderBytes);
  return out;
}

std::vector<uint8_t> encode_write_prefix(uint64_t phys, std::span<const uint8_t> data, uint32_t id,
                                         const Limits& limits) {
  if (data.empty()) throw ProtocolError(ErrorCode::kBadValue, "Write.data: empty: nothing to write");
  std::vector<uint8_t> out = frame_header(MsgType::kWrite, id, 8 + 4 + uint64_t(data.size()), limits);
  Writer w(out, limits);
  w.u64(phys, "phys");
  w.u32(uint32_t(data.size()), "data");
  return out;
}

FrameHeader decode_header(std::span<const uint8_t> bytes, const Limits& limits) {
  if (bytes.size() < kHeaderBytes) {
    throw ProtocolError(ErrorCode::kTruncated, "frame header: " + std::to_string(bytes.size()) + " of " +
                                                   std::to_string(kHeaderBytes) + " bytes");
  }
  const uint8_t* p = bytes.data();
  if (load_u32(p) != kMagic)
    throw ProtocolError(ErrorCode::kBadMagic, "frame header: not a VTA remote frame (bad magic)");
  FrameHeader h;
  h.version = load_u16(p + 4);
  if (h.version != kVersion) {
    throw ProtocolError(ErrorCode::kBadVersion, "frame header: protocol version " + std::to_string(h.version) +
                                                    ", this side speaks " + std::to_string(kVersion));
  }
  const uint16_t type = load_u16(p + 6);
  if (type < uint16_t(MsgType::kHello) || type > uint16_t(MsgType::kCall)) {
    throw ProtocolError(ErrorCode::kUnknownType, "frame header: unknown message type " + std::to_string(type));
  }
  h.type = MsgType(type);
  h.id = load_u32(p + 8);
  h.length = load_u32(p + 12);
  if (h.length > limits.max_payload) {
    throw ProtocolError(ErrorCode::kFrameTooLarge, std::string("frame header: ") + to_string(h.type) + " announces " +
                                                       std::to_string(h.length) + " bytes, over the limit of " +
                                                       std::to_string(limits.max_payload));
  }
  return h;
}

Message decode_payload(const FrameHeader& header, std::span<const uint8_t> payload, const Limits& limits) {
  const char* name = to_string(header.type);
  if (payload.size() != header.length) {
    throw ProtocolError(ErrorCode::kTruncated, std::string(name) + ": " + std::to_string(payload.size()) + " of " +
                                                   std::to_string(header.length) + " payload bytes");
  }
  Message m = make(header.type);
  Reader r(payload, limits, name);
  std::visit([&](auto& msg) { io(r, msg); }, m);
  r.finish();
  check(m, limits, name);
  return m;
}

void FrameDecoder::feed(std::span<const uint8_t> bytes) {
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  buf_.insert(buf_.end(), bytes.begin(), bytes.end());
}

std::optional<RawFrame> FrameDecoder::next_raw() {
  // consumed bytes go when the buffer is empty or when they are many (the view of the last frame
  // stays valid until this call)
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > (1u << 20)) {
    buf_.erase(buf_.begin(), buf_.begin() + long(pos_));
    pos_ = 0;
  }
  const std::span<const uint8_t> avail(buf_.data() + pos_, buf_.size() - pos_);
  if (avail.size() < kHeaderBytes) return std::nullopt;
  const FrameHeader h = decode_header(avail, limits_);  // refuses an oversized frame before it arrives
  if (avail.size() - kHeaderBytes < h.length) return std::nullopt;
  pos_ += kHeaderBytes + h.length;
  return RawFrame{h, avail.subspan(kHeaderBytes, h.length)};
}

std::optional<Frame> FrameDecoder::next() {
  const auto raw = next_raw();
  if (!raw) return std::nullopt;
  return Frame{raw->header, decode_payload(raw->header, raw->payload, limits_)};
}

WriteRef decode_write(const FrameHeader& header, std::span<const uint8_t> payload, const Limits& limits) {
  if (header.type != MsgType::kWrite) {
    throw ProtocolError(ErrorCode::kUnexpected, std::string("decode_write: a ") + to_string(header.type) + " frame");
  }
  if (payload.size() != header.length) {
    throw ProtocolError(ErrorCode::kTruncated, "Write: " + std::to_string(payload.size()) + " of " +
                                                   std::to_string(header.length) + " payload bytes");
  }
  WriteRef w;
  Reader r(payload, limits, "Write");
  r.u64(w.phys, "phys");
  w.data = r.view("data");
  r.finish();
  if (w.data.empty()) throw ProtocolError(ErrorCode::kBadValue, "Write.data: empty: nothing to write");
  return w;
}

uint64_t config_hash(const Config& config) {
  // FNV-1a over "NAME=VALUE;" for every derived constant, in Config::constants() order
  Fnv1a64 h;
  for (const auto& k : config.constants()) h.add(k.name).add("=").add(std::to_string(k.value)).add(";");
  return h.value();
}

std::vector<uint8_t> auth_proof(std::string_view secret, uint64_t client_nonce, uint64_t server_nonce) {
  std::vector<uint8_t> msg(kAuthContext.begin(), kAuthContext.end());
  for (const uint64_t n : {client_nonce, server_nonce}) {
    for (int i = 0; i < 8; ++i) msg.push_back(uint8_t(n >> (8 * i)));
  }
  std::vector<uint8_t> proof(kProofBytes);
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), secret.data(), int(secret.size()), msg.data(), msg.size(), proof.data(), &len) == nullptr ||
      len != kProofBytes) {
    throw std::runtime_error("vta rpc: HMAC-SHA256 failed (OpenSSL)");
  }
  return proof;
}

bool proofs_equal(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;  // constant time
}

std::string read_token_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw std::runtime_error("token file " + path + ": " + std::strerror(errno));
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    throw std::runtime_error("token file " + path + ": readable by other users (mode " +
                             std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                             std::to_string(st.st_mode & 7) + "); make it private: chmod 600 " + path);
  }
  std::string token;
  try {
    token = read_file(path, 4096);
  } catch (const FileError& e) {
    throw std::runtime_error(std::string("token file: ") + e.what());
  }
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.size() < kMinTokenBytes) {
    throw std::runtime_error("token file " + path + ": " + std::to_string(token.size()) + " bytes; a token needs " +
                             std::to_string(kMinTokenBytes) + " at least (e.g. head -c 32 /dev/urandom | base64)");
  }
  return token;
}

}  // namespace vta::rpc
