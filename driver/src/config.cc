#include "vta/driver/config.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vta/driver/compute_issue.h"
#include "vta/driver/file.h"
#include "vta/driver/isa.h"

namespace vta {
namespace {

using nlohmann::json;

int default_log_bus_width(const std::string& target) { return (target == "ultra96" || target == "zcu104") ? 7 : 6; }

void require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError("invalid VTA configuration: " + message);
}

void require_range(int value, int lo, int hi, const char* key) {
  require(value >= lo && value <= hi, std::string(key) + " = " + std::to_string(value) +
                                          " is outside the supported range [" + std::to_string(lo) + ", " +
                                          std::to_string(hi) + "]");
}

// The bit budget of one 64-bit instruction word (spec 1.3): the reference packs bit-fields per word,
// so a configuration whose fields do not fit cannot be encoded at all.
void require_word(int used, int available, const std::string& what) {
  require(used <= available, what + " needs " + std::to_string(used) + " bits but only " + std::to_string(available) +
                                 " are available in the 128-bit instruction format; reduce the buffer sizes");
}

}  // namespace

Config::Config(const ConfigParams& params) : params_(params) {
  log_bus_width_ = params.log_bus_width >= 0 ? params.log_bus_width : default_log_bus_width(params.target);
}

std::span<const std::string_view> config_targets() {
  static constexpr std::array<std::string_view, 7> kTargets = {"sim",    "tsim",     "pynq",     "ultra96",
                                                               "zcu104", "de10nano", "intelfocl"};
  return kTargets;
}

Config Config::make(const ConfigParams& p) {
  const auto targets = config_targets();
  std::string known;
  for (const auto t : targets) known += (known.empty() ? "" : ", ") + std::string(t);
  require(std::find(targets.begin(), targets.end(), p.target) != targets.end(),
          "TARGET \"" + p.target + "\" is not one of " + known);
  // HW_VER is copied into the generated C header and SystemVerilog package: a version string only.
  const bool version_chars = std::all_of(p.hw_ver.begin(), p.hw_ver.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '-' ||
           c == '_' || c == '+';
  });
  require(!p.hw_ver.empty() && p.hw_ver.size() <= 32 && version_chars,
          "HW_VER must be 1 to 32 characters of letters, digits, '.', '-', '_' or '+'");
  // Inputs (and so outputs) and weights of 4 or 8 bits, packed in DRAM as vta/driver/packing.h says,
  // with int32 accumulators.
  require(p.log_inp_width == 2 || p.log_inp_width == 3,
          "LOG_INP_WIDTH = " + std::to_string(p.log_inp_width) +
              " is unsupported: inputs are int4 (LOG_INP_WIDTH = 2) or int8 (3)");
  require(p.log_wgt_width == 2 || p.log_wgt_width == 3,
          "LOG_WGT_WIDTH = " + std::to_string(p.log_wgt_width) +
              " is unsupported: weights are int4 (LOG_WGT_WIDTH = 2) or int8 (3)");
  require(p.log_acc_width == 5, "LOG_ACC_WIDTH = " + std::to_string(p.log_acc_width) +
                                    " is unsupported: accumulators are int32 (LOG_ACC_WIDTH = 5)");
  require_range(p.log_batch, 0, 4, "LOG_BATCH");
  require_range(p.log_block, 2, 6, "LOG_BLOCK");
  require_range(p.log_uop_buff_size, 5, 20, "LOG_UOP_BUFF_SIZE");
  require_range(p.log_inp_buff_size, 5, 24, "LOG_INP_BUFF_SIZE");
  require_range(p.log_wgt_buff_size, 5, 26, "LOG_WGT_BUFF_SIZE");
  require_range(p.log_acc_buff_size, 5, 26, "LOG_ACC_BUFF_SIZE");
  if (p.log_bus_width >= 0) require_range(p.log_bus_width, 6, 9, "LOG_BUS_WIDTH");
  require_range(p.hw_freq_mhz, 1, 5000, "HW_FREQ (MHz)");
  require(p.compute_issue == 1 || p.compute_issue == 2,
          "COMPUTE_ISSUE = " + std::to_string(p.compute_issue) +
              " is not a compute stage: 1 runs one instruction at a time, 2 a GEMM beside another "
              "(vta/driver/compute_issue.h)");

  Config c(p);
  auto depth_ok = [&](int log_depth, const char* key, int log_size, int elem_bytes) {
    require(log_depth >= 1, std::string(key) + " = " + std::to_string(log_size) +
                                " is too small: the buffer must hold at least two elements of " +
                                std::to_string(elem_bytes) + " bytes");
  };
  depth_ok(c.log_uop_depth(), "LOG_UOP_BUFF_SIZE", p.log_uop_buff_size, kUopElemBytes);
  depth_ok(c.log_inp_depth(), "LOG_INP_BUFF_SIZE", p.log_inp_buff_size, c.inp_elem_bytes());
  depth_ok(c.log_wgt_depth(), "LOG_WGT_BUFF_SIZE", p.log_wgt_buff_size, c.wgt_elem_bytes());
  depth_ok(c.log_acc_depth(), "LOG_ACC_BUFF_SIZE", p.log_acc_buff_size, c.acc_elem_bytes());
  require(c.log_inp_depth() <= isa::kSramAddrBits && c.log_wgt_depth() <= isa::kSramAddrBits &&
              c.log_acc_depth() <= isa::kSramAddrBits && c.log_uop_depth() <= isa::kSramAddrBits,
          "a buffer depth exceeds 2^16 elements, the reach of the 16-bit sram_base field");
  require(p.compute_issue == 1 || c.log_acc_depth() >= 2,
          "COMPUTE_ISSUE = 2 splits the accumulator in two banks: it needs at least 4 accumulator elements "
          "(LOG_ACC_BUFF_SIZE = " +
              std::to_string(p.log_acc_buff_size) + " holds " + std::to_string(c.acc_depth()) + ")");

  // The limits of spec 1.3.
  const int la = c.log_acc_depth(), li = c.log_inp_depth(), lw = c.log_wgt_depth(), lu = c.log_uop_depth();
  require_word(
      8 + lu + (lu + 1) + 2 * isa::kLoopIterBits, 64,
      "GEMM/ALU word 0 (header, reset, uop_bgn = LOG_UOP_DEPTH, uop_end = LOG_UOP_DEPTH+1, iter_out, iter_in)");
  require_word(2 * (la + li + lw), 64, "GEMM word 1 (2*(LOG_ACC_DEPTH + LOG_INP_DEPTH + LOG_WGT_DEPTH))");
  require_word(4 * la + isa::kAluOpcodeBits + 1 + isa::kAluImmBits, 64,
               "ALU word 1 (4*LOG_ACC_DEPTH + alu_opcode + use_imm + imm)");
  require_word(la + std::max(la, li) + lw, 32,
               "micro-op (LOG_ACC_DEPTH + max(LOG_ACC_DEPTH, LOG_INP_DEPTH) + LOG_WGT_DEPTH)");
  return c;
}

Config Config::default_config() { return make(ConfigParams{}); }

namespace {

// The configuration file's integer keys (besides the strings TARGET and HW_VER): what from_json_text
// reads and to_json_text writes. The optional ones are written only as to_json_text says.
struct IntKey {
  const char* key;
  int ConfigParams::*field;
  bool optional;
};
constexpr IntKey kIntKeys[] = {
    {"LOG_INP_WIDTH", &ConfigParams::log_inp_width, false},
    {"LOG_WGT_WIDTH", &ConfigParams::log_wgt_width, false},
    {"LOG_ACC_WIDTH", &ConfigParams::log_acc_width, false},
    {"LOG_BATCH", &ConfigParams::log_batch, false},
    {"LOG_BLOCK", &ConfigParams::log_block, false},
    {"LOG_UOP_BUFF_SIZE", &ConfigParams::log_uop_buff_size, false},
    {"LOG_INP_BUFF_SIZE", &ConfigParams::log_inp_buff_size, false},
    {"LOG_WGT_BUFF_SIZE", &ConfigParams::log_wgt_buff_size, false},
    {"LOG_ACC_BUFF_SIZE", &ConfigParams::log_acc_buff_size, false},
    {"LOG_BUS_WIDTH", &ConfigParams::log_bus_width, true},  // the reference's one optional key
    {"HW_FREQ", &ConfigParams::hw_freq_mhz, true},          // ours
    {"COMPUTE_ISSUE", &ConfigParams::compute_issue, true},  // ours
};

}  // namespace

Config Config::from_json_text(std::string_view text, std::string_view origin) {
  json j;
  // A key given twice in one object is refused (the JSON parser would keep the last silently).
  std::vector<std::vector<std::string>> keys;  // per open object
  std::string duplicate;
  auto watch = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: keys.emplace_back(); break;
      case json::parse_event_t::object_end: keys.pop_back(); break;
      case json::parse_event_t::key: {
        const auto& k = parsed.get_ref<const std::string&>();
        auto& seen = keys.back();
        if (std::find(seen.begin(), seen.end(), k) != seen.end() && duplicate.empty()) duplicate = k;
        seen.push_back(k);
        break;
      }
      default: break;
    }
    return true;
  };
  try {
    j = json::parse(text, watch);
  } catch (const json::exception& e) {
    // parse errors, and numbers the parser cannot represent (1e400)
    throw ConfigError(std::string(origin) + ": not valid JSON: " + e.what());
  }
  if (!duplicate.empty()) throw ConfigError(std::string(origin) + ": key " + duplicate + " is given more than once");
  if (!j.is_object()) throw ConfigError(std::string(origin) + ": the configuration must be a JSON object");
  ConfigParams p;
  for (const auto& [key, value] : j.items()) {
    auto where = std::string(origin) + ": key " + key;
    if (key == "TARGET" || key == "HW_VER") {
      if (!value.is_string()) throw ConfigError(where + " must be a string");
      (key == "TARGET" ? p.target : p.hw_ver) = value.get<std::string>();
      continue;
    }
    const IntKey* match = nullptr;
    for (const auto& k : kIntKeys) {
      if (key == k.key) match = &k;
    }
    if (match == nullptr) throw ConfigError(where + " is not a VTA configuration key");
    if (!value.is_number_integer()) throw ConfigError(where + " must be an integer");
    // Read at full width first: a value beyond int is refused, never truncated (4294967300 is not 4).
    const bool fits = value.is_number_unsigned()
                          ? value.get<uint64_t>() <= uint64_t(INT32_MAX)
                          : value.get<int64_t>() >= INT32_MIN && value.get<int64_t>() <= INT32_MAX;
    if (!fits) throw ConfigError(where + " = " + value.dump() + " is out of range");
    p.*match->field = static_cast<int>(value.get<int64_t>());
  }
  // The reference configuration has no optional keys except LOG_BUS_WIDTH (and our HW_FREQ).
  for (const auto& k : kIntKeys) {
    if (!k.optional && !j.contains(k.key)) {
      throw ConfigError(std::string(origin) + ": missing key " + k.key);
    }
  }
  try {
    return make(p);
  } catch (const ConfigError& e) {
    throw ConfigError(std::string(origin) + ": " + e.what());
  }
}

Config Config::from_file(const std::filesystem::path& path) {
  // A configuration is a few hundred bytes: read at most kMaxFileBytes, so a device file or a wrong
  // path cannot exhaust memory (or block: only a regular file is read).
  return from_json_text(read_file_as<ConfigError>(path, kMaxFileBytes, "VTA configuration file: "), path.string());
}

std::string Config::bitstream_name() const {
  std::ostringstream s;
  s << batch() << 'x' << block_in() << "_i" << inp_width() << 'w' << wgt_width() << 'a' << acc_width() << '_'
    << params_.log_uop_buff_size << '_' << params_.log_inp_buff_size << '_' << params_.log_wgt_buff_size << '_'
    << params_.log_acc_buff_size;
  if (params_.compute_issue != 1) s << "_ci" << params_.compute_issue;  // another compute stage, another design
  return s.str();
}

std::string Config::to_json_text() const {
  json j = {{"TARGET", params_.target}, {"HW_VER", params_.hw_ver}};
  for (const auto& k : kIntKeys) {
    if (!k.optional) j[k.key] = params_.*k.field;
  }
  // the bus width as resolved (the target's default when the file left it out): a file and the build
  // made from it have the same text, so the same identity (a sweep's hash, a tilings file's check)
  j["LOG_BUS_WIDTH"] = log_bus_width_;
  // written only when set, so the default configuration's text (and hash) is the reference's
  if (params_.hw_freq_mhz != ConfigParams::kDefaultHwFreqMhz) j["HW_FREQ"] = params_.hw_freq_mhz;
  if (params_.compute_issue != 1) j["COMPUTE_ISSUE"] = params_.compute_issue;
  return j.dump(2);
}

std::vector<ConfigConstant> Config::constants() const {
  const auto& p = params_;
  std::vector<ConfigConstant> c = {
      // Keys and the values the config tool adds (spec 1.2).
      {"LOG_INP_WIDTH", p.log_inp_width, "log2 of input element width in bits"},
      {"LOG_WGT_WIDTH", p.log_wgt_width, "log2 of weight element width in bits"},
      {"LOG_ACC_WIDTH", p.log_acc_width, "log2 of accumulator element width in bits"},
      {"LOG_OUT_WIDTH", log_out_width(), "log2 of output element width in bits"},
      {"LOG_BATCH", p.log_batch, "log2 of BATCH"},
      {"LOG_BLOCK", p.log_block, "log2 of BLOCK_IN = BLOCK_OUT"},
      {"LOG_BLOCK_IN", log_block_in(), "log2 of BLOCK_IN"},
      {"LOG_BLOCK_OUT", log_block_out(), "log2 of BLOCK_OUT"},
      {"LOG_UOP_BUFF_SIZE", p.log_uop_buff_size, "log2 of micro-op buffer bytes"},
      {"LOG_INP_BUFF_SIZE", p.log_inp_buff_size, "log2 of input buffer bytes"},
      {"LOG_WGT_BUFF_SIZE", p.log_wgt_buff_size, "log2 of weight buffer bytes"},
      {"LOG_ACC_BUFF_SIZE", p.log_acc_buff_size, "log2 of accumulator buffer bytes"},
      {"LOG_OUT_BUFF_SIZE", log_out_buff_size(), "log2 of output buffer bytes"},
      {"LOG_BUS_WIDTH", log_bus_width(), "log2 of memory bus width in bits"},
      {"BUS_WIDTH", bus_width(), "memory bus width in bits"},
      {"LOG_INS_WIDTH", isa::kLogInsWidth, "log2 of instruction width in bits"},
      {"INS_WIDTH", 1 << isa::kLogInsWidth, "instruction width in bits"},
      {"LOG_UOP_WIDTH", isa::kLogUopWidth, "log2 of micro-op width in bits"},
      {"UOP_WIDTH", 1 << isa::kLogUopWidth, "micro-op width in bits"},
      {"INP_WIDTH", inp_width(), "input element width in bits"},
      {"WGT_WIDTH", wgt_width(), "weight element width in bits"},
      {"ACC_WIDTH", acc_width(), "accumulator element width in bits"},
      {"OUT_WIDTH", out_width(), "output element width in bits"},
      {"BATCH", batch(), "rows of an input/accumulator tile"},
      {"BLOCK_IN", block_in(), "input channels of a tile"},
      {"BLOCK_OUT", block_out(), "output channels of a tile"},
      {"UOP_BUFF_SIZE", int64_t{1} << p.log_uop_buff_size, "micro-op buffer bytes"},
      {"INP_BUFF_SIZE", int64_t{1} << p.log_inp_buff_size, "input buffer bytes"},
      {"WGT_BUFF_SIZE", int64_t{1} << p.log_wgt_buff_size, "weight buffer bytes"},
      {"ACC_BUFF_SIZE", int64_t{1} << p.log_acc_buff_size, "accumulator buffer bytes"},
      {"OUT_BUFF_SIZE", int64_t{1} << log_out_buff_size(), "output buffer bytes"},
      {"INP_MATRIX_WIDTH", inp_elem_bytes() * 8, "bits of one input element (tile)"},
      {"WGT_MATRIX_WIDTH", wgt_elem_bytes() * 8, "bits of one weight element (tile)"},
      {"ACC_MATRIX_WIDTH", acc_elem_bytes() * 8, "bits of one accumulator element (tile)"},
      {"OUT_MATRIX_WIDTH", out_elem_bytes() * 8, "bits of one output element (tile)"},
      {"INS_ELEM_BYTES", kInsnElemBytes, "bytes of one instruction"},
      {"UOP_ELEM_BYTES", kUopElemBytes, "bytes of one micro-op"},
      {"INP_ELEM_BYTES", inp_elem_bytes(), "bytes of one input element"},
      {"WGT_ELEM_BYTES", wgt_elem_bytes(), "bytes of one weight element"},
      {"ACC_ELEM_BYTES", acc_elem_bytes(), "bytes of one accumulator element"},
      {"OUT_ELEM_BYTES", out_elem_bytes(), "bytes of one output element"},
      {"UOP_BUFF_DEPTH", uop_depth(), "micro-op buffer depth in elements"},
      {"LOG_UOP_BUFF_DEPTH", log_uop_depth(), "log2 of micro-op buffer depth"},
      {"INP_BUFF_DEPTH", inp_depth(), "input buffer depth in elements"},
      {"LOG_INP_BUFF_DEPTH", log_inp_depth(), "log2 of input buffer depth"},
      {"WGT_BUFF_DEPTH", wgt_depth(), "weight buffer depth in elements"},
      {"LOG_WGT_BUFF_DEPTH", log_wgt_depth(), "log2 of weight buffer depth"},
      {"ACC_BUFF_DEPTH", acc_depth(), "accumulator buffer depth in elements"},
      {"LOG_ACC_BUFF_DEPTH", log_acc_depth(), "log2 of accumulator buffer depth"},
      {"OUT_BUFF_DEPTH", out_depth(), "output buffer depth in elements (indexed like acc)"},
      {"UOP_SRC_IDX_BITS", std::max(log_acc_depth(), log_inp_depth()), "micro-op source index width"},
      {"COMPUTE_ISSUE", p.compute_issue, "compute instructions at once (vta/driver/compute_issue.h)"},
      {"UOP_LOAD_TABLE_ENTRIES", UopLoadTable::kEntries, "micro-op loads the two-slot compute stage records"},
      // Fixed ISA constants.
      {"OPCODE_BIT_WIDTH", isa::kOpcodeBits, "instruction opcode field width"},
      {"ALU_OPCODE_BIT_WIDTH", isa::kAluOpcodeBits, "ALU opcode field width"},
      {"OPCODE_LOAD", static_cast<int>(Opcode::kLoad), "opcode LOAD"},
      {"OPCODE_STORE", static_cast<int>(Opcode::kStore), "opcode STORE"},
      {"OPCODE_GEMM", static_cast<int>(Opcode::kGemm), "opcode GEMM"},
      {"OPCODE_FINISH", static_cast<int>(Opcode::kFinish), "opcode FINISH"},
      {"OPCODE_ALU", static_cast<int>(Opcode::kAlu), "opcode ALU"},
      {"ALU_OPCODE_MIN", static_cast<int>(AluOp::kMin), "ALU signed minimum"},
      {"ALU_OPCODE_MAX", static_cast<int>(AluOp::kMax), "ALU signed maximum"},
      {"ALU_OPCODE_ADD", static_cast<int>(AluOp::kAdd), "ALU wrapping add"},
      {"ALU_OPCODE_SHR", static_cast<int>(AluOp::kShr), "ALU arithmetic shift right (left if negative)"},
      {"ALU_OPCODE_MUL", static_cast<int>(AluOp::kMul), "ALU wrapping multiply"},
      {"MEMOP_ID_BIT_WIDTH", isa::kMemIdBits, "memory type field width"},
      {"MEMOP_SRAM_ADDR_BIT_WIDTH", isa::kSramAddrBits, "LOAD/STORE sram_base width"},
      {"MEMOP_DRAM_ADDR_BIT_WIDTH", isa::kDramAddrBits, "LOAD/STORE dram_base width"},
      {"MEMOP_SIZE_BIT_WIDTH", isa::kSizeBits, "LOAD/STORE x_size/y_size width"},
      {"MEMOP_STRIDE_BIT_WIDTH", isa::kStrideBits, "LOAD/STORE x_stride width"},
      {"MEMOP_PAD_BIT_WIDTH", isa::kPadBits, "LOAD/STORE pad width"},
      {"MEMOP_PAD_VAL_BIT_WIDTH", isa::kPadValBits, "pad value encoding width (unused)"},
      {"LOOP_ITER_WIDTH", isa::kLoopIterBits, "GEMM/ALU loop iteration count width"},
      {"ALUOP_IMM_BIT_WIDTH", isa::kAluImmBits, "ALU immediate width"},
      {"SHR_ARG_BIT_WIDTH", p.log_acc_width, "ALU shift argument width"},
      {"MUL_ARG_BIT_WIDTH", isa::kMulArgBits, "ALU multiply argument width"},
      {"TOKEN_COUNT_WIDTH", isa::kTokenCountBits, "dependency-token counter width (a queue holds 2^w - 1 tokens)"},
      {"MEM_ID_UOP", static_cast<int>(MemId::kUop), "memory type: micro-op buffer"},
      {"MEM_ID_WGT", static_cast<int>(MemId::kWgt), "memory type: weight buffer"},
      {"MEM_ID_INP", static_cast<int>(MemId::kInp), "memory type: input buffer"},
      {"MEM_ID_ACC", static_cast<int>(MemId::kAcc), "memory type: accumulator buffer"},
      {"MEM_ID_OUT", static_cast<int>(MemId::kOut), "memory type: output buffer"},
      {"MEM_ID_ACC_8BIT", static_cast<int>(MemId::kAcc8Bit), "memory type: accumulator from int8"},
  };
  return c;
}

}  // namespace vta
