// libFuzzer harness: the remote protocol's decoder fed a byte stream in pieces. Every frame it accepts
// must encode back to bytes that decode to the same message (the codec is symmetric); anything else
// is a ProtocolError, never a crash.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "vta/rpc/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vta::rpc;  // NOLINT
  FrameDecoder decoder;
  const std::span<const uint8_t> bytes(data, size);
  // the first byte chooses how the stream is cut (a receiver sees any split)
  const size_t piece = size == 0 ? 1 : size_t(data[0] % 64) + 1;
  try {
    for (size_t at = 0; at < size; at += piece) {
      decoder.feed(bytes.subspan(at, std::min(piece, size - at)));
      while (auto f = decoder.next()) {
        FrameDecoder again;
        again.feed(encode(f->message, f->header.id));
        const auto back = again.next();
        if (!back || !(back->message == f->message) || back->header.id != f->header.id) std::abort();
      }
    }
  } catch (const ProtocolError&) {
  }
  return 0;
}
