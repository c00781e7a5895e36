// The micro-op loop of GEMM and ALU instructions: for i in [0, iter_out), j in [0, iter_in),
// k in [uop_bgn, uop_end), one step per cycle (when ready_i), with the loop offsets
// i*factor_out + j*factor_in of the three index spaces. Offsets are kept OffsetWidth bits wide, wider
// than any index, so the consumer can check index + offset against the buffer depth exactly.
// A start with an empty loop (a zero count or uop_end <= uop_bgn) produces no step; abort_i ends a
// loop early.
module vta_uop_loop
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned OffsetWidth = 32
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // One instruction, accepted when idle.
  input  logic                         start_i,
  input  loop_insn_t                   insn_i,
  input  logic                         abort_i,   // stop the current loop (after an error)
  output logic                         busy_o,
  // The step stream.
  output logic                         valid_o,
  input  logic                         ready_i,
  output logic [LogUopBuffDepth-1:0]   uop_idx_o,
  output logic [OffsetWidth-1:0]       dst_offset_o,
  output logic [OffsetWidth-1:0]       src_offset_o,
  output logic [OffsetWidth-1:0]       wgt_offset_o,
  output logic                         last_o
);
  typedef logic [OffsetWidth-1:0] off_t;

  // The loop state changes in the clocked block only when it steps, starts or aborts (no next-state
  // copies: an idle loop costs a simulator nothing, docs/PERFORMANCE.md).
  logic                         active_q;
  logic [LogUopBuffDepth:0]     k_q;
  logic [LoopIterWidth-1:0]     i_q, j_q;
  off_t                         dst_out_q, src_out_q, wgt_out_q;
  off_t                         dst_in_q, src_in_q, wgt_in_q;
  loop_insn_t                   insn_q;
  logic                         last_k, last_j, last_i, step, empty;

  always_comb begin
    last_k = (k_q + 1'b1) == insn_q.uop_end;
    last_j = (j_q + 1'b1) == insn_q.iter_in;
    last_i = (i_q + 1'b1) == insn_q.iter_out;
    step   = active_q && ready_i;
    empty  = insn_i.iter_out == '0 || insn_i.iter_in == '0 || insn_i.uop_end <= {1'b0, insn_i.uop_bgn};

    busy_o       = active_q;
    valid_o      = active_q;
    uop_idx_o    = k_q[LogUopBuffDepth-1:0];
    dst_offset_o = dst_out_q + dst_in_q;
    src_offset_o = src_out_q + src_in_q;
    wgt_offset_o = wgt_out_q + wgt_in_q;
    last_o       = last_k && last_j && last_i;
  end

  logic unused_fields;  // the consumer keeps the instruction's other fields
  assign unused_fields = insn_q.reset ^ insn_q.use_imm ^ (|insn_q.alu_opcode) ^ (|insn_q.imm);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      insn_q   <= '0;
      k_q      <= '0;
      {i_q, j_q, dst_out_q, src_out_q, wgt_out_q, dst_in_q, src_in_q, wgt_in_q} <= '0;
    end else begin
      if (!active_q && start_i) begin
        insn_q   <= insn_i;
        active_q <= !empty;
        k_q      <= {1'b0, insn_i.uop_bgn};
        {i_q, j_q, dst_out_q, src_out_q, wgt_out_q, dst_in_q, src_in_q, wgt_in_q} <= '0;
      end else if (step) begin
        if (!last_k) begin
          k_q <= k_q + 1'b1;
        end else begin
          k_q <= {1'b0, insn_q.uop_bgn};
          if (!last_j) begin
            j_q      <= j_q + 1'b1;
            dst_in_q <= dst_in_q + OffsetWidth'(insn_q.dst_factor_in);
            src_in_q <= src_in_q + OffsetWidth'(insn_q.src_factor_in);
            wgt_in_q <= wgt_in_q + OffsetWidth'(insn_q.wgt_factor_in);
          end else begin
            j_q      <= '0;
            dst_in_q <= '0;
            src_in_q <= '0;
            wgt_in_q <= '0;
            if (!last_i) begin
              i_q       <= i_q + 1'b1;
              dst_out_q <= dst_out_q + OffsetWidth'(insn_q.dst_factor_out);
              src_out_q <= src_out_q + OffsetWidth'(insn_q.src_factor_out);
              wgt_out_q <= wgt_out_q + OffsetWidth'(insn_q.wgt_factor_out);
            end else begin
              active_q <= 1'b0;
            end
          end
        end
      end
      // An abort ends the loop; it leaves the other registers to the step above (the loop is over,
      // and a start sets them anew), so the late abort reaches one register rather than every one.
      if (abort_i) active_q <= 1'b0;
    end
  end
`ifdef VTA_FORMAL
  `include "vta_uop_loop_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_uop_loop
