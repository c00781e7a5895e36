/* Compiled as C: the compatibility headers are valid C, and a C program can run a stream on the
 * device and read the statistics. Exits non-zero on any mismatch. With --keep-device it frees
 * nothing, as the reference's own test programs do: the process must still exit (every backend
 * closes its devices at exit). */
#include <stdio.h>
#include <string.h>

#include "vta/driver.h"
#include "vta/driver_ext.h"
#include "vta/hw_spec.h"

int main(int argc, char** argv) {
  const int keep = argc > 1 && strcmp(argv[1], "--keep-device") == 0;
  VTADeviceHandle dev = VTADeviceAlloc();
  union VTAInsn* insn = (union VTAInsn*)VTAMemAlloc(2 * sizeof(union VTAInsn), VTA_CACHED);
  void* inp = VTAMemAlloc(VTA_INP_ELEM_BYTES * 4, VTA_CACHED);
  VTAStats stats;
  int rc;
  if (dev == NULL || insn == NULL || inp == NULL) return 1;
  memset(insn, 0, 2 * sizeof(union VTAInsn));
  insn[0].mem.opcode = VTA_OPCODE_LOAD;
  insn[0].mem.memory_type = VTA_MEM_ID_INP;
  insn[0].mem.dram_base = VTAMemGetPhyAddr(inp) / VTA_INP_ELEM_BYTES;
  insn[0].mem.y_size = 2;
  insn[0].mem.x_size = 2;
  insn[0].mem.x_stride = 2;
  insn[0].mem.y_pad_0 = 1;
  insn[0].mem.push_next_dep = 1;
  insn[1].gemm.opcode = VTA_OPCODE_FINISH;
  insn[1].gemm.pop_prev_dep = 1;
  rc = VTADeviceRun(dev, VTAMemGetPhyAddr(insn), 2, 1000);
  VTADeviceGetStats(dev, &stats);
  printf("rc=%d inp_load_nbytes=%llu\n", rc, (unsigned long long)stats.inp_load_nbytes);
  if (rc != VTA_RUN_OK || stats.inp_load_nbytes != 4ull * VTA_INP_ELEM_BYTES) return 1;
  if (keep) return 0;
  VTAMemFree(inp);
  VTAMemFree(insn);
  VTADeviceFree(dev);
  return 0;
}
