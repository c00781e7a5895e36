#pragma once
/// \file vta/driver/file.h
/// Reading a user's file whole: the one place every reader (configurations, captures, modules, .npy,
/// manifests, token files, raw streams) opens what it is given. Only a regular file is read (a FIFO, a
/// device or a directory named by mistake is refused at once instead of blocking or reading forever),
/// and at most `max_bytes` of it.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vta {

/// A file that cannot be read: the message names the path and the reason.
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The whole content of `path`. Throws FileError when it does not exist, is not a regular file, is
/// larger than `max_bytes`, or cannot be read.
std::string read_file(const std::filesystem::path& path, uint64_t max_bytes);

/// read_file for a reader with an error class of its own: a FileError becomes an `Error` with the same
/// message after `prefix`.
template <class Error>
std::string read_file_as(const std::filesystem::path& path, uint64_t max_bytes, const std::string& prefix = "") {
  try {
    return read_file(path, max_bytes);
  } catch (const FileError& e) {
    throw Error(prefix + e.what());
  }
}

/// Throws FileError unless `path` names a regular file (what read_file checks first), for readers
/// that stream a file themselves.
void require_regular_file(const std::filesystem::path& path);

/// A file every writer of a user's file goes through so that it is complete or absent, whatever
/// happens: written beside its final name (`.NAME.partial-PID-N` in the same folder) and renamed onto
/// it by commit(). Not committed (an exception, an early return), the partial file is removed; on
/// SIGINT or SIGTERM the programs' handler (vta/driver/guarded_main.h) removes every partial file of
/// the process before it exits (remove_partial_files).
class PartialFile {
 public:
  explicit PartialFile(std::filesystem::path final_path);
  ~PartialFile();
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  /// Where to write until commit().
  const std::filesystem::path& partial_path() const { return partial_; }
  const std::filesystem::path& path() const { return final_; }
  /// Renames the partial file onto the final name. Throws FileError (the partial file is removed).
  void commit();

 private:
  std::filesystem::path final_, partial_;
  std::unique_ptr<char[]> registered_;  ///< the partial name as the signal handler sees it
  bool done_ = false;
};

/// Writes `content` to `path` whole or not at all (through a PartialFile). Throws FileError.
void write_file(const std::filesystem::path& path, std::string_view content);

/// An open file descriptor, closed when the owner is destroyed (every error path included) or reset.
/// Move-only; -1 is no descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  /// Gives the descriptor up to the caller (who closes it), leaving -1.
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  /// Closes the descriptor held, if any, and holds `fd`.
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

/// Removes the partial file of every live PartialFile of the process. Async-signal-safe (unlink only):
/// what an interrupt handler calls before it ends the process.
void remove_partial_files() noexcept;

}  // namespace vta
