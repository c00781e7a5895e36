// A spec expanded into tasks (docs/SWEEP.md): its configurations (files, or a base with keys varied),
// workloads and backends checked by name, the sweep directory started clean, tasks.json written; and
// tasks.json read back.

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "internal.h"
#include "vta/driver/build_config.h"
#include "vta/driver/config.h"
#include "vta/driver/file.h"
#include "vta/network/resnet18.h"

namespace vta::sweep {
namespace {

// The configuration's canonical text (every key, as vta::Config writes it) and its hash (FNV-1a 64).
std::string canonical(const std::string& text, const std::string& origin) {
  try {
    return Config::from_json_text(text, origin).to_json_text();
  } catch (const std::exception& e) {
    throw SweepError(e.what());  // (the message names `origin`)
  }
}

struct NamedConfig {
  std::string name, text;
};

// The configurations an entry of "configs" names: a file, or a base (a file, default this build's)
// with keys varied over lists (their cartesian product).
std::vector<NamedConfig> configs_of(const json& entry, const fs::path& base_dir, const std::string& where) {
  if (!entry.is_object()) throw SweepError(where + " is not an object");
  for (const auto& [k, v] : entry.items()) {
    if (k != "file" && k != "base" && k != "vary" && k != "name")
      throw SweepError(std::string(where).append(": unknown key \"").append(k).append("\""));
  }
  auto load = [&](const char* key) -> NamedConfig {
    if (!entry.contains(key)) return {"this build", build_config().to_json_text()};
    const fs::path p = base_dir / field<std::string>(entry, key, "", where);
    return {p.stem().string(), read_file_as<SweepError>(p, 1 << 20, where + ": ")};
  };
  const std::string name = field<std::string>(entry, "name", "", where);
  if (entry.contains("file")) {
    if (entry.contains("base") || entry.contains("vary"))
      throw SweepError(where + ": \"file\" or \"base\" with \"vary\"");
    NamedConfig c = load("file");
    if (entry.contains("name")) c.name = name;
    return {{c.name, canonical(c.text, where)}};
  }
  const NamedConfig base = load("base");
  std::vector<NamedConfig> out{{entry.contains("name") ? name : base.name, base.text}};
  if (!entry.contains("vary")) return {{out[0].name, canonical(out[0].text, where)}};
  if (!entry.at("vary").is_object()) throw SweepError(where + ": \"vary\" is not an object of lists");
  for (const auto& [key, values] : entry.at("vary").items()) {
    if (!values.is_array() || values.empty()) {
      throw SweepError(std::string(where).append(": vary.").append(key).append(" is not a non-empty list"));
    }
    std::vector<NamedConfig> next;
    for (const NamedConfig& c : out) {
      for (const auto& v : values) {
        json j = json::parse(c.text);
        j[key] = v;
        next.push_back({c.name + " " + key + "=" + v.dump(), j.dump()});
        if (next.size() > size_t(kMaxTasks)) throw SweepError(where + ": more than 100,000 configurations");
      }
    }
    out = std::move(next);
  }
  for (NamedConfig& c : out) c.text = canonical(c.text, where + " (" + c.name + ")");
  return out;
}

// A workload entry checked and completed (paths made absolute); its label.
std::pair<json, std::string> workload_of(json w, const fs::path& base_dir, const std::string& where) {
  if (!w.is_object() || !w.contains("kind")) throw SweepError(where + " has no \"kind\"");
  const std::string kind = field<std::string>(w, "kind", "", where);
  // every key's type, whatever the kind (the kinds' own keys are checked below)
  for (const char* key : {"name", "model", "calibration", "dir", "inputs", "labels"}) {
    (void)field<std::string>(w, key, "", where);
  }
  for (const char* key : {"image", "width", "candidates", "count", "images", "calibrate", "weight_bits",
                          "activation_bits", "eight_bit_layers"}) {
    (void)field<int64_t>(w, key, 0, where);
  }
  (void)field<uint32_t>(w, "seed", 0, where);
  (void)field<uint64_t>(w, "first", 0, where);
  auto only = [&](std::initializer_list<const char*> keys) {
    for (const auto& item : w.items()) {
      const std::string& k = item.key();
      if (k != "kind" && std::none_of(keys.begin(), keys.end(), [&](const char* a) { return k == a; })) {
        throw SweepError(std::string(where)
                             .append(": unknown key \"")
                             .append(k)
                             .append("\" for a ")
                             .append(kind)
                             .append(" workload"));
      }
    }
  };
  if (kind == "tutorial") {
    only({"name", "seed"});
    const std::string name = w.value("name", "");
    if (name != "matmul" && name != "conv") throw SweepError(where + ": tutorial \"" + name + "\" (matmul or conv)");
    return {w, "tutorial " + name};
  }
  if (kind == "resnet18" || kind == "tune") {
    if (kind == "tune") {
      only({"image", "width", "seed", "candidates"});
      const int64_t n = w.value("candidates", 64);
      if (n < 1 || n > 256) throw SweepError(where + ": candidates " + std::to_string(n) + " (1 to 256)");
    } else {
      only({"image", "width", "seed"});
    }
    const int64_t image = w.value("image", 64), width = w.value("width", 16);
    if (image < network::kMinResNetImage || image > network::kMaxResNetImage || image % 32 != 0) {
      throw SweepError(where + ": image " + std::to_string(image) + " (a multiple of 32, " +
                       std::to_string(network::kMinResNetImage) + " to " + std::to_string(network::kMaxResNetImage) +
                       ")");
    }
    if (width < 1 || width > network::kMaxResNetWidth) {
      throw SweepError(where + ": width " + std::to_string(width) + " (1 to " +
                       std::to_string(network::kMaxResNetWidth) + ")");
    }
    return {w, (kind == "tune" ? "tune resnet18 " : "resnet18 ") + std::to_string(image)};
  }
  if (kind == "onnx") {
    only({"model", "calibration", "calibrate", "seed", "inputs", "labels", "images", "weight_bits", "activation_bits",
          "eight_bit_layers"});
    // a file named relative to the spec, made absolute (the tasks run elsewhere); refused when missing
    const auto file = [&](const char* key) {
      const fs::path p = base_dir / w.value(key, "");
      if (!fs::is_regular_file(p)) throw SweepError(where + ": " + key + ": no file " + p.string());
      w[key] = fs::absolute(p).lexically_normal().string();
    };
    file("model");
    if (onnx_calibration(w, where).rfind("random:", 0) != 0) file("calibration");
    if (w.contains("inputs") != w.contains("labels")) {
      throw SweepError(where + ": \"inputs\" and \"labels\" go together (the top-1 accuracy over the inputs)");
    }
    if (w.contains("inputs")) file("inputs"), file("labels");
    if (w.contains("images") && !w.contains("inputs")) throw SweepError(where + ": \"images\" counts \"inputs\"");
    for (const char* key : {"images", "calibrate"}) {
      if (const int64_t n = w.value(key, int64_t{100}); n < 1 || n > 100000) {
        throw SweepError(where + ": " + key + " " + std::to_string(n) + " (1 to 100000)");
      }
    }
    for (const char* key : {"weight_bits", "activation_bits"}) {
      if (const int64_t bits = w.value(key, int64_t{0}); w.contains(key) && bits != 4 && bits != 8) {
        throw SweepError(where + ": " + key + " " + std::to_string(bits) + " (4 or 8; left out: the configuration's)");
      }
    }
    const int64_t wide = w.value("eight_bit_layers", int64_t{0});
    if (wide < 0 || wide > 10000) {
      throw SweepError(where + ": eight_bit_layers " + std::to_string(wide) + " (0 to 10000 convolutions)");
    }
    const fs::path model = w.at("model").get<std::string>();
    return {w, "onnx " + model.stem().string() +
                   (wide > 0 ? " (" + std::to_string(wide) + (wide == 1 ? " layer" : " layers") + " at 8-bit weights)"
                             : std::string())};
  }
  if (kind == "random") {  // random differential programs: seeds [first, first + count)
    only({"first", "count"});
    const int64_t count = w.value("count", int64_t{100});
    if (!w.contains("first") || !w.at("first").is_number_unsigned()) throw SweepError(where + ": \"first\" (a seed)");
    if (count < 1 || count > 10000000) throw SweepError(where + ": count " + std::to_string(count) + " (1 to 10^7)");
    return {w, "random " + std::to_string(w.at("first").get<uint64_t>()) + "+" + std::to_string(count)};
  }
  if (kind == "suite") {  // a regression suite: a folder of built modules and captured runs
    only({"dir", "seed"});
    const fs::path folder = base_dir / w.value("dir", "");
    if (!fs::is_directory(folder)) throw SweepError(where + ": no folder " + folder.string());
    w["dir"] = fs::absolute(folder).lexically_normal().string();
    if (suite_files(folder).empty()) {
      throw SweepError(where + ": " + folder.string() + " holds no module (.vtam) nor capture (.vtacap)");
    }
    return {w, "suite " + folder.filename().string()};
  }
  throw SweepError(where + ": workload kind \"" + kind + "\" (tutorial, resnet18, tune, onnx, suite, random)");
}

// What a sweep directory holds, all of it written by vta-sweep.
const char* const kSweepEntries[] = {"configs",     "results",      "logs",        "coverage",   "tilings",
                                     "tasks.json",  "results.json", "results.csv", "results.md", "junit.xml",
                                     "pareto.json", "pareto.svg",   "pareto.png",  "charts.log", "slurm_task.sh"};

// A sweep directory holds one run: an existing one is emptied of the last run's tasks and results
// before a new run writes its own (nothing of another spec is merged, or taken as this run's). A
// folder holding anything vta-sweep did not write is refused, untouched.
void start_clean(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec)) throw SweepError(dir.string() + " is not a folder");
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (std::none_of(std::begin(kSweepEntries), std::end(kSweepEntries), [&](const char* k) { return name == k; })) {
      throw SweepError(dir.string() + " holds " + name +
                       ", which is not part of a sweep directory: give --out a new or empty folder, or an earlier "
                       "sweep's");
    }
  }
  for (const char* k : kSweepEntries) fs::remove_all(dir / k);
}

// A run's identity: written into tasks.json and every result, so a merge takes only this run's.
std::string new_run_id() {
  std::random_device rd;
  return hash_of(std::to_string(rd()) + "/" + std::to_string(rd()) + "/" + std::to_string(::getpid()) + "/" +
                 std::to_string(std::chrono::system_clock::now().time_since_epoch().count()));
}

}  // namespace

std::vector<Task> expand(const fs::path& spec_path, const fs::path& dir) {
  const json spec = read_json(spec_path, "the spec");
  const std::string where = spec_path.string();
  if (!spec.is_object()) throw SweepError(where + ": the spec is not a JSON object");
  for (const auto& [k, v] : spec.items()) {
    if (k != "name" && k != "configs" && k != "workloads" && k != "backends" && k != "synthesis" && k != "coverage") {
      throw SweepError(std::string(where)
                           .append(": unknown key \"")
                           .append(k)
                           .append("\" (name, configs, workloads, backends, synthesis, coverage)"));
    }
  }
  for (const char* flag : {"synthesis", "coverage"}) {
    if (spec.contains(flag) && !spec.at(flag).is_boolean()) {
      throw SweepError(where + ": \"" + flag + "\" must be true or false");
    }
  }
  const bool synthesis = spec.value("synthesis", false);
  const bool coverage = spec.value("coverage", false);
  const fs::path base = spec_path.parent_path();
  std::vector<NamedConfig> configs;
  const std::string name = field<std::string>(spec, "name", spec_path.stem().string(), where);
  if (spec.contains("configs") && (!spec.at("configs").is_array() || spec.at("configs").empty())) {
    throw SweepError(where + ": \"configs\" must be a non-empty list");
  }
  const json config_entries = spec.value("configs", json::array({json::object()}));
  for (size_t i = 0; i < config_entries.size(); ++i) {
    for (auto& c : configs_of(config_entries[i], base, where + ": configs[" + std::to_string(i) + "]")) {
      configs.push_back(std::move(c));
    }
  }
  std::vector<std::pair<json, std::string>> workloads;
  if (!spec.contains("workloads") || !spec.at("workloads").is_array() || spec.at("workloads").empty()) {
    throw SweepError(where + ": \"workloads\" must be a non-empty list");
  }
  for (size_t i = 0; i < spec.at("workloads").size(); ++i) {
    workloads.push_back(workload_of(spec.at("workloads")[i], base, where + ": workloads[" + std::to_string(i) + "]"));
  }
  std::vector<std::string> backends{"fsim"};
  if (spec.contains("backends")) {
    const json& list = spec.at("backends");
    if (!list.is_array() || list.empty() ||
        !std::all_of(list.begin(), list.end(), [](const json& b) { return b.is_string(); })) {
      throw SweepError(where + ": \"backends\" must be a non-empty list of names (fsim, tsim, systemc), not " +
                       list.dump());
    }
    backends = list.get<std::vector<std::string>>();
  }
  for (const auto& b : backends) {
    if (b != "fsim" && b != "tsim" && b != "systemc") {
      throw SweepError(std::string(where).append(": backend \"").append(b).append("\" (fsim, tsim, systemc)"));
    }
  }
  if (configs.size() * (workloads.size() * backends.size() + (synthesis ? 1 : 0)) > size_t(kMaxTasks)) {
    throw SweepError(where + ": more than 100,000 tasks");
  }
  start_clean(dir);
  const std::string run = new_run_id();
  fs::create_directories(dir / "configs");
  fs::create_directories(dir / "results");
  std::vector<Task> tasks;
  json list = json::array();
  for (const NamedConfig& c : configs) {
    const std::string hash = hash_of(c.text);
    std::ofstream(dir / "configs" / (hash + ".json"), std::ios::trunc) << c.text << "\n";
    for (const auto& [w, label] : workloads) {
      for (const auto& b : backends) {
        Task t{int(tasks.size()), c.name, hash, w.dump(), label, b, coverage && b != "fsim", run};
        list.push_back(task_json(t));
        tasks.push_back(std::move(t));
      }
    }
    if (synthesis) {  // one Yosys run per configuration (its resources; the Pareto chart's LUT axis)
      Task t{int(tasks.size()), c.name, hash, json{{"kind", "synthesis"}}.dump(), "synthesis", "yosys", false, run};
      list.push_back(task_json(t));
      tasks.push_back(std::move(t));
    }
  }
  write_json(dir / "tasks.json", {{"name", name}, {"run", run}, {"tasks", list}});
  return tasks;
}

std::vector<Task> read_tasks(const fs::path& dir) {
  const fs::path path = dir / "tasks.json";
  const json j = read_json(path, "the sweep's task list");
  std::vector<Task> tasks;
  if (!j.is_object() || !j.contains("tasks") || !j.at("tasks").is_array() || j.at("tasks").size() > size_t(kMaxTasks)) {
    throw SweepError(path.string() + ": \"tasks\" must be a list of at most 100,000 tasks");
  }
  (void)field<std::string>(j, "run", "", path.string());
  for (size_t i = 0; i < j.at("tasks").size(); ++i) {
    const json& t = j.at("tasks")[i];
    const std::string where = path.string() + ": tasks[" + std::to_string(i) + "]";
    Task task{field<int>(t, "index", -1, where),
              field<std::string>(t, "config", "", where),
              field<std::string>(t, "config_hash", "", where),
              "",
              field<std::string>(t, "label", "", where),
              field<std::string>(t, "backend", "", where),
              field<bool>(t, "coverage", false, where),
              ""};
    if (task.index != int(i)) throw SweepError(where + ": \"index\" must be " + std::to_string(i));
    if (task.config_hash.size() != 16 || task.config_hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw SweepError(where + ": \"config_hash\" must be 16 hexadecimal digits (configs/<hash>.json)");
    }
    if (!t.contains("workload") || !t.at("workload").is_object() || !t.at("workload").contains("kind")) {
      throw SweepError(where + ": \"workload\" must be an object with a \"kind\"");
    }
    task.workload = t.at("workload").dump();
    task.run = field<std::string>(j, "run", "", path.string());
    tasks.push_back(std::move(task));
  }
  return tasks;
}

}  // namespace vta::sweep
