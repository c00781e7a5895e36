#pragma once
// A VCD file's signal names and time range (for the waveform tests of the tsim and the SystemC backend).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace vta::test {

struct Vcd {
  std::set<std::string> names;  // TOP.vta_top.u_vcr.ctrl_q[31:0]
  uint64_t first_time = UINT64_MAX, last_time = 0;
  std::string timescale;  // "1ps"
  /// Per watched signal, the values it takes (binary digits, as the VCD writes them), in order.
  std::map<std::string, std::vector<std::string>> values;
};

/// Reads a VCD; the values of the signals named in `watch` (full names as in `names`) are kept.
inline Vcd parse_vcd(const std::filesystem::path& path, const std::set<std::string>& watch = {}) {
  std::ifstream in(path);
  Vcd v;
  std::map<std::string, std::string> watched;  // VCD identifier -> name
  std::vector<std::string> scope;
  std::string line;
  bool in_timescale = false;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string tok;
    s >> tok;
    if (in_timescale || tok == "$timescale") {
      in_timescale = true;
      std::string rest = line.substr(line.find_first_not_of(" \t"));
      if (tok == "$timescale") rest = rest.substr(10);
      for (char c : rest) {
        if (c == '$') in_timescale = false;
        if (!in_timescale) break;
        if (c != ' ' && c != '\t') v.timescale += c;
      }
      continue;
    }
    if (tok == "$scope") {
      std::string kind, name;
      s >> kind >> name;
      scope.push_back(name);
    } else if (tok == "$upscope") {
      scope.pop_back();
    } else if (tok == "$var") {
      std::string type, width, id, name, range;
      s >> type >> width >> id >> name >> range;
      std::string full;
      for (const auto& p : scope) full += p + ".";
      full += name;
      if (!range.empty() && range[0] == '[') full += range;
      v.names.insert(full);
      if (watch.count(full)) watched[id] = full;
    } else if (!tok.empty() && tok[0] == '#') {
      const uint64_t t = std::stoull(tok.substr(1));
      v.first_time = std::min(v.first_time, t);
      v.last_time = std::max(v.last_time, t);
    } else if (!watched.empty() && !tok.empty() && (tok[0] == 'b' || tok[0] == '0' || tok[0] == '1')) {
      std::string value, id;
      if (tok[0] == 'b') {
        value = tok.substr(1);
        s >> id;
      } else {
        value = tok.substr(0, 1);
        id = tok.substr(1);
      }
      const auto w = watched.find(id);
      if (w != watched.end()) v.values[w->second].push_back(value);
    }
  }
  return v;
}

/// Expects every signal the GTKWave save file `gtkw` names to be in the dump; returns how many it names.
inline size_t expect_save_file_signals_in(const std::filesystem::path& gtkw, const Vcd& v) {
  std::ifstream in(gtkw);
  std::string line;
  size_t signals = 0;
  while (std::getline(in, line)) {
    if (line.rfind("TOP.", 0) != 0) continue;
    ++signals;
    EXPECT_TRUE(v.names.count(line)) << "save file names " << line << ", which the dump does not have";
  }
  return signals;
}

}  // namespace vta::test
