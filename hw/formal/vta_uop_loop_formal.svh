// vta_uop_loop's proofs: the loop against the spec's loop nest (spec 3.2: for i, for j, for k), with
// each offset computed as the expression i * factor_out + j * factor_in (the RTL accumulates sums).
`include "vta_formal.svh"

loop_insn_t                 f_insn_q;  // the instruction as started (the reference's own copy)
logic                       f_active_q;
logic [LoopIterWidth-1:0]   f_i_q, f_j_q;
logic [LogUopBuffDepth:0]   f_k_q;
logic                       f_step, f_start, f_empty, f_k_last, f_j_last, f_i_last;
assign f_step   = f_active_q && ready_i && !abort_i;
assign f_start  = !f_active_q && start_i && !abort_i;
assign f_empty  = insn_i.iter_out == '0 || insn_i.iter_in == '0 || 32'(insn_i.uop_end) <= 32'(insn_i.uop_bgn);
assign f_k_last = 32'(f_k_q) + 1 >= 32'(f_insn_q.uop_end);
assign f_j_last = 32'(f_j_q) + 1 >= 32'(f_insn_q.iter_in);
assign f_i_last = 32'(f_i_q) + 1 >= 32'(f_insn_q.iter_out);
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    f_active_q <= 1'b0;
    f_insn_q   <= '0;
    f_i_q      <= '0;
    f_j_q      <= '0;
    f_k_q      <= '0;
  end else if (abort_i) begin
    f_active_q <= 1'b0;
  end else if (f_start) begin
    f_insn_q   <= insn_i;
    f_active_q <= !f_empty;
    f_i_q      <= '0;
    f_j_q      <= '0;
    f_k_q      <= {1'b0, insn_i.uop_bgn};
  end else if (f_step) begin
    if (!f_k_last) begin
      f_k_q <= f_k_q + 1'b1;
    end else begin
      f_k_q <= {1'b0, f_insn_q.uop_bgn};
      if (!f_j_last) begin
        f_j_q <= f_j_q + 1'b1;
      end else begin
        f_j_q <= '0;
        if (!f_i_last) f_i_q <= f_i_q + 1'b1;
        else f_active_q <= 1'b0;
      end
    end
  end
end

function automatic logic [OffsetWidth-1:0] f_offset(logic [LoopIterWidth-1:0] i, logic [LoopIterWidth-1:0] j,
                                                    logic [OffsetWidth-1:0] out, logic [OffsetWidth-1:0] in);
  f_offset = OffsetWidth'(i) * out + OffsetWidth'(j) * in;
endfunction

`VTA_PROVE(LoopValidIffRunning, valid_o == f_active_q && busy_o == f_active_q)
`VTA_PROVE_IMPLIES(LoopUopIndex, valid_o, {1'b0, uop_idx_o} == f_k_q)
`VTA_PROVE_IMPLIES(LoopUopIndexInRange, valid_o, (32'(uop_idx_o) >= 32'(f_insn_q.uop_bgn) && 32'(uop_idx_o) < 32'(f_insn_q.uop_end)))
`VTA_PROVE_IMPLIES(LoopDstOffset, valid_o, dst_offset_o == f_offset(f_i_q, f_j_q, OffsetWidth'(f_insn_q.dst_factor_out),
                                                                OffsetWidth'(f_insn_q.dst_factor_in)))
`VTA_PROVE_IMPLIES(LoopSrcOffset, valid_o, src_offset_o == f_offset(f_i_q, f_j_q, OffsetWidth'(f_insn_q.src_factor_out),
                                                                OffsetWidth'(f_insn_q.src_factor_in)))
`VTA_PROVE_IMPLIES(LoopWgtOffset, valid_o, wgt_offset_o == f_offset(f_i_q, f_j_q, OffsetWidth'(f_insn_q.wgt_factor_out),
                                                                OffsetWidth'(f_insn_q.wgt_factor_in)))
`VTA_PROVE_IMPLIES(LoopLastIsFinalStep, valid_o, last_o == (f_i_last && f_j_last && f_k_last))

// ---- strengthening invariants: the loop's registers are the reference's position ----------------
// (Induction from an arbitrary state needs them: the sums kept in dst_in_q etc. are otherwise free.)
`VTA_PROVE_IMPLIES(LoopInsnKept, f_active_q, insn_q == f_insn_q)
`VTA_PROVE_IMPLIES(LoopCountersAgree, f_active_q, (i_q == f_i_q && j_q == f_j_q && k_q == f_k_q))
`VTA_PROVE_IMPLIES(LoopCountersInRange, f_active_q, (32'(f_i_q) < 32'(f_insn_q.iter_out) && 32'(f_j_q) < 32'(f_insn_q.iter_in)
                                                && 32'(f_k_q) < 32'(f_insn_q.uop_end) && f_k_q >= {1'b0, f_insn_q.uop_bgn}))
`VTA_PROVE_IMPLIES(LoopSumsAgree, f_active_q, (
  dst_out_q == OffsetWidth'(f_i_q) * OffsetWidth'(f_insn_q.dst_factor_out) &&
  dst_in_q == OffsetWidth'(f_j_q) * OffsetWidth'(f_insn_q.dst_factor_in) &&
  src_out_q == OffsetWidth'(f_i_q) * OffsetWidth'(f_insn_q.src_factor_out) &&
  src_in_q == OffsetWidth'(f_j_q) * OffsetWidth'(f_insn_q.src_factor_in) &&
  wgt_out_q == OffsetWidth'(f_i_q) * OffsetWidth'(f_insn_q.wgt_factor_out) &&
  wgt_in_q == OffsetWidth'(f_j_q) * OffsetWidth'(f_insn_q.wgt_factor_in)))

// The solvers prove a multiplier identity ((i + 1) * f == i * f + f) in seconds on a few bits and not
// in hours on 14 x 11: the proof's instructions have counts and factors below 2^FormalBits (the loop's
// datapath is the same adder at every width; the tsim's regressions run the full widths). The loop
// runs only instructions vta_insn_check passed, whose uop_end is at most the micro-op buffer's depth.
localparam int unsigned FormalBits = 4;
`VTA_ASSUME(LoopFormalOperands, !start_i || (32'(insn_i.uop_end) <= (1 << LogUopBuffDepth) && 32'(insn_i.iter_out) < (1 << FormalBits) && 32'(insn_i.iter_in) < (1 << FormalBits)
  && 32'(insn_i.dst_factor_out) < (1 << FormalBits) && 32'(insn_i.dst_factor_in) < (1 << FormalBits)
  && 32'(insn_i.src_factor_out) < (1 << FormalBits) && 32'(insn_i.src_factor_in) < (1 << FormalBits)
  && 32'(insn_i.wgt_factor_out) < (1 << FormalBits) && 32'(insn_i.wgt_factor_in) < (1 << FormalBits)))
// (and so do the loop's registers in the states induction starts from)
`VTA_PROVE_IMPLIES(LoopOperandsKept, f_active_q, (32'(f_insn_q.uop_end) <= (1 << LogUopBuffDepth) && 32'(f_insn_q.iter_out) < (1 << FormalBits) && 32'(f_insn_q.iter_in) < (1 << FormalBits)
  && 32'(f_insn_q.dst_factor_out) < (1 << FormalBits) && 32'(f_insn_q.dst_factor_in) < (1 << FormalBits)
  && 32'(f_insn_q.src_factor_out) < (1 << FormalBits) && 32'(f_insn_q.src_factor_in) < (1 << FormalBits)
  && 32'(f_insn_q.wgt_factor_out) < (1 << FormalBits) && 32'(f_insn_q.wgt_factor_in) < (1 << FormalBits)))

`VTA_REACH(LoopOuterStep, f_step && f_k_last && f_j_last && !f_i_last && f_insn_q.dst_factor_out != '0)
`VTA_REACH(LoopInnerStep, f_step && f_k_last && !f_j_last && f_insn_q.src_factor_in != '0)
`VTA_REACH(LoopLastStep, f_step && last_o && f_i_q != '0 && f_j_q != '0 && f_k_q != {1'b0, f_insn_q.uop_bgn})
`VTA_REACH(LoopStalled, valid_o && !ready_i)
`VTA_REACH(LoopEmptyStart, f_start && f_empty)
`VTA_REACH(LoopAborted, f_active_q && abort_i)
