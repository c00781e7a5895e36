#include "vta/driver/timeline.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <deque>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "vta/driver/compute_issue.h"
#include "vta/driver/format.h"
#include "vta/driver/program.h"

namespace vta {
namespace {
using json = nlohmann::json;
}  // namespace

const char* to_string(Activity a) {
  switch (a) {
    case Activity::kBusy: return "busy";
    case Activity::kToken: return "token";
    case Activity::kMemory: return "memory";
  }
  return "?";
}

uint64_t Timeline::total(int lane, Activity a) const {
  // the cycles covered (a two-instruction compute stage's intervals overlap: a cycle counts once)
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& i : intervals) {
    if (i.lane == lane && i.activity == a && i.end > i.begin) spans.emplace_back(i.begin, i.end);
  }
  std::sort(spans.begin(), spans.end());
  uint64_t n = 0, covered_to = 0;
  for (const auto& [begin, end] : spans) {
    const uint64_t from = std::max(begin, covered_to);
    if (end > from) n += end - from;
    covered_to = std::max(covered_to, end);
  }
  return n;
}

std::vector<std::string> instruction_names(const Isa& isa, const std::vector<RawInsn>& insns) {
  std::vector<std::string> names;
  names.reserve(insns.size());
  for (const RawInsn& raw : insns) {
    const uint8_t op = Isa::opcode_of(raw);
    if (!is_valid_opcode(op)) {
      names.emplace_back("ILLEGAL");
    } else if (op == uint8_t(Opcode::kLoad) || op == uint8_t(Opcode::kStore)) {
      const MemInsn m = isa.decode_mem(raw);
      std::string name = to_string(Opcode(op));
      if (op == uint8_t(Opcode::kLoad)) {
        name += std::string(" ") + (is_valid_mem_id(m.memory_type) ? to_string(MemId(m.memory_type)) : "?");
      }
      names.push_back(m.x_size == 0 ? name + " (nop)" : name);
    } else if (op == uint8_t(Opcode::kAlu)) {
      const AluInsn a = isa.decode_alu(raw);
      names.push_back(std::string("ALU ") + (is_valid_alu_op(a.alu_opcode) ? to_string(AluOp(a.alu_opcode)) : "?"));
    } else {
      names.emplace_back(to_string(Opcode(op)));
    }
  }
  return names;
}

std::string Timeline::to_trace_json() const {
  json events = json::array();
  // one track per stage, and one for a two-instruction compute stage's second slot, below compute's
  const int second_slot = kLanes;
  auto track = [&](int tid, const std::string& name, int sort) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", name}}}});
    events.push_back(
        {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"sort_index", sort}}}});
  };
  for (int lane = 0; lane < kLanes; ++lane) track(lane, to_string(kStageOrder[lane]), 2 * lane);
  if (std::any_of(intervals.begin(), intervals.end(), [](const auto& i) { return i.slot != 0; })) {
    track(second_slot, "compute (beside the GEMMs)", 3);
  }
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", title.empty() ? "vta" : title}}}});
  const double us = ns_per_cycle / 1000.0;
  for (const auto& i : intervals) {
    const std::string insn = i.insn >= 0 && size_t(i.insn) < insn_names.size()
                                 ? insn_names[size_t(i.insn)] + " #" + std::to_string(i.insn)
                                 : std::string("?");
    std::string name = i.activity == Activity::kBusy    ? insn
                       : i.activity == Activity::kToken ? "wait token (" + insn + ")"
                                                        : "wait memory (" + insn + ")";
    events.push_back({{"name", std::move(name)},
                      {"cat", to_string(i.activity)},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", i.slot != 0 ? second_slot : i.lane},
                      {"ts", double(i.begin) * us},
                      {"dur", double(i.end - i.begin) * us},
                      {"args", {{"insn", i.insn}, {"cycles", i.end - i.begin}, {"first_cycle", i.begin}}}});
  }
  json doc = {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ns"},
      {"otherData", {{"title", title}, {"cycles", cycles}, {"ns_per_cycle", ns_per_cycle}, {"estimated", estimated}}}};
  return doc.dump();
}

uint64_t alu_cycles(const AluInsn& a) {
  const uint64_t uops = a.uop_end - std::min(a.uop_bgn, a.uop_end), iterations = uops * a.iter_out * a.iter_in;
  if (a.use_imm || iterations == 0) return iterations;
  if (uops > 1) return 2 * iterations;
  // one micro-op: a read first, then one wherever the source offset moves (within a row, or from a
  // row's last iteration to the next row's first)
  uint64_t reads = 1;
  if (a.src_factor_in != 0) reads += uint64_t(a.iter_out) * (a.iter_in - 1);
  if (int64_t(a.src_factor_out) != int64_t(a.src_factor_in) * (a.iter_in - 1)) reads += a.iter_out - 1;
  return iterations + reads;
}

std::map<size_t, std::vector<uint32_t>> read_uop_loads(
    const Isa& isa, const std::vector<RawInsn>& insns,
    const std::function<const uint8_t*(uint64_t addr, size_t bytes)>& read) {
  std::map<size_t, std::vector<uint32_t>> loads;
  for (size_t i = 0; i < insns.size(); ++i) {
    if (Isa::opcode_of(insns[i]) != uint8_t(Opcode::kLoad)) continue;
    const MemInsn m = isa.decode_mem(insns[i]);
    if (m.memory_type != uint8_t(MemId::kUop) || m.x_size == 0) continue;
    const uint32_t cols = m.x_pad_0 + m.x_size + m.x_pad_1;
    const uint64_t n = uint64_t(cols) * (m.y_pad_0 + m.y_size + m.y_pad_1);
    if (n > sram_depth(isa.config(), MemId::kUop)) continue;  // past the buffer: the run stops there
    std::vector<uint32_t> words(n, 0);
    bool known = true;
    for (uint32_t r = 0; r < m.y_size && known; ++r) {
      const uint64_t at = (uint64_t(m.dram_base) + uint64_t(r) * m.x_stride) * Config::kUopElemBytes;
      const uint8_t* row = read(at, size_t(m.x_size) * Config::kUopElemBytes);
      if (row == nullptr)
        known = false;
      else
        std::memcpy(&words[size_t(m.y_pad_0 + r) * cols + m.x_pad_0], row, size_t(m.x_size) * Config::kUopElemBytes);
    }
    if (known) loads.emplace(i, std::move(words));
  }
  return loads;
}

Timeline estimate_timeline(const Isa& isa, const std::vector<RawInsn>& insns, const TokenCounts& tokens,
                           const EstimateOptions& options) {
  if (options.compute_issue != 1 && options.compute_issue != 2) {
    throw std::invalid_argument("estimate_timeline: compute_issue is " + std::to_string(options.compute_issue) +
                                " (1: one instruction at a time, 2: two, vta/driver/compute_issue.h)");
  }
  const Config& c = isa.config();
  Timeline t;
  t.estimated = true;
  t.ns_per_cycle = c.clock_period_ns();
  t.insn_names = instruction_names(isa, insns);
  auto lane_of = [](Stage s) { return s == Stage::kLoad ? 0 : s == Stage::kCompute ? 1 : 2; };
  std::array<std::deque<size_t>, Timeline::kLanes> queue;
  for (size_t i = 0; i < insns.size(); ++i) queue[size_t(lane_of(stage_of(insns[i])))].push_back(i);
  // the bus beats of a load or store (0: none)
  auto beats = [&](const RawInsn& raw) -> uint64_t {
    const uint8_t op = Isa::opcode_of(raw);
    if (op != uint8_t(Opcode::kLoad) && op != uint8_t(Opcode::kStore)) return 0;
    const MemInsn m = isa.decode_mem(raw);
    if (m.x_size == 0 || !is_valid_mem_id(m.memory_type)) return 0;
    const uint64_t bytes = uint64_t(m.y_size) * m.x_size * dram_unit(c, MemId(m.memory_type));
    const uint64_t bus = uint64_t(c.bus_width()) / 8;
    return (bytes + bus - 1) / bus;
  };
  auto cost = [&](const RawInsn& raw) -> uint64_t {
    const uint8_t op = Isa::opcode_of(raw);
    if (op == uint8_t(Opcode::kLoad) || op == uint8_t(Opcode::kStore)) {
      const uint64_t n = beats(raw);
      return n == 0 ? 1 : n + (op == uint8_t(Opcode::kLoad) ? 32 : 16);
    }
    if (op == uint8_t(Opcode::kGemm)) {
      const GemmInsn g = isa.decode_gemm(raw);
      return std::max<uint64_t>(1, uint64_t(g.uop_end - std::min(g.uop_bgn, g.uop_end)) * g.iter_out * g.iter_in);
    }
    if (op == uint8_t(Opcode::kAlu)) return std::max<uint64_t>(1, alu_cycles(isa.decode_alu(raw)));
    return 1;
  };
  // push times of each token queue, and how many each queue has had popped
  std::array<std::vector<uint64_t>, 4> pushes;
  std::array<size_t, 4> popped{};
  for (const TokenQueue q : {TokenQueue::kL2G, TokenQueue::kG2L, TokenQueue::kG2S, TokenQueue::kS2G}) {
    pushes[size_t(q)].assign(tokens[q], 0);  // there from the start
  }
  std::array<uint64_t, Timeline::kLanes> free_at{};
  // compute_issue 2 (vta/driver/compute_issue.h): the slots G and A, each busy until its instruction
  // completes (a younger instruction's completion held until the older's), with that instruction's
  // footprint; instructions leave the queue in order (issue times never decrease)
  const bool dual = options.compute_issue == 2;
  constexpr int kComputeLane = 1;
  struct Slot {
    uint64_t busy_until = 0;
    ComputeFootprint footprint;
  };
  std::array<Slot, 2> slots{};
  uint64_t last_issue = 0;
  UopLoadTable uop_table;
  auto slot_index = [](ComputeFootprint::Slot s) { return s == ComputeFootprint::Slot::kG ? 0 : 1; };
  // the earliest cycle the compute stage's head may start at, its tokens there from `ready`
  auto dual_start = [&](const ComputeFootprint& f, uint64_t ready) {
    uint64_t start = std::max(ready, last_issue);
    if (f.slot == ComputeFootprint::Slot::kAlone) return std::max({start, slots[0].busy_until, slots[1].busy_until});
    const Slot& own = slots[size_t(slot_index(f.slot))];
    const Slot& other = slots[size_t(1 - slot_index(f.slot))];
    start = std::max(start, own.busy_until);
    if (other.busy_until > start && !independent(c, f, other.footprint, options.banks)) start = other.busy_until;
    return start;
  };
  // loads of both stages share the memory's read channel: a load's beats start when the previous
  // load's have passed (the memory engine serves one load at a time)
  uint64_t read_free_at = 0;
  for (;;) {
    // the footprint of the compute stage's head (vta/driver/compute_issue.h), once per step: the same for
    // its start below and, when it is the one that starts, for its slot
    ComputeFootprint head;
    if (dual && !queue[size_t(kComputeLane)].empty()) {
      head = compute_footprint(isa, insns[queue[size_t(kComputeLane)].front()], uop_table);
    }
    int best = -1;
    uint64_t best_start = UINT64_MAX;
    for (int lane = 0; lane < Timeline::kLanes; ++lane) {
      if (queue[size_t(lane)].empty()) continue;
      const RawInsn raw = insns[queue[size_t(lane)].front()];
      const Stage stage = stage_of(raw);
      const DepFlags deps = Isa::deps_of(raw);
      // (the dual compute stage's slots decide its start below, from its tokens' times)
      uint64_t start = dual && lane == kComputeLane ? 0 : free_at[size_t(lane)];
      bool ready = true;
      for (DepFlag f : {DepFlag::kPopPrev, DepFlag::kPopNext}) {
        if (!has(deps, f)) continue;
        const auto q = token_queue(stage, f);
        if (!q) continue;
        const auto& p = pushes[size_t(*q)];
        if (popped[size_t(*q)] >= p.size()) {
          ready = false;
          break;
        }
        start = std::max(start, p[popped[size_t(*q)]]);
      }
      if (ready && dual && lane == kComputeLane) start = dual_start(head, start);
      if (ready && start < best_start) best = lane, best_start = start;
    }
    if (best < 0) break;  // done, or a deadlock: nothing more can start
    const size_t idx = queue[size_t(best)].front();
    queue[size_t(best)].pop_front();
    const RawInsn raw = insns[idx];
    const Stage stage = stage_of(raw);
    const DepFlags deps = Isa::deps_of(raw);
    for (DepFlag f : {DepFlag::kPopPrev, DepFlag::kPopNext}) {
      if (const auto q = token_queue(stage, f); has(deps, f) && q) ++popped[size_t(*q)];
    }
    const bool dual_compute = dual && best == kComputeLane;
    // (the second slot's intervals on a track of their own)
    const uint8_t slot_track = dual_compute && head.slot == ComputeFootprint::Slot::kA ? 1 : 0;
    if (best_start > free_at[size_t(best)] && !dual_compute) {
      t.intervals.push_back({best, Activity::kToken, free_at[size_t(best)], best_start, long(idx)});
    }
    if (Isa::opcode_of(raw) == uint8_t(Opcode::kLoad) && beats(raw) > 0) {
      if (read_free_at > best_start) {
        t.intervals.push_back({best, Activity::kMemory, best_start, read_free_at, long(idx), slot_track});
        best_start = read_free_at;
      }
      read_free_at = best_start + beats(raw);
    }
    uint64_t end = best_start + cost(raw);
    t.intervals.push_back({best, Activity::kBusy, best_start, end, long(idx), slot_track});
    if (dual_compute) {
      const ComputeFootprint& f = head;
      if (f.slot == ComputeFootprint::Slot::kAlone) {
        slots[0].busy_until = slots[1].busy_until = end;
        slots[0].footprint = slots[1].footprint = f;
      } else {
        // one that pushes tokens completes after the older one (rule 2)
        const uint64_t older = slots[size_t(1 - slot_index(f.slot))].busy_until;
        if (older > best_start && (has(deps, DepFlag::kPushPrev) || has(deps, DepFlag::kPushNext))) {
          end = std::max(end, older);
        }
        slots[size_t(slot_index(f.slot))] = {end, f};
      }
      last_issue = best_start;
      if (Isa::opcode_of(raw) == uint8_t(Opcode::kLoad)) {
        const MemInsn m = isa.decode_mem(raw);
        if (m.memory_type == uint8_t(MemId::kUop) && m.x_size > 0) {
          if (options.uop_loads != nullptr && options.uop_loads->count(idx) != 0) {
            uop_table.on_load(isa, m.sram_base, options.uop_loads->at(idx));
          } else {
            uop_table.invalidate(f.uops.lo, f.uops.hi + 1);  // the micro-ops it writes (its footprint)
          }
        }
      }
    }
    free_at[size_t(best)] = std::max(free_at[size_t(best)], end);
    for (DepFlag f : {DepFlag::kPushPrev, DepFlag::kPushNext}) {
      if (const auto q = token_queue(stage, f); has(deps, f) && q) pushes[size_t(*q)].push_back(end);
    }
    t.cycles = std::max(t.cycles, end);
  }
  std::sort(t.intervals.begin(), t.intervals.end(),
            [](const auto& a, const auto& b) { return a.lane != b.lane ? a.lane < b.lane : a.begin < b.begin; });
  return t;
}

namespace {

// What a pixel column shows: the category with the most cycles in it.
enum Category : int { kIdle, kLoadBusy, kGemm, kAlu, kStoreBusy, kOther, kMemoryWait, kTokenWait, kCategories };
constexpr const char* kColor[kCategories] = {"none",    "#43a047", "#1e88e5", "#8e24aa",
                                             "#fb8c00", "#9e9e9e", "#fdd835", "#e53935"};
constexpr const char* kLabel[kCategories] = {
    "idle", "LOAD", "GEMM", "ALU", "STORE", "other", "waiting for memory", "waiting for a token"};

Category category(const Timeline& t, const TimelineInterval& i) {
  if (i.activity == Activity::kToken) return kTokenWait;
  if (i.activity == Activity::kMemory) return kMemoryWait;
  const std::string& n = i.insn >= 0 && size_t(i.insn) < t.insn_names.size() ? t.insn_names[size_t(i.insn)] : "";
  if (n.starts_with("LOAD")) return kLoadBusy;
  if (n.starts_with("GEMM")) return kGemm;
  if (n.starts_with("ALU")) return kAlu;
  if (n.starts_with("STORE")) return kStoreBusy;
  return kOther;
}

std::string escape(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '<')
      out += "&lt;";
    else if (ch == '>')
      out += "&gt;";
    else if (ch == '&')
      out += "&amp;";
    else
      out += ch;
  }
  return out;
}

}  // namespace

std::string timelines_to_svg(const std::vector<Timeline>& timelines, int width) {
  constexpr int kLeft = 80, kLaneH = 22, kGap = 4, kTitleH = 22, kBlockGap = 18, kAxisH = 30;
  // room right of the plot for each stage's totals (wider with the energy)
  const bool energy = std::any_of(timelines.begin(), timelines.end(), [](const Timeline& t) { return t.energy_pj; });
  const int kRight = energy ? 320 : 230;
  const int plot = std::max(100, width - kLeft - kRight);
  uint64_t longest = 1;
  for (const auto& t : timelines) longest = std::max(longest, t.cycles);
  const double cycles_per_px = double(longest) / plot;
  const int block_h = kTitleH + Timeline::kLanes * (kLaneH + kGap) + 16;
  const int height = kBlockGap + int(timelines.size()) * (block_h + kBlockGap) + kAxisH + 40;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  int y = kBlockGap;
  for (const auto& t : timelines) {
    s << "<text x=\"4\" y=\"" << y + 15 << "\" font-weight=\"bold\">" << escape(t.title)
      << (t.estimated ? " (estimated)" : "") << ": " << t.cycles << " cycles</text>\n";
    y += kTitleH;
    for (int lane = 0; lane < Timeline::kLanes; ++lane) {
      // cycles of each category in each pixel column
      std::vector<std::array<uint64_t, kCategories>> px(size_t(plot), std::array<uint64_t, kCategories>{});
      for (const auto& i : t.intervals) {
        if (i.lane != lane || i.end <= i.begin) continue;
        const Category cat = category(t, i);
        for (uint64_t c0 = i.begin; c0 < i.end;) {
          const auto col = std::min<size_t>(size_t(double(c0) / cycles_per_px), size_t(plot) - 1);
          const auto col_end = uint64_t(double(col + 1) * cycles_per_px) + 1;
          const uint64_t c1 = std::min(i.end, std::max(col_end, c0 + 1));
          px[col][size_t(cat)] += c1 - c0;
          c0 = c1;
        }
      }
      s << "<text x=\"4\" y=\"" << y + 15 << "\">" << to_string(kStageOrder[lane]) << "</text>\n";
      s << "<rect x=\"" << kLeft << "\" y=\"" << y << "\" width=\"" << double(t.cycles) / cycles_per_px
        << "\" height=\"" << kLaneH << "\" fill=\"#f5f5f5\"/>\n";
      int run_start = 0, run_cat = -1;
      auto flush = [&](int end_col) {
        if (run_cat > 0) {
          s << "<rect x=\"" << kLeft + run_start << "\" y=\"" << y << "\" width=\"" << end_col - run_start
            << "\" height=\"" << kLaneH << "\" fill=\"" << kColor[run_cat] << "\"/>\n";
        }
      };
      for (int col = 0; col < plot; ++col) {
        const auto& p = px[size_t(col)];
        int best = kIdle;
        uint64_t most = 0;
        for (int k = 1; k < kCategories; ++k) {
          if (p[size_t(k)] > most) best = k, most = p[size_t(k)];
        }
        if (best != run_cat) {
          flush(col);
          run_start = col, run_cat = best;
        }
      }
      flush(plot);
      const double busy = 100.0 * double(t.total(lane, Activity::kBusy)) / double(std::max<uint64_t>(t.cycles, 1));
      const double token = 100.0 * double(t.total(lane, Activity::kToken)) / double(std::max<uint64_t>(t.cycles, 1));
      const double mem = 100.0 * double(t.total(lane, Activity::kMemory)) / double(std::max<uint64_t>(t.cycles, 1));
      std::string stats = format("busy %.0f%%, memory %.0f%%, token %.0f%%", busy, mem, token);
      if (t.energy_pj) stats += format("; %.3f uJ", (*t.energy_pj)[size_t(lane)] * 1e-6);
      s << "<title>" << stats << "</title>\n";
      s << "<text x=\"" << kLeft + plot + 8 << "\" y=\"" << y + 15 << "\" font-size=\"11\">" << stats << "</text>\n";
      y += kLaneH + kGap;
    }
    y += 16 + kBlockGap;
  }
  // time axis
  s << "<line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << kLeft + plot << "\" y2=\"" << y
    << "\" stroke=\"black\"/>\n";
  for (int k = 0; k <= 10; ++k) {
    const int x = kLeft + plot * k / 10;
    s << "<line x1=\"" << x << "\" y1=\"" << y << "\" x2=\"" << x << "\" y2=\"" << y + 5 << "\" stroke=\"black\"/>\n"
      << "<text x=\"" << x << "\" y=\"" << y + 18 << "\" text-anchor=\"middle\" font-size=\"10\">"
      << uint64_t(double(longest) * k / 10) << "</text>\n";
  }
  s << "<text x=\"" << kLeft + plot << "\" y=\"" << y + 30 << "\" text-anchor=\"end\" font-size=\"10\">cycles</text>\n";
  // legend
  int x = kLeft;
  const int ly = y + 40;
  for (int k = 1; k < kCategories; ++k) {
    s << "<rect x=\"" << x << "\" y=\"" << ly - 10 << "\" width=\"12\" height=\"12\" fill=\"" << kColor[k] << "\"/>"
      << "<text x=\"" << x + 16 << "\" y=\"" << ly << "\">" << kLabel[k] << "</text>\n";
    x += 24 + 8 * int(std::string_view(kLabel[k]).size());
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace vta
