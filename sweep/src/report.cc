// The results merged (docs/SWEEP.md "results"): results.json, .csv and .md, junit.xml, the Pareto
// chart of cycles against hardware cost, and the tasks' RTL coverage merged.

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "internal.h"
#include "vta/driver/config.h"
#include "vta/driver/file.h"
#include "vta/driver/format.h"

namespace vta::sweep {
namespace {

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
  double luts = -1;       // -1: not synthesized
  double energy_uj = -1;  // -1: not measured
  double accuracy = -1;   // top-1 %, -1: not measured (an onnx workload with inputs and labels)
  double cost = 0;        // the x axis of cycles: luts or sram
  bool front = false, energy_front = false, edp_front = false;
  bool accuracy_front = false, accuracy_lut_front = false;  // the precision fronts: less energy / LUTs, more top-1
};

// Marks the points no other point beats on both axes (no more of either, less of one) in `flag`.
template <typename X, typename Y>
void mark_front(std::vector<Point>& points, X x, Y y, bool Point::*flag) {
  for (Point& p : points) {
    p.*flag = std::none_of(points.begin(), points.end(), [&](const Point& q) {
      return x(q) <= x(p) && y(q) <= y(p) && (x(q) < x(p) || y(q) < y(p));
    });
  }
}

// A panel's fronts (docs/SWEEP.md): cycles against LUTs when every point has them, else SRAM bytes;
// energy against cycles and the energy-delay product against LUTs where every point has those; and
// where every point has a top-1 accuracy, the precision fronts: top-1 against energy, and against LUTs.
// Returns the cost axis's name.
std::string mark_fronts(std::vector<Point>& points) {
  auto all = [&](auto has) { return std::all_of(points.begin(), points.end(), has); };
  const bool luts = all([](const Point& p) { return p.luts >= 0; });
  const bool energy = all([](const Point& p) { return p.energy_uj >= 0; });
  const bool cycles = all([](const Point& p) { return p.cycles > 0; });
  for (Point& p : points) p.cost = luts ? p.luts : p.sram;
  if (all([](const Point& p) { return p.accuracy >= 0; })) {
    const auto worse = [](const Point& p) { return -p.accuracy; };  // (more accurate is better)
    if (energy)
      mark_front(
          points, [](const Point& p) { return p.energy_uj; }, worse, &Point::accuracy_front);
    if (luts)
      mark_front(
          points, [](const Point& p) { return p.luts; }, worse, &Point::accuracy_lut_front);
  }
  if (!cycles) return luts ? "LUTs" : "SRAM bytes";  // (an fsim panel: no cycles to set against anything)
  mark_front(
      points, [](const Point& p) { return p.cost; }, [](const Point& p) { return p.cycles; }, &Point::front);
  if (energy) {
    mark_front(
        points, [](const Point& p) { return p.cycles; }, [](const Point& p) { return p.energy_uj; },
        &Point::energy_front);
  }
  if (energy && luts) {
    mark_front(
        points, [](const Point& p) { return p.luts; }, [](const Point& p) { return p.energy_uj * p.cycles; },
        &Point::edp_front);
  }
  return luts ? "LUTs" : "SRAM bytes";
}

// The panels as sweep/charts.py draws them.
json panels_json(const std::map<std::string, std::vector<Point>>& panels,
                 const std::map<std::string, std::string>& axes) {
  json out = json::array();
  for (const auto& [title, pts] : panels) {
    json points = json::array();
    for (const Point& p : pts) {
      auto maybe = [](double v) { return v >= 0 ? json(v) : json(); };
      points.push_back({{"config", p.config},
                        {"cycles", p.cycles > 0 ? json(p.cycles) : json()},
                        {"accuracy", maybe(p.accuracy)},
                        {"accuracy_front", p.accuracy_front},
                        {"accuracy_lut_front", p.accuracy_lut_front},
                        {"sram", p.sram},
                        {"luts", maybe(p.luts)},
                        {"cost", p.cost},
                        {"energy_uj", maybe(p.energy_uj)},
                        {"edp", p.energy_uj >= 0 ? json(p.energy_uj * p.cycles) : json()},
                        {"front", p.front},
                        {"energy_front", p.energy_front},
                        {"edp_front", p.edp_front}});
    }
    out.push_back({{"title", title}, {"cost_axis", axes.at(title)}, {"points", points}});
  }
  return {{"panels", out}};
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
             out / "genhtml.log", std::chrono::minutes(30), fs::path(kBuild.source_dir) / "tsim");
  const fs::path report = out / "summary.txt";
  run_logged("python3",
             {std::string(kBuild.source_dir) + "/scripts/coverage_report.py", merged.string(), "--json",
              (out / "summary.json").string()},
             report, std::chrono::minutes(10));
  std::vector<std::string> lines;
  std::istringstream in(read_file_as<SweepError>(report, 1 << 24));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
} catch (const std::exception& e) {
  return {std::string("RTL coverage not merged: ") + e.what()};
}

std::string csv_field(std::string s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

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
  if (r.contains("accuracy")) {
    const json& a = json_member(r, "accuracy", JsonKind::kObject);
    for (const char* k : {"top1_percent", "float_top1_percent"}) {
      const json& v = json_member(a, k);
      if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 100) {
        throw std::invalid_argument(std::string("accuracy.") + k + " must be a percentage");
      }
    }
    (void)json_field<uint64_t>(a, "images");
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
  csv << ",energy_uj,power_mw,seconds,error\n";
  md << "| # | configuration | workload | backend | verified | cycles | GEMM micro-ops | bytes moved | energy uJ | "
        "top-1 % | SRAM KiB | MACs | LUTs | seconds |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
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
    // (the task's energy, docs/ENERGY.md: in micro-joules; power only with cycles)
    const json energy = r.value("energy", json::object());
    std::string uj, mw;
    double energy_uj = -1;  // (-1: not measured, as in Point)
    if (energy.is_object() && energy.contains("total_pj") && energy.at("total_pj").is_number()) {
      energy_uj = energy.at("total_pj").get<double>() * 1e-6;
      uj = vta::format("%.3f", energy_uj);
      if (energy.contains("power_mw") && energy.at("power_mw").is_number()) {
        mw = vta::format("%.1f", energy.at("power_mw").get<double>());
      }
    }
    csv << "," << uj << "," << mw << "," << r.value("seconds", 0.0) << "," << csv_field(r.value("error", "")) << "\n";
    uint64_t bytes = 0;
    for (const char* k :
         {"inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes", "uop_load_nbytes", "out_store_nbytes"}) {
      bytes += stats.value(k, uint64_t{0});
    }
    const std::string secs = vta::format("%.2f", r.value("seconds", 0.0));
    // (an onnx workload's top-1 over its inputs, beside the float model's)
    double accuracy = -1;
    std::string top1 = "-";
    if (r.contains("accuracy") && r.at("accuracy").is_object()) {
      const json& a = r.at("accuracy");
      accuracy = a.value("top1_percent", -1.0);
      top1 = vta::format("%.2f (float %.2f, %llu images)", accuracy, a.value("float_top1_percent", 0.0),
                         static_cast<unsigned long long>(a.value("images", uint64_t{0})));
    }
    md << "| " << t.index << " | " << t.config << " | " << t.label << " | " << t.backend << " | "
       << (ok ? "yes" : "**no**") << " | " << (stat("cycle_count").empty() ? "-" : stat("cycle_count")) << " | "
       << stat("gemm_counter") << " | " << bytes << " | " << (uj.empty() ? "-" : uj) << " | " << top1 << " | "
       << res.at("total_sram_bytes").get<uint64_t>() / 1024 << " | " << res.at("macs").get<int64_t>() << " | " << luts
       << " | " << secs << " |\n";
    if (ok && (!stat("cycle_count").empty() || accuracy >= 0)) {
      Point p;
      p.config = t.config;
      p.sram = double(res.at("total_sram_bytes").get<uint64_t>());
      p.cycles = stat("cycle_count").empty() ? 0 : std::stod(stat("cycle_count"));
      p.luts = res.contains("lut") ? res.at("lut").get<double>() : -1.0;
      p.energy_uj = energy_uj;
      p.accuracy = accuracy;
      panels[t.label + " on " + t.backend].push_back(p);
    }
    if (r.contains("tuning")) {  // a tune task: its search against the default one, its estimate against the run
      const json& tu = r.at("tuning");
      tuned << "- " << t.config << ", " << t.label << " on " << t.backend << ": estimated "
            << tu.value("default_estimate", uint64_t{0}) << " cycles with the default search, "
            << tu.value("estimate", uint64_t{0}) << " tuned";
      if (tu.contains("measured")) {
        const std::string err = vta::format("%+.1f", tu.at("estimate_error_percent").get<double>());
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
    std::map<std::string, std::string> axes;
    std::ostringstream fronts, precision;  // (cycles against cost; top-1 against energy and LUTs)
    for (auto& [title, pts] : panels) {
      axes[title] = mark_fronts(pts);
      if (std::any_of(pts.begin(), pts.end(), [](const Point& p) { return p.front; })) {
        fronts << "- " << title << " (" << axes[title] << "):";
        for (const Point& p : pts) {
          if (!p.front) continue;
          fronts << " " << p.config << " (" << uint64_t(p.cycles) << " cycles, " << uint64_t(p.sram) / 1024 << " KiB";
          if (p.luts >= 0) fronts << ", " << uint64_t(p.luts) << " LUTs";
          fronts << ");";
        }
        fronts << "\n";
      }
      for (const auto& front : {std::pair{&Point::accuracy_front, "energy"}, {&Point::accuracy_lut_front, "LUTs"}}) {
        bool Point::*const flag = front.first;
        const char* const axis = front.second;
        if (std::none_of(pts.begin(), pts.end(), [flag](const Point& p) { return p.*flag; })) continue;
        precision << "- " << title << " (top-1 against " << axis << "):";
        for (const Point& p : pts) {
          if (!(p.*flag)) continue;
          precision << " " << p.config << " (" << vta::format("%.2f", p.accuracy) << " %, "
                    << (std::string(axis) == "LUTs" ? vta::format("%.0f LUTs", p.luts)
                                                    : vta::format("%.1f uJ", p.energy_uj))
                    << ");";
        }
        precision << "\n";
      }
    }
    if (!fronts.str().empty()) {
      md << "\nPareto front (cycles against LUTs where every configuration was synthesized, else SRAM bytes):\n\n"
         << fronts.str();
    }
    if (!precision.str().empty()) {
      md << "\nPrecision front (the configurations no other beats on both top-1 accuracy and cost):\n\n"
         << precision.str();
    }
    write_json(dir / "pareto.json", panels_json(panels, axes));
    try {  // (the charts are drawn by matplotlib; the results stand without them)
      fs::remove(dir / "pareto.svg");
      fs::remove(dir / "pareto.png");
      run_logged(
          kBuild.python3,
          {std::string(kBuild.source_dir) + "/sweep/charts.py", (dir / "pareto.json").string(), "--out", dir.string()},
          dir / "charts.log", std::chrono::minutes(5));
      md << "\n![each workload's charts (cycles, energy, energy-delay product, top-1 accuracy against their costs), "
            "the "
            "fronts in red](pareto.svg)\n";
    } catch (const SweepError& e) {
      md << "\nCharts not drawn: " << e.what() << "\n";
      std::cerr << "vta-sweep: charts not drawn: " << e.what() << "\n";
    }
  }
  write_json(dir / "results.json", all);
  std::ofstream(dir / "results.csv", std::ios::trunc) << csv.str();
  std::ofstream(dir / "results.md", std::ios::trunc) << md.str();
  std::ofstream(dir / "junit.xml", std::ios::trunc) << junit.str();
  return s;
}

}  // namespace vta::sweep
