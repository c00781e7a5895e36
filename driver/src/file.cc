#include "vta/driver/file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
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

// The partial files an interrupt handler removes: a fixed table of names a handler can read without
// locks (a file registered when every slot is taken is still removed by its destructor, only not by
// the handler).
std::array<std::atomic<const char*>, 256> g_partial_files{};
std::atomic<uint64_t> g_partial_count{0};

}  // namespace

PartialFile::PartialFile(std::filesystem::path final_path) : final_(std::move(final_path)) {
  std::string name(".");  // (appended piece by piece: GCC 12 warns wrongly about a chain of + here)
  name.append(final_.filename().string())
      .append(".partial-")
      .append(std::to_string(::getpid()))
      .append("-")
      .append(std::to_string(g_partial_count.fetch_add(1)));
  partial_ = final_.parent_path() / name;
  const std::string text = partial_.string();
  registered_ = std::make_unique<char[]>(text.size() + 1);
  std::memcpy(registered_.get(), text.c_str(), text.size() + 1);
  for (auto& slot : g_partial_files) {
    const char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, registered_.get())) break;
  }
}

PartialFile::~PartialFile() {
  for (auto& slot : g_partial_files) {
    const char* expected = registered_.get();
    if (slot.compare_exchange_strong(expected, nullptr)) break;
  }
  if (!done_) ::unlink(partial_.c_str());
}

void PartialFile::commit() {
  if (done_) return;
  done_ = true;
  if (::rename(partial_.c_str(), final_.c_str()) != 0) {
    const int err = errno;
    ::unlink(partial_.c_str());
    throw FileError("cannot write " + final_.string() + ": " + std::strerror(err));
  }
}

void write_file(const std::filesystem::path& path, std::string_view content) {
  PartialFile file(path);
  {
    std::ofstream out(file.partial_path(), std::ios::binary | std::ios::trunc);
    if (!out) throw FileError("cannot create " + file.partial_path().string() + ": " + std::strerror(errno));
    out.write(content.data(), std::streamsize(content.size()));
    out.close();
    if (!out) throw FileError("cannot write " + file.partial_path().string() + ": " + std::strerror(errno));
  }
  file.commit();
}

void remove_partial_files() noexcept {
  for (auto& slot : g_partial_files) {
    if (const char* name = slot.load(); name != nullptr) ::unlink(name);
  }
}

void require_regular_file(const std::filesystem::path& path) { (void)stat_regular(path); }

std::string read_file(const std::filesystem::path& path, uint64_t max_bytes) {
  const struct stat st = stat_regular(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError("cannot open " + path.string() + ": " + std::strerror(errno));
  // read to the end in pieces, never past max_bytes + a piece: the size stat reports is only a hint (a
  // sysfs attribute reports 4096 bytes and holds a line; a file may grow or shrink while it is read)
  std::string text;
  text.reserve(size_t(std::min<uint64_t>(uint64_t(std::max<off_t>(st.st_size, 0)), max_bytes)));
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

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

}  // namespace vta
