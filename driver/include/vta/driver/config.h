#pragma once
/// \file vta/driver/config.h
/// The VTA hardware configuration: the keys of `vta_config.json`, their validation against what the
/// 128-bit instruction format can encode, and every quantity derived from them (spec section 1).
/// This is the only place in C++ where widths and depths are computed; the generated C header and
/// SystemVerilog package are printed from `Config::constants()`.

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vta {

/// Thrown for a configuration that cannot be loaded or that the hardware format cannot encode.
/// The message names the key or the violated limit.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The user-settable keys of `vta_config.json` (spec 1.1). Defaults are the reference defaults.
struct ConfigParams {
  std::string target = "sim";  ///< sim, tsim, pynq, ultra96, zcu104, de10nano, intelfocl
  std::string hw_ver = "0.0.2";
  int log_inp_width = 3;
  int log_wgt_width = 3;
  int log_acc_width = 5;
  int log_batch = 0;
  int log_block = 4;
  int log_uop_buff_size = 15;
  int log_inp_buff_size = 15;
  int log_wgt_buff_size = 18;
  int log_acc_buff_size = 17;
  /// log2 of the memory bus width in bits; -1 = derive from the target (spec 1.2).
  int log_bus_width = -1;
  /// The accelerator's clock in MHz (optional key HW_FREQ): no effect on what a program computes or
  /// on cycle counts; it sets the time axis of waveforms, timelines and the SystemC clock.
  int hw_freq_mhz = kDefaultHwFreqMhz;
  static constexpr int kDefaultHwFreqMhz = 100;
  /// The compute stage (optional key COMPUTE_ISSUE, vta/driver/compute_issue.h): 1, the reference's,
  /// one instruction at a time; 2, a GEMM beside an ALU instruction or a micro-op or accumulator load
  /// when the rule lets them. No effect on what a program computes or on the seven statistics.
  int compute_issue = 1;
};

/// One named numeric constant of the configuration, as exported to C (`VTA_<name>`) and
/// SystemVerilog (`UpperCamelCase`).
struct ConfigConstant {
  std::string name;  ///< upper snake case without the VTA_ prefix, e.g. "LOG_BATCH"
  int64_t value;
  std::string doc;
};

/// The TARGET names a configuration takes: the simulators' (sim, tsim) and the boards' (a board's sets
/// its default bus width).
std::span<const std::string_view> config_targets();

/// A validated configuration with every derived quantity. Construct through `make`, `from_json_text`
/// or `from_file`; a Config that exists is always one the instruction format can encode.
class Config {
 public:
  /// Validates `params` and derives all quantities; throws ConfigError naming the problem.
  static Config make(const ConfigParams& params);
  /// Parses JSON text (the format of `config/vta_config.json`); unknown keys are an error.
  static Config from_json_text(std::string_view text, std::string_view origin = "<json>");
  /// Largest configuration file from_file reads.
  static constexpr size_t kMaxFileBytes = 64 * 1024;
  /// Reads and parses a JSON configuration file.
  static Config from_file(const std::filesystem::path& path);
  /// The reference default configuration (1x16, int8/int8/int32).
  static Config default_config();

  const ConfigParams& params() const { return params_; }

  // Element widths in bits.
  int inp_width() const { return 1 << params_.log_inp_width; }
  int wgt_width() const { return 1 << params_.log_wgt_width; }
  int acc_width() const { return 1 << params_.log_acc_width; }
  int out_width() const { return inp_width(); }
  int log_out_width() const { return params_.log_inp_width; }

  // Tile shape.
  int batch() const { return 1 << params_.log_batch; }
  int block_in() const { return 1 << params_.log_block; }
  int block_out() const { return 1 << params_.log_block; }
  int log_block_in() const { return params_.log_block; }
  int log_block_out() const { return params_.log_block; }

  // Memory bus.
  int log_bus_width() const { return log_bus_width_; }
  int bus_width() const { return 1 << log_bus_width_; }

  // Clock.
  int hw_freq_mhz() const { return params_.hw_freq_mhz; }
  /// One clock period in picoseconds, rounded to the nearest (10,000 at 100 MHz).
  uint64_t clock_period_ps() const {
    const auto f = uint64_t(params_.hw_freq_mhz);
    return (1000000 + f / 2) / f;
  }
  double clock_period_ns() const { return double(clock_period_ps()) / 1000.0; }

  /// The compute stage's instructions at once (ConfigParams::compute_issue): 1 or 2.
  int compute_issue() const { return params_.compute_issue; }

  // Bytes of one SRAM element (a whole tile) per buffer.
  int inp_elem_bytes() const { return inp_width() * batch() * block_in() / 8; }
  int wgt_elem_bytes() const { return wgt_width() * block_out() * block_in() / 8; }
  int acc_elem_bytes() const { return acc_width() * batch() * block_out() / 8; }
  int out_elem_bytes() const { return out_width() * batch() * block_out() / 8; }
  static constexpr int kUopElemBytes = 4;
  static constexpr int kInsnElemBytes = 16;

  // log2 of buffer depths in elements (spec 1.2); the out buffer shares the acc indices.
  int log_uop_depth() const { return params_.log_uop_buff_size - 5 + 3; }
  int log_inp_depth() const {
    return params_.log_inp_buff_size - params_.log_batch - params_.log_block - params_.log_inp_width + 3;
  }
  int log_wgt_depth() const { return params_.log_wgt_buff_size - 2 * params_.log_block - params_.log_wgt_width + 3; }
  int log_acc_depth() const {
    return params_.log_acc_buff_size - params_.log_batch - params_.log_block - params_.log_acc_width + 3;
  }
  int log_out_buff_size() const { return params_.log_acc_buff_size + log_out_width() - params_.log_acc_width; }
  uint32_t uop_depth() const { return 1u << log_uop_depth(); }
  uint32_t inp_depth() const { return 1u << log_inp_depth(); }
  uint32_t wgt_depth() const { return 1u << log_wgt_depth(); }
  uint32_t acc_depth() const { return 1u << log_acc_depth(); }
  uint32_t out_depth() const { return acc_depth(); }

  /// Every numeric constant of this configuration (config keys, derived quantities and the fixed ISA
  /// constants), in a stable order. Both generated artifacts are printed from this one list.
  std::vector<ConfigConstant> constants() const;

  /// "1x16_i8w8a32_15_15_18_17", the reference bitstream string.
  std::string bitstream_name() const;

  /// The configuration as JSON text in the format of `vta_config.json`, with its defaults filled
  /// (LOG_BUS_WIDTH always; HW_FREQ only when not the default, which changes no hardware): equal
  /// configurations have equal text, whichever keys their files left out. Its identity everywhere.
  std::string to_json_text() const;

 private:
  explicit Config(const ConfigParams& params);
  ConfigParams params_;
  int log_bus_width_ = 6;
};

}  // namespace vta
