// vta disasm, vta stats, vta config.

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

#include "commands.h"
#include "vta/compiler/build.h"
#include "vta/compiler/lower.h"
#include "vta/driver/build_config.h"
#include "vta/driver/energy.h"
#include "vta/driver/file.h"
#include "vta/driver/program.h"

namespace vta::cli {
namespace {

std::vector<uint8_t> read_all(const std::string& path) {
  const std::string bytes = read_file(path, uint64_t{1} << 32);
  return {bytes.begin(), bytes.end()};
}

const char* stage_tag(RawInsn raw) {
  switch (stage_of(raw)) {
    case Stage::kLoad: return "load   ";
    case Stage::kCompute: return "compute";
    case Stage::kStore: return "store  ";
  }
  return "?";
}

// The micro-op buffer as the program fills it, LOAD UOP by LOAD UOP in program order (the compute
// stage executes them in that order), so each GEMM and ALU instruction can show the kernel it runs.
class UopTracker {
 public:
  UopTracker(const Isa& isa, const Capture& capture) : isa_(isa), capture_(capture), sram_(isa.config().uop_depth()) {}

  // Returns a one-line summary of what a LOAD UOP loaded ("" when it is not one).
  std::string load(RawInsn raw) {
    if (Isa::opcode_of(raw) != uint8_t(Opcode::kLoad)) return "";
    const MemInsn m = isa_.decode_mem(raw);
    if (m.memory_type != uint8_t(MemId::kUop) || m.x_size == 0 || m.y_size == 0) return "";
    size_t loaded = 0;
    // only the entries that land in the buffer (a garbled LOAD may name 2^32 of them: the work is
    // bounded by the buffer's depth, not by the instruction's fields)
    const uint64_t total = uint64_t(m.x_size) * m.y_size;
    const uint64_t in_buffer = m.sram_base >= sram_.size() ? 0 : std::min<uint64_t>(total, sram_.size() - m.sram_base);
    for (uint64_t i = 0; i < in_buffer; ++i) {
      const uint64_t y = i / m.x_size, x = i % m.x_size;
      const uint64_t dram = (uint64_t(m.dram_base) + y * m.x_stride + x) * Config::kUopElemBytes;
      const CapturedRegion* r = capture_.region_at(dram, Config::kUopElemBytes);
      if (r == nullptr) continue;
      uint32_t word;
      std::memcpy(&word, r->before.data() + (dram - r->phys), sizeof word);
      sram_[m.sram_base + i] = word;
      ++loaded;
    }
    return "loads " + std::to_string(loaded) + " micro-ops into uop[" + std::to_string(m.sram_base) + ", " +
           std::to_string(m.sram_base + loaded) + ")";
  }

  // The kernel of a GEMM or ALU instruction, one micro-op per line (at most `limit`).
  void print_kernel(RawInsn raw, size_t limit) const {
    const uint8_t op = Isa::opcode_of(raw);
    uint32_t bgn = 0, end = 0;
    if (op == uint8_t(Opcode::kGemm)) {
      const GemmInsn g = isa_.decode_gemm(raw);
      bgn = g.uop_bgn, end = g.uop_end;
    } else if (op == uint8_t(Opcode::kAlu)) {
      const AluInsn a = isa_.decode_alu(raw);
      bgn = a.uop_bgn, end = a.uop_end;
    } else {
      return;
    }
    for (uint32_t u = bgn; u < end && u < sram_.size(); ++u) {
      if (u - bgn == limit) {
        std::printf("          ... %u more micro-ops\n", end - u);
        return;
      }
      if (sram_[u]) {
        std::printf("          uop[%u] %s\n", u, isa_.disassemble(isa_.decode_uop(*sram_[u])).c_str());
      } else {
        std::printf("          uop[%u] (not loaded by this program)\n", u);
      }
    }
  }

 private:
  const Isa& isa_;
  const Capture& capture_;
  std::vector<std::optional<uint32_t>> sram_;
};

void disasm_capture(const std::string& path, size_t max_uops) {
  const Capture c = Capture::load(path);
  const Config config = c.config();
  const Isa isa(config);
  std::printf("# %s: run %llu of %s on %s, configuration %s (hash %s)\n", path.c_str(),
              static_cast<unsigned long long>(c.sequence), c.program.c_str(), c.target.c_str(),
              config.bitstream_name().c_str(), c.config_hash().c_str());
  std::printf("# %u instructions at 0x%llx, budget %llu; outcome: %s\n", c.insn_count,
              static_cast<unsigned long long>(c.insn_addr), static_cast<unsigned long long>(c.budget),
              c.result.status == RunStatus::kOk ? "ok" : to_string(c.result.kind));
  for (const auto& r : c.regions) {
    std::printf("# region 0x%llx: %zu bytes (%s)%s\n", static_cast<unsigned long long>(r.phys), r.before.size(),
                r.uses_text().c_str(), r.after ? ", contents after the run captured" : "");
  }
  UopTracker uops(isa, c);
  const auto insns = c.instructions();
  for (size_t i = 0; i < insns.size(); ++i) {
    std::printf("%6zu  %s  %s\n", i, stage_tag(insns[i]), isa.disassemble(insns[i]).c_str());
    if (const std::string loaded = uops.load(insns[i]); !loaded.empty()) std::printf("          %s\n", loaded.c_str());
    uops.print_kernel(insns[i], max_uops);
  }
  if (insns.size() < c.insn_count) {
    std::printf("# the stream runs past its buffer after %zu instructions\n", insns.size());
  }
}

// A binary micro-op file: 4 bytes per micro-op, little-endian.
void disasm_uops(const std::string& path, const Config& config) {
  const auto bytes = read_all(path);
  if (bytes.size() % 4 != 0) throw std::runtime_error(path + ": size is not a multiple of 4 bytes (not micro-ops)");
  const Isa isa(config);
  for (size_t i = 0; i < bytes.size() / 4; ++i) {
    uint32_t word;
    std::memcpy(&word, bytes.data() + i * 4, 4);
    std::printf("%6zu  uop      %s\n", i, isa.disassemble(isa.decode_uop(word)).c_str());
  }
}

void disasm_raw(const std::string& path, const Config& config) {
  const auto bytes = read_all(path);
  if (bytes.size() % Config::kInsnElemBytes != 0) {
    throw std::runtime_error(path + ": size is not a multiple of 16 bytes (not an instruction stream)");
  }
  const Isa isa(config);
  for (size_t i = 0; i < bytes.size() / Config::kInsnElemBytes; ++i) {
    const RawInsn raw = load_insn(bytes.data() + i * Config::kInsnElemBytes);
    std::printf("%6zu  %s  %s\n", i, stage_tag(raw), isa.disassemble(raw).c_str());
  }
}

}  // namespace

void print_stats(const Stats& s, const Config& config, bool as_json) {
  if (as_json) {
    std::printf("%s\n", s.to_json().c_str());
    return;
  }
  std::printf("%s%s", s.to_table().c_str(), cost_lines(s, config).c_str());
}

void add_inspect_commands(CLI::App& app, Commands& commands) {
  static std::string file, config_path, uops_path;
  static size_t max_uops = 8;
  CLI::App* d = app.add_subcommand(
      "disasm",
      "print a captured program (instructions with dependency flags, micro-op kernels), a module or a raw "
      "instruction stream");
  d->add_option("file", file, "a capture (.vtacap), a module (vta-module JSON) or a binary instruction stream")
      ->check(CLI::ExistingFile);
  d->add_option("-u,--uops", uops_path, "a binary micro-op file (4 bytes per micro-op)")->check(CLI::ExistingFile);
  d->add_option("--max-uops", max_uops, "micro-ops shown per GEMM/ALU kernel")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return v.find_first_not_of("0123456789") == std::string::npos && !v.empty() && v.size() < 8 &&
                           std::stoll(v) <= (1 << 20)
                       ? std::string()
                       : "must be a count from 0 to 1048576, not " + v;
          },
          "0-1048576"));
  d->add_option("-c,--config", config_path, "configuration of a raw stream (default: this build's)")
      ->check(CLI::ExistingFile);
  d->footer(
      "Examples:\n  vta disasm caps/vta-tutorials-1234-000000.vtacap --max-uops 4\n  vta disasm insns.bin -u uops.bin");
  d->callback([] {  // (a usage error: checked while the command line is parsed)
    if (file.empty() && uops_path.empty()) {
      throw CLI::ValidationError("nothing to disassemble: give a file and/or --uops FILE (see --help)");
    }
  });
  commands.add(d, [] {
    const Config config = config_path.empty() ? build_config() : Config::from_file(config_path);
    if (!uops_path.empty()) disasm_uops(uops_path, config);
    if (file.empty()) return 0;
    switch (file_kind(file)) {
      case FileKind::kCapture: disasm_capture(file, max_uops); break;
      case FileKind::kModule: {
        const compiler::Module m = compiler::Module::load(file);
        std::printf("%s", compiler::to_text(m.program()).c_str());
        break;
      }
      case FileKind::kRaw: disasm_raw(file, config); break;
    }
    return 0;
  });

  static std::string stats_file;
  static bool stats_json = false;
  CLI::App* s =
      app.add_subcommand("stats", "print the statistics of a captured run (and its cycles against the bounds)");
  s->add_option("file", stats_file, "a capture (.vtacap)")->required()->check(CLI::ExistingFile);
  s->add_flag("--json", stats_json, "as JSON");
  commands.add(s, [] {
    const Capture c = Capture::load(stats_file);
    if (!stats_json) {
      std::printf("%s: %s on %s, %s\n", stats_file.c_str(), c.program.c_str(), c.target.c_str(),
                  c.result.status == RunStatus::kOk ? "ok" : to_string(c.result.kind));
    }
    print_stats(c.result.stats, c.config(), stats_json);
    return 0;
  });

  CLI::App* cfg = app.add_subcommand("config", "show or check a hardware configuration (vta_config.json)");
  cfg->require_subcommand(1);
  static std::string show_path, check_path;
  CLI::App* show = cfg->add_subcommand("show", "print a configuration and every quantity derived from it");
  show->add_option("file", show_path, "vta_config.json (default: the one this build was made for)")
      ->check(CLI::ExistingFile);
  commands.add(show, [] {
    const Config c = show_path.empty() ? build_config() : Config::from_file(show_path);
    std::printf("# %s (%s)\n%s\n", show_path.empty() ? "this build's configuration" : show_path.c_str(),
                c.bitstream_name().c_str(), c.to_json_text().c_str());
    std::printf("%-24s %12d  %s\n", "HW_FREQ", c.hw_freq_mhz(),
                "clock in MHz (waveform and timeline time axis, SystemC clock; not in the RTL)");
    std::printf("%-24s %12llu  %s\n", "CLOCK_PERIOD_PS", static_cast<unsigned long long>(c.clock_period_ps()),
                "one cycle in picoseconds");
    for (const auto& k : c.constants()) {
      std::printf("%-24s %12lld  %s\n", k.name.c_str(), static_cast<long long>(k.value), k.doc.c_str());
    }
    return 0;
  });
  CLI::App* check = cfg->add_subcommand("check", "validate a configuration: exit status 0 when it is valid");
  check->add_option("file", check_path, "vta_config.json")->required()->check(CLI::ExistingFile);
  commands.add(check, [] {
    try {
      const Config c = Config::from_file(check_path);
      std::printf("%s: valid (%s)%s\n", check_path.c_str(), c.bitstream_name().c_str(),
                  c.bitstream_name() == build_config().bitstream_name() ? ", the configuration of this build" : "");
      return 0;
    } catch (const ConfigError& e) {
      std::fprintf(stderr, "vta config check: %s\n", e.what());
      return 1;
    }
  });
}

}  // namespace vta::cli
