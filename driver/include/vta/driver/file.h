#pragma once
/// \file vta/driver/file.h
/// Reading a user's file whole: the one place every reader (configurations, captures, modules, .npy,
/// manifests, token files, raw streams) opens what it is given. Only a regular file is read (a FIFO, a
/// device or a directory named by mistake is refused at once instead of blocking or reading forever),
/// and at most `max_bytes` of it.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

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

}  // namespace vta
