// The sweep's build cache touches only what it made: a user's own build tree in the cache folder, even
// one whose source folder is gone, is never removed; the sweep's trees of a clone that is gone are.
// A cache path that cannot be a folder is refused naming it, before any task runs.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../../sweep/src/internal.h"
#include "test_paths.h"

namespace vta::sweep {
namespace {

namespace fs = std::filesystem;

// A build tree in `cache` whose CMakeCache.txt names `source`; marked as the sweep's when `ours`.
fs::path tree(const fs::path& cache, const std::string& name, const fs::path& source, bool ours) {
  fs::path t = cache / name;
  fs::create_directories(t);
  std::ofstream(t / "CMakeCache.txt") << "# a build tree\nCMAKE_HOME_DIRECTORY:INTERNAL=" << source.string() << "\n";
  std::ofstream(t / "notes.txt") << "a user's file\n";
  if (ours) std::ofstream(t / kTreeMarker) << "a build tree of vta-sweep's\n";
  return t;
}

TEST(SweepCache, OnlyTheSweepsOwnTreesOfGoneClonesAreRemoved) {
  const fs::path cache = test::scratch_path("sweep-cache");
  fs::remove_all(cache);
  const fs::path gone = cache.string() + "-gone-source", here = test::scratch_path("sweep-cache-source");
  fs::create_directories(here);
  const fs::path users = tree(cache, "my-build", gone, false);  // a user's tree, its source gone
  const fs::path orphan = tree(cache, "abc-123", gone, true);   // the sweep's, its clone gone
  const fs::path live = tree(cache, "def-456", here, true);     // the sweep's, its clone here
  remove_orphaned_trees(cache);
  EXPECT_TRUE(fs::exists(users / "notes.txt")) << "a user's build tree was removed";
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_TRUE(fs::exists(live / "CMakeCache.txt"));
  fs::remove_all(cache);
  fs::remove_all(here);
}

TEST(SweepCache, ACachePathThatCannotBeAFolderIsRefusedByName) {
  auto refusal = [](const fs::path& p) {
    try {
      check_cache(p);
    } catch (const SweepError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("/dev/null"), "the build cache /dev/null cannot be made: Not a directory");
  EXPECT_EQ(refusal("/proc/vta-cache").rfind("the build cache /proc/vta-cache cannot be made: ", 0), 0u);
  const fs::path file = test::scratch_path("sweep-cache-file");
  std::ofstream(file) << "x";
  EXPECT_NE(refusal(file).find("cannot be made"), std::string::npos);
  fs::remove(file);
  const fs::path ok = test::scratch_path("sweep-cache-new") / "a" / "b";
  EXPECT_EQ(refusal(ok), "accepted");
  EXPECT_TRUE(fs::is_directory(ok));
  fs::remove_all(ok.parent_path().parent_path());
}

}  // namespace
}  // namespace vta::sweep
