// Tuned tilings on file (vta/network/tuning.h).

#include "vta/network/tuning.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "join.h"
#include "vta/driver/file.h"
#include "vta/network/graph.h"

namespace vta::network {
namespace {

using json = nlohmann::json;
constexpr const char* kFormat = "vta-tilings-1";
constexpr const char* kFields[] = {"oc_block", "h_block", "w_block", "ic_block", "virtual_threads"};

int64_t* field(ConvTiling& t, const std::string& name) {
  if (name == "oc_block") return &t.oc_block;
  if (name == "h_block") return &t.h_block;
  if (name == "w_block") return &t.w_block;
  if (name == "ic_block") return &t.ic_block;
  return &t.virtual_threads;
}

}  // namespace

void save_tilings(const std::filesystem::path& path, const TilingTable& tilings, const Config& config) {
  json steps = json::object();
  for (const auto& [name, t] : tilings) {
    ConvTiling copy = t;
    json entry = json::object();
    for (const char* f : kFields) entry[f] = *field(copy, f);
    steps[name] = entry;
  }
  const json j = {{"format", kFormat}, {"config", json::parse(config.to_json_text())}, {"steps", steps}};
  std::ofstream out(path, std::ios::trunc);
  out << j.dump(2) << "\n";
  if (!out) throw GraphError("cannot write the tilings to " + path.string());
}

TilingTable load_tilings(const std::filesystem::path& path, const Config& config) {
  const std::string where = path.string();
  json j;
  try {
    j = json::parse(read_file_as<GraphError>(path, 1 << 24));
  } catch (const json::exception& e) {
    throw GraphError(where + ": not JSON (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("format") || j.at("format") != json(kFormat)) {
    throw GraphError(where + ": not a tilings file (\"format\": \"" + kFormat + "\")");
  }
  for (const auto& item : j.items()) {
    if (item.key() != "format" && item.key() != "config" && item.key() != "steps") {
      throw GraphError(where + ": unknown key \"" + item.key() + "\" (format, config, steps)");
    }
  }
  if (!j.contains("config") || !j.at("config").is_object()) throw GraphError(where + ": no \"config\" object");
  std::string tuned_for;
  try {  // (compared as configurations: the same one whichever defaults its text leaves out)
    tuned_for = Config::from_json_text(j.at("config").dump(), where + ": \"config\"").to_json_text();
  } catch (const std::exception& e) {
    throw GraphError(e.what());
  }
  if (tuned_for != config.to_json_text()) throw GraphError(where + ": tuned for another configuration than this one");
  if (!j.contains("steps") || !j.at("steps").is_object()) throw GraphError(where + ": no \"steps\" object");
  TilingTable out;
  for (const auto& [name, entry] : j.at("steps").items()) {
    if (!entry.is_object()) throw GraphError(join({where, ": steps.", name, " is not an object"}));
    ConvTiling t;
    for (const char* f : kFields) {
      if (!entry.contains(f) || !entry.at(f).is_number_integer() || entry.at(f).get<int64_t>() < 1 ||
          entry.at(f).get<int64_t>() > (int64_t{1} << 20)) {
        throw GraphError(join({where, ": steps.", name, ".", f, " must be a block count from 1 to 2^20"}));
      }
      *field(t, f) = entry.at(f).get<int64_t>();
    }
    if (entry.size() != std::size(kFields)) throw GraphError(join({where, ": steps.", name, " has unknown keys"}));
    out.emplace(name, t);
  }
  return out;
}

}  // namespace vta::network
