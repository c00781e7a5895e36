#include "wave.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <verilated_fst_c.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "vta/driver/interrupt.h"

namespace vta::tsim {
namespace {

// The GTKWave window the save file asks for, in pixels, and the width of its wave pane that is left
// (the window less the hierarchy tree, the signal names and the borders).
constexpr int kGtkwWidth = 1600, kGtkwHeight = 900, kGtkwTreeWidth = 220, kGtkwSignalsWidth = 420;
constexpr int kGtkwWavePixels = kGtkwWidth - kGtkwTreeWidth - kGtkwSignalsWidth - 100;

int64_t constant(const Config& c, const std::string& name) {
  for (const auto& k : c.constants()) {
    if (k.name == name) return k.value;
  }
  throw std::logic_error("tsim wave: no configuration constant " + name);
}

std::string vec(const std::string& name, int64_t width) {
  return width == 1 ? name : name + "[" + std::to_string(width - 1) + ":0]";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Runs a program with an argument vector (no shell ever sees the file names) and waits for it;
// returns its exit status, or throws when it cannot be started.
int run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot run " + args[0] + ": " + std::strerror(rc));
  const ChildProcess child(pid);  // (an interrupt ending this process ends the converter too)
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waiting for " + args[0] + ": " + std::strerror(errno));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

std::vector<WaveSignal> gtkw_signals(const Config& c) {
  const std::string top = "TOP.vta_top.", core = top + "u_core.";
  const int64_t bus = constant(c, "BUS_WIDTH"), ins = 128;
  std::vector<WaveSignal> s;
  auto add = [&](const std::string& group, const std::string& name, int64_t width,
                 WaveFilter filter = WaveFilter::kNone) {
    s.push_back({group, vec(name, width), filter});
  };
  add("control", top + "clk_i", 1);
  add("control", top + "rst_ni", 1);
  add("control", top + "irq_o", 1);
  add("control", top + "u_vcr.ctrl_q", 32);
  add("control", top + "u_vcr.err_q", 9);
  add("control", top + "u_vcr.cycles_q", 64);
  add("control", top + "u_vcr.idle_q", 32);
  add("fetch", core + "u_fetch.active_q", 1);
  add("fetch", core + "u_fetch.to_request_q", 32);
  add("fetch", core + "u_fetch.to_dispatch_q", 32);
  add("fetch", core + "fetched", ins, WaveFilter::kInsn);
  add("load", core + "u_load.u_ctrl.state_q", 2, WaveFilter::kState);
  add("load", core + "ld_insn", ins, WaveFilter::kInsn);
  add("load", core + "ld_q_rvalid", 1);
  add("load", core + "ld_q_rready", 1);
  // (the compute stage of COMPUTE_ISSUE 2 has two slots, each running or not)
  const bool dual = c.compute_issue() == 2;
  const std::string compute = core + "u_compute.";
  if (dual) {
    add("compute", compute + "run_g_q", 1);
    add("compute", compute + "run_a_q", 1);
    add("compute", compute + "unit_a_q", 2);
  } else {
    add("compute", compute + "u_ctrl.state_q", 2, WaveFilter::kState);
    add("compute", compute + "unit_q", 3, WaveFilter::kUnit);
  }
  add("compute", core + "co_insn", ins, WaveFilter::kInsn);
  add("compute", core + "co_q_rvalid", 1);
  add("compute", core + "co_q_rready", 1);
  add("compute", core + "gemm_uop", 1);
  add("compute", core + "alu_uop", 1);
  add("store", core + "u_store.u_ctrl.state_q", 2, WaveFilter::kState);
  add("store", core + "st_insn", ins, WaveFilter::kInsn);
  add("store", core + "st_q_rvalid", 1);
  add("store", core + "st_q_rready", 1);
  for (const char* q : {"l2g", "g2l", "g2s", "s2g"}) {
    add("tokens", core + "u_" + q + ".count_q", 8);
  }
  for (const char* sig : {"arvalid_o", "arready_i"}) add("axi read", top + "m_axi_" + sig, 1);
  add("axi read", top + "m_axi_arid_o", 4, WaveFilter::kClient);
  add("axi read", top + "m_axi_araddr_o", 32);
  add("axi read", top + "m_axi_arlen_o", 8);
  for (const char* sig : {"rvalid_i", "rready_o", "rlast_i"}) add("axi read", top + "m_axi_" + sig, 1);
  add("axi read", top + "m_axi_rid_i", 4, WaveFilter::kClient);
  add("axi read", top + "m_axi_rresp_i", 2);
  add("axi read", top + "m_axi_rdata_i", bus);
  for (const char* sig : {"awvalid_o", "awready_i"}) add("axi write", top + "m_axi_" + sig, 1);
  add("axi write", top + "m_axi_awaddr_o", 32);
  add("axi write", top + "m_axi_awlen_o", 8);
  for (const char* sig : {"wvalid_o", "wready_i", "wlast_o"}) add("axi write", top + "m_axi_" + sig, 1);
  add("axi write", top + "m_axi_wdata_o", bus);
  add("axi write", top + "m_axi_wstrb_o", bus / 8);
  for (const char* sig : {"bvalid_i", "bready_o"}) add("axi write", top + "m_axi_" + sig, 1);
  add("axi write", top + "m_axi_bresp_i", 2);
  for (const char* sig : {"awvalid_i", "awready_o", "wvalid_i", "wready_o", "bvalid_o", "arvalid_i", "arready_o",
                          "rvalid_o", "rready_i"}) {
    add("host (axi-lite)", top + "s_axil_" + sig, 1);
  }
  add("host (axi-lite)", top + "s_axil_awaddr_i", 12);
  add("host (axi-lite)", top + "s_axil_wdata_i", 32);
  add("host (axi-lite)", top + "s_axil_araddr_i", 12);
  add("host (axi-lite)", top + "s_axil_rdata_o", 32);
  const int64_t inp = constant(c, "LOG_INP_BUFF_DEPTH"), wgt = constant(c, "LOG_WGT_BUFF_DEPTH");
  const int64_t acc = constant(c, "LOG_ACC_BUFF_DEPTH"), uop = constant(c, "LOG_UOP_BUFF_DEPTH");
  std::vector<std::pair<std::string, int64_t>> rams = {{core + "u_load.u_inp_ram", inp},
                                                       {core + "u_load.u_wgt_ram", wgt}};
  if (dual) {
    rams.insert(rams.end(), {{compute + "gen_bank[0].u_acc_ram", acc - 1},
                             {compute + "gen_bank[1].u_acc_ram", acc - 1},
                             {compute + "gen_bank[0].u_out_ram", acc - 1},
                             {compute + "gen_bank[1].u_out_ram", acc - 1}});
  } else {
    rams.insert(rams.end(), {{compute + "u_uop_ram", uop}, {compute + "u_acc_ram", acc}, {compute + "u_out_ram", acc}});
  }
  if (dual) {  // (the micro-op buffer's two ports: A writes or reads, B reads)
    add("sram ports", compute + "u_uop_ram.we_a_i", 1);
    add("sram ports", compute + "u_uop_ram.re_a_i", 1);
    add("sram ports", compute + "u_uop_ram.addr_a_i", uop);
    add("sram ports", compute + "u_uop_ram.re_b_i", 1);
    add("sram ports", compute + "u_uop_ram.addr_b_i", uop);
  }
  for (const auto& [ram, depth] : rams) {
    add("sram ports", ram + ".we_i", 1);
    add("sram ports", ram + ".waddr_i", depth);
    add("sram ports", ram + ".re_i", 1);
    add("sram ports", ram + ".raddr_i", depth);
  }
  return s;
}

std::string gtkw_text(const Config& config, const GtkwView& view) {
  const bool fst = ends_with(view.dump_path, ".fst");
  std::ostringstream o;
  o << "[*] GTKWave save file written by the VTA tsim: gtkwave " << view.dump_path << " <this file>\n"
    << "[*] clock " << config.hw_freq_mhz() << " MHz (HW_FREQ): one cycle is " << config.clock_period_ps() << " ps\n"
    << "[dumpfile] \"" << std::filesystem::absolute(view.dump_path).string() << "\"\n"
    << "[timestart] " << view.start_time << "\n"
    << "[size] " << kGtkwWidth << " " << kGtkwHeight << "\n"
    << "[pos] 0 0\n";
  if (view.end_time > view.start_time) {
    // GTKWave shows 2^-zoom / 200 time units per pixel (its zoom base 2 and 200 pixels per "frame";
    // measured: the window GTKWave reports for a zoom, doubling per step): the zoom that fits the
    // window into the wave pane
    const double per_pixel = double(view.end_time - view.start_time) / double(kGtkwWavePixels);
    o << "*" << std::fixed << -std::log2(per_pixel * 200.0) << std::defaultfloat << " " << view.start_time << "\n";
  }
  o << "[sst_width] " << kGtkwTreeWidth << "\n"
    << "[signals_width] " << kGtkwSignalsWidth << "\n"
    << "[sst_expanded] 1\n";
  std::string group;
  auto close_group = [&] {
    if (!group.empty()) o << "@1000200\n-" << group << "\n";
  };
  for (const auto& sig : gtkw_signals(config)) {
    if (sig.group != group) {
      close_group();
      group = sig.group;
      o << "@800200\n-" << group << "\n";
    }
    const std::string& filter = view.filter_path[int(sig.filter)];
    const bool enumerated = sig.filter == WaveFilter::kState || sig.filter == WaveFilter::kUnit;
    if (enumerated && fst) {
      // An FST from Verilator carries the RTL's enum names, which GTKWave shows with its enum flag
      // (a file filter on such a signal is ignored); the VCD filter tables use the same names.
      o << "@100000028\n";
    } else if (sig.filter != WaveFilter::kNone && !filter.empty()) {
      o << "@2022\n^" << int(sig.filter) << " " << filter << "\n";  // hex, right-justified, file filter
    } else {
      o << (sig.name.back() == ']' ? "@22\n" : "@28\n");  // hex for vectors, binary for single bits
    }
    o << sig.name << "\n";
  }
  close_group();
  return o.str();
}

const char* to_string(WaveFilter f) {
  switch (f) {
    case WaveFilter::kNone: return "none";
    case WaveFilter::kInsn: return "insn";
    case WaveFilter::kState: return "state";
    case WaveFilter::kUnit: return "unit";
    case WaveFilter::kClient: return "client";
  }
  return "?";
}

std::string filter_table(WaveFilter f) {
  // Values as GTKWave prints them in hexadecimal; the encodings are the RTL's (vta_load/compute/store
  // state_e, vta_compute unit_e, the read clients of vta_core).
  switch (f) {
    case WaveFilter::kState: return "# FSM state of load, compute and store\n0 StIdle\n1 StRun\n2 StError\n";
    case WaveFilter::kUnit:
      return "# compute: the unit the current instruction uses\n0 UnitUop\n1 UnitAcc\n2 UnitAcc8\n3 UnitGemm\n4 "
             "UnitAlu\n";
    case WaveFilter::kClient:
      return "# AXI read ID: the client a read is for\n0 fetch (instructions)\n1 uop\n2 inp\n3 wgt\n4 acc\n";
    case WaveFilter::kNone:
    case WaveFilter::kInsn: break;
  }
  return {};
}

namespace {

// The instructions of the runs made while waveforms are open (note_program).
struct InsnNames {
  std::mutex mu;
  int open_tracers = 0;
  std::map<std::string, std::string> names;  // 32 hex digits -> "#index disassembly"
};
InsnNames& insn_names() {
  static InsnNames n;
  return n;
}
// Bounds what a long session of runs with a waveform open can accumulate (about 100 MiB of text).
constexpr size_t kMaxInsnNames = size_t{1} << 20;

std::string insn_hex(const RawInsn& raw) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llX%016llX", static_cast<unsigned long long>(raw.hi),
                static_cast<unsigned long long>(raw.lo));
  return buf;
}

}  // namespace

void note_program(const Isa& isa, const uint8_t* stream, uint32_t count) {
  auto& n = insn_names();
  std::lock_guard lock(n.mu);
  if (n.open_tracers == 0 || stream == nullptr) return;
  for (uint32_t i = 0; i < count && n.names.size() < kMaxInsnNames; ++i) {
    const RawInsn raw = load_insn(stream + uint64_t(i) * Config::kInsnElemBytes);
    std::string name = "#";
    name.append(std::to_string(i)).append(" ").append(isa.disassemble(raw));
    n.names.try_emplace(insn_hex(raw), std::move(name));
  }
}

std::string insn_filter_text() {
  auto& n = insn_names();
  std::lock_guard lock(n.mu);
  std::string out = "# instructions of the runs in this waveform: value, index in its stream, disassembly\n";
  for (const auto& [hex, name] : n.names) out.append(hex).append(" ").append(name).append("\n");
  return out;
}

void check_wave_options(const WaveOptions& o) {
  if (o.path.empty()) throw std::invalid_argument("VTA_WAVE: empty file name");
  if (!ends_with(o.path, ".vcd") && !ends_with(o.path, ".fst")) {
    throw std::invalid_argument("VTA_WAVE: \"" + o.path + "\" must end in .fst or .vcd");
  }
  if (o.start >= o.stop) {
    throw std::invalid_argument("VTA_WAVE_START (" + std::to_string(o.start) + ") must be below VTA_WAVE_STOP (" +
                                std::to_string(o.stop) + ")");
  }
  if (o.depth != 0) {
    // Verilator 5.006 crashes when an FST dump is limited at run time (dumpvars); the depth is a
    // build option instead.
    throw std::invalid_argument(
        "VTA_WAVE_DEPTH: the dump depth is chosen when the tsim is built (cmake "
        "-DVTA_TSIM_TRACE_DEPTH=<levels>); this build dumps " +
        std::string(VTA_TSIM_TRACE_DEPTH == 0 ? "every level" : std::to_string(VTA_TSIM_TRACE_DEPTH) + " levels"));
  }
  // the file must be one this process can create or replace: a folder that exists and takes files,
  // not a directory or a device under the name
  const std::filesystem::path path(o.path);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw std::invalid_argument("VTA_WAVE: cannot write " + o.path + ": it exists and is not a regular file");
  }
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder, ec) || ::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw std::invalid_argument("VTA_WAVE: cannot write " + o.path + ": " + folder.string() +
                                " is not a folder this process can write to");
  }
}

WaveTracer::WaveTracer(const WaveOptions& options, const Config& config, int time_precision)
    : options_(options), config_(config), fst_(std::make_unique<VerilatedFstC>()) {
  check_wave_options(options_);
  const bool vcd = ends_with(options_.path, ".vcd");
  // a second simulator (another thread's device) asking for the same file writes run.1.fst, ...
  claim_ = PathClaim(options_.path, PathClaim::Suffix::kBeforeExtension);
  options_.path = claim_.path();
  if (vcd) {  // Verilator writes FST: a partial file, converted to the VCD at close
    fst_partial_ = std::make_unique<PartialFile>(options_.path + ".fst");
    fst_path_ = fst_partial_->partial_path().string();
  } else {
    fst_path_ = options_.path;
  }
  // One cycle in the dump's time unit (10^time_precision s, 1 ps for this model), kept even so that
  // the falling edge falls on a whole unit.
  double units = double(config.clock_period_ps()) * std::pow(10.0, -12 - time_precision);
  period_ = std::max<uint64_t>(2, uint64_t(std::llround(units / 2.0)) * 2);
  write_view();
  std::lock_guard lock(insn_names().mu);
  ++insn_names().open_tracers;
}

void WaveTracer::write_view() {
  GtkwView view;
  view.dump_path = options_.path;
  if (first_time_ <= last_time_) {
    view.start_time = first_time_;
    view.end_time = last_time_;
  }
  auto sibling = [&](const std::string& extension) {
    return std::filesystem::absolute(std::filesystem::path(options_.path).replace_extension(extension)).string();
  };
  auto write = [](const std::string& path, const std::string& text) {
    try {
      write_file(path, text);  // whole or not at all
    } catch (const FileError& e) {
      throw std::runtime_error(std::string("VTA_WAVE: ") + e.what());
    }
  };
  for (const WaveFilter f : kWaveFilters) {
    std::string extension = ".";
    extension.append(to_string(f)).append(".flt");
    const std::string path = sibling(extension);
    write(path, f == WaveFilter::kInsn ? insn_filter_text() : filter_table(f));
    view.filter_path[int(f)] = path;
  }
  write(sibling(".gtkw"), gtkw_text(config_, view));
}

void WaveTracer::open() {
  fst_->open(fst_path_.c_str());
  if (!fst_->isOpen()) {
    closed_ = true;
    claim_.release();
    std::lock_guard lock(insn_names().mu);
    --insn_names().open_tracers;
    throw std::runtime_error("VTA_WAVE: cannot open " + fst_path_ + " for writing");
  }
}

WaveTracer::~WaveTracer() {
  try {
    close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vta tsim: %s\n", e.what());
  }
}

void WaveTracer::dump(uint64_t cycle, int phase) {
  if (closed_) return;  // closed early (an interrupted run): the file is complete up to there
  if (cycle >= options_.start && cycle < options_.stop) {
    const uint64_t time = cycle * period_ + uint64_t(phase) * (period_ / 2);
    fst_->dump(time);
    first_time_ = std::min(first_time_, time);
    last_time_ = time;
  }
}

void WaveTracer::close() {
  if (closed_) return;
  closed_ = true;
  fst_->close();
  struct Release {
    PathClaim& claim;
    ~Release() {
      claim.release();  // once the file (and its conversion) is complete
      auto& n = insn_names();
      std::lock_guard lock(n.mu);
      if (--n.open_tracers == 0) n.names.clear();
    }
  } release{claim_};
  write_view();  // the window dumped and the instructions run
  if (!fst_partial_) return;
  // the VCD is written beside its name and renamed when whole: an interrupt during the conversion
  // leaves no VCD (and no FST: both partial files are removed, vta/driver/file.h)
  PartialFile vcd(options_.path);
  const int rc = run_program({"fst2vcd", "-o", vcd.partial_path().string(), fst_path_});
  if (rc != 0) {
    fst_partial_->commit();
    throw std::runtime_error("VTA_WAVE: converting " + fst_partial_->path().string() +
                             " to VCD with fst2vcd failed (exit " + std::to_string(rc) +
                             "; fst2vcd comes with Debian's gtkwave package; the FST is kept)");
  }
  vcd.commit();
  fst_partial_.reset();  // (removes the FST)
}

}  // namespace vta::tsim
