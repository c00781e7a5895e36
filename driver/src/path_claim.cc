#include "vta/driver/path_claim.h"

#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

namespace vta {
namespace {

std::mutex g_mu;
std::set<std::string> g_claimed;

std::string variant(const std::string& wanted, PathClaim::Suffix style, int n) {
  if (style == PathClaim::Suffix::kAppend) return wanted + "." + std::to_string(n);
  const std::filesystem::path p(wanted);
  return (p.parent_path() / (p.stem().string() + "." + std::to_string(n) + p.extension().string())).string();
}

}  // namespace

PathClaim::PathClaim(const std::string& wanted, Suffix style) {
  std::lock_guard lock(g_mu);
  std::string path = wanted;
  for (int n = 1; g_claimed.count(path) != 0; ++n) path = variant(wanted, style, n);
  g_claimed.insert(path);
  path_ = std::move(path);
}

PathClaim::PathClaim(PathClaim&& other) noexcept : path_(std::exchange(other.path_, {})) {}

PathClaim& PathClaim::operator=(PathClaim&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

void PathClaim::release() {
  if (path_.empty()) return;
  std::lock_guard lock(g_mu);
  g_claimed.erase(path_);
  path_.clear();
}

}  // namespace vta
