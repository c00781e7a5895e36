// vta_vcr's proofs: the AXI4-Lite slave answers each request exactly once and holds its answer until
// taken, and a register reads back what the host wrote (INSN_COUNT, against a copy the proof keeps
// byte by byte).
`include "vta_formal.svh"

logic        f_aw_hs, f_w_hs, f_b_hs, f_ar_hs, f_r_hs;
assign f_aw_hs = axil_req_i.aw_valid && axil_rsp_o.aw_ready;
assign f_w_hs  = axil_req_i.w_valid && axil_rsp_o.w_ready;
assign f_b_hs  = axil_rsp_o.b_valid && axil_req_i.b_ready;
assign f_ar_hs = axil_req_i.ar_valid && axil_rsp_o.ar_ready;
assign f_r_hs  = axil_rsp_o.r_valid && axil_req_i.r_ready;

// requests accepted and not yet answered (two bits: a second one would show)
logic [1:0]  f_writes_q, f_reads_q;
logic [31:0] f_count_q, f_read_q;  // INSN_COUNT as written; the value a pending read must return
logic        f_read_count_q;       // the pending read is of INSN_COUNT
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    f_writes_q     <= '0;
    f_reads_q      <= '0;
    f_count_q      <= '0;
    f_read_count_q <= 1'b0;
  end else begin
    f_writes_q <= f_writes_q + 2'(f_aw_hs) - 2'(f_b_hs);
    f_reads_q  <= f_reads_q + 2'(f_ar_hs) - 2'(f_r_hs);
    if (f_aw_hs && axil_req_i.aw_addr == VcrInsnCount) begin
      for (int b = 0; b < 4; b++) if (axil_req_i.w_strb[b]) f_count_q[8*b +: 8] <= axil_req_i.w_data[8*b +: 8];
    end
    if (f_ar_hs) begin
      f_read_count_q <= axil_req_i.ar_addr == VcrInsnCount;
      f_read_q       <= f_count_q;
    end
  end
end

`VTA_PROVE(AxilWriteTakesAwWithW, f_aw_hs == f_w_hs)
`VTA_PROVE(AxilOneWriteAtATime, f_writes_q <= 2'd1)
`VTA_PROVE(AxilOneReadAtATime, f_reads_q <= 2'd1)
`VTA_PROVE(AxilBOnlyForAWrite, axil_rsp_o.b_valid == (f_writes_q == 2'd1))
`VTA_PROVE(AxilROnlyForARead, axil_rsp_o.r_valid == (f_reads_q == 2'd1))
`VTA_PROVE(AxilResponsesOkay, axil_rsp_o.b_resp == 2'b00 && axil_rsp_o.r_resp == 2'b00)
`VTA_PROVE_IMPLIES(AxilInsnCountReadsBack, axil_rsp_o.r_valid && f_read_count_q, axil_rsp_o.r_data == f_read_q)
`VTA_PROVE(AxilInsnCountDriven, insn_count_o == f_count_q)
`VTA_PROVE_IMPLIES(AxilStartOnlyByCtrlWrite, start_o, (f_aw_hs && axil_req_i.aw_addr == VcrCtrl &&
                                                 axil_req_i.w_strb[0] && axil_req_i.w_data[VcrCtrlLaunchBit]))
// the answers are held until taken
logic        f_b_waiting_q, f_r_waiting_q;
logic [33:0] f_r_q;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    f_b_waiting_q <= 1'b0;
    f_r_waiting_q <= 1'b0;
  end else begin
    f_b_waiting_q <= axil_rsp_o.b_valid && !axil_req_i.b_ready;
    f_r_waiting_q <= axil_rsp_o.r_valid && !axil_req_i.r_ready;
  end
end
always_ff @(posedge clk_i) f_r_q <= {axil_rsp_o.r_resp, axil_rsp_o.r_data};
`VTA_PROVE_IMPLIES(AxilBHeldUntilReady, f_b_waiting_q, axil_rsp_o.b_valid)
`VTA_PROVE_IMPLIES(AxilRHeldUntilReady, f_r_waiting_q, (axil_rsp_o.r_valid && {axil_rsp_o.r_resp, axil_rsp_o.r_data} == f_r_q))

`VTA_REACH(AxilWriteStalledByB, axil_req_i.aw_valid && axil_req_i.w_valid && !axil_rsp_o.aw_ready)
`VTA_REACH(AxilBWaits, f_b_waiting_q)
`VTA_REACH(AxilRWaits, f_r_waiting_q && f_read_count_q)
`VTA_REACH(AxilCountReadAfterWrite, f_r_hs && f_read_count_q && f_read_q == 32'h01020304)
`VTA_REACH(AxilLaunch, start_o)
