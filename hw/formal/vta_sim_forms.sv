// The cells with two texts (a simulator's and synthesis's, chosen by SimForm: hw/prim/vta_sim_form.svh)
// side by side on the same inputs: their outputs agree wherever their users read them. (vta_fifo_head's
// two forms are proven through a common reference instead: sets fifo and fifo_head.)
`include "vta_formal.svh"

module vta_sim_forms
  import vta_config_pkg::*;
  import vta_pkg::*;
(
  input logic  clk_i,  // (the properties' clock and reset: both cells are combinational)
  input logic  rst_ni,
  input logic  idle_i,
  input logic  valid_i,
  input logic  prev_token_i,
  input logic  next_token_i,
  input logic  prev_room_i,
  input logic  next_room_i,
  input insn_t insn_i
);
  // ---- vta_insn_head: a stage reads the flags and go_o while idle, the fields as it starts ----------
  deps_t                     s_deps, y_deps;  // s_: the simulator's text, y_: synthesis's
  logic                      s_go, y_go;
  logic [OpcodeBitWidth-1:0] s_op, y_op;
  mem_insn_t                 s_mem, y_mem;
  loop_insn_t                s_gemm, y_gemm, s_alu, y_alu;
  vta_insn_head #(.SimForm(1'b1)) u_head_sim (
    .idle_i, .valid_i, .insn_i, .prev_token_i, .next_token_i, .prev_room_i, .next_room_i, .deps_o(s_deps),
    .go_o(s_go), .op_o(s_op), .mem_o(s_mem), .gemm_o(s_gemm), .alu_o(s_alu));
  vta_insn_head #(.SimForm(1'b0)) u_head_synth (
    .idle_i, .valid_i, .insn_i, .prev_token_i, .next_token_i, .prev_room_i, .next_room_i, .deps_o(y_deps),
    .go_o(y_go), .op_o(y_op), .mem_o(y_mem), .gemm_o(y_gemm), .alu_o(y_alu));
  `VTA_PROVE_IMPLIES(HeadDepsAgree, idle_i && valid_i, s_deps == y_deps)
  `VTA_PROVE_IMPLIES(HeadGoAgrees, idle_i, s_go == y_go)
  `VTA_PROVE_IMPLIES(HeadFieldsAgree, idle_i && y_go,
                     s_op == y_op && s_mem == y_mem && s_gemm == y_gemm && s_alu == y_alu)

  // ---- vta_insn_check: fetch keeps kept_o beside the instruction and hands it back as it leaves -----
  logic [InsnCheckKeep-1:0] s_kept, y_kept;
  logic                     s_legal, y_legal;
  vta_insn_check #(.SimForm(1'b1)) u_check_sim (
    .new_en_i(1'b1), .new_insn_i(insn_i), .kept_o(s_kept), .insn_i, .kept_i(s_kept), .legal_o(s_legal));
  vta_insn_check #(.SimForm(1'b0)) u_check_synth (
    .new_en_i(1'b1), .new_insn_i(insn_i), .kept_o(y_kept), .insn_i, .kept_i(y_kept), .legal_o(y_legal));
  `VTA_PROVE(CheckVerdictsAgree, s_legal == y_legal)
  `VTA_REACH(CheckLegal, y_legal)
  `VTA_REACH(CheckIllegal, !y_legal)
endmodule : vta_sim_forms
