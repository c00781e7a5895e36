#pragma once
/// \file vta/tools/compiler_errors.h
/// How the programs that compile schedules (vta-compiled-tutorials, vta-onnx, vta-resnet18) report the
/// compiler's refusals: a schedule it cannot build is an input error, exit status 2 ("NAME: schedule
/// error: ..."); an internal compiler error is a defect of ours, status 3 ("NAME: internal compiler
/// error: ..."). Anything else goes on to guarded_main (status 1).

#include <cstdio>

#include "vta/compiler/ir.h"

namespace vta::tools {

template <class Run>
int compiler_errors_as_status(const char* name, Run run) {
  try {
    return run();
  } catch (const compiler::ScheduleError& e) {
    std::fprintf(stderr, "%s: schedule error: %s\n", name, e.what());
    return 2;
  } catch (const compiler::InternalError& e) {
    std::fprintf(stderr, "%s: internal compiler error: %s\n", name, e.what());
    return 3;
  }
}

}  // namespace vta::tools
