#pragma once
/// \file test_paths.h
/// Where the tests find the source tree's files and this build's generated files. The absolute paths
/// are compiled into test_paths.cc alone, so that no other test object depends on where the tree is
/// checked out and the compiler cache shares them between clones (docs/PERFORMANCE.md).

#include <filesystem>
#include <string>

namespace vta::test {

/// A file of the source tree, e.g. source_path("config/samples/batch2.json").
std::filesystem::path source_path(const std::filesystem::path& relative);

/// The SystemVerilog configuration package this build generated from VTA_CONFIG.
std::filesystem::path generated_sv_package();

/// A file or directory name of this test process's own in the temporary directory ("<name>-<pid>"):
/// test processes of other build trees or suites running at the same time never share it.
std::filesystem::path scratch_path(const std::string& name);

}  // namespace vta::test
