// The head of a stage's instruction queue as the stage sees it: the instruction's dependency flags,
// whether its tokens let it start (go_o: each pop it asks for has a token, each push it asks for has
// room), and the instruction for the stage's decoders.
//
// The one place the RTL differs between simulation and synthesis for speed: in simulation the flags
// are shown only while the stage is idle with a valid head, and the instruction only in the cycle it
// starts (zeros otherwise, which decode to what the stages expect when nothing starts), so a simulator
// skips the stages' decoders in every other cycle, a stage waiting for a token included. Synthesis
// passes both through: Yosys 0.23 infers a latch for logic assigned under such a condition
// (docs/SYNTHESIS.md), and the stages use them under those conditions alone, so the circuit at their
// ports is the same.
module vta_insn_head
  import vta_pkg::*;
(
  input  logic  idle_i,        // the stage takes an instruction this cycle if go_o
  input  logic  valid_i,       // the queue holds one
  input  insn_t insn_i,
  input  logic  prev_token_i,  // a token for pop_prev (tie high in a stage without a previous one)
  input  logic  next_token_i,  // a token for pop_next (likewise)
  input  logic  prev_room_i,   // room for push_prev (likewise)
  input  logic  next_room_i,   // room for push_next (likewise)
  output deps_t deps_o,
  output logic  go_o,
  output insn_t start_insn_o
);
  deps_t deps;
  logic  go;

  always_comb begin
    deps         = '0;
    start_insn_o = '0;
`ifndef SYNTHESIS
    if (idle_i && valid_i) begin
`endif
      deps = insn_deps(insn_i);
`ifndef SYNTHESIS
    end
`endif
    go = valid_i && (!deps.pop_prev || prev_token_i) && (!deps.pop_next || next_token_i) &&
         (!deps.push_prev || prev_room_i) && (!deps.push_next || next_room_i);
`ifndef SYNTHESIS
    if (idle_i && go) begin
`endif
      start_insn_o = insn_i;
`ifndef SYNTHESIS
    end
`endif
  end
  assign deps_o = deps;
  assign go_o   = go;
endmodule : vta_insn_head
