#include "vta/network/npy.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "vta/driver/file.h"

namespace vta::network {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMaxHeader = 64 * 1024;

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& why) {
  throw NpyError(path.string() + ": not a usable .npy file: " + why);
}

// The value of 'key' in the header's Python dict literal, as written (up to the next ',' or '}' at
// depth 0; a tuple keeps its parentheses).
std::string dict_value(const std::string& header, const std::string& key, const std::filesystem::path& path) {
  const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
  size_t at = std::string::npos;
  for (const auto& q : quoted) at = std::min(at, header.find(q));
  if (at == std::string::npos) refuse(path, "the header has no '" + key + "'");
  at = header.find(':', at);
  if (at == std::string::npos) refuse(path, "the header's '" + key + "' has no value");
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  int depth = 0;
  size_t end = at;
  for (; end < header.size(); ++end) {
    const char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  std::string v = header.substr(at, end - at);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

void write(const std::filesystem::path& path, const std::vector<int64_t>& shape, const char* descr, const char* data,
           size_t bytes) {
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) dict << (i ? ", " : "") << shape[i];
  dict << (shape.size() == 1 ? ",), }" : "), }");
  std::string header = dict.str();
  // version 1.0: magic, 2 version bytes, 2 length bytes; the header ends in '\n' and pads to 64 bytes
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw NpyError("cannot create " + path.string());
  const uint16_t len = uint16_t(header.size());
  const char prefix[10] = {kMagic[0], kMagic[1], kMagic[2], kMagic[3],        kMagic[4],
                           kMagic[5], 1,         0,         char(len & 0xff), char(len >> 8)};
  out.write(prefix, 10);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(data, std::streamsize(bytes));
  out.close();
  if (!out) throw NpyError("cannot write " + path.string());
}

// The header dictionary after the magic and the header length (versions 1 to 3).
std::string read_header(std::ifstream& in, const std::filesystem::path& path) {
  char prefix[8];
  if (!in.read(prefix, 8) || std::memcmp(prefix, kMagic, 6) != 0) refuse(path, "no NUMPY magic");
  const int major = prefix[6];
  uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) refuse(path, "truncated header length");
    header_len = b[0] | (uint32_t(b[1]) << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) refuse(path, "truncated header length");
    header_len = b[0] | (uint32_t(b[1]) << 8) | (uint32_t(b[2]) << 16) | (uint32_t(b[3]) << 24);
  } else {
    refuse(path, "format version " + std::to_string(major) + " (1 to 3 are known)");
  }
  if (header_len == 0 || header_len > kMaxHeader) refuse(path, "header of " + std::to_string(header_len) + " bytes");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) refuse(path, "truncated header");
  return header;
}

// The shape tuple "(d0, d1, ...)" into a.shape; the number of elements, bounded before each product.
int64_t parse_shape(const std::string& shape, const std::filesystem::path& path, NpyArray& a) {
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') refuse(path, "shape " + shape);
  int64_t elements = 1;
  std::string digits;
  auto take = [&] {
    if (digits.empty()) return;
    if (digits.size() > 12) refuse(path, "dimension " + digits + " is too large");
    const int64_t d = std::stoll(digits);
    a.shape.push_back(d);
    // checked before multiplying: 2^28 elements times a 12-digit dimension overflows (found by fuzz_npy)
    if (d != 0 && elements > kMaxNpyElements / d) {
      refuse(path, "more than " + std::to_string(kMaxNpyElements) + " elements");
    }
    elements *= d;
    digits.clear();
  };
  for (size_t i = 1; i + 1 < shape.size(); ++i) {
    const char c = shape[i];
    if (c >= '0' && c <= '9') {
      digits.push_back(c);
    } else if (c == ',' || c == ' ' || c == 'L') {
      take();
    } else {
      refuse(path, "shape " + shape);
    }
  }
  take();
  return elements;
}

// The data after the header: exactly `elements` values of `width` bytes each, checked against the
// file's size before anything is allocated.
std::vector<unsigned char> read_raw(std::ifstream& in, const std::filesystem::path& path, const std::string& shape,
                                    int64_t elements, int width) {
  const auto data_at = in.tellg();
  in.seekg(0, std::ios::end);
  const int64_t available = int64_t(in.tellg() - data_at);
  const int64_t bytes = elements * width;
  if (available != bytes) {
    refuse(path, "shape " + shape + " needs " + std::to_string(bytes) + " bytes of data, the file has " +
                     std::to_string(available));
  }
  in.seekg(data_at);
  std::vector<unsigned char> raw(static_cast<size_t>(bytes));
  in.read(reinterpret_cast<char*>(raw.data()), bytes);
  if (!in) refuse(path, "read error");
  return raw;
}

// Little-endian unsigned value of `width` bytes at p.
uint64_t little_endian(const unsigned char* p, int width) {
  uint64_t v = 0;
  for (int b = width - 1; b >= 0; --b) v = (v << 8) | p[b];
  return v;
}

void read_values(std::ifstream& in, const std::filesystem::path& path, const std::string& shape, int64_t elements,
                 NpyArray& a) {
  const int width = a.int32 ? 4 : 1;
  const std::vector<unsigned char> raw = read_raw(in, path, shape, elements, width);
  a.values.resize(size_t(elements));
  for (size_t i = 0; i < a.values.size(); ++i) {
    a.values[i] = a.int32 ? int32_t(uint32_t(little_endian(&raw[4 * i], 4))) : int32_t(int8_t(raw[i]));
  }
}

std::ifstream open_npy(const std::filesystem::path& path) {
  try {
    require_regular_file(path);
  } catch (const FileError& e) {
    throw NpyError(e.what());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NpyError("cannot open " + path.string());
  return in;
}

}  // namespace

NpyArray read_npy(const std::filesystem::path& path) {
  std::ifstream in = open_npy(path);
  const std::string header = read_header(in, path);
  NpyArray a;
  const std::string descr = dict_value(header, "descr", path);
  if (descr == "'|i1'" || descr == "'i1'" || descr == "'<i1'") {
    a.int32 = false;
  } else if (descr == "'<i4'") {
    a.int32 = true;
  } else {
    refuse(path, "element type " + descr + " (int8 '|i1' or little-endian int32 '<i4' are read)");
  }
  if (dict_value(header, "fortran_order", path) != "False") refuse(path, "Fortran order (C order is read)");
  const std::string shape = dict_value(header, "shape", path);
  const int64_t elements = parse_shape(shape, path, a);
  read_values(in, path, shape, elements, a);
  return a;
}

NpyFloatArray read_npy_floats(const std::filesystem::path& path) {
  std::ifstream in = open_npy(path);
  const std::string header = read_header(in, path);
  std::string descr = dict_value(header, "descr", path);
  if (descr.size() < 4 || (descr.front() != '\'' && descr.front() != '"')) refuse(path, "element type " + descr);
  descr = descr.substr(1, descr.size() - 2);
  const char kind = descr.size() == 3 ? descr[1] : '?';
  const int width = descr.size() == 3 ? descr[2] - '0' : 0;
  const bool little = descr[0] == '<' || descr[0] == '|' || (descr[0] == '=' && width == 1);
  const bool known =
      little && ((kind == 'f' && (width == 4 || width == 8)) ||
                 (kind == 'i' && (width == 1 || width == 4 || width == 8)) || (kind == 'u' && width == 1));
  if (!known) {
    refuse(path, "element type '" + descr + "' (float32/64, int8, uint8, int32/64 little-endian are read)");
  }
  if (dict_value(header, "fortran_order", path) != "False") refuse(path, "Fortran order (C order is read)");
  const std::string shape = dict_value(header, "shape", path);
  NpyArray dims;
  const int64_t elements = parse_shape(shape, path, dims);
  const std::vector<unsigned char> raw = read_raw(in, path, shape, elements, width);
  NpyFloatArray a{dims.shape, std::vector<float>(size_t(elements))};
  for (size_t i = 0; i < a.values.size(); ++i) {
    const uint64_t v = little_endian(&raw[i * size_t(width)], width);
    if (kind == 'f' && width == 4) {
      float f;
      const auto u = uint32_t(v);
      std::memcpy(&f, &u, 4);
      a.values[i] = f;
    } else if (kind == 'f') {
      double d;
      std::memcpy(&d, &v, 8);
      a.values[i] = float(d);
    } else if (kind == 'u') {
      a.values[i] = float(v);
    } else {
      const int64_t signed_v = width == 8   ? int64_t(v)
                               : width == 4 ? int64_t(int32_t(uint32_t(v)))
                                            : int64_t(int8_t(v));
      a.values[i] = float(signed_v);
    }
  }
  return a;
}

namespace {
void check_shape(const std::filesystem::path& path, const std::vector<int64_t>& shape, size_t values) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  if (n != int64_t(values)) {
    throw NpyError(path.string() + ": the shape holds " + std::to_string(n) + " elements, " + std::to_string(values) +
                   " values given");
  }
}
}  // namespace

void write_npy(const std::filesystem::path& path, const std::vector<int64_t>& shape,
               const std::vector<int8_t>& values) {
  check_shape(path, shape, values.size());
  write(path, shape, "|i1", reinterpret_cast<const char*>(values.data()), values.size());
}

void write_npy(const std::filesystem::path& path, const std::vector<int64_t>& shape,
               const std::vector<int32_t>& values) {
  check_shape(path, shape, values.size());
  std::vector<unsigned char> raw(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const auto v = uint32_t(values[i]);
    raw[4 * i] = uint8_t(v), raw[4 * i + 1] = uint8_t(v >> 8), raw[4 * i + 2] = uint8_t(v >> 16),
            raw[4 * i + 3] = uint8_t(v >> 24);
  }
  write(path, shape, "<i4", reinterpret_cast<const char*>(raw.data()), raw.size());
}

void write_npy(const std::filesystem::path& path, const std::vector<int64_t>& shape, const std::vector<float>& values) {
  check_shape(path, shape, values.size());
  std::vector<unsigned char> raw(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t v = 0;
    std::memcpy(&v, &values[i], 4);
    raw[4 * i] = uint8_t(v), raw[4 * i + 1] = uint8_t(v >> 8), raw[4 * i + 2] = uint8_t(v >> 16),
            raw[4 * i + 3] = uint8_t(v >> 24);
  }
  write(path, shape, "<f4", reinterpret_cast<const char*>(raw.data()), raw.size());
}

}  // namespace vta::network
