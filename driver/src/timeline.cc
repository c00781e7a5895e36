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

void check_stage(const EstimateOptions& options, const std::string& who) {
  const bool issue = options.compute_issue >= 0 && options.compute_issue <= 2;
  // (a window above 1 with compute_issue 0 is checked against the configuration by estimate_timeline)
  if (!issue || options.window < 1 || options.window > 64 || (options.window > 1 && options.compute_issue == 1)) {
    throw std::invalid_argument(who + ": compute_issue " + std::to_string(options.compute_issue) +
                                " with a window of " + std::to_string(options.window) +
                                " (compute_issue 1: one instruction at a time, 2: two, vta/driver/compute_issue.h; "
                                "0: the configuration's; a window of 1 to 64, above 1 only with compute_issue 2)");
  }
}

Timeline estimate_timeline(const Isa& isa, const std::vector<RawInsn>& insns, const TokenCounts& tokens,
                           const EstimateOptions& options) {
  check_stage(options, "estimate_timeline");
  const Config& c = isa.config();
  if (options.window > 1 && options.issue(c) != 2) {
    throw std::invalid_argument("estimate_timeline: a window of " + std::to_string(options.window) +
                                " (above 1 only with compute_issue 2) on a configuration whose compute stage runs one "
                                "instruction at a time");
  }
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
  // the earliest cycle instruction i's popped tokens are all there (nothing when one is not pushed yet)
  auto tokens_at = [&](size_t i) -> std::optional<uint64_t> {
    const Stage stage = stage_of(insns[i]);
    const DepFlags deps = Isa::deps_of(insns[i]);
    uint64_t at = 0;
    for (DepFlag f : {DepFlag::kPopPrev, DepFlag::kPopNext}) {
      if (!has(deps, f)) continue;
      const auto q = token_queue(stage, f);
      if (!q) continue;
      const auto& p = pushes[size_t(*q)];
      if (popped[size_t(*q)] >= p.size()) return std::nullopt;
      at = std::max(at, p[popped[size_t(*q)]]);
    }
    return at;
  };

  // compute_issue 2 (vta/driver/compute_issue.h): the slots G and A, each busy until its instruction
  // ends, with that instruction's footprint; the footprints as dispatched in program order
  const bool dual = options.issue(c) == 2;
  const size_t window = options.window;
  constexpr int kComputeLane = 1;
  using Slot = ComputeFootprint::Slot;
  struct Running {
    uint64_t busy_until = 0;
    ComputeFootprint footprint;
  };
  std::array<Running, 2> slots{};
  uint64_t last_issue = 0;
  std::vector<ComputeFootprint> fps;
  if (dual) {
    fps = compute_footprints(isa, insns, [&](size_t i) -> const std::vector<uint32_t>* {
      if (options.uop_loads == nullptr) return nullptr;
      const auto it = options.uop_loads->find(i);
      return it == options.uop_loads->end() ? nullptr : &it->second;
    });
  }
  auto slot_index = [](Slot s) { return s == Slot::kG ? 0 : 1; };
  // the earliest cycle a compute instruction with footprint f may start at, its tokens there at `ready`
  auto dual_start = [&](const ComputeFootprint& f, uint64_t ready) {
    uint64_t start = std::max(ready, last_issue);
    if (f.slot == Slot::kAlone) return std::max({start, slots[0].busy_until, slots[1].busy_until});
    const Running& other = slots[size_t(1 - slot_index(f.slot))];
    start = std::max(start, slots[size_t(slot_index(f.slot))].busy_until);
    if (other.busy_until > start && !independent(c, f, other.footprint, options.banks)) start = other.busy_until;
    return start;
  };
  // rule 2: the position in the compute queue of the instruction that may start before the head (0: none)
  auto passer = [&]() -> size_t {
    const auto& q = queue[size_t(kComputeLane)];
    if (!dual || window <= 1 || q.empty()) return 0;
    const Slot head = fps[q.front()].slot;
    for (size_t k = 1; k < std::min(window, q.size()); ++k) {
      if (fps[q[k - 1]].slot == Slot::kAlone) return 0;
      const ComputeFootprint& f = fps[q[k]];
      if (f.slot == head) continue;
      for (size_t j = 0; j < k; ++j) {
        if (!independent(c, f, fps[q[j]], options.banks) || relies_on_pops(insns[q[k]], f, insns[q[j]])) return 0;
      }
      return k;
    }
    return 0;
  };
  // rule 3: the compute stage's pushes, each queue's in program order, released when their time is
  // known: a push to the load stage once its instruction started and every GEMM up to it ended; any
  // other once its instruction and every older one ended
  struct ComputeInsn {
    bool started = false;
    uint64_t start = 0, end = 0;
    uint64_t ends_to_here = 0;          // the latest end of it and every older one (once all started)
    size_t gemms_to_here = 0;           // GEMMs up to and including it
    std::array<size_t, 4> push_rank{};  // per queue: 1 + how many of the stage's pushes to it precede its own (0: none)
  };
  std::vector<ComputeInsn> program;
  std::vector<size_t> position(insns.size());
  std::array<std::vector<size_t>, 4> push_order;  // positions in `program` pushing to each queue
  std::array<size_t, 4> pushed{};
  std::vector<uint64_t> gemm_ends;  // in program order (G runs them in order)
  size_t all_started = 0;           // program[0, all_started) have started
  if (dual) {
    for (size_t i = 0; i < insns.size(); ++i) {
      if (stage_of(insns[i]) != Stage::kCompute) continue;
      const size_t gemms = (program.empty() ? 0 : program.back().gemms_to_here) +
                           (Isa::opcode_of(insns[i]) == uint8_t(Opcode::kGemm) ? 1 : 0);
      position[i] = program.size();
      ComputeInsn x{false, 0, 0, 0, gemms};
      for (DepFlag f : {DepFlag::kPushPrev, DepFlag::kPushNext}) {
        if (const auto q = token_queue(Stage::kCompute, f); has(Isa::deps_of(insns[i]), f) && q) {
          push_order[size_t(*q)].push_back(program.size());
          x.push_rank[size_t(*q)] = push_order[size_t(*q)].size();
        }
      }
      program.push_back(x);
    }
  }
  // rule 3: an instruction that pushes to a queue starts once the stage's previous push to it has left
  // (nothing when it has not been released yet)
  std::array<size_t, 4> initial_tokens{};
  for (size_t q = 0; q < pushes.size(); ++q) initial_tokens[q] = pushes[q].size();
  auto previous_pushes_left = [&](size_t i) -> std::optional<uint64_t> {
    uint64_t at = 0;
    const ComputeInsn& x = program[position[i]];
    for (size_t q = 0; q < pushes.size(); ++q) {
      if (x.push_rank[q] <= 1) continue;  // none, or the first
      const size_t previous = x.push_rank[q] - 2;
      if (pushed[q] <= previous) return std::nullopt;
      at = std::max(at, pushes[q][initial_tokens[q] + previous]);
    }
    return at;
  };
  auto release_pushes = [&] {
    for (size_t q = 0; q < push_order.size(); ++q) {
      for (; pushed[q] < push_order[q].size(); ++pushed[q]) {
        const ComputeInsn& x = program[push_order[q][pushed[q]]];
        if (q == size_t(TokenQueue::kG2L)) {
          if (!x.started || gemm_ends.size() < x.gemms_to_here) break;
          pushes[q].push_back(std::max(x.start, x.gemms_to_here == 0 ? 0 : gemm_ends[x.gemms_to_here - 1]));
        } else {
          if (push_order[q][pushed[q]] >= all_started) break;
          pushes[q].push_back(x.ends_to_here);
        }
      }
    }
  };

  // loads of both stages share the memory's read channel: a load's beats start when the previous
  // load's have passed (the memory engine serves one load at a time)
  uint64_t read_free_at = 0;
  for (;;) {
    int best = -1;
    size_t best_pos = 0;  // the compute queue's head, or the instruction passing it (rule 2)
    uint64_t best_start = UINT64_MAX;
    for (int lane = 0; lane < Timeline::kLanes; ++lane) {
      if (queue[size_t(lane)].empty()) continue;
      const bool dual_lane = dual && lane == kComputeLane;
      const size_t pass = dual_lane ? passer() : 0;
      for (const size_t pos : {size_t{0}, pass}) {
        const size_t i = queue[size_t(lane)][pos];
        std::optional<uint64_t> ready = tokens_at(i);
        if (ready && dual_lane) {
          const std::optional<uint64_t> left = previous_pushes_left(i);
          ready = left ? std::optional<uint64_t>(std::max(*ready, *left)) : std::nullopt;
        }
        if (!ready) continue;
        // (the dual compute stage's slots decide its start, from its tokens' times)
        const uint64_t start = dual_lane ? dual_start(fps[i], *ready) : std::max(*ready, free_at[size_t(lane)]);
        if (start < best_start) best = lane, best_start = start, best_pos = pos;
        if (pass == 0) break;
      }
    }
    if (best < 0) break;  // done, or a deadlock: nothing more can start
    auto& lane_queue = queue[size_t(best)];
    const size_t idx = lane_queue[best_pos];
    lane_queue.erase(lane_queue.begin() + std::ptrdiff_t(best_pos));
    const RawInsn raw = insns[idx];
    const Stage stage = stage_of(raw);
    const DepFlags deps = Isa::deps_of(raw);
    for (DepFlag f : {DepFlag::kPopPrev, DepFlag::kPopNext}) {
      if (const auto q = token_queue(stage, f); has(deps, f) && q) ++popped[size_t(*q)];
    }
    const bool dual_compute = dual && best == kComputeLane;
    // (the second slot's intervals on a track of their own)
    const uint8_t slot_track = dual_compute && fps[idx].slot == Slot::kA ? 1 : 0;
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
    const uint64_t end = best_start + cost(raw);
    t.intervals.push_back({best, Activity::kBusy, best_start, end, long(idx), slot_track});
    free_at[size_t(best)] = std::max(free_at[size_t(best)], end);
    t.cycles = std::max(t.cycles, end);
    if (!dual_compute) {
      for (DepFlag f : {DepFlag::kPushPrev, DepFlag::kPushNext}) {
        if (const auto q = token_queue(stage, f); has(deps, f) && q) pushes[size_t(*q)].push_back(end);
      }
      continue;
    }
    const ComputeFootprint& f = fps[idx];
    if (f.slot == Slot::kAlone) {
      slots[0] = slots[1] = {end, f};
    } else {
      slots[size_t(slot_index(f.slot))] = {end, f};
    }
    last_issue = best_start;
    ComputeInsn& x = program[position[idx]];
    x.started = true, x.start = best_start, x.end = end;
    if (Isa::opcode_of(raw) == uint8_t(Opcode::kGemm)) gemm_ends.push_back(end);
    for (; all_started < program.size() && program[all_started].started; ++all_started) {
      const uint64_t before = all_started == 0 ? 0 : program[all_started - 1].ends_to_here;
      program[all_started].ends_to_here = std::max(before, program[all_started].end);
    }
    release_pushes();
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
