// Waveforms on the SystemC backend: a shipped program run with VTA_TARGET=systemc and VTA_WAVE writes
// the window of cycles it asks for, complete when the process ends, with a save file whose every
// signal is in the dump.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "test_paths.h"
#include "vcd.h"

namespace vta::test {
namespace {

namespace fs = std::filesystem;

TEST(SystemcWave, AProgramOnTheVirtualPlatformDumpsItsWindow) {
  const fs::path dir = vta::test::scratch_path("vta_systemc_wave");
  fs::create_directories(dir);
  const std::string cmd = "VTA_TARGET=systemc VTA_WAVE='" + (dir / "run.vcd").string() +
                          "' VTA_WAVE_START=100 VTA_WAVE_STOP=300 '" + VTA_MATMUL_PROGRAM + "' > '" +
                          (dir / "out.txt").string() + "' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << std::ifstream(dir / "out.txt").rdbuf();
  ASSERT_TRUE(fs::exists(dir / "run.vcd"));
  ASSERT_TRUE(fs::exists(dir / "run.gtkw"));
  const Vcd v = parse_vcd(dir / "run.vcd");
  // the clock of the build configuration (HW_FREQ, 100 MHz): 10,000 ps a cycle, the falling edge half-way
  EXPECT_EQ(v.timescale, "1ps");
  EXPECT_EQ(v.first_time, 100u * 10000u) << "from cycle 100";
  EXPECT_EQ(v.last_time, 299u * 10000u + 5000u) << "to cycle 299";
  EXPECT_GT(v.names.size(), 500u);
  EXPECT_GT(expect_save_file_signals_in(dir / "run.gtkw", v), 60u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vta::test
