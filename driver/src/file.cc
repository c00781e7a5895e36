#include "vta/driver/file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace vta {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

struct stat stat_regular(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw FileError("cannot open " + path.string() + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw FileError(path.string() + ": " + kind_of(st.st_mode) + ", not a regular file");
  return st;
}

}  // namespace

void require_regular_file(const std::filesystem::path& path) { (void)stat_regular(path); }

std::string read_file(const std::filesystem::path& path, uint64_t max_bytes) {
  const struct stat st = stat_regular(path);
  if (uint64_t(st.st_size) > max_bytes) {
    throw FileError(path.string() + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                    std::to_string(max_bytes) + " this reader accepts");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError("cannot open " + path.string() + ": " + std::strerror(errno));
  // read in pieces up to max_bytes + 1: a file that grew since stat is noticed, never read without bound
  std::string text;
  text.reserve(size_t(st.st_size));
  char piece[65536];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    text.append(piece, size_t(in.gcount()));
    if (text.size() > max_bytes) {
      throw FileError(path.string() + ": more than the " + std::to_string(max_bytes) + " bytes this reader accepts");
    }
  }
  if (in.bad()) throw FileError(path.string() + ": cannot be read");
  return text;
}

}  // namespace vta
