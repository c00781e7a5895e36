// The head of a stage's instruction queue as the stage sees it: the instruction's dependency flags,
// whether its tokens let it start (go_o: each pop it asks for has a token, each push it asks for has
// room), and the instruction decoded (opcode, LOAD/STORE, GEMM and ALU fields; a stage reads those of
// its own instructions).
//
// Two forms, chosen by SimForm (default: vta_sim_form.svh), for speed: in a simulation the flags are
// decoded only while the stage is idle with a valid head, and the rest only in the cycle it starts
// (zeros otherwise), so a simulator skips the decoders in every other cycle, a stage waiting for a
// token included. Synthesis decodes in every cycle (docs/SYNTHESIS.md). The stages read the flags and
// go_o while idle and the fields in the cycle they start, and there the two forms agree (proven:
// hw/formal, set sim_forms).
`include "vta_sim_form.svh"

module vta_insn_head
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter bit SimForm = `VTA_SIM_FORM
) (
  input  logic  idle_i,        // the stage takes an instruction this cycle if go_o
  input  logic  valid_i,       // the queue holds one
  input  insn_t insn_i,
  input  logic  prev_token_i,  // a token for pop_prev (tie high in a stage without a previous one)
  input  logic  next_token_i,  // a token for pop_next (likewise)
  input  logic  prev_room_i,   // room for push_prev (likewise)
  input  logic  next_room_i,   // room for push_next (likewise)
  output deps_t                     deps_o,
  output logic                      go_o,
  output logic [OpcodeBitWidth-1:0] op_o,    // an opcode_e (Yosys 0.23: no enum ports)
  output mem_insn_t                 mem_o,
  output loop_insn_t                gemm_o,
  output loop_insn_t                alu_o
);
  deps_t deps;
  logic  go;

  // One text for both: SimForm is a constant, so each tool keeps one branch of the two conditions
  // below. (nolatches: Yosys 0.23 would hold a called function's result in a latch outside the branch
  // that calls it; there nothing reads it, and where SimForm is 0 the branch is always taken.)
  (* nolatches *)
  always_comb begin
    deps   = '0;
    op_o   = '0;
    mem_o  = '0;
    gemm_o = '0;
    alu_o  = '0;
    if (!SimForm || (idle_i && valid_i)) deps = insn_deps(insn_i);
    // each pop it asks for has a token, each push it asks for has room (written out: a function call
    // here costs the tsim 0.4 % of its speed)
    go = valid_i && (!deps.pop_prev || prev_token_i) && (!deps.pop_next || next_token_i) &&
         (!deps.push_prev || prev_room_i) && (!deps.push_next || next_room_i);
    if (!SimForm || (idle_i && go)) begin
      op_o   = insn_opcode(insn_i);
      mem_o  = decode_mem(insn_i);
      gemm_o = decode_gemm(insn_i);
      alu_o  = decode_alu(insn_i);
    end
  end
  assign deps_o = deps;
  assign go_o   = go;
endmodule : vta_insn_head
