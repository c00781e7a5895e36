// The one object holding the emulator's absolute path (see test_paths.h for why it is one object).
#include "emulator_process.h"

std::string vta::test::board_emulator_path() { return VTA_BOARD_EMULATOR; }
