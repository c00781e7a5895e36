// A dependency-token queue between two modules: a counter of tokens. push_i adds one, pop_i takes
// one (only when ready_o), both in one cycle leave the count unchanged. full_o says the counter holds
// 2^CountWidth - 1 tokens: the producing stage then waits before starting an instruction that pushes
// (docs/ISA.md), so a push into a full counter cannot happen; if it did, the sticky overflow_o
// reports it and nothing wraps.
`include "vta_assert.svh"

module vta_token_queue #(
  parameter int unsigned CountWidth = 8
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  push_i,
  input  logic                  pop_i,
  output logic                  ready_o,
  output logic                  full_o,
  output logic [CountWidth-1:0] count_o,
  output logic                  overflow_o
);
  logic [CountWidth-1:0] count_q;
  logic                  overflow_q;
  logic                  do_pop, do_push;

  // Outputs come from registers only: no combinational path from push/pop to ready.
  assign ready_o    = count_q != '0;
  assign full_o     = count_q == '1;
  assign count_o    = count_q;
  assign overflow_o = overflow_q;

  assign do_pop  = pop_i && ready_o;
  assign do_push = push_i && !(count_q == '1 && !do_pop);

  // The count changes only with a push or a pop, not both (a choice among the count and its
  // neighbours, the late pop choosing last: no carry chain after it); a simulator computes nothing
  // in the other cycles. The overflow flag sticks.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q    <= '0;
      overflow_q <= 1'b0;
    end else begin
      if (do_push != do_pop) count_q <= do_push ? count_q + 1'b1 : count_q - 1'b1;
      if (push_i && !do_push) overflow_q <= 1'b1;
    end
  end

  // The stages push only when the counter has room and pop only when it holds a token (docs/ISA.md).
  `VTA_ASSERT_NEVER(NoPushWhenFull, push_i && full_o && !pop_i)
  `VTA_ASSERT_NEVER(NoPopWhenEmpty, pop_i && !ready_o)

  // what the regressions should reach: a full counter, a push and a pop in one cycle, a stage waiting
  `VTA_COVER(Full, full_o)
  `VTA_COVER(PushAndPopTogether, do_push && do_pop)
  `VTA_COVER(EmptiedByPop, do_pop && count_q == CountWidth'(1))
`ifdef VTA_FORMAL
  `include "vta_token_queue_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_token_queue
