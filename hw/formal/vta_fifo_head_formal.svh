// vta_fifo_head's proofs: its registered form (the one synthesis reads) against the reference queue
// that vta_fifo's set holds vta_fifo to, with the same promises at the ports. vta_fifo is the form a
// simulator runs in its place (vta_fifo_head.sv), so the two proofs together make the two forms equal
// at the ports in every reachable state: the same ready, valid, count, and data in the same order.
`include "vta_formal.svh"

// ---- the reference queue (as vta_fifo_formal.svh's) -----------------------------------------------
logic [Depth*Width-1:0] f_model_q;  // entry i in bits [i*Width +: Width]
logic [CountW-1:0]      f_count_q;
logic                   f_push, f_pop;
assign f_push = wvalid_i && f_count_q != CountW'(Depth);
assign f_pop  = rready_i && f_count_q != '0;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    f_count_q <= '0;
  end else begin
    f_count_q <= f_count_q + CountW'(f_push) - CountW'(f_pop);
    for (int i = 0; i < Depth; i++) begin
      if (f_pop) f_model_q[i*Width +: Width] <= (i + 1 < Depth) ? f_model_q[((i + 1) % Depth)*Width +: Width] : '0;
      if (f_push && 32'(i) == 32'(f_count_q) - 32'(f_pop)) f_model_q[i*Width +: Width] <= wdata_i;
    end
  end
end

// ---- what the queue promises, word for word vta_fifo's ---------------------------------------------
`VTA_PROVE(FifoReadyIffRoom, wready_o == (f_count_q != CountW'(Depth)))
`VTA_PROVE(FifoValidIffData, rvalid_o == (f_count_q != '0))
`VTA_PROVE_IMPLIES(FifoOrderKept, rvalid_o, rdata_o == f_model_q[Width-1:0])
`VTA_PROVE(FifoCountOut, count_o == f_count_q)

// ---- strengthening invariants ---------------------------------------------------------------------
// The rest holds the entries after the head, the oldest at its read side (with a rest of one entry,
// Depth 2, its ports show all it holds; deeper rests are vta_fifo's own proofs' concern).
`VTA_PROVE(HeadCountAgrees, 32'(rest_count) + 32'(head_valid_q) == 32'(f_count_q))
`VTA_PROVE_IMPLIES(RestEntryAgrees, rest_valid, rest_head == f_model_q[Width +: Width])

// ---- reachable ------------------------------------------------------------------------------------
`VTA_REACH(HeadFull, !wready_o && wvalid_i)
`VTA_REACH(HeadRefilledFromRest, rest_read)
`VTA_REACH(HeadWrittenWhileRead, to_head && do_read)
