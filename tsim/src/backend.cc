// The tsim as a vta::Device: VTA_TARGET=tsim. Registered with the driver's backend factory when a
// program links vta::tsim (the library is linked whole, so this registration is never dropped).

#include "vta/driver/build_config.h"
#include "vta/tsim/simulator.h"

namespace vta::tsim {
namespace {

bool same_config(const Config& a, const Config& b) {
  const auto ca = a.constants(), cb = b.constants();
  if (ca.size() != cb.size()) return false;
  for (size_t i = 0; i < ca.size(); ++i) {
    if (ca[i].name != cb[i].name || ca[i].value != cb[i].value) return false;
  }
  return true;
}

class TsimDevice final : public Device {
 public:
  explicit TsimDevice(Simulator::Options options) : sim_(std::move(options)) {}

  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    return sim_.run(insn_addr, count, budget);
  }
  const Stats& stats() const override { return sim_.stats(); }
  void clear_stats() override { sim_.clear_stats(); }
  TokenCounts tokens() const override { return sim_.tokens(); }
  const std::string& last_error() const override { return sim_.last_error(); }
  ErrorKind last_error_kind() const override { return sim_.last_error_kind(); }
  std::string_view target() const override { return "tsim"; }
  const Config& config() const override { return build_config(); }

 private:
  mutable Simulator sim_;  // reading a register clocks the design
};

const bool kRegistered = [] {
  register_backend("tsim", [](const Config& c, const DeviceOptions& o) { return make_tsim_device(c, o); });
  register_concurrent_backend("tsim");  // (each simulator has its own Verilator context)
  return true;
}();

}  // namespace

std::unique_ptr<Device> make_tsim_device(const Config& config, const DeviceOptions& options) {
  if (!same_config(config, build_config())) {
    throw std::invalid_argument(
        "tsim: the RTL was built for the configuration of this build (VTA_CONFIG); a different configuration needs "
        "its own build (cmake -DVTA_CONFIG=<file>)");
  }
  return std::make_unique<TsimDevice>(Simulator::Options::from(options));
}

std::unique_ptr<Device> make_tsim_device(const Simulator::Options& options) {
  return std::make_unique<TsimDevice>(options);
}

}  // namespace vta::tsim
