// Waveforms: VTA_WAVE / Simulator::Options::wave dump FST (or VCD through fst2vcd) for a window of
// cycles and a hierarchy depth, and write a GTKWave save file whose every signal exists in the dump.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "test_paths.h"
#include "vcd.h"
#include "vta/driver/build_config.h"
#include "vta/tsim/simulator.h"
#include "workloads.h"

namespace vta::test {
namespace {

namespace fs = std::filesystem;

void run_small_program(const tsim::Simulator::Options& o) {
  tsim::Simulator sim(o);
  Program p(build_config());
  DevBuf inp(4096);
  p.load(MemId::kInp, 0, inp.base(16), 1, 4, 4, push_next()).finish(pop_prev());
  const DevBuf insns = p.to_device();
  ASSERT_EQ(sim.run(insns.phys(), uint32_t(p.insns().size()), 0), RunStatus::kOk) << sim.last_error();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// VCD values are binary without leading zeros; the filter's keys are 32 hex digits as GTKWave prints.
std::string hex128(const std::string& bits) {
  const std::string padded = std::string(128 - bits.size(), '0') + bits;
  std::string hex;
  for (size_t i = 0; i < 128; i += 4) hex += "0123456789ABCDEF"[std::stoi(padded.substr(i, 4), nullptr, 2)];
  return hex;
}

TEST(TsimWave, VcdWindowAndSaveFileSignalsExist) {
  const fs::path dir = vta::test::scratch_path("vta_tsim_wave_test");
  fs::create_directories(dir);
  tsim::Simulator::Options o;
  o.wave = tsim::WaveOptions{(dir / "run.vcd").string(), 20, 60, 0};
  run_small_program(o);
  ASSERT_TRUE(fs::exists(dir / "run.vcd"));
  EXPECT_FALSE(fs::exists(dir / "run.vcd.tmp.fst")) << "the intermediate FST is removed";
  ASSERT_TRUE(fs::exists(dir / "run.gtkw"));
  const Vcd v = parse_vcd(dir / "run.vcd");
  // the time axis is the configuration's clock (HW_FREQ): a cycle is its period, both edges dumped
  const uint64_t period = build_config().clock_period_ps();
  EXPECT_EQ(v.timescale, "1ps");
  EXPECT_EQ(v.first_time, 20 * period) << "dump starts at cycle 20";
  EXPECT_EQ(v.last_time, 59 * period + period / 2) << "dump stops before cycle 60";
  EXPECT_GT(v.names.size(), 500u);
  // the save file opens on the window dumped
  const std::string gtkw = read_text(dir / "run.gtkw");
  EXPECT_NE(gtkw.find("[timestart] " + std::to_string(20 * period) + "\n"), std::string::npos) << gtkw;
  EXPECT_NE(gtkw.find("\n*-"), std::string::npos) << "a zoom that fits the window" << gtkw;
  // every signal of the save file is in the dump, with its exact name and range
  EXPECT_GT(expect_save_file_signals_in(dir / "run.gtkw", v), 60u);
  fs::remove_all(dir);
}

// The save file attaches translate filters: every instruction value the instruction signals take is
// named in the instruction filter with its disassembly; FSM states, compute units and read clients
// have their tables.
TEST(TsimWave, SaveFileNamesInstructionsStatesUnitsAndClients) {
  const fs::path dir = vta::test::scratch_path("vta_tsim_wave_filters");
  fs::remove_all(dir);
  fs::create_directories(dir);
  tsim::Simulator::Options o;
  o.wave = tsim::WaveOptions{(dir / "run.vcd").string(), 0, UINT64_MAX, 0};
  run_small_program(o);
  const std::string core = "TOP.vta_top.u_core.";
  const std::set<std::string> insn_signals = {core + "fetched[127:0]", core + "ld_insn[127:0]", core + "co_insn[127:0]",
                                              core + "st_insn[127:0]"};
  const Vcd v = parse_vcd(dir / "run.vcd", insn_signals);
  const std::string gtkw = read_text(dir / "run.gtkw");
  for (const char* kind : {"insn", "state", "unit", "client"}) {
    const fs::path filter = dir / (std::string("run.") + kind + ".flt");
    ASSERT_TRUE(fs::exists(filter)) << filter;
    EXPECT_NE(gtkw.find(" " + fs::absolute(filter).string() + "\n"), std::string::npos)
        << "the save file attaches " << filter;
  }
  EXPECT_NE(gtkw.find("@2022\n^1 " + fs::absolute(dir / "run.insn.flt").string() + "\n" + core + "fetched[127:0]"),
            std::string::npos)
      << gtkw;
  const std::string insns = read_text(dir / "run.insn.flt");
  std::map<std::string, std::string> names;
  std::istringstream lines(insns);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    names[line.substr(0, 32)] = line.substr(33);
  }
  ASSERT_EQ(names.size(), 2u) << insns;  // the program: LOAD, FINISH
  size_t seen = 0;
  for (const auto& [signal, values] : v.values) {
    for (const auto& bits : values) {
      if (bits.find_first_not_of('0') == std::string::npos) continue;  // idle
      ++seen;
      const auto n = names.find(hex128(bits));
      ASSERT_NE(n, names.end()) << signal << " takes " << hex128(bits) << ", which the filter does not name";
      EXPECT_TRUE(n->second.starts_with("#0 LOAD INP") || n->second.starts_with("#1 FINISH")) << n->second;
    }
  }
  EXPECT_GE(seen, 3u) << "fetched, ld_insn and co_insn carry the program's instructions";
  EXPECT_NE(read_text(dir / "run.state.flt").find("1 StRun"), std::string::npos);
  EXPECT_NE(read_text(dir / "run.unit.flt").find("3 UnitGemm"), std::string::npos);
  EXPECT_NE(read_text(dir / "run.client.flt").find("2 inp"), std::string::npos);
  fs::remove_all(dir);
}

TEST(TsimWave, Fst) {
  const fs::path dir = vta::test::scratch_path("vta_tsim_wave_fst");
  fs::create_directories(dir);
  tsim::Simulator::Options o;
  o.wave = tsim::WaveOptions{(dir / "run.fst").string(), 0, UINT64_MAX, 0};
  run_small_program(o);
  ASSERT_TRUE(fs::exists(dir / "run.fst"));
  EXPECT_GT(fs::file_size(dir / "run.fst"), 1000u);
  EXPECT_TRUE(fs::exists(dir / "run.gtkw"));
  fs::remove_all(dir);
}

TEST(TsimWave, BadWaveOptionsAreNamed) {
  tsim::Simulator::Options o;
  o.wave = tsim::WaveOptions{"run.txt", 0, UINT64_MAX, 0};
  EXPECT_THROW(tsim::Simulator{o}, std::invalid_argument);
  o.wave = tsim::WaveOptions{"run.fst", 50, 10, 0};
  EXPECT_THROW(tsim::Simulator{o}, std::invalid_argument);
  o.wave = tsim::WaveOptions{"run.fst", 0, 10, 2};  // depth is a build option (VTA_TSIM_TRACE_DEPTH)
  EXPECT_THROW(tsim::Simulator{o}, std::invalid_argument);
}

// No file name ever reaches a shell: a name with quotes and a command in it is just a file name.
TEST(TsimWave, FileNamesNeverReachAShell) {
  const fs::path dir = vta::test::scratch_path("vta_tsim_wave_shell");
  fs::remove_all(dir);
  fs::create_directories(dir);
  // a shell would run "touch vta_wave_INJECTED" in the working directory
  const fs::path injected = fs::current_path() / "vta_wave_INJECTED";
  fs::remove(injected);
  const std::string nasty = (dir / "a';touch vta_wave_INJECTED;'.vcd").string();
  tsim::Simulator::Options o;
  o.wave = tsim::WaveOptions{nasty, 0, UINT64_MAX, 0};
  run_small_program(o);
  EXPECT_FALSE(fs::exists(injected)) << "the file name was run as a command";
  EXPECT_TRUE(fs::exists(nasty)) << "the waveform was not written under its name";
  o.wave = tsim::WaveOptions{(dir / "it's.vcd").string(), 0, UINT64_MAX, 0};
  run_small_program(o);
  ASSERT_TRUE(fs::exists(dir / "it's.vcd")) << "an apostrophe lost the waveform";
  EXPECT_GT(parse_vcd(dir / "it's.vcd").names.size(), 500u);
  fs::remove_all(dir);
}

// Simulators that ask for the same file at the same time write beside each other (run.1.fst, ...),
// never over each other; a later simulator reuses the name once the first has closed it.
TEST(TsimWave, ConcurrentSimulatorsGetTheirOwnFiles) {
  const fs::path dir = vta::test::scratch_path("vta_tsim_wave_threads");
  fs::remove_all(dir);
  fs::create_directories(dir);
  tsim::Simulator::Options o;
  o.wave = tsim::WaveOptions{(dir / "run.fst").string(), 0, UINT64_MAX, 0};
  {
    tsim::Simulator a(o), b(o), c(o);
    EXPECT_TRUE(fs::exists(dir / "run.fst"));
    EXPECT_TRUE(fs::exists(dir / "run.1.fst"));
    EXPECT_TRUE(fs::exists(dir / "run.2.fst"));
    EXPECT_TRUE(fs::exists(dir / "run.2.gtkw"));
  }
  fs::remove(dir / "run.fst");
  run_small_program(o);
  EXPECT_TRUE(fs::exists(dir / "run.fst")) << "the name is free again once closed";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vta::test
