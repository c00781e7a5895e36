#include "wave.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <verilated_fst_c.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace vta::tsim {
namespace {

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
  auto add = [&](const std::string& group, const std::string& name, int64_t width) {
    s.push_back({group, vec(name, width)});
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
  add("fetch", core + "fetched", ins);
  add("load", core + "u_load.state_q", 2);
  add("load", core + "ld_insn", ins);
  add("load", core + "ld_q_rvalid", 1);
  add("load", core + "ld_q_rready", 1);
  add("compute", core + "u_compute.state_q", 2);
  add("compute", core + "u_compute.unit_q", 3);
  add("compute", core + "co_insn", ins);
  add("compute", core + "co_q_rvalid", 1);
  add("compute", core + "co_q_rready", 1);
  add("compute", core + "gemm_uop", 1);
  add("compute", core + "alu_uop", 1);
  add("store", core + "u_store.state_q", 2);
  add("store", core + "st_insn", ins);
  add("store", core + "st_q_rvalid", 1);
  add("store", core + "st_q_rready", 1);
  for (const char* q : {"l2g", "g2l", "g2s", "s2g"}) {
    add("tokens", core + "u_" + q + ".count_q", 8);
  }
  for (const char* sig : {"arvalid_o", "arready_i"}) add("axi read", top + "m_axi_" + sig, 1);
  add("axi read", top + "m_axi_arid_o", 4);
  add("axi read", top + "m_axi_araddr_o", 32);
  add("axi read", top + "m_axi_arlen_o", 8);
  for (const char* sig : {"rvalid_i", "rready_o", "rlast_i"}) add("axi read", top + "m_axi_" + sig, 1);
  add("axi read", top + "m_axi_rid_i", 4);
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
  const std::pair<std::string, int64_t> rams[] = {{"u_load.u_inp_ram", inp},
                                                  {"u_load.u_wgt_ram", wgt},
                                                  {"u_compute.u_uop_ram", uop},
                                                  {"u_compute.u_acc_ram", acc},
                                                  {"u_compute.u_out_ram", acc}};
  for (const auto& [ram, depth] : rams) {
    add("sram ports", core + ram + ".we_i", 1);
    add("sram ports", core + ram + ".waddr_i", depth);
    add("sram ports", core + ram + ".re_i", 1);
    add("sram ports", core + ram + ".raddr_i", depth);
  }
  return s;
}

std::string gtkw_text(const Config& config, const std::string& dump_path) {
  std::ostringstream o;
  o << "[*] GTKWave save file written by the VTA tsim: gtkwave " << dump_path << " <this file>\n"
    << "[dumpfile] \"" << std::filesystem::absolute(dump_path).string() << "\"\n"
    << "[timestart] 0\n"
    << "[signals_width] 320\n"
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
    // hex for vectors, binary for single bits
    o << (sig.name.back() == ']' ? "@22\n" : "@28\n") << sig.name << "\n";
  }
  close_group();
  return o.str();
}

WaveTracer::WaveTracer(const WaveOptions& options, const Config& config)
    : options_(options), fst_(std::make_unique<VerilatedFstC>()) {
  if (options_.path.empty()) throw std::invalid_argument("VTA_WAVE: empty file name");
  const bool vcd = ends_with(options_.path, ".vcd");
  if (!vcd && !ends_with(options_.path, ".fst")) {
    throw std::invalid_argument("VTA_WAVE: \"" + options_.path + "\" must end in .fst or .vcd");
  }
  if (options_.start >= options_.stop) {
    throw std::invalid_argument("VTA_WAVE_START (" + std::to_string(options_.start) +
                                ") must be below VTA_WAVE_STOP (" + std::to_string(options_.stop) + ")");
  }
  if (options_.depth != 0) {
    // Verilator 5.006 crashes when an FST dump is limited at run time (dumpvars); the depth is a
    // build option instead.
    throw std::invalid_argument(
        "VTA_WAVE_DEPTH: the dump depth is chosen when the tsim is built (cmake "
        "-DVTA_TSIM_TRACE_DEPTH=<levels>); this build dumps " +
        std::string(VTA_TSIM_TRACE_DEPTH == 0 ? "every level" : std::to_string(VTA_TSIM_TRACE_DEPTH) + " levels"));
  }
  // a second simulator (another thread's device) asking for the same file writes run.1.fst, ...
  claim_ = PathClaim(options_.path, PathClaim::Suffix::kBeforeExtension);
  options_.path = claim_.path();
  fst_path_ = vcd ? options_.path + ".tmp.fst" : options_.path;
  std::filesystem::path p(options_.path);
  std::ofstream gtkw(p.replace_extension(".gtkw"));
  if (!gtkw) throw std::runtime_error("VTA_WAVE: cannot write " + p.string());
  gtkw << gtkw_text(config, options_.path);
}

void WaveTracer::open() {
  fst_->open(fst_path_.c_str());
  if (!fst_->isOpen()) {
    closed_ = true;
    claim_.release();
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
  if (cycle >= options_.start && cycle < options_.stop) fst_->dump(2 * cycle + uint64_t(phase));
}

void WaveTracer::close() {
  if (closed_) return;
  closed_ = true;
  fst_->close();
  struct Release {
    PathClaim& claim;
    ~Release() { claim.release(); }  // once the file (and its conversion) is complete
  } release{claim_};
  if (fst_path_ == options_.path) return;
  const int rc = run_program({"fst2vcd", "-o", options_.path, fst_path_});
  if (rc != 0) {
    throw std::runtime_error("VTA_WAVE: converting " + fst_path_ + " to VCD with fst2vcd failed (exit " +
                             std::to_string(rc) + "; fst2vcd comes with Debian's gtkwave package; the FST is kept)");
  }
  std::filesystem::remove(fst_path_);
}

}  // namespace vta::tsim
