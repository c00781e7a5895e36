// vta_token_queue's proofs: the counter against the number of tokens pushed and not yet popped, kept
// one bit wider so that a wrap of the counter would show.
`include "vta_formal.svh"

logic [CountWidth:0] f_tokens_q;  // tokens pushed and not popped, as the stages see them
logic                f_push, f_pop;
assign f_pop  = pop_i && f_tokens_q != '0;
assign f_push = push_i && (f_tokens_q != (CountWidth + 1)'((1 << CountWidth) - 1) || f_pop);
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) f_tokens_q <= '0;
  else f_tokens_q <= f_tokens_q + (CountWidth + 1)'(f_push) - (CountWidth + 1)'(f_pop);
end

`VTA_PROVE(TokenCountIsTokens, (CountWidth + 1)'(count_o) == f_tokens_q)
`VTA_PROVE(TokenCountWithinDepth, f_tokens_q <= (CountWidth + 1)'((1 << CountWidth) - 1))
`VTA_PROVE(TokenReadyIffToken, ready_o == (f_tokens_q != '0))
`VTA_PROVE(TokenFullIffMax, full_o == (f_tokens_q == (CountWidth + 1)'((1 << CountWidth) - 1)))
`VTA_PROVE_IMPLIES(TokenPopOnlyWhenHeld, do_pop, count_q != '0)
`VTA_PROVE(TokenNoOverflowFlag, !overflow_o)

`VTA_REACH(TokenFullReached, full_o)
`VTA_REACH(TokenPushPopTogether, do_push && do_pop)
`VTA_REACH(TokenPopEmpties, do_pop && count_q == CountWidth'(1))
