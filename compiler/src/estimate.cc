#include "vta/compiler/estimate.h"

#include "vta/runtime/context.h"

namespace vta::compiler {

RecordingDevice::RecordingDevice(const Config& config, const Dram& dram, std::unique_ptr<Device> inner)
    : config_(config), dram_(dram), inner_(std::move(inner)) {}

RunStatus RecordingDevice::run(PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  error_.clear();
  const uint8_t* p = dram_.translate(insn_addr, size_t(count) * Config::kInsnElemBytes);
  if (p == nullptr) {
    error_ = "the instruction stream is outside memory";
    return RunStatus::kError;
  }
  std::vector<RawInsn>& stream = streams_.emplace_back();
  stream.reserve(count);
  for (uint32_t i = 0; i < count; ++i) stream.push_back(load_insn(p + size_t(i) * Config::kInsnElemBytes));
  if (keep_uop_loads_) {
    uop_loads_.push_back(read_uop_loads(Isa(config_), stream, [this](uint64_t addr, size_t bytes) -> const uint8_t* {
      return dram_.translate(addr, bytes);
    }));
  }
  return inner_ ? inner_->run(insn_addr, count, budget) : RunStatus::kOk;
}

void RecordingDevice::clear_stats() {
  if (inner_) inner_->clear_stats();
}

ErrorKind RecordingDevice::last_error_kind() const {
  if (!error_.empty()) return ErrorKind::kInternal;
  return inner_ ? inner_->last_error_kind() : ErrorKind::kNone;
}

RecordedCall record_call(const Module& module, const Config& config, const InnerDeviceFactory& inner,
                         bool keep_uop_loads) {
  Dram dram(30);
  auto device = std::make_unique<RecordingDevice>(config, dram, inner ? inner(config, dram) : nullptr);
  RecordingDevice& recorder = *device;
  recorder.keep_uop_loads(keep_uop_loads);
  runtime::Context ctx(std::move(device), dram);
  std::vector<void*> host, handles;
  for (const Tensor& t : module.args()) {
    const size_t bytes = device_bytes(t);
    host.push_back(dram.alloc(bytes));
    if (host.back() == nullptr) throw RuntimeError("no scratch memory for argument " + t->name);
    handles.push_back(ctx.wrap_buffer(dram.phys_addr(host.back()), bytes, t->name));
  }
  module.call(ctx, handles);
  for (void* h : handles) ctx.release_buffer(h);
  for (void* h : host) dram.free(h);
  return {recorder.streams(), recorder.stats(), recorder.uop_loads()};
}

InnerDeviceFactory backend_device(std::string target) {
  return [target = std::move(target)](const Config& config, Dram& dram) {
    DeviceOptions options;
    options.dram = &dram;
    return make_device(target, config, options);
  };
}

std::vector<Timeline> estimate_timelines(const RecordedCall& call, const Config& config,
                                         const EstimateOptions& options) {
  const Isa isa(config);
  std::vector<Timeline> runs;
  for (size_t i = 0; i < call.streams.size(); ++i) {
    EstimateOptions o = options;
    o.uop_loads = i < call.uop_loads.size() ? &call.uop_loads[i] : nullptr;
    runs.push_back(estimate_timeline(isa, call.streams[i], {}, o));
  }
  return runs;
}

std::vector<Timeline> estimate_timelines(const Module& module, const Config& config, const EstimateOptions& options) {
  return estimate_timelines(record_call(module, config, nullptr, options.issue(config) == 2), config, options);
}

uint64_t estimate_cycles(const RecordedCall& call, const Config& config, const EstimateOptions& options) {
  uint64_t cycles = 0;
  for (const Timeline& t : estimate_timelines(call, config, options)) cycles += t.cycles;
  return cycles;
}

uint64_t estimate_cycles(const Module& module, const Config& config, const EstimateOptions& options) {
  return estimate_cycles(record_call(module, config, nullptr, options.issue(config) == 2), config, options);
}

}  // namespace vta::compiler
