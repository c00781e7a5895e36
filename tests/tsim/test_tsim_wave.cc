// Waveforms: VTA_WAVE / Simulator::Options::wave dump FST (or VCD through fst2vcd) for a window of
// cycles and a hierarchy depth, and write a GTKWave save file whose every signal exists in the dump.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "../driver/workloads.h"
#include "vcd.h"
#include "vta/build_config.h"
#include "vta/tsim.h"

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

TEST(TsimWave, VcdWindowAndSaveFileSignalsExist) {
  const fs::path dir = fs::temp_directory_path() / "vta_tsim_wave_test";
  fs::create_directories(dir);
  tsim::Simulator::Options o;
  o.wave = tsim::WaveOptions{(dir / "run.vcd").string(), 20, 60, 0};
  run_small_program(o);
  ASSERT_TRUE(fs::exists(dir / "run.vcd"));
  EXPECT_FALSE(fs::exists(dir / "run.vcd.tmp.fst")) << "the intermediate FST is removed";
  ASSERT_TRUE(fs::exists(dir / "run.gtkw"));
  const Vcd v = parse_vcd(dir / "run.vcd");
  EXPECT_GE(v.first_time, 40u) << "dump starts at cycle 20 (two dumps per cycle)";
  EXPECT_LT(v.last_time, 120u) << "dump stops before cycle 60";
  EXPECT_GT(v.names.size(), 500u);
  // every signal of the save file is in the dump, with its exact name and range
  EXPECT_GT(expect_save_file_signals_in(dir / "run.gtkw", v), 60u);
  fs::remove_all(dir);
}

TEST(TsimWave, Fst) {
  const fs::path dir = fs::temp_directory_path() / "vta_tsim_wave_fst";
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
  const fs::path dir = fs::temp_directory_path() / "vta_tsim_wave_shell";
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
  const fs::path dir = fs::temp_directory_path() / "vta_tsim_wave_threads";
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
