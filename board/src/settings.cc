// The board's settings: a board file, then the VTA_FPGA_* variables.

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "vta/board/board.h"
#include "vta/driver/file.h"
#include "vta/driver/json_field.h"
#include "vta/driver/parse.h"

namespace vta::board {
namespace {

constexpr uint64_t kMaxBoardFileBytes = 64 << 10;
constexpr double kMaxStallSeconds = 86400;

bool parse_flag(const std::string& where, const std::string& v) {
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  throw BoardError(where + "=\"" + v + "\" is not 0, 1, true or false");
}

double parse_seconds(const std::string& where, double v) {
  if (!std::isfinite(v) || v <= 0 || v > kMaxStallSeconds) {
    throw BoardError(where + " must be a number of seconds in (0, 86400], not " + std::to_string(v));
  }
  return v;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v == nullptr || *v == '\0') ? nullptr : v;
}

}  // namespace

BoardSettings BoardSettings::from_file(const std::string& path) {
  const std::string prefix = "board file " + path + ": ";
  const std::string text = read_file_as<BoardError>(path, kMaxBoardFileBytes, prefix);
  BoardSettings s;
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object()) throw BoardError("expected an object");
    for (const auto& [key, value] : j.items()) {
      if (key == "uio") {
        s.uio = json_field<std::string>(j, "uio");
      } else if (key == "dma") {
        s.dma = json_field<std::string>(j, "dma");
      } else if (key == "dma_sysfs") {
        s.dma_sysfs = json_field<std::string>(j, "dma_sysfs");
      } else if (key == "cached") {
        s.cached = json_field<bool>(j, "cached");
      } else if (key == "irq") {
        s.irq = json_field<bool>(j, "irq");
      } else if (key == "stall_seconds") {
        if (!value.is_number()) throw BoardError("\"stall_seconds\" must be a number");
        s.stall_seconds = parse_seconds("\"stall_seconds\"", value.get<double>());
      } else {
        throw BoardError("unknown key \"" + key + "\" (known: uio, dma, dma_sysfs, cached, irq, stall_seconds)");
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw BoardError(prefix + "not JSON: " + e.what());
  } catch (const std::exception& e) {  // (json_field's std::invalid_argument, this file's BoardError)
    throw BoardError(prefix + e.what());
  }
  return s;
}

BoardSettings BoardSettings::from_env() {
  BoardSettings s;
  if (const char* f = env("VTA_FPGA_BOARD")) s = from_file(f);
  if (const char* v = env("VTA_FPGA_UIO")) s.uio = v;
  if (const char* v = env("VTA_FPGA_DMA")) s.dma = v;
  if (const char* v = env("VTA_FPGA_DMA_SYSFS")) s.dma_sysfs = v;
  if (const char* v = env("VTA_FPGA_CACHED")) s.cached = parse_flag("VTA_FPGA_CACHED", v);
  if (const char* v = env("VTA_FPGA_IRQ")) s.irq = parse_flag("VTA_FPGA_IRQ", v);
  if (const char* v = env("VTA_FPGA_STALL_SECONDS")) {
    const std::optional<double> x = parse_double(v);
    if (!x) throw BoardError("VTA_FPGA_STALL_SECONDS=" + quoted(v) + " is not a number");
    s.stall_seconds = parse_seconds("VTA_FPGA_STALL_SECONDS", *x);
  }
  return s;
}

std::string BoardSettings::to_json() const {
  nlohmann::json j = {{"uio", uio},       {"dma", dma}, {"dma_sysfs", sysfs_dir()},
                      {"cached", cached}, {"irq", irq}, {"stall_seconds", stall_seconds}};
  return j.dump(2) + "\n";
}

std::string BoardSettings::sysfs_dir() const {
  if (!dma_sysfs.empty()) return dma_sysfs;
  return "/sys/class/u-dma-buf/" + std::filesystem::path(dma).filename().string();
}

}  // namespace vta::board
