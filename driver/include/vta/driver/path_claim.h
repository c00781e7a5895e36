#pragma once
/// \file vta/driver/path_claim.h
/// A file name reserved for one writer of the process (a thread's call trace, a simulator's
/// waveform): while another live writer holds the wanted name, a claim gets the first free variant
/// (`trace.txt.1`, or `run.1.fst` when the extension must stay last), so concurrent writers never
/// truncate each other's files. The name is free again once the claim is released or destroyed.

#include <string>

namespace vta {

class PathClaim {
 public:
  /// Where the number of a variant goes.
  enum class Suffix { kAppend, kBeforeExtension };

  PathClaim() = default;
  PathClaim(const std::string& wanted, Suffix style);
  PathClaim(PathClaim&& other) noexcept;
  PathClaim& operator=(PathClaim&& other) noexcept;
  PathClaim(const PathClaim&) = delete;
  PathClaim& operator=(const PathClaim&) = delete;
  ~PathClaim() { release(); }

  /// The claimed name ("" when nothing is claimed).
  const std::string& path() const { return path_; }
  void release();

 private:
  std::string path_;
};

}  // namespace vta
