#include "vta/network/resnet18.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string_view>

#include "join.h"
#include "vta/driver/file.h"
#include "vta/driver/json_field.h"
#include "vta/network/npy.h"
#include "vta/network/reference.h"

namespace vta::network {
namespace {

// int8 weights, roughly normal (sigma ~37): the sum of the four 7-bit fields of one draw, so that the
// values depend only on mt19937 (whose output the standard fixes), not on the library's distributions.
std::vector<int8_t> generated_values(std::mt19937& rng, int64_t count) {
  std::vector<int8_t> v(static_cast<size_t>(count));
  for (auto& x : v) {
    const uint32_t r = rng();
    int sum = 0;
    for (int i = 0; i < 4; ++i) sum += int((r >> (8 * i)) & 127u) - 64;
    x = static_cast<int8_t>(sum / 2);
  }
  return v;
}

// The operators from the kShr at `i` to the clip that bounds its values (through adds and relus),
// or empty when its values reach no clip.
std::vector<size_t> clip_chain(const Graph& g, size_t i) {
  const auto& ops = g.ops();
  std::vector<size_t> chain;
  std::string current = ops[i].output;
  for (size_t k = i + 1; k < ops.size(); ++k) {
    const Op& op = ops[k];
    if (std::find(op.inputs.begin(), op.inputs.end(), current) == op.inputs.end()) continue;
    if (op.kind == OpKind::kAdd || op.kind == OpKind::kRelu) {
      chain.push_back(k);
      current = op.output;
    } else if (op.kind == OpKind::kClip) {
      chain.push_back(k);
      return chain;
    } else {
      break;
    }
  }
  return {};
}

struct ChainResult {
  int64_t clipped = 0, zero = 0, total = 0;
};

// Applies a shift and its chain on the side (the values of the graph stay as they are).
ChainResult run_chain(const Graph& g, const Values& v, size_t i, const std::vector<size_t>& chain, int shift) {
  Op shr = g.ops()[i];
  shr.shift = shift;
  Values local;
  local[shr.output] = reference_op(g, shr, v);
  for (size_t n = 0; n + 1 < chain.size(); ++n) {
    const Op& op = g.ops()[chain[n]];
    Values in;
    for (const auto& t : op.inputs) {
      if (!local.count(t) && !v.count(t)) {
        throw GraphError(g.name() + ": calibrating " + shr.name + ": " + op.name + " reads " + t +
                         ", which is computed later (define it before the shift)");
      }
      in[t] = local.count(t) ? local[t] : v.at(t);
    }
    local[op.output] = reference_op(g, op, in);
  }
  const Op& clip = g.ops()[chain.back()];
  const std::vector<int32_t>& x = local[clip.inputs[0]];
  ChainResult r;
  r.total = int64_t(x.size());
  for (const int32_t e : x) {
    // saturation: above the top, or below a negative bottom (a bottom of 0 is the ReLU, not a loss)
    r.clipped += e > clip.hi || (clip.lo < 0 && e < clip.lo);
    r.zero += std::clamp(e, clip.lo, clip.hi) == 0;
  }
  return r;
}

ShiftReport report(const Op& shr, const ChainResult& r) {
  const double total = double(std::max<int64_t>(r.total, 1));
  return {shr.name, shr.shift, double(r.clipped) / total, double(r.zero) / total};
}

[[noreturn]] void refuse(std::initializer_list<std::string_view> parts) {
  std::string message;
  for (const auto part : parts) message.append(part);
  throw GraphError(message);
}

bool plain_file_name(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos && s.find('\0') == std::string::npos;
}

}  // namespace

Graph resnet18(const ResNet18Options& o) {
  auto bound = [](const char* what, int64_t v, int64_t lo, int64_t hi) {
    if (v < lo || v > hi) {
      throw GraphError("resnet18: " + std::string(what) + " " + std::to_string(v) + " is out of range (" +
                       std::to_string(lo) + " to " + std::to_string(hi) + ")");
    }
  };
  bound("image", o.image, kMinResNetImage, kMaxResNetImage);
  if (o.image % 32 != 0)
    throw GraphError("resnet18: the image size must be a multiple of 32, not " + std::to_string(o.image));
  bound("classes", o.classes, 1, kMaxResNetClasses);
  bound("batch", o.batch, 1, kMaxResNetBatch);
  bound("width", o.width, 1, kMaxResNetWidth);
  Graph g("resnet18");
  std::mt19937 rng(o.seed);
  auto weight = [&](const std::string& name, std::vector<int64_t> shape) {
    int64_t n = 1;
    for (const int64_t d : shape) n *= d;
    return g.constant(name, std::move(shape), generated_values(rng, n));
  };
  std::string x = g.input("data", {o.batch, 3, o.image, o.image});
  x = g.conv2d("conv1", x, weight("conv1.weight", {o.width, 3, 7, 7}), 2, 3);
  x = g.requantize("conv1.q", x, 0, true);
  x = g.max_pool("maxpool", x, 3, 2, 1);
  int64_t in = o.width;
  for (int stage = 1; stage <= 4; ++stage) {
    const int64_t out = o.width << (stage - 1);
    for (int block = 0; block < 2; ++block) {
      const int stride = stage > 1 && block == 0 ? 2 : 1;
      std::string p = "layer";
      p.append(std::to_string(stage)).append(".").append(std::to_string(block));
      auto n = [&p](const char* suffix) { return std::string(p).append(suffix); };
      // the shortcut first: every value a shift's calibration needs (the residual) exists before it
      std::string shortcut = x;
      if (stride != 1 || in != out) {
        shortcut = g.conv2d(n(".downsample"), x, weight(n(".downsample.weight"), {out, in, 1, 1}), stride, 0);
        shortcut = g.requantize(n(".downsample.q"), shortcut, 0, false);
      }
      std::string a = g.conv2d(n(".conv1"), x, weight(n(".conv1.weight"), {out, in, 3, 3}), stride, 1);
      a = g.requantize(n(".conv1.q"), a, 0, true);
      a = g.conv2d(n(".conv2"), a, weight(n(".conv2.weight"), {out, out, 3, 3}), 1, 1);
      a = g.shr(n(".conv2.shr"), a, 0);
      a = g.add(n(".add"), a, shortcut);
      a = g.clip(n(".clip"), a, 0, 127);  // the block's ReLU and the int8 bound
      x = g.cast(p, a);
      in = out;
    }
  }
  x = g.global_avg_pool("avgpool", x);
  x = g.requantize("avgpool.q", x, 0, true);
  x = g.dense("fc", x, weight("fc.weight", {o.classes, in}));
  g.set_output(x);
  for (Op& op : g.mutable_ops()) {
    const bool vta = op.name.starts_with("layer") || (o.max_pool_on_vta && op.name == "maxpool");
    op.placement = vta ? Placement::kVta : Placement::kHost;
  }
  return g;
}

std::vector<int8_t> generated_input(const Graph& g, uint32_t seed) {
  std::mt19937 rng(seed ^ 0x5eedu);
  std::vector<int8_t> v(size_t(g.tensor(g.input_name()).elements()));
  for (auto& x : v) x = static_cast<int8_t>(int(rng() & 255u) - 128);
  return v;
}

std::vector<ShiftReport> calibrate_shifts(Graph& g, const std::vector<int8_t>& input, double max_clipped) {
  std::vector<ShiftReport> reports;
  Values v;
  v[g.input_name()] = checked_input(g, input);
  auto& ops = g.mutable_ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == OpKind::kShr) {
      const std::vector<size_t> chain = clip_chain(g, i);
      if (!chain.empty()) {
        // the clipped fraction falls as the shift grows: the smallest shift within the bound
        int lo = 0, hi = 31;
        while (lo < hi) {
          const int mid = (lo + hi) / 2;
          const ChainResult r = run_chain(g, v, i, chain, mid);
          if (double(r.clipped) <= max_clipped * double(r.total)) {
            hi = mid;
          } else {
            lo = mid + 1;
          }
        }
        ops[i].shift = lo;
        reports.push_back(report(ops[i], run_chain(g, v, i, chain, lo)));
      }
    }
    v[ops[i].output] = reference_op(g, ops[i], v);
  }
  return reports;
}

std::vector<ShiftReport> shift_reports(const Graph& g, const std::vector<int8_t>& input) {
  const Values v = run_reference(g, input);
  std::vector<ShiftReport> reports;
  for (size_t i = 0; i < g.ops().size(); ++i) {
    if (g.ops()[i].kind != OpKind::kShr) continue;
    const std::vector<size_t> chain = clip_chain(g, i);
    if (!chain.empty()) reports.push_back(report(g.ops()[i], run_chain(g, v, i, chain, g.ops()[i].shift)));
  }
  return reports;
}

void save_weights(const Graph& g, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  nlohmann::json tensors = nlohmann::json::array();
  for (const std::string& name : g.weight_names()) {
    const TensorDesc& d = g.tensor(name);
    const std::string file = name + ".npy";
    write_npy(dir / file, d.shape, g.weight(name));
    tensors.push_back({{"name", name}, {"file", file}, {"shape", d.shape}, {"dtype", "int8"}});
  }
  nlohmann::json shifts = nlohmann::json::object();
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kShr) shifts[op.name] = op.shift;
  }
  const nlohmann::json manifest = {
      {"format", "vta-network-weights/1"}, {"network", g.name()}, {"tensors", tensors}, {"shifts", shifts}};
  std::ofstream out(dir / "manifest.json", std::ios::trunc);
  out << manifest.dump(2) << "\n";
  out.close();
  if (!out) throw GraphError("cannot write " + (dir / "manifest.json").string());
}

// a manifest lists names, files, shapes and shifts: a few kilobytes
constexpr uint64_t kMaxManifestBytes = uint64_t{16} << 20;

namespace {
// Refuses any key of `object` not in `keys`, naming it (a manifest holds nothing else: a misspelt key
// would otherwise be ignored without a word).
void only_keys(const nlohmann::json& object, std::initializer_list<const char*> keys, const std::string& where) {
  for (const auto& item : object.items()) {
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return item.key() == k; })) {
      std::string known;
      for (const char* k : keys) known.append(known.empty() ? "" : ", ").append(k);
      throw GraphError(join({where, ": unknown key \"", item.key(), "\" (", known, ")"}));
    }
  }
}
}  // namespace

void load_weights(Graph& g, const std::filesystem::path& dir) {
  const auto path = dir / "manifest.json";
  const std::string text = read_file_as<GraphError>(path, kMaxManifestBytes);
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw GraphError(path.string() + ": not valid JSON: " + e.what());
  }
  const std::string where = path.string() + ": ";
  try {
    if (!m.is_object() || !m.contains("format") || !m.at("format").is_string() ||
        m.at("format") != "vta-network-weights/1") {
      throw GraphError(where + "\"format\" must be \"vta-network-weights/1\"");
    }
    if (const std::string network = json_field<std::string>(m, "network"); network != g.name()) {
      throw GraphError(where + "weights of network \"" + network + "\", not " + g.name());
    }
    if (!m.contains("tensors") || !m.at("tensors").is_array()) refuse({where, "\"tensors\" must be a list"});
    if (!m.contains("shifts") || !m.at("shifts").is_object()) {
      refuse({where, "\"shifts\" must be an object of operator names and shifts"});
    }
    only_keys(m, {"format", "network", "tensors", "shifts"}, where + "the manifest");
    // every weight of the graph, with its shape, and nothing else
    std::set<std::string> seen;
    for (const auto& t : m.at("tensors")) {
      if (!t.is_object()) refuse({where, "each of \"tensors\" must be an object, not ", t.dump()});
      const std::string name = json_field<std::string>(t, "name"), file = json_field<std::string>(t, "file");
      only_keys(t, {"name", "file", "shape", "dtype"}, join({where, "tensor ", name}));
      if (!t.contains("shape") || !t.at("shape").is_array() ||
          !std::all_of(t.at("shape").begin(), t.at("shape").end(),
                       [](const nlohmann::json& d) { return d.is_number_integer(); })) {
        refuse({where, "tensor ", name, ": \"shape\" must be a list of integers"});
      }
      if (!g.has_tensor(name) ||
          std::find(g.weight_names().begin(), g.weight_names().end(), name) == g.weight_names().end()) {
        refuse({where, "tensor ", name, " is not a weight of ", g.name()});
      }
      if (!seen.insert(name).second) refuse({where, "tensor ", name, " is listed twice"});
      if (!plain_file_name(file)) {
        refuse({where, "tensor ", name, ": file \"", file, "\" is not a plain file name in the folder"});
      }
      if (t.contains("dtype") && json_field<std::string>(t, "dtype") != "int8") {
        refuse({where, "tensor ", name, ": dtype must be int8"});
      }
      const NpyArray a = read_npy(dir / file);
      const TensorDesc& d = g.tensor(name);
      if (a.shape != d.shape || a.shape != t.at("shape").get<std::vector<int64_t>>()) {
        refuse({where, "tensor ", name, ": ", file, " does not have the shape ", g.name(), " needs"});
      }
      if (a.int32) refuse({where, "tensor ", name, ": ", file, " holds int32, weights are int8"});
      auto& w = g.mutable_weight(name);
      for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(a.values[i]);
    }
    for (const std::string& name : g.weight_names()) {
      if (!seen.count(name)) refuse({where, "weight ", name, " is missing"});
    }
    const auto& shifts = m.at("shifts");
    std::set<std::string> shift_ops;
    for (Op& op : g.mutable_ops()) {
      if (op.kind != OpKind::kShr) continue;
      shift_ops.insert(op.name);
      if (!shifts.contains(op.name)) refuse({where, "shift ", op.name, " is missing"});
      // an integer, checked before it is narrowed (1.5 or 2^63 is not a shift)
      const int shift = json_field<int>(shifts, op.name.c_str());
      if (shift < 0 || shift > 31) refuse({where, "shift ", op.name, " = ", std::to_string(shift), " is not 0 to 31"});
      op.shift = shift;
    }
    for (const auto& [name, value] : shifts.items()) {
      if (!shift_ops.count(name)) refuse({where, "shift ", name, " is not an operator of ", g.name()});
    }
  } catch (const nlohmann::json::exception& e) {
    throw GraphError(where + e.what());
  } catch (const std::invalid_argument& e) {  // a field of the wrong type or range, by name
    throw GraphError(where + e.what());
  }
}

}  // namespace vta::network
