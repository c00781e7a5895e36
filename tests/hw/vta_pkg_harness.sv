// Exposes the vta_pkg decoders as flat ports so a C++ test can compare them with vta::Isa.
module vta_pkg_harness
  import vta_pkg::*;
(
  input  insn_t                        insn_i,
  input  uop_word_t                    uop_i,
  output logic [2:0]                   opcode_o,
  output logic [3:0]                   deps_o,       // {pop_prev, pop_next, push_prev, push_next}
  output logic [1:0]                   stage_o,
  output mem_insn_t                    mem_o,
  output loop_insn_t                   gemm_o,
  output loop_insn_t                   alu_o,
  output uop_t                         uop_o
);
  assign opcode_o = insn_opcode(insn_i);
  assign deps_o   = insn_deps(insn_i);
  assign stage_o  = insn_stage(insn_i);
  assign mem_o    = decode_mem(insn_i);
  assign gemm_o   = decode_gemm(insn_i);
  assign alu_o    = decode_alu(insn_i);
  assign uop_o    = decode_uop(uop_i);
endmodule : vta_pkg_harness
