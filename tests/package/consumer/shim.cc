// The reference's bare-metal tests call vta() (vta/reference_shim.h): a program built against the
// installed package links it from libvta and runs a stream that only finishes through it.
#include <vta/driver.h>
#include <vta/reference_shim.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

int main() {
  auto* insn = static_cast<VTAGenericInsn*>(VTAMemAlloc(sizeof(VTAGenericInsn), 0));
  if (insn == nullptr) return 1;
  std::memset(insn, 0, sizeof *insn);
  insn->opcode = VTA_OPCODE_FINISH;
  const uint64_t ns = vta(1, insn, nullptr, nullptr, nullptr, nullptr, nullptr);
  VTAStats stats;
  const bool ok = ns != UINT64_MAX && vta_shim_stats(&stats) == 0;
  VTAMemFree(insn);
  std::printf("shim: %s\n", ok ? "vta() ran" : "vta() failed");
  return ok ? 0 : 1;
}
