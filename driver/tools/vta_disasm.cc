// vta-disasm: prints a binary VTA instruction stream (16 bytes per instruction, little-endian) one
// instruction per line, and optionally a micro-op file.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "vta/build_config.h"
#include "vta/file.h"
#include "vta/isa.h"
#include "vta/main.h"

namespace {

std::vector<char> read_all(const std::string& path) {
  const std::string bytes = vta::read_file(path, uint64_t{1} << 32);
  return {bytes.begin(), bytes.end()};
}

}  // namespace

static int run(int argc, char** argv) {
  CLI::App app{"Disassemble a VTA instruction stream"};
  std::string insn_path, uop_path, config_path;
  app.add_option("instructions", insn_path, "binary instruction file")->check(CLI::ExistingFile);
  app.add_option("-u,--uops", uop_path, "binary micro-op file (4 bytes per micro-op)")->check(CLI::ExistingFile);
  app.add_option("-c,--config", config_path, "vta_config.json (default: the build configuration)")
      ->check(CLI::ExistingFile);
  VTA_CLI_PARSE(app, argc, argv);
  if (insn_path.empty() && uop_path.empty()) {
    std::cerr << "vta-disasm: error: nothing to disassemble: give an instruction file and/or --uops FILE "
                 "(see --help)\n";
    return 2;
  }
  try {
    const vta::Config config = config_path.empty() ? vta::build_config() : vta::Config::from_file(config_path);
    const vta::Isa isa(config);
    if (!insn_path.empty()) {
      const auto bytes = read_all(insn_path);
      constexpr size_t kInsn = vta::Config::kInsnElemBytes;
      if (bytes.size() % kInsn != 0) throw std::runtime_error(insn_path + ": size is not a multiple of 16 bytes");
      for (size_t i = 0; i < bytes.size() / kInsn; ++i) {
        const vta::RawInsn raw = vta::load_insn(bytes.data() + i * kInsn);
        std::cout << i << ": " << isa.disassemble(raw) << "\n";
      }
    }
    if (!uop_path.empty()) {
      const auto bytes = read_all(uop_path);
      if (bytes.size() % 4 != 0) throw std::runtime_error(uop_path + ": size is not a multiple of 4 bytes");
      for (size_t i = 0; i < bytes.size() / 4; ++i) {
        uint32_t word;
        std::memcpy(&word, bytes.data() + i * 4, 4);
        std::cout << i << ": " << isa.disassemble(isa.decode_uop(word)) << "\n";
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "vta-disasm: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  return vta::guarded_main("vta-disasm", [&] { return run(argc, argv); });
}
