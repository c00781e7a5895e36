// Sweeps: the spec expanded into tasks, one task run, the executors (local workers, a Slurm job
// array) and the merged results (docs/SWEEP.md).

#include "vta/sweep/sweep.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <boost/process.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "compiled.h"
#include "vta/compiler/seeded_run.h"
#include "vta/driver/build_config.h"
#include "vta/driver/capture.h"
#include "vta/driver/config.h"
#include "vta/driver/file.h"
#include "vta/driver/json_field.h"
#include "vta/driver/random_program.h"
#include "vta/network/executor.h"
#include "vta/network/onnx.h"
#include "vta/network/resnet18.h"

namespace vta::sweep {
namespace {

namespace fs = std::filesystem;
namespace bp = boost::process;
using json = nlohmann::json;

constexpr int kMaxTasks = 100000;
constexpr bool kCoverageBuild = VTA_TSIM_COVERAGE_BUILD;  // this build's tsim counts coverage

json read_json(const fs::path& path, const std::string& what) {
  const std::string text = read_file_as<SweepError>(path, 64 << 20, what + ": ");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw SweepError(path.string() + ": " + what + " is not JSON: " + e.what());
  }
}

void write_json(const fs::path& path, const json& j) {
  try {
    write_file(path, j.dump(2) + "\n");  // whole or not at all: a reader never sees half a result
  } catch (const FileError& e) {
    throw SweepError(e.what());
  }
}

// The configuration's canonical text (every key, as vta::Config writes it) and its hash (FNV-1a 64).
std::string canonical(const std::string& text, const std::string& origin) {
  try {
    return Config::from_json_text(text, origin).to_json_text();
  } catch (const std::exception& e) {
    throw SweepError(e.what());  // (the message names `origin`)
  }
}
std::string hash_of(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}
const std::string& this_build_hash() {
  static const std::string h = hash_of(build_config().to_json_text());
  return h;
}

// A field of a spec entry with its type checked (vta/driver/json_field.h): a SweepError naming
// `where` and the key; `fallback` when the key is absent.
template <class T>
T field(const json& entry, const char* key, T fallback, const std::string& where) {
  if (!entry.is_object() || !entry.contains(key)) return fallback;
  try {
    return json_field<T>(entry, key);
  } catch (const std::invalid_argument& e) {
    throw SweepError(where + ": " + e.what());
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

// The kernels of a suite folder: built modules (.vtam) and captured runs (.vtacap), sorted.
std::vector<fs::path> suite_files(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.is_regular_file() && (e.path().extension() == ".vtam" || e.path().extension() == ".vtacap")) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A workload entry checked and completed (paths made absolute); its label.
std::pair<json, std::string> workload_of(json w, const fs::path& base_dir, const std::string& where) {
  if (!w.is_object() || !w.contains("kind")) throw SweepError(where + " has no \"kind\"");
  const std::string kind = field<std::string>(w, "kind", "", where);
  // every key's type, whatever the kind (the kinds' own keys are checked below)
  for (const char* key : {"name", "model", "calibration", "dir"}) (void)field<std::string>(w, key, "", where);
  for (const char* key : {"image", "width", "candidates", "count"}) (void)field<int64_t>(w, key, 0, where);
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
    only({"model", "calibration", "seed"});
    const std::string cal = w.value("calibration", "random:2");
    try {  // random:N only (an .npy file's path would need a home beside the spec)
      if (!network::parse_random_spec(cal, where + ": calibration"))
        throw SweepError(where + ": calibration \"" + cal + "\" (random:N)");
    } catch (const network::ImportError& e) {
      throw SweepError(e.what());
    }
    const fs::path model = base_dir / w.value("model", "");
    if (!fs::is_regular_file(model)) throw SweepError(where + ": no model file " + model.string());
    w["model"] = fs::absolute(model).lexically_normal().string();
    return {w, "onnx " + model.stem().string()};
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

json task_json(const Task& t) {
  json j = {
      {"index", t.index}, {"config", t.config},  {"config_hash", t.config_hash}, {"workload", json::parse(t.workload)},
      {"label", t.label}, {"backend", t.backend}};
  if (t.coverage) j["coverage"] = true;
  return j;
}

json stats_json(const Stats& s) { return json::parse(s.to_json()); }

fs::path self_path() { return fs::read_symlink("/proc/self/exe"); }

// Waits for `c` at most `limit` (Boost 1.74's child::wait_for can spin forever once the child has
// exited: polled instead); false, with the child terminated, when it ran out of time.
bool wait_bounded(bp::child& c, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (c.running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      c.terminate();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  c.wait();
  return true;
}

// This build's configuration synthesized by Yosys (the build's vta_synth target, docs/SYNTHESIS.md);
// the result's fields: its utilisation, verified when Yosys ran clean.
json synthesize() {
  const fs::path tree = self_path().parent_path().parent_path();  // <tree>/sweep/vta-sweep
  const fs::path log = tree / "synth" / "vta_synth.log";
  fs::create_directories(log.parent_path());
  bp::child run(bp::search_path("cmake"), "--build", tree.string(), "--target", "vta_synth", bp::std_out > log.string(),
                bp::std_err > log.string());
  if (!wait_bounded(run, std::chrono::hours(1))) throw SweepError("Yosys ran more than an hour (" + log.string() + ")");
  if (run.exit_code() != 0) throw SweepError("synthesis failed: see " + log.string());
  return {{"verified", true},
          {"error", ""},
          {"utilization", read_json(tree / "synth" / "utilization.json", "Yosys's figures")}};
}

// ResNet-18 as a resnet18 or tune workload builds it, calibrated.
network::Graph resnet18_of(const json& w, uint32_t seed, std::vector<int8_t>& input) {
  network::ResNet18Options o;
  o.image = w.value("image", int64_t{64}), o.width = w.value("width", int64_t{16}), o.seed = seed;
  o.batch = build_config().batch();
  network::Graph g = network::resnet18(o);
  input = network::generated_input(g, seed);
  network::calibrate_shifts(g, input);
  return g;
}

// Tunes ResNet-18's tilings for this configuration: every ranked candidate of each convolution built
// and estimated (compiler::estimate_cycles), the chosen tilings run on this backend and verified,
// each step's estimate against its measured cycles; the tilings written to <dir>/tilings/<index>.json
// (vta-resnet18 --tilings). The result's fields.
json tune(const json& w, const fs::path& dir, int index) {
  std::vector<int8_t> input;
  const network::Graph g = resnet18_of(w, w.value("seed", uint32_t{1}), input);
  network::PlanOptions wide;
  wide.candidates = w.value("candidates", size_t{64}), wide.tried = int(wide.candidates);
  const network::Executor plain(g, build_config());  // the default search, for its estimates
  network::Executor tuned(g, build_config(), nullptr, wide);
  const network::Values ref = network::run_reference(g, input);
  const network::NetworkRun run = tuned.run(input, {}, &ref);
  json steps = json::array();
  uint64_t default_estimate = 0, tuned_estimate = 0, measured = 0;
  for (size_t i = 0; i < run.steps.size(); ++i) {
    const network::Step& s = *run.steps[i].step;
    if (!s.module || !run.steps[i].stats.cycle_count) continue;
    const uint64_t cycles = *run.steps[i].stats.cycle_count;
    default_estimate += plain.steps()[i].estimated_cycles, tuned_estimate += s.estimated_cycles, measured += cycles;
    steps.push_back({{"step", s.name},
                     {"tiling", s.tiling.to_string()},
                     {"default_tiling", plain.steps()[i].tiling.to_string()},
                     {"default_estimate", plain.steps()[i].estimated_cycles},
                     {"estimate", s.estimated_cycles},
                     {"measured", cycles}});
  }
  fs::create_directories(dir / "tilings");
  const fs::path file = dir / "tilings" / (std::to_string(index) + ".json");
  network::save_tilings(file, tuned.tilings(), build_config());
  json tuning = {{"steps", steps},
                 {"tilings_file", fs::absolute(file).string()},
                 {"default_estimate", default_estimate},
                 {"estimate", tuned_estimate}};
  if (measured) {
    tuning["measured"] = measured;
    tuning["estimate_error_percent"] = 100.0 * (double(tuned_estimate) - double(measured)) / double(measured);
  }
  return {{"verified", run.verified()}, {"error", ""}, {"stats", stats_json(run.vta)}, {"tuning", tuning}};
}

// Runs a regression suite on this process's backend: each captured run replayed against its capture
// (outcome, statistics, memory; cycles when both have them), each built module run with inputs from
// the seed here and on the fsim (outputs and counters equal). The result's fields: every kernel's
// verdict, the statistics of this backend summed.
json run_suite(const json& w) {
  const std::string target = default_target();
  const auto seed = w.value("seed", uint32_t{1});
  json kernels = json::array();
  Stats total;
  std::string failed;  // the kernels that differ, by file name
  for (const fs::path& file : suite_files(w.at("dir").get<std::string>())) {
    json k = {{"file", file.filename().string()}};
    std::vector<std::string> problems;
    try {
      if (file.extension() == ".vtacap") {
        ReplayOptions ro;
        ro.target = target;
        const ReplayResult r = replay(Capture::load(file.string()), ro);
        problems = r.differences;
        total += r.result.stats;
      } else {
        const compiler::Module m = compiler::Module::load(file.string());
        const compiler::SeededRun here = compiler::run_seeded(m, make_device(target, build_config()), seed);
        const compiler::SeededRun fsim = compiler::run_seeded(m, make_device("fsim", build_config()), seed);
        total += here.result.stats;
        if (here.result.status != RunStatus::kOk) problems.push_back(target + " failed: " + here.result.error);
        if (fsim.result.status != RunStatus::kOk) problems.push_back("fsim failed: " + fsim.result.error);
        if (problems.empty() && !here.result.stats.counters_equal(fsim.result.stats)) {
          problems.push_back("statistics differ from the fsim's");
        }
        if (problems.empty() && here.output != fsim.output) problems.push_back("output differs from the fsim's");
      }
    } catch (const std::exception& e) {
      problems.push_back(e.what());
    }
    k["verified"] = problems.empty();
    if (!problems.empty()) {
      k["problems"] = problems;
      failed += (failed.empty() ? "" : "; ") + file.filename().string();
    }
    kernels.push_back(k);
  }
  return {{"verified", failed.empty()},
          {"error", failed.empty() ? "" : "kernels that differ: " + failed},
          {"stats", stats_json(total)},
          {"kernels", kernels}};
}

// Runs the workload on this process's device; the result's fields.
json run_workload(const json& w, const fs::path& dir, int index) {
  const std::string kind = w.at("kind").get<std::string>();
  if (kind == "synthesis") return synthesize();
  if (kind == "tune") return tune(w, dir, index);
  if (kind == "suite") return run_suite(w);
  if (kind == "random") {  // the random programs on this backend against the fsim (vta/driver/random_program.h)
    auto reference = make_device("fsim", build_config());
    auto dut = make_device(default_target(), build_config());
    const DifferentialResult r = differential(build_config(), *reference, *dut, default_target(),
                                              w.at("first").get<uint64_t>(), w.value("count", uint64_t{100}));
    json mismatches = json::array();
    for (const auto& m : r.mismatches) mismatches.push_back({{"seed", m.seed}, {"why", m.why}});
    std::string error;
    if (!r.mismatches.empty()) {
      error = "seed " + std::to_string(r.mismatches[0].seed) + ": " + r.mismatches[0].why;
    }
    return {{"verified", r.mismatches.empty()}, {"error", error},
            {"stats", stats_json(r.stats)},     {"programs", r.programs},
            {"instructions", r.instructions},   {"mismatches", mismatches}};
  }
  const auto seed = w.value("seed", uint32_t{1});
  if (kind == "tutorial") {
    const tutorials::Result r =
        w.at("name") == "matmul" ? tutorials::compiled_matrix_multiply(seed) : tutorials::compiled_convolution(seed);
    return {{"verified", r.ok()}, {"error", r.error}, {"stats", stats_json(r.stats)}};
  }
  network::NetworkRun run;
  if (kind == "resnet18") {
    std::vector<int8_t> input;
    const network::Graph g = resnet18_of(w, seed, input);
    network::Executor ex(g, build_config());
    const network::Values ref = network::run_reference(g, input);
    run = ex.run(input, {}, &ref);
  } else {  // onnx: random calibration and input (vta/network/calibration.h's random:N), every step verified
    const network::FloatGraph fg = network::import_onnx(w.at("model").get<std::string>());
    const auto count = network::parse_random_spec(w.value("calibration", "random:2"), "onnx workload: calibration");
    const auto calibration = network::random_calibration(fg, count.value_or(0), seed);
    const network::QuantizedModel q = network::quantize(fg, *calibration, build_config());
    network::Executor ex(q.graph, build_config());
    const std::vector<int8_t> x = q.quantize_input(*network::random_calibration(fg, 1, seed + 1000)->next());
    const network::Values ref = network::run_reference(q.graph, x);
    run = ex.run(x, {}, &ref);
  }
  return {{"verified", run.verified()}, {"error", ""}, {"stats", stats_json(run.vta)}};
}

// The trees of clones that are gone (their CMakeCache.txt names a source directory that no longer
// exists) are removed: nothing can use them, and each is about 100 MB.
void remove_orphaned_trees(const fs::path& cache) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache, ec)) {
    std::ifstream in(entry.path() / "CMakeCache.txt");
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with(key)) continue;
      if (!fs::exists(line.substr(key.size()), ec)) {
        fs::remove_all(entry.path(), ec);
        fs::remove(entry.path().string() + ".build.log", ec);
        fs::remove(entry.path().string() + ".lock", ec);
      }
      break;
    }
  }
}

// This configuration's build tree under `cache`, brought up to date with this source tree (made by the
// first task that needs it; the others wait on the lock, then find nothing to do); its vta-sweep.
// The tree is this source tree's own, <hash>-<source>: a tree configured from another clone would
// build that clone's sources (or fail once the clone is gone). A coverage tree (VTA_TSIM_COVERAGE) is
// a tree of its own, <hash>-<source>-coverage.
fs::path tree_for(const fs::path& dir, const std::string& hash, const fs::path& cache, bool coverage) {
  fs::create_directories(cache);
  remove_orphaned_trees(cache);
  static const std::string source = hash_of(VTA_SOURCE_DIR).substr(0, 8);
  const std::string name = hash + "-" + source + (coverage ? "-coverage" : "");
  const fs::path tree = cache / name;
  fs::path program = tree / "sweep" / "vta-sweep";
  const int lock = ::open((cache / (name + ".lock")).c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (lock < 0) throw SweepError("cannot open the lock of " + tree.string());
  ::flock(lock, LOCK_EX);  // (released when the process ends, too)
  try {
    const fs::path log = tree.string() + ".build.log";
    bp::child build(bp::search_path("bash"), std::string(VTA_SOURCE_DIR) + "/scripts/build.sh", tree.string(),
                    "-DCMAKE_BUILD_TYPE=Release", "-DVTA_CONFIG=" + (dir / "configs" / (hash + ".json")).string(),
                    "-DVTA_BUILD_BENCHMARKS=OFF", "-DVTA_BUILD_HW_TESTS=OFF", "-DVTA_BUILD_PYTHON=OFF",
                    std::string("-DVTA_TSIM_COVERAGE=") + (coverage ? "ON" : "OFF"), "--target", "vta-sweep",
                    bp::std_out > log.string(), bp::std_err > log.string());
    if (!wait_bounded(build, std::chrono::hours(2))) {
      throw SweepError("building " + tree.string() + " took more than 2 hours (" + log.string() + ")");
    }
    if (build.exit_code() != 0) throw SweepError("building " + tree.string() + " failed: see " + log.string());
  } catch (...) {
    ::close(lock);
    throw;
  }
  ::close(lock);
  return program;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// What a configuration costs in hardware: SRAM bytes per buffer and in all, multiply-accumulators.
json resources_of(const fs::path& dir, const std::string& hash) {
  const fs::path file = dir / "configs" / (hash + ".json");
  const Config c = [&] {
    try {
      return Config::from_json_text(read_file_as<SweepError>(file, 1 << 20), file.string());
    } catch (const ConfigError& e) {
      throw SweepError(e.what());  // (the message names the file)
    }
  }();
  const ConfigParams& p = c.params();
  const json sram = {{"uop", uint64_t{1} << p.log_uop_buff_size},
                     {"inp", uint64_t{1} << p.log_inp_buff_size},
                     {"wgt", uint64_t{1} << p.log_wgt_buff_size},
                     {"acc", uint64_t{1} << p.log_acc_buff_size},
                     {"out", uint64_t{1} << c.log_out_buff_size()}};
  uint64_t total = 0;
  for (const auto& [k, v] : sram.items()) total += v.get<uint64_t>();
  return {{"sram_bytes", sram}, {"total_sram_bytes", total}, {"macs", c.batch() * c.block_in() * c.block_out()}};
}

// One point of the Pareto chart: a configuration's cost (its LUTs when every configuration of the
// panel was synthesized, else its SRAM bytes) and a workload's cycles on it.
struct Point {
  std::string config;
  double sram = 0, cycles = 0;
  double luts = -1;  // -1: not synthesized
  double cost = 0;   // the x axis: luts or sram
  bool front = false;
};

// The points no other point beats on both axes (no higher cost and no more cycles, one of them less).
void mark_front(std::vector<Point>& points) {
  for (Point& p : points) {
    p.front = std::none_of(points.begin(), points.end(), [&](const Point& q) {
      return q.cost <= p.cost && q.cycles <= p.cycles && (q.cost < p.cost || q.cycles < p.cycles);
    });
  }
}

// The cost axis of a panel: LUTs when every point has them.
std::string choose_cost(std::vector<Point>& points) {
  const bool luts = std::all_of(points.begin(), points.end(), [](const Point& p) { return p.luts >= 0; });
  for (Point& p : points) p.cost = luts ? p.luts : p.sram;
  return luts ? "LUTs" : "SRAM bytes";
}

// An SVG of one panel per workload: cycles against SRAM bytes, one point per configuration, the front
// joined and filled.
std::string pareto_svg(const std::map<std::string, std::vector<Point>>& panels,
                       const std::map<std::string, std::string>& axes) {
  const int w = 520, h = 300, pad = 60;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h * int(panels.size())
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  int row = 0;
  for (const auto& [title, pts] : panels) {
    double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
    for (const Point& p : pts)
      x0 = std::min(x0, p.cost), x1 = std::max(x1, p.cost), y0 = std::min(y0, p.cycles), y1 = std::max(y1, p.cycles);
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
    const int top = row * h;
    auto px = [&](double x) { return pad + (x - x0) / (x1 - x0) * (w - 2 * pad); };
    auto py = [&](double y) { return top + h - pad - (y - y0) / (y1 - y0) * (h - 2 * pad); };
    svg << "<text x=\"" << pad << "\" y=\"" << top + 20 << "\" font-weight=\"bold\">" << xml_escape(title)
        << "</text>\n"
        << "<line x1=\"" << pad << "\" y1=\"" << top + h - pad << "\" x2=\"" << w - pad << "\" y2=\"" << top + h - pad
        << "\" stroke=\"black\"/><line x1=\"" << pad << "\" y1=\"" << top + pad << "\" x2=\"" << pad << "\" y2=\""
        << top + h - pad << "\" stroke=\"black\"/>\n"
        << "<text x=\"" << w / 2 << "\" y=\"" << top + h - 20 << "\" text-anchor=\"middle\">" << axes.at(title) << " ("
        << uint64_t(x0) << " to " << uint64_t(x1) << ")</text>\n<text x=\"14\" y=\"" << top + h / 2
        << "\" transform=\"rotate(-90 14 " << top + h / 2 << ")\" text-anchor=\"middle\">cycles (" << uint64_t(y0)
        << " to " << uint64_t(y1) << ")</text>\n";
    std::vector<Point> front;
    for (const Point& p : pts) {
      if (p.front) front.push_back(p);
    }
    std::sort(front.begin(), front.end(), [](const Point& a, const Point& b) { return a.cost < b.cost; });
    svg << "<polyline fill=\"none\" stroke=\"#c0392b\" points=\"";
    for (const Point& p : front) svg << px(p.cost) << "," << py(p.cycles) << " ";
    svg << "\"/>\n";
    for (const Point& p : pts) {
      svg << "<circle cx=\"" << px(p.cost) << "\" cy=\"" << py(p.cycles) << "\" r=\"4\" fill=\""
          << (p.front ? "#c0392b" : "#7f8c8d") << "\"><title>" << xml_escape(p.config) << ": " << uint64_t(p.cycles)
          << " cycles, " << uint64_t(p.sram) << " SRAM bytes";
      if (p.luts >= 0) svg << ", " << uint64_t(p.luts) << " LUTs";
      svg << "</title></circle>\n";
    }
    ++row;
  }
  svg << "</svg>\n";
  return svg.str();
}

// Runs `program args` with its output in `log`, bounded by `limit`; throws SweepError naming the log.
void run_logged(const std::string& program, const std::vector<std::string>& args, const fs::path& log,
                std::chrono::seconds limit, const fs::path& cwd = fs::current_path()) {
  const auto exe = bp::search_path(program);
  if (exe.empty()) throw SweepError(program + " not found (scripts/setup.sh installs it)");
  bp::child c(exe, bp::args(args), bp::std_out > log.string(), bp::std_err > log.string(), bp::start_dir(cwd.string()));
  if (!wait_bounded(c, limit)) throw SweepError(program + " ran out of time (" + log.string() + ")");
  if (c.exit_code() != 0) throw SweepError(program + " failed: see " + log.string());
}

// The tasks' coverage files merged (verilator_coverage), its lcov file and HTML report (genhtml), the
// figure and the cover points never reached (scripts/coverage_report.py): its lines for results.md,
// none without coverage files, one naming the problem when a tool fails.
std::vector<std::string> merge_coverage(const fs::path& dir) try {
  const fs::path out = dir / "coverage", raw = out / "raw";
  std::vector<std::string> files;
  if (fs::is_directory(raw)) {
    for (const auto& e : fs::directory_iterator(raw)) {
      if (e.path().extension() == ".dat") files.push_back(e.path().string());
    }
  }
  if (files.empty()) return {};
  std::sort(files.begin(), files.end());
  const fs::path log = out / "merge.log", merged = out / "merged.dat", info = out / "coverage.info";
  std::vector<std::string> args = {"--write", merged.string()};
  args.insert(args.end(), files.begin(), files.end());
  run_logged("verilator_coverage", args, log, std::chrono::minutes(30));
  run_logged("verilator_coverage", {"--write-info", info.string(), merged.string()}, log, std::chrono::minutes(30));
  // (the sources are named as Verilator saw them, relative to tsim/)
  run_logged("genhtml",
             {"--quiet", "--output-directory", fs::absolute(out / "html").string(), fs::absolute(info).string()},
             out / "genhtml.log", std::chrono::minutes(30), fs::path(VTA_SOURCE_DIR) / "tsim");
  const fs::path report = out / "summary.txt";
  run_logged("python3",
             {std::string(VTA_SOURCE_DIR) + "/scripts/coverage_report.py", merged.string(), "--json",
              (out / "summary.json").string()},
             report, std::chrono::minutes(10));
  std::vector<std::string> lines;
  std::istringstream in(read_file_as<SweepError>(report, 1 << 24));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
} catch (const std::exception& e) {
  return {std::string("RTL coverage not merged: ") + e.what()};
}

// What a sweep directory holds, all of it written by vta-sweep.
const char* const kSweepEntries[] = {"configs",    "results",    "logs",         "coverage",
                                     "tilings",    "tasks.json", "results.json", "results.csv",
                                     "results.md", "junit.xml",  "pareto.svg",   "slurm_task.sh"};

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

std::string csv_field(std::string s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
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

namespace {

const Task& task_at(const std::vector<Task>& tasks, const fs::path& dir, int index) {
  if (index < 0 || index >= int(tasks.size())) {
    throw SweepError(dir.string() + ": no task " + std::to_string(index) + " (" + std::to_string(tasks.size()) +
                     " tasks)");
  }
  return tasks[size_t(index)];
}

// Runs `t` in this process (its configuration is this build's) and writes its result.
int run_here(const fs::path& dir, const Task& t) {
  if (t.config_hash != this_build_hash()) {
    throw SweepError("task " + std::to_string(t.index) + " is for configuration " + t.config_hash + ", this build is " +
                     this_build_hash());
  }
  if (t.backend != "yosys") {  // (before this process's runtime first opens a device; synthesis opens none)
    ::setenv("VTA_TARGET", t.backend.c_str(), 1);
  }
  if (t.coverage) {  // the tsim writes this process's counts there at exit (tsim/src/coverage.h)
    ::setenv("VTA_COVERAGE_DIR", (dir / "coverage" / "raw").c_str(), 1);
  }
  json result = task_json(t);
  result["run"] = t.run;
  result["command"] = "vta-sweep task " + fs::absolute(dir).string() + " " + std::to_string(t.index);
  const auto start = std::chrono::steady_clock::now();
  try {
    result.update(run_workload(json::parse(t.workload), dir, t.index));
  } catch (const std::exception& e) {
    result["verified"] = false;
    result["error"] = e.what();
  }
  result["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_json(dir / "results" / (std::to_string(t.index) + ".json"), result);
  return result.at("verified").get<bool>() ? 0 : 1;
}

}  // namespace

int run_task_here(const fs::path& dir, int index) { return run_here(dir, task_at(read_tasks(dir), dir, index)); }

int run_task(const fs::path& dir, int index, const fs::path& cache) {
  const std::vector<Task> tasks = read_tasks(dir);
  const Task& t = task_at(tasks, dir, index);
  // a coverage task needs a coverage build; any other task runs in this build if its configuration is
  // this build's (a coverage build runs it too, counting nothing: building a second tree for it took
  // minutes)
  if (t.config_hash != this_build_hash() || (t.coverage && !kCoverageBuild)) {
    const fs::path program = tree_for(dir, t.config_hash, cache, t.coverage);
    return bp::system(program.string(), "task", dir.string(), std::to_string(index), "--here");
  }
  return run_here(dir, t);
}

void run_local(const fs::path& dir, int workers, int task_seconds, const fs::path& cache) {
  const std::vector<Task> tasks = read_tasks(dir);
  const fs::path self = self_path();
  std::vector<std::thread> pool;
  std::atomic<size_t> next{0};
  for (int w = 0; w < std::max(1, workers); ++w) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < tasks.size(); i = next++) {
        const fs::path log = dir / "results" / (std::to_string(i) + ".log");
        try {
          bp::child c(self.string(), "task", dir.string(), std::to_string(i), "--cache", cache.string(),
                      bp::std_out > log.string(), bp::std_err > log.string());
          if (!wait_bounded(c, std::chrono::seconds(task_seconds))) {
            std::ofstream(log, std::ios::app) << "vta-sweep: stopped after " << task_seconds << " s\n";
          }
        } catch (const std::exception& e) {  // (no result file: merge reports the task and points at its log)
          std::ofstream(log, std::ios::app) << "vta-sweep: the task could not start: " << e.what() << "\n";
        }
      }
    });
  }
  for (auto& t : pool) t.join();
}

// Runs a Slurm client command (bounded by `seconds`); its standard output without the final newline.
// Throws SweepError with its standard error when it fails.
std::string slurm_command(const std::string& name, const std::vector<std::string>& args, int seconds) {
  const auto exe = bp::search_path(name);
  if (exe.empty()) throw SweepError(name + " is not on the PATH (Debian's slurm-client; docs/SWEEP.md)");
  // (the outputs go to files: reading a pipe would wait for the command without a bound)
  const fs::path base = fs::temp_directory_path() / ("vta-sweep-" + std::to_string(::getpid()) + "-" + name);
  const std::string out = base.string() + ".out", err = base.string() + ".err";
  bp::child c(exe, args, bp::std_out > out, bp::std_err > err);
  const bool done = wait_bounded(c, std::chrono::seconds(seconds));
  std::string text = read_file_as<SweepError>(out, 1 << 20), errors = read_file_as<SweepError>(err, 1 << 20);
  fs::remove(out), fs::remove(err);
  if (!done) throw SweepError(name + " did not answer within " + std::to_string(seconds) + " s");
  if (c.exit_code() != 0) throw SweepError(name + " failed (exit " + std::to_string(c.exit_code()) + "): " + errors);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

void run_slurm(const fs::path& dir, const std::vector<std::string>& sbatch_args, int throttle, int seconds,
               const fs::path& cache) {
  const std::vector<Task> tasks = read_tasks(dir);
  const fs::path script = dir / "slurm_task.sh";
  {
    std::ofstream out(script, std::ios::trunc);
    out << "#!/bin/sh\n# one task of the sweep per array index (written by vta-sweep)\nexec '" << self_path().string()
        << "' task '" << fs::absolute(dir).string() << "' \"$SLURM_ARRAY_TASK_ID\" --cache '"
        << fs::absolute(cache).string() << "'\n";
  }
  fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  fs::create_directories(dir / "logs");
  std::vector<std::string> args{
      "--parsable", "--job-name=vta-sweep",
      "--array=0-" + std::to_string(tasks.size() - 1) + (throttle > 0 ? "%" + std::to_string(throttle) : ""),
      "--output=" + (fs::absolute(dir) / "logs" / "%a.log").string()};
  args.insert(args.end(), sbatch_args.begin(), sbatch_args.end());
  args.push_back(fs::absolute(script).string());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  const std::string job = slurm_command("sbatch", args, 120);
  if (job.empty() || job.find_first_not_of("0123456789;") != std::string::npos) {
    throw SweepError("sbatch did not print a job id: \"" + job + "\"");
  }
  const std::string id = job.substr(0, job.find(';'));  // ("ID;CLUSTER" on a federation)
  // (polled every second: sbatch --wait's own polling backs off to half a minute)
  while (!slurm_command("squeue", {"--noheader", "--jobs=" + id, "--format=%i"}, 60).empty()) {
    if (std::chrono::steady_clock::now() > deadline) {
      slurm_command("scancel", {id}, 60);
      throw SweepError("the Slurm job array " + id + " did not finish within " + std::to_string(seconds) +
                       " s; cancelled");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

namespace {
// Throws std::invalid_argument naming the first field of a task's result that merging could not use
// (a result file is a file: it may have been edited or damaged since its task wrote it).
void check_result(const json& r) {
  (void)json_field<bool>(r, "verified");
  for (const char* k : {"error", "command"}) {
    if (r.contains(k)) (void)json_field<std::string>(r, k);
  }
  if (r.contains("seconds") && !r.at("seconds").is_number())
    throw std::invalid_argument("\"seconds\" must be a number");
  if (r.contains("stats")) {
    for (const auto& [k, v] : json_member(r, "stats", JsonKind::kObject).items()) {
      if (!v.is_null() && !v.is_number_unsigned())
        throw std::invalid_argument("stats." + k + " must be a count or null");
    }
  }
  if (r.contains("utilization")) {
    const json& u = json_member(r, "utilization", JsonKind::kObject);
    for (const char* k : {"lut", "ff", "bram36", "dsp"}) {
      if (!json_member(u, k).is_number() || json_member(u, k).get<double>() < 0) {
        throw std::invalid_argument(std::string("utilization.") + k + " must be a number >= 0");
      }
    }
  }
  if (r.contains("tuning")) {
    const json& t = json_member(r, "tuning", JsonKind::kObject);
    for (const char* k : {"default_estimate", "estimate"}) {
      if (t.contains(k)) (void)json_field<uint64_t>(t, k);
    }
    if (t.contains("tilings_file")) (void)json_field<std::string>(t, "tilings_file");
    if (t.contains("measured")) {
      (void)json_field<uint64_t>(t, "measured");
      if (!json_member(t, "estimate_error_percent").is_number()) {
        throw std::invalid_argument("tuning.estimate_error_percent must be a number");
      }
    }
  }
}
}  // namespace

Summary merge(const fs::path& dir) {
  const std::vector<Task> tasks = read_tasks(dir);
  Summary s;
  json all = json::array();
  std::ostringstream csv, md, junit;
  const char* keys[] = {"inp_load_nbytes",  "wgt_load_nbytes", "acc_load_nbytes", "uop_load_nbytes",
                        "out_store_nbytes", "gemm_counter",    "alu_counter",     "cycle_count"};
  csv << "index,config,config_hash,workload,backend,verified";
  for (const char* k : keys) csv << "," << k;
  csv << ",seconds,error\n";
  md << "| # | configuration | workload | backend | verified | cycles | GEMM micro-ops | bytes moved | SRAM KiB | MACs "
        "| LUTs | seconds |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, json> resources;             // by configuration hash
  std::map<std::string, std::vector<Point>> panels;  // by workload and backend
  std::ostringstream cases, tuned;
  std::map<int, json> results;
  for (const Task& t : tasks) {  // the synthesis tasks' figures join their configuration's resources
    const fs::path path = dir / "results" / (std::to_string(t.index) + ".json");
    if (fs::exists(path)) {
      json r = read_json(path, "a task's result");
      // (a result of another run, or of another task, is not this task's: it did not run)
      if (r.is_object() && r.value("run", json()) == json(t.run) && r.value("index", json()) == json(t.index) &&
          r.value("config_hash", json()) == json(t.config_hash) && r.value("backend", json()) == json(t.backend)) {
        try {
          check_result(r);
          results[t.index] = std::move(r);
        } catch (const std::invalid_argument& e) {  // (a damaged result: the task is reported failed, by name)
          json bad = task_json(t);
          bad["verified"] = false;
          bad["error"] = path.string() + " is damaged: " + e.what();
          results[t.index] = std::move(bad);
        }
      }
    }
    if (!resources.count(t.config_hash)) resources[t.config_hash] = resources_of(dir, t.config_hash);
    const auto done = results.find(t.index);
    if (done != results.end() && done->second.value("verified", false) && done->second.contains("utilization")) {
      for (const char* k : {"lut", "ff", "bram36", "dsp"})
        resources[t.config_hash][k] = done->second["utilization"].at(k);
    }
  }
  for (const Task& t : tasks) {
    ++s.tasks;
    json r;
    if (results.count(t.index)) {
      r = results[t.index];
    } else {
      r = task_json(t);
      r["verified"] = false;
      r["missing"] = true;
      r["error"] = "no result: the task did not finish (its log: " +
                   (dir / "results" / (std::to_string(t.index) + ".log")).string() + ", or logs/ for Slurm)";
      r["command"] = "vta-sweep task " + fs::absolute(dir).string() + " " + std::to_string(t.index);
      ++s.missing;
    }
    const bool ok = r.value("verified", false);
    ok ? ++s.verified : ++s.failed;
    r["resources"] = resources[t.config_hash];
    const json& res = r["resources"];
    const std::string luts = res.contains("lut") ? std::to_string(res.at("lut").get<int64_t>()) : "-";
    const json stats = r.value("stats", json::object());
    auto stat = [&](const char* k) { return stats.contains(k) && !stats.at(k).is_null() ? stats.at(k).dump() : ""; };
    csv << t.index << "," << csv_field(t.config) << "," << t.config_hash << "," << csv_field(t.label) << ","
        << t.backend << "," << (ok ? "true" : "false");
    for (const char* k : keys) csv << "," << stat(k);
    csv << "," << r.value("seconds", 0.0) << "," << csv_field(r.value("error", "")) << "\n";
    uint64_t bytes = 0;
    for (const char* k :
         {"inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes", "uop_load_nbytes", "out_store_nbytes"}) {
      bytes += stats.value(k, uint64_t{0});
    }
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", r.value("seconds", 0.0));
    md << "| " << t.index << " | " << t.config << " | " << t.label << " | " << t.backend << " | "
       << (ok ? "yes" : "**no**") << " | " << (stat("cycle_count").empty() ? "-" : stat("cycle_count")) << " | "
       << stat("gemm_counter") << " | " << bytes << " | " << res.at("total_sram_bytes").get<uint64_t>() / 1024 << " | "
       << res.at("macs").get<int64_t>() << " | " << luts << " | " << secs << " |\n";
    if (ok && !stat("cycle_count").empty()) {
      panels[t.label + " on " + t.backend].push_back(
          {t.config, double(res.at("total_sram_bytes").get<uint64_t>()), std::stod(stat("cycle_count")),
           res.contains("lut") ? res.at("lut").get<double>() : -1.0, 0.0, false});
    }
    if (r.contains("tuning")) {  // a tune task: its search against the default one, its estimate against the run
      const json& tu = r.at("tuning");
      tuned << "- " << t.config << ", " << t.label << " on " << t.backend << ": estimated "
            << tu.value("default_estimate", uint64_t{0}) << " cycles with the default search, "
            << tu.value("estimate", uint64_t{0}) << " tuned";
      if (tu.contains("measured")) {
        char err[32];
        std::snprintf(err, sizeof err, "%+.1f", tu.at("estimate_error_percent").get<double>());
        tuned << "; measured " << tu.at("measured").get<uint64_t>() << " (estimate " << err << " %)";
      }
      tuned << "; tilings: " << tu.value("tilings_file", std::string()) << "\n";
    }
    cases << "  <testcase classname=\"" << xml_escape(t.config) << "\" name=\""
          << xml_escape(t.label + " on " + t.backend) << "\" time=\"" << r.value("seconds", 0.0) << "\">";
    if (!ok) {
      cases << "<failure message=\"" << xml_escape(r.value("error", "outputs differ from the reference")) << "\">"
            << xml_escape("reproduce: " + r.value("command", std::string())) << "</failure>";
    }
    cases << "</testcase>\n";
    all.push_back(r);
  }
  junit << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"vta-sweep\" tests=\"" << s.tasks
        << "\" failures=\"" << s.failed << "\">\n"
        << cases.str() << "</testsuite>\n";
  md << "\n" << s.verified << " of " << s.tasks << " tasks verified";
  if (s.missing) md << "; " << s.missing << " did not finish";
  md << ".\n";
  if (!tuned.str().empty()) md << "\nTuned tilings (vta-resnet18 --tilings FILE runs them):\n\n" << tuned.str();
  const std::vector<std::string> coverage = merge_coverage(dir);
  if (!coverage.empty()) {
    s.coverage = coverage.front();
    md << "\n" << coverage.front() << " (coverage/html/index.html)\n\n";
    for (size_t i = 1; i < coverage.size(); ++i)
      md << "- " << coverage[i].substr(coverage[i].find_first_not_of(' ')) << "\n";
  }
  if (!panels.empty()) {  // the configurations on each workload's front: no other costs less and runs fewer cycles
    md << "\nPareto front (cycles against LUTs where every configuration was synthesized, else SRAM bytes; "
          "pareto.svg):\n\n";
    std::map<std::string, std::string> axes;
    for (auto& [title, pts] : panels) {
      axes[title] = choose_cost(pts);
      mark_front(pts);
      md << "- " << title << " (" << axes[title] << "):";
      for (const Point& p : pts) {
        if (!p.front) continue;
        md << " " << p.config << " (" << uint64_t(p.cycles) << " cycles, " << uint64_t(p.sram) / 1024 << " KiB";
        if (p.luts >= 0) md << ", " << uint64_t(p.luts) << " LUTs";
        md << ");";
      }
      md << "\n";
    }
    std::ofstream(dir / "pareto.svg", std::ios::trunc) << pareto_svg(panels, axes);
  }
  write_json(dir / "results.json", all);
  std::ofstream(dir / "results.csv", std::ios::trunc) << csv.str();
  std::ofstream(dir / "results.md", std::ios::trunc) << md.str();
  std::ofstream(dir / "junit.xml", std::ios::trunc) << junit.str();
  return s;
}

}  // namespace vta::sweep
