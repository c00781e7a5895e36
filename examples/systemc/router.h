#pragma once
// A simple address router for the example platforms: any number of initiators, targets at address
// ranges; a transaction goes to the target whose range holds its address, with the address made
// relative to the range's start; an address no range holds is answered TLM_ADDRESS_ERROR_RESPONSE.

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace vta::examples {

class Router : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Router> in;      ///< bind the initiators here
  tlm_utils::multi_passthrough_initiator_socket<Router> out;  ///< bind the targets in map() order

  explicit Router(const sc_core::sc_module_name& name) : sc_module(name), in("in"), out("out") {
    in.register_b_transport(this, &Router::transport);
  }
  /// The next target bound to `out` answers [base, base + size).
  void map(uint64_t base, uint64_t size) { ranges_.push_back({base, size}); }

 private:
  struct Range {
    uint64_t base, size;
  };
  void transport(int, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const uint64_t addr = t.get_address();
    for (size_t i = 0; i < ranges_.size(); ++i) {
      const Range& r = ranges_[i];
      if (addr >= r.base && addr - r.base < r.size) {
        t.set_address(addr - r.base);
        out[int(i)]->b_transport(t, delay);
        t.set_address(addr);
        return;
      }
    }
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  std::vector<Range> ranges_;
};

}  // namespace vta::examples
