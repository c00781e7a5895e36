// The remote-device protocol's codec, without sockets: every message survives a round trip through a
// byte stream cut at any point; every malformed frame is refused with its error code and a message
// naming the field; the fuzzer throws 12,000 random and mutated frames at the decoder.

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>

#include "test_paths.h"
#include "vta/driver/build_config.h"
#include "vta/driver/config.h"
#include "vta/rpc/protocol.h"

namespace vta::rpc {
namespace {

std::vector<Message> one_of_each() {
  RunReply rr;
  rr.status = 2, rr.error_kind = 5, rr.diagnostic = "compute: waiting for a token\n";
  rr.stats.counters[0] = 114688, rr.stats.counters[6] = 9408, rr.stats.cycles = 483437;
  rr.tokens[2] = 3;
  std::vector<uint8_t> proof(32);
  for (size_t i = 0; i < proof.size(); ++i) proof[i] = uint8_t(i * 7);
  return {Hello{kVersion, 0x0123456789abcdefull, "1x16_i8w8a32_15_15_18_17", 42},
          HelloReply{0x0123456789abcdefull, "1x16_i8w8a32_15_15_18_17", 77, true, "tsim"},
          Auth{proof},
          AuthReply{},
          Alloc{1 << 20, 0x7000},
          AllocReply{0x4000},
          Free{0x4000},
          Write{0x4010, {1, 2, 3, 250}},
          Read{0x4010, 4},
          ReadReply{{9, 8, 7}},
          Run{0x8000, 12, 1u << 30},
          rr,
          ClearStats{},
          Goodbye{},
          Ok{},
          Error{ErrorCode::kConfigMismatch, "client built for A, server for B"},
          Upload{"gemm.vtam", {'{', '}'}},
          LoadModule{"gemm.vtam"},
          ModuleReply{3, {ModuleArg{"data", 0, {1, 64, 1, 16}}, ModuleArg{"res", 1, {1, 64}}}},
          Call{3, {0x1000, 0x2000, 0x9000}}};
}

// The error code and message of decoding `frame` whole.
std::pair<ErrorCode, std::string> refusal(const std::vector<uint8_t>& frame, const Limits& limits = {}) {
  FrameDecoder d(limits);
  d.feed(frame);
  try {
    auto f = d.next();
    ADD_FAILURE() << (f ? "decoded" : "waiting for more bytes");
  } catch (const ProtocolError& e) {
    return {e.code(), e.what()};
  }
  return {ErrorCode::kInternal, ""};
}

void put_u32(std::vector<uint8_t>& f, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) f[at + size_t(i)] = uint8_t(v >> (8 * i));
}

TEST(RpcProtocol, EveryMessageSurvivesARoundTripInOneFeedAndByteByByte) {
  const auto msgs = one_of_each();
  ASSERT_EQ(msgs.size(), std::variant_size_v<Message>) << "one of each type";
  std::vector<uint8_t> stream;
  for (size_t i = 0; i < msgs.size(); ++i) {
    EXPECT_EQ(uint16_t(type_of(msgs[i])), uint16_t(i + 1));
    const auto f = encode(msgs[i], uint32_t(100 + i));
    stream.insert(stream.end(), f.begin(), f.end());
  }
  FrameDecoder whole;
  whole.feed(stream);
  for (size_t i = 0; i < msgs.size(); ++i) {
    auto f = whole.next();
    ASSERT_TRUE(f) << i;
    EXPECT_EQ(f->header.id, 100 + i);
    EXPECT_EQ(f->message, msgs[i]) << to_string(type_of(msgs[i]));
  }
  EXPECT_FALSE(whole.next());
  EXPECT_EQ(whole.buffered(), 0u);

  FrameDecoder bytewise;
  size_t got = 0;
  for (uint8_t b : stream) {
    bytewise.feed({&b, 1});
    while (auto f = bytewise.next()) {
      ASSERT_LT(got, msgs.size());
      EXPECT_EQ(f->message, msgs[got]);
      ++got;
    }
  }
  EXPECT_EQ(got, msgs.size());
}

TEST(RpcProtocol, TheHeaderIsCheckedBeforeThePayloadArrives) {
  auto f = encode(Write{0x1000, std::vector<uint8_t>(100, 1)}, 1);
  auto bad = f;
  bad[0] = 'X';
  EXPECT_EQ(refusal(bad).first, ErrorCode::kBadMagic);
  bad = f;
  bad[4] = 3;
  auto [code, what] = refusal(bad);
  EXPECT_EQ(code, ErrorCode::kBadVersion);
  EXPECT_NE(what.find("protocol version 3, this side speaks 2"), std::string::npos) << what;
  bad = f;
  bad[6] = 99;
  EXPECT_EQ(refusal(bad).first, ErrorCode::kUnknownType);
  bad = f;
  bad[6] = 0;
  EXPECT_EQ(refusal(bad).first, ErrorCode::kUnknownType);
  // a header announcing 4 GiB is refused from its 16 bytes: nothing waits for (or reserves) the rest
  bad = std::vector<uint8_t>(f.begin(), f.begin() + long(kHeaderBytes));
  put_u32(bad, 12, 0xffffffffu);
  std::tie(code, what) = refusal(bad);
  EXPECT_EQ(code, ErrorCode::kFrameTooLarge);
  EXPECT_NE(what.find("Write announces 4294967295 bytes, over the limit of 67108864"), std::string::npos) << what;
  Limits small;
  small.max_payload = 64;
  EXPECT_EQ(refusal(f, small).first, ErrorCode::kFrameTooLarge) << "116-byte payload, 64-byte limit";
}

TEST(RpcProtocol, MalformedPayloadsNameTheMessageAndField) {
  // a Write whose data length reaches past the payload
  auto f = encode(Write{0x1000, {1, 2, 3, 4}}, 1);
  put_u32(f, kHeaderBytes + 8, 1000);
  auto [code, what] = refusal(f);
  EXPECT_EQ(code, ErrorCode::kTruncated);
  EXPECT_NE(what.find("Write.data: truncated (1000 bytes needed, 4 left)"), std::string::npos) << what;
  // bytes after the last field (the header's length grown to match)
  f = encode(Free{0x1000}, 1);
  f.push_back(0);
  put_u32(f, 12, 9);
  std::tie(code, what) = refusal(f);
  EXPECT_EQ(code, ErrorCode::kTrailingBytes);
  EXPECT_NE(what.find("Free: 1 bytes after the last field"), std::string::npos) << what;
  // a boolean that is neither 0 nor 1
  f = encode(HelloReply{1, "x", 2, false, ""}, 1);
  f[f.size() - 5] = 7;  // the boolean before the empty target string (its u32 length)
  std::tie(code, what) = refusal(f);
  EXPECT_EQ(code, ErrorCode::kBadValue);
  EXPECT_NE(what.find("HelloReply.auth_required: a boolean of value 7"), std::string::npos) << what;
  // a string over the limit is refused by its length, before it is read
  Limits tight;
  tight.max_string = 8;
  f = encode(Error{ErrorCode::kInternal, "a message of 28 characters."}, 1);
  std::tie(code, what) = refusal(f, tight);
  EXPECT_EQ(code, ErrorCode::kBadValue);
  EXPECT_NE(what.find("Error.message: a string of 27 bytes, over the limit of 8"), std::string::npos) << what;
  // values out of range
  f = encode(RunReply{}, 1);
  put_u32(f, kHeaderBytes, 3);
  std::tie(code, what) = refusal(f);
  EXPECT_EQ(code, ErrorCode::kBadValue);
  EXPECT_NE(what.find("RunReply.status: 3 is not a run status"), std::string::npos) << what;
  f = encode(Error{ErrorCode::kBusy, ""}, 1);
  put_u32(f, kHeaderBytes, 99);
  EXPECT_NE(refusal(f).second.find("Error.code: 99 is not an error code"), std::string::npos);
  // a list count is checked against its limit and the bytes left before the list is sized
  f = encode(Call{1, {0x1000}}, 1);
  put_u32(f, kHeaderBytes + 4, 1000);
  std::tie(code, what) = refusal(f);
  EXPECT_EQ(code, ErrorCode::kBadValue);
  EXPECT_NE(what.find("Call.args: 1000 elements, over the limit of 64"), std::string::npos) << what;
  put_u32(f, kHeaderBytes + 4, 60);
  std::tie(code, what) = refusal(f);
  EXPECT_EQ(code, ErrorCode::kTruncated);
  EXPECT_NE(what.find("Call.args: truncated (480 bytes needed, 8 left)"), std::string::npos) << what;
  // a name that is a path is refused by the receiver too
  f = encode(LoadModule{"abcdefgh"}, 1);
  f[kHeaderBytes + 4] = '/';
  std::tie(code, what) = refusal(f);
  EXPECT_EQ(code, ErrorCode::kBadValue);
  EXPECT_NE(what.find("LoadModule.name: '/bcdefgh' is not an upload name"), std::string::npos) << what;
}

TEST(RpcProtocol, TheSenderRefusesWhatTheReceiverWould) {
  Limits small;
  small.max_payload = 1024;
  try {
    (void)encode(Write{0, std::vector<uint8_t>(2000, 0)}, 1, small);
    ADD_FAILURE() << "encoded";
  } catch (const ProtocolError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFrameTooLarge);
    EXPECT_NE(std::string(e.what()).find("data: 2000 bytes, over the frame limit of 1024"), std::string::npos)
        << e.what();
  }
  const std::pair<Message, const char*> bad[] = {
      {Auth{std::vector<uint8_t>(31)}, "Auth.proof: 31 bytes, not 32"},
      {Read{0, 0}, "Read.bytes: 0 is outside [1, 67108860]"},
      {Read{0, 64u << 20}, "Read.bytes: 67108864 is outside"},
      {Alloc{0}, "Alloc.bytes: 0: nothing to allocate"},
      {Alloc{16, 0x7010}, "Alloc.phys: 28688 is not page-aligned (4096 bytes)"},
      {Write{0, {}}, "Write.data: empty"},
      {RunReply{0, 11, "", {}, {}}, "RunReply.error_kind: 11 is not an error class"},
      {Upload{"../etc/passwd", {1}}, "Upload.name: '../etc/passwd' is not an upload name"},
      {Upload{"/abs", {1}}, "a name, never a path"},
      {Upload{".hidden", {1}}, "Upload.name: '.hidden' is not"},
      {Upload{std::string(129, 'a'), {1}}, "is not an upload name"},
      {Upload{"ok.vtam", {}}, "Upload.data: empty"},
      {LoadModule{""}, "LoadModule.name: '' is not an upload name"},
      {ModuleReply{1, {ModuleArg{"x", 3, {1}}}},
       "ModuleReply.args.dtype: 3 is not an element type (0 int8, 1 int32, 2 int4)"},
      {ModuleReply{1, {ModuleArg{"x", 0, {0}}}}, "ModuleReply.args.shape: 0 is not a dimension"},
      {ModuleReply{1, {ModuleArg{"x", 0, std::vector<int64_t>(9, 1)}}}, "args.shape: 9 elements, over the limit of 8"},
      {Call{1, std::vector<uint64_t>(65, 0x1000)}, "args: 65 elements, over the limit of 64"},
  };
  for (const auto& [m, want] : bad) {
    try {
      (void)encode(m, 1);
      ADD_FAILURE() << want;
    } catch (const ProtocolError& e) {
      EXPECT_EQ(e.code(), ErrorCode::kBadValue) << want;
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

TEST(RpcProtocol, ConfigHashSeparatesConfigurations) {
  const uint64_t here = config_hash(build_config());
  EXPECT_EQ(here, config_hash(Config::from_file(vta::test::source_path("config/vta_config.json"))));
  for (const char* sample : {"block8", "batch2", "bus256"}) {
    EXPECT_NE(here, config_hash(
                        Config::from_file(vta::test::source_path("config/samples") / (sample + std::string(".json")))))
        << sample;
  }
}

// Fuzzing: random frames, and valid frames with flipped bits, cut short, grown, or with their length
// field rewritten, fed in random chunks. Every frame is decoded or refused with a ProtocolError; the
// decoder never holds more than the fed bytes of one frame over the limit.
TEST(RpcProtocol, FuzzedFramesAreDecodedOrRefusedNeverCrash) {
  std::mt19937_64 rng(2026);
  Limits limits;
  limits.max_payload = 4096;
  limits.max_string = 512;
  const auto msgs = one_of_each();
  std::vector<std::vector<uint8_t>> valid;
  valid.reserve(msgs.size());
  for (const auto& m : msgs) valid.push_back(encode(m, uint32_t(rng()), limits));
  size_t decoded = 0, refused = 0, waiting = 0;
  std::map<ErrorCode, size_t> codes;
  const int kFrames = 12000;
  for (int n = 0; n < kFrames; ++n) {
    std::vector<uint8_t> f;
    switch (n % 5) {
      case 0: {  // random bytes behind a plausible header
        f = valid[rng() % valid.size()];
        f.resize(kHeaderBytes);
        const uint32_t len = uint32_t(rng() % 300);
        put_u32(f, 12, len);
        for (uint32_t i = 0; i < len; ++i) f.push_back(uint8_t(rng()));
        break;
      }
      case 1:  // bit flips
        f = valid[rng() % valid.size()];
        for (int k = 0; k < 1 + int(rng() % 4); ++k) f[rng() % f.size()] ^= uint8_t(1u << (rng() % 8));
        break;
      case 2:  // cut short, with the header's length still claiming the whole payload
        f = valid[rng() % valid.size()];
        f.resize(kHeaderBytes + rng() % (f.size() - kHeaderBytes + 1));
        break;
      case 3: {  // length field rewritten (larger, smaller, over the limit) and the bytes to match
        f = valid[rng() % valid.size()];
        const uint32_t len = uint32_t(rng() % (limits.max_payload + 100));
        put_u32(f, 12, len);
        f.resize(kHeaderBytes + std::min<size_t>(len, 600), 0xa5);
        break;
      }
      default:  // fully random, sometimes starting with the magic
        f.resize(rng() % 64);
        for (auto& b : f) b = uint8_t(rng());
        if (f.size() >= 4 && rng() % 2) put_u32(f, 0, kMagic);
        break;
    }
    FrameDecoder d(limits);
    try {
      size_t at = 0;
      bool done = false;
      while (at < f.size() && !done) {
        const size_t chunk = std::min<size_t>(f.size() - at, 1 + rng() % 64);
        d.feed({f.data() + at, chunk});
        at += chunk;
        ASSERT_LE(d.buffered(), limits.max_payload + kHeaderBytes + 64) << "frame " << n;
        if (auto fr = d.next()) {
          ++decoded;
          done = true;
          // what decodes re-encodes to a frame that decodes to the same message
          const auto again = encode(fr->message, fr->header.id, limits);
          FrameDecoder d2(limits);
          d2.feed(again);
          auto fr2 = d2.next();
          ASSERT_TRUE(fr2);
          EXPECT_EQ(fr2->message, fr->message);
        }
      }
      if (!done) ++waiting;
    } catch (const ProtocolError& e) {
      ++refused;
      ++codes[e.code()];
      EXPECT_GT(std::string(e.what()).size(), 10u);
    }
  }
  std::printf("fuzzed %d frames: %zu decoded, %zu refused, %zu incomplete (waiting for bytes)\n", kFrames, decoded,
              refused, waiting);
  for (const auto& [code, count] : codes) std::printf("  %-16s %zu\n", to_string(code), count);
  EXPECT_EQ(decoded + refused + waiting, size_t(kFrames));
  EXPECT_GT(refused, size_t(kFrames) / 3) << "most mutations must be caught";
  EXPECT_GT(decoded, 100u) << "some mutations are still valid frames (flipped payload bits)";
}

TEST(RpcProtocol, AWritePrefixAndItsDataAreTheWriteFrame) {
  const std::vector<uint8_t> data = {1, 2, 3, 4, 5, 250};
  std::vector<uint8_t> frame = encode_write_prefix(0x4010, data, 9);
  frame.insert(frame.end(), data.begin(), data.end());
  EXPECT_EQ(frame, encode(Write{0x4010, data}, 9));
  EXPECT_THROW(encode_write_prefix(0x4010, {}, 9), ProtocolError);
  Limits small;
  small.max_payload = 4096;
  const std::vector<uint8_t> big(4096);
  EXPECT_THROW(encode_write_prefix(0x4010, big, 9, small), ProtocolError);
}

}  // namespace
}  // namespace vta::rpc
