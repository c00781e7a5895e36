// A program outside the VTA tree, built against an installed VTA (find_package(vta) or pkg-config):
// it lists the backends libvta registers and runs one ALU program on the backend VTA_TARGET names,
// checking every output element against plain C++. Exit status 0 only when all is right.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <string>

#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/isa.h"
#include "vta/driver/memory.h"
#include "vta/version.h"

namespace {

int run(int argc, char** argv) {
  std::printf("libvta %s (headers %s); backends:", VTAVersion(), VTA_VERSION_STRING);
  for (const auto& name : vta::backend_names()) std::printf(" %s", name.c_str());
  std::printf("\n");
  for (int i = 1; i < argc; ++i) {  // backends the caller expects
    if (!vta::is_known_target(argv[i])) {
      std::fprintf(stderr, "consumer: backend %s is not registered\n", argv[i]);
      return 1;
    }
  }
  const vta::Config& cfg = vta::build_config();
  const vta::Isa isa(cfg);
  vta::Dram& dram = vta::Dram::global();
  const int lanes = cfg.batch() * cfg.block_out();
  auto* acc = static_cast<int32_t*>(dram.alloc(size_t(cfg.acc_elem_bytes())));
  auto* out = static_cast<int8_t*>(dram.alloc(size_t(cfg.out_elem_bytes())));
  auto* uop = static_cast<uint32_t*>(dram.alloc(4));
  auto* insns = static_cast<uint8_t*>(dram.alloc(5 * vta::Config::kInsnElemBytes));
  std::mt19937 rng(7);
  for (int i = 0; i < lanes; ++i) acc[i] = int32_t(rng() % 200) - 100;
  *uop = isa.encode(vta::Uop{0, 0, 0});

  auto mem = [&](vta::Opcode op, vta::MemId type, uint64_t phys, int unit, vta::DepFlags deps) {
    vta::MemInsn m;
    m.opcode = uint8_t(op), m.memory_type = uint8_t(type), m.deps = deps;
    m.dram_base = uint32_t(phys / uint64_t(unit)), m.y_size = 1, m.x_size = 1, m.x_stride = 1;
    return isa.encode(m);
  };
  vta::AluInsn add;
  add.alu_opcode = uint8_t(vta::AluOp::kAdd), add.use_imm = true, add.imm = 5;
  add.uop_bgn = 0, add.uop_end = 1, add.iter_out = 1, add.iter_in = 1;
  add.deps.push_next = true;  // compute -> store
  vta::GemmInsn finish;
  finish.opcode = uint8_t(vta::Opcode::kFinish);
  finish.deps.pop_next = true;  // store -> compute
  vta::DepFlags store_deps;
  store_deps.pop_prev = store_deps.push_prev = true;
  vta::store_insns(
      insns, {mem(vta::Opcode::kLoad, vta::MemId::kUop, dram.phys_addr(uop), 4, {}),
              mem(vta::Opcode::kLoad, vta::MemId::kAcc, dram.phys_addr(acc), cfg.acc_elem_bytes(), {}), isa.encode(add),
              mem(vta::Opcode::kStore, vta::MemId::kOut, dram.phys_addr(out), cfg.out_elem_bytes(), store_deps),
              isa.encode(finish)});

  auto device = vta::make_device(vta::default_target(), cfg);
  if (device->run(dram.phys_addr(insns), 5, 0) != vta::RunStatus::kOk) {
    std::fprintf(stderr, "consumer: the run failed:\n%s", device->last_error().c_str());
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < lanes; ++i) wrong += out[i] != int8_t(acc[i] + 5);
  std::printf("%s: %d of %d outputs right, statistics %s\n", std::string(device->target()).c_str(), lanes - wrong,
              lanes, device->stats().to_json().c_str());
  for (void* p :
       {static_cast<void*>(acc), static_cast<void*>(out), static_cast<void*>(uop), static_cast<void*>(insns)}) {
    dram.free(p);
  }
  return wrong == 0 && device->stats().alu_counter == 1 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: error: %s\n", e.what());
    return 1;
  }
}
