// vta_fifo's proofs: the FIFO against a queue written the other way (a shift register whose entry 0
// is the oldest), so that what comes out is what went in, in order, none lost, none invented.
`include "vta_formal.svh"

// ---- the reference queue and what the FIFO promises against it --------------------------------------
`include "vta_queue_model.svh"

// ---- what else the FIFO promises ------------------------------------------------------------------
`VTA_PROVE_IMPLIES(FifoNoOverflow, do_write, count_q != CountW'(Depth))
`VTA_PROVE_IMPLIES(FifoNoUnderflow, do_read, count_q != '0)

// The head is held while it is not taken (the read side's half of the valid/ready rule).
logic             f_shown_q;
logic [Width-1:0] f_head_q;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) f_shown_q <= 1'b0;
  else f_shown_q <= rvalid_o && !rready_i;
end
always_ff @(posedge clk_i) f_head_q <= rdata_o;
`VTA_PROVE_IMPLIES(FifoHeadHeld, f_shown_q, (rvalid_o && rdata_o == f_head_q))

// ---- strengthening invariants (induction starts from any state these allow) ----------------------
// Pointers past the last entry exist when Depth is not a power of two; no run reaches them, but
// induction would start from one without these.
`VTA_PROVE(FifoReadPointerInRange, 32'(rptr_q) < Depth)
`VTA_PROVE(FifoWritePointerInRange, 32'(wptr_q) < Depth)
// The stored entries are the reference's, in order from the read pointer (without this, induction
// could start from a memory that disagrees with the reference and show FifoOrderKept "failing").
// (One assertion over a vector: Yosys 0.23 gives the same label in every generate iteration one name.)
logic [Depth-1:0] f_entry_ok;
for (genvar i = 0; i < Depth; i++) begin : gen_f_entry
  assign f_entry_ok[i] = 32'(i) >= 32'(f_count_q) || mem_q[(32'(rptr_q) + i) % Depth] == f_model_q[i*Width +: Width];
end
`VTA_PROVE(FifoEntriesAgree, &f_entry_ok)

// ---- reachable: the situations the properties speak about ----------------------------------------
`VTA_REACH(FifoFull, !wready_o && wvalid_i)
`VTA_REACH(FifoReadFromFull, do_read && count_q == CountW'(Depth))
`VTA_REACH(FifoPushPopTogether, do_write && do_read)
`VTA_REACH(FifoHeadHeldReached, f_shown_q)
`VTA_REACH(FifoPointerWraps, do_read && 32'(rptr_q) == Depth - 1)
