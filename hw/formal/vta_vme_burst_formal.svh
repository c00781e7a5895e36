// vta_vme_burst's proofs: the AXI4 burst rules (INCR bursts of at most 256 beats that never cross a
// 4 KiB page) and that a command's bursts are exactly its beats, in order: the reference keeps the
// next beat the command should request and the beat after its last, from the command's own beats.
`include "vta_formal.svh"

localparam int unsigned FBeatW = CmdAddrWidth + 2;  // beat numbers of any command, with room to spare
logic              f_active_q;
logic [FBeatW-1:0] f_next_q, f_end_q;  // next beat to request; one past the command's last beat
logic [TagWidth-1:0] f_tag_q;
logic [FBeatW-1:0] f_first, f_last_plus_one, f_len;
assign f_first         = FBeatW'(cmd_first_i);
assign f_last_plus_one = FBeatW'(cmd_first_i) + FBeatW'(cmd_beats_i);
assign f_len           = FBeatW'(burst_len_o) + 1;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    f_active_q <= 1'b0;
    f_next_q   <= '0;
    f_end_q    <= '0;
    f_tag_q    <= '0;
  end else begin
    if (burst_valid_o && burst_ready_i) begin
      f_next_q <= f_next_q + f_len;
      if (f_next_q + f_len == f_end_q) f_active_q <= 1'b0;
    end
    if (cmd_valid_i && cmd_ready_o) begin
      f_active_q <= cmd_beats_i != '0 && !cmd_out_of_range_i;
      f_next_q   <= f_first;
      f_end_q    <= f_last_plus_one;
      f_tag_q    <= cmd_tag_i;
    end
  end
end

`VTA_PROVE(BurstOnlyForACommand, burst_valid_o == f_active_q)
`VTA_PROVE_IMPLIES(BurstAtNextBeat, burst_valid_o, FBeatW'(burst_addr_o) == f_next_q * FBeatW'(BusBytes))
`VTA_PROVE_IMPLIES(BurstWithinCommand, burst_valid_o, f_next_q + f_len <= f_end_q)
`VTA_PROVE_IMPLIES(BurstLastEndsCommand, burst_valid_o, burst_last_o == (f_next_q + f_len == f_end_q))
`VTA_PROVE_IMPLIES(BurstWithin4KiB, burst_valid_o, 32'(burst_addr_o[11:0]) + 32'(f_len) * BusBytes <= 4096)
`VTA_PROVE_IMPLIES(BurstLengthWithinAxi, burst_valid_o, 32'(f_len) <= 256)
`VTA_PROVE_IMPLIES(BurstTagIsCommands, burst_valid_o, burst_tag_o == f_tag_q)
`VTA_PROVE_IMPLIES(BurstCommandTakenWhenDone, cmd_ready_o, !f_active_q || (burst_ready_i && burst_last_o))
`VTA_PROVE(BurstRangeErrorExact, range_error_o == (cmd_valid_i && cmd_ready_o && cmd_out_of_range_i))
// The command's sender (vta_vme) flags every command that reaches past the address space and sends
// beat numbers within the command addresses.
`VTA_ASSUME(CmdInRangeUnlessFlagged, !cmd_valid_i || cmd_out_of_range_i ||
                                     f_last_plus_one <= (FBeatW'(1) << (AddrWidth - LowW)))
`VTA_ASSUME(CmdWithinAddresses, f_first < (FBeatW'(1) << (CmdAddrWidth - LowW)))
// A burst, once offered, is held until taken (AXI's valid/ready rule on AR and AW).
logic f_offered_q;
logic [AddrWidth+8+TagWidth:0] f_burst_q;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) f_offered_q <= 1'b0;
  else f_offered_q <= burst_valid_o && !burst_ready_i;
end
always_ff @(posedge clk_i) f_burst_q <= {burst_addr_o, burst_len_o, burst_last_o, burst_tag_o};
`VTA_PROVE_IMPLIES(BurstHeldUntilReady, f_offered_q, (burst_valid_o && {burst_addr_o, burst_len_o, burst_last_o, burst_tag_o} == f_burst_q))

// ---- strengthening invariants: the splitter's registers are the reference's ---------------------
// (beat_q and left_q are free in the states induction starts from; the reference's are not.)
`VTA_PROVE_IMPLIES(BurstStateAgrees, f_active_q, (FBeatW'(beat_q) == f_next_q && FBeatW'(left_q) == f_end_q - f_next_q
                                            && left_q != '0 && tag_q == f_tag_q && f_end_q <= (FBeatW'(1) << (AddrWidth - LowW))
                                            && {last_q, n_q} == burst_beats(beat_q[PageW-1:0], left_q)))

`VTA_REACH(BurstCrossesPage, burst_valid_o && burst_ready_i && !burst_last_o && 32'(f_len) < 256)
`VTA_REACH(BurstFull256, burst_valid_o && 32'(f_len) == 256 && BusBytes <= 16)
`VTA_REACH(BurstBackToBack, cmd_valid_i && cmd_ready_o && f_active_q)
`VTA_REACH(BurstStalled, f_offered_q)
`VTA_REACH(BurstRangeError, range_error_o)
