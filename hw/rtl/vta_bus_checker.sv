// Protocol assertions on vta_top's two ports (simulation only: vta_top instantiates it outside
// SYNTHESIS). It observes the AXI4 memory master, checking both sides — the accelerator's bursts and
// the memory's responses (the tsim's DRAM model) — and the AXI4-Lite host port, checking the host's
// requests (the tsim's controller) and the register file's responses. Every check is a named
// assertion (vta_assert.svh); the bookkeeping below exists only to state them.
`include "vta_assert.svh"

module vta_bus_checker
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  localparam int unsigned StrbWidth = BusWidth / 8
) (
  input logic      clk_i,
  input logic      rst_ni,
  input axil_req_t axil_req_i,  // host -> accelerator
  input axil_rsp_t axil_rsp_i,
  input axi_req_t  axi_req_i,   // accelerator -> memory
  input axi_rsp_t  axi_rsp_i
);
  localparam int unsigned NumIds = 1 << AxiIdWidth;
  localparam int unsigned MaxBursts = 64;  // bursts in flight the bookkeeping follows
  localparam int unsigned CntW = $clog2(MaxBursts + 1);
  localparam int unsigned PtrW = $clog2(MaxBursts);
  localparam logic [1:0] BurstIncr = 2'b01;
  localparam logic [2:0] BeatSize = 3'($clog2(StrbWidth));

  logic ar_hs, r_hs, aw_hs, w_hs, b_hs;
  assign ar_hs = axi_req_i.ar_valid && axi_rsp_i.ar_ready;
  assign r_hs  = axi_rsp_i.r_valid && axi_req_i.r_ready;
  assign aw_hs = axi_req_i.aw_valid && axi_rsp_i.aw_ready;
  assign w_hs  = axi_req_i.w_valid && axi_rsp_i.w_ready;
  assign b_hs  = axi_rsp_i.b_valid && axi_req_i.b_ready;

  // ---- AXI4: every channel's payload is held until its handshake --------------------------------
  `VTA_ASSERT_HANDSHAKE(AxiArHeld, axi_req_i.ar_valid, axi_rsp_i.ar_ready, axi_req_i.ar)
  `VTA_ASSERT_HANDSHAKE(AxiAwHeld, axi_req_i.aw_valid, axi_rsp_i.aw_ready, axi_req_i.aw)
  `VTA_ASSERT_HANDSHAKE(AxiWHeld, axi_req_i.w_valid, axi_rsp_i.w_ready, axi_req_i.w)
  `VTA_ASSERT_HANDSHAKE(AxiRHeld, axi_rsp_i.r_valid, axi_req_i.r_ready, axi_rsp_i.r)
  `VTA_ASSERT_HANDSHAKE(AxiBHeld, axi_rsp_i.b_valid, axi_req_i.b_ready, axi_rsp_i.b)
  `VTA_ASSERT_KNOWN(AxiArKnown, axi_req_i.ar_valid, {axi_req_i.ar.id, axi_req_i.ar.addr, axi_req_i.ar.len})
  `VTA_ASSERT_KNOWN(AxiAwKnown, axi_req_i.aw_valid, {axi_req_i.aw.id, axi_req_i.aw.addr, axi_req_i.aw.len})
  `VTA_ASSERT_KNOWN(AxiWKnown, axi_req_i.w_valid, axi_req_i.w)

  // ---- AXI4 burst rules: INCR bursts of whole beats that never cross a 4 KiB page -----------------
  `VTA_ASSERT_IMPLIES(AxiArIncrFullBeats, axi_req_i.ar_valid, axi_req_i.ar.burst == BurstIncr && axi_req_i.ar.size == BeatSize)
  `VTA_ASSERT_IMPLIES(AxiAwIncrFullBeats, axi_req_i.aw_valid, axi_req_i.aw.burst == BurstIncr && axi_req_i.aw.size == BeatSize)
  `VTA_ASSERT_IMPLIES(AxiArWithin4KiB, axi_req_i.ar_valid,
                      int'(axi_req_i.ar.addr[11:0]) + (int'(axi_req_i.ar.len) + 1) * int'(StrbWidth) <= 4096)
  `VTA_ASSERT_IMPLIES(AxiAwWithin4KiB, axi_req_i.aw_valid,
                      int'(axi_req_i.aw.addr[11:0]) + (int'(axi_req_i.aw.len) + 1) * int'(StrbWidth) <= 4096)

  // ---- AXI4 reads: a response only for an ID with a burst outstanding ----------------------------
  logic [NumIds-1:0][CntW-1:0] reads_q;
  `VTA_ASSERT_IMPLIES(AxiRForOutstandingId, axi_rsp_i.r_valid, reads_q[axi_rsp_i.r.id] != '0)
  `VTA_ASSERT_NEVER(AxiReadTrackerOverflow, ar_hs && reads_q[axi_req_i.ar.id] == CntW'(MaxBursts))

  // ---- AXI4 writes: WLAST exactly on each burst's last beat, B only for a burst sent -------------
  // The lengths of the bursts whose address was sent and whose data is not complete, oldest first;
  // a burst's data may also come before its address (`ahead` counts such bursts).
  logic [7:0]      lens_q [MaxBursts];
  logic [PtrW-1:0] head_q, tail_q;
  logic [CntW-1:0] lens_n_q, ahead_q, writes_q;
  logic [7:0]      beat_q;
  logic            len_known;
  logic [7:0]      len_now;
  assign len_known = lens_n_q != '0 || (aw_hs && ahead_q == '0);
  assign len_now   = lens_n_q != '0 ? lens_q[head_q] : axi_req_i.aw.len;
  `VTA_ASSERT_IMPLIES(AxiWlastOnLastBeat, w_hs && len_known, axi_req_i.w.last == (beat_q == len_now))
  `VTA_ASSERT_IMPLIES(AxiBForCompletedBurst, axi_rsp_i.b_valid, writes_q != '0)
  `VTA_ASSERT_NEVER(AxiWriteTrackerOverflow, aw_hs && lens_n_q == CntW'(MaxBursts))

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reads_q  <= '0;
      head_q   <= '0;
      tail_q   <= '0;
      lens_n_q <= '0;
      ahead_q  <= '0;
      writes_q <= '0;
      beat_q   <= '0;
    end else if (ar_hs || r_hs || aw_hs || w_hs || b_hs) begin  // (nothing changes without a handshake)
      if (ar_hs) reads_q[axi_req_i.ar.id] <= reads_q[axi_req_i.ar.id] + 1'b1;
      if (r_hs && axi_rsp_i.r.last && reads_q[axi_rsp_i.r.id] != '0) begin
        reads_q[axi_rsp_i.r.id] <= reads_q[axi_rsp_i.r.id] - 1'b1 + CntW'(ar_hs && axi_req_i.ar.id == axi_rsp_i.r.id);
      end
      // burst lengths: pushed at AW, popped at the last W beat (or matched with a burst sent ahead)
      begin
        logic push, pop;
        push = aw_hs && ahead_q == '0 && !(w_hs && axi_req_i.w.last && lens_n_q == '0);
        pop  = w_hs && axi_req_i.w.last && lens_n_q != '0;
        if (push) begin
          lens_q[tail_q] <= axi_req_i.aw.len;
          tail_q <= tail_q + 1'b1;
        end
        if (pop) head_q <= head_q + 1'b1;
        lens_n_q <= lens_n_q + CntW'(push) - CntW'(pop);
        ahead_q <= ahead_q + CntW'(w_hs && axi_req_i.w.last && lens_n_q == '0 && !aw_hs)
                           - CntW'(aw_hs && ahead_q != '0);
      end
      if (w_hs) beat_q <= axi_req_i.w.last ? '0 : beat_q + 1'b1;
      writes_q <= writes_q + CntW'(aw_hs) - CntW'(b_hs && writes_q != '0);
    end
  end

  // ---- AXI4-Lite: the host holds its requests, the registers hold their responses ----------------
  `VTA_ASSERT_HANDSHAKE(AxilAwHeld, axil_req_i.aw_valid, axil_rsp_i.aw_ready, axil_req_i.aw_addr)
  `VTA_ASSERT_HANDSHAKE(AxilWHeld, axil_req_i.w_valid, axil_rsp_i.w_ready, {axil_req_i.w_data, axil_req_i.w_strb})
  `VTA_ASSERT_HANDSHAKE(AxilArHeld, axil_req_i.ar_valid, axil_rsp_i.ar_ready, axil_req_i.ar_addr)
  `VTA_ASSERT_HANDSHAKE(AxilBHeld, axil_rsp_i.b_valid, axil_req_i.b_ready, axil_rsp_i.b_resp)
  `VTA_ASSERT_HANDSHAKE(AxilRHeld, axil_rsp_i.r_valid, axil_req_i.r_ready, {axil_rsp_i.r_data, axil_rsp_i.r_resp})
endmodule : vta_bus_checker
