// Protocol assertions on vta_top's two ports (simulation only: vta_top instantiates it outside
// SYNTHESIS). It observes the AXI4 memory master, checking both sides — the accelerator's bursts and
// the memory's responses (the tsim's DRAM model) — and the AXI4-Lite host port, checking the host's
// requests (the tsim's controller) and the register file's responses. Every check is a named
// assertion (vta_assert.svh); the bookkeeping below exists only to state them.
`include "vta_assert.svh"

module vta_bus_checker
  import vta_config_pkg::*;
#(
  parameter int unsigned AddrWidth = 32,
  parameter int unsigned IdWidth = 4,
  localparam int unsigned StrbWidth = BusWidth / 8
) (
  input logic                 clk_i,
  input logic                 rst_ni,
  // AXI4-Lite (host -> accelerator)
  input logic                 s_axil_awvalid_i,
  input logic                 s_axil_awready_i,
  input logic [11:0]          s_axil_awaddr_i,
  input logic                 s_axil_wvalid_i,
  input logic                 s_axil_wready_i,
  input logic [31:0]          s_axil_wdata_i,
  input logic [3:0]           s_axil_wstrb_i,
  input logic                 s_axil_bvalid_i,
  input logic                 s_axil_bready_i,
  input logic [1:0]           s_axil_bresp_i,
  input logic                 s_axil_arvalid_i,
  input logic                 s_axil_arready_i,
  input logic [11:0]          s_axil_araddr_i,
  input logic                 s_axil_rvalid_i,
  input logic                 s_axil_rready_i,
  input logic [31:0]          s_axil_rdata_i,
  input logic [1:0]           s_axil_rresp_i,
  // AXI4 (accelerator -> memory)
  input logic                 m_axi_arvalid_i,
  input logic                 m_axi_arready_i,
  input logic [IdWidth-1:0]   m_axi_arid_i,
  input logic [AddrWidth-1:0] m_axi_araddr_i,
  input logic [7:0]           m_axi_arlen_i,
  input logic [2:0]           m_axi_arsize_i,
  input logic [1:0]           m_axi_arburst_i,
  input logic                 m_axi_rvalid_i,
  input logic                 m_axi_rready_i,
  input logic [IdWidth-1:0]   m_axi_rid_i,
  input logic [BusWidth-1:0]  m_axi_rdata_i,
  input logic [1:0]           m_axi_rresp_i,
  input logic                 m_axi_rlast_i,
  input logic                 m_axi_awvalid_i,
  input logic                 m_axi_awready_i,
  input logic [IdWidth-1:0]   m_axi_awid_i,
  input logic [AddrWidth-1:0] m_axi_awaddr_i,
  input logic [7:0]           m_axi_awlen_i,
  input logic [2:0]           m_axi_awsize_i,
  input logic [1:0]           m_axi_awburst_i,
  input logic                 m_axi_wvalid_i,
  input logic                 m_axi_wready_i,
  input logic [BusWidth-1:0]  m_axi_wdata_i,
  input logic [StrbWidth-1:0] m_axi_wstrb_i,
  input logic                 m_axi_wlast_i,
  input logic                 m_axi_bvalid_i,
  input logic                 m_axi_bready_i,
  input logic [IdWidth-1:0]   m_axi_bid_i,
  input logic [1:0]           m_axi_bresp_i
);
  localparam int unsigned NumIds = 1 << IdWidth;
  localparam int unsigned MaxBursts = 64;  // bursts in flight the bookkeeping follows
  localparam int unsigned CntW = $clog2(MaxBursts + 1);
  localparam int unsigned PtrW = $clog2(MaxBursts);
  localparam logic [1:0] BurstIncr = 2'b01;
  localparam logic [2:0] BeatSize = 3'($clog2(StrbWidth));

  logic ar_hs, r_hs, aw_hs, w_hs, b_hs;
  assign ar_hs = m_axi_arvalid_i && m_axi_arready_i;
  assign r_hs  = m_axi_rvalid_i && m_axi_rready_i;
  assign aw_hs = m_axi_awvalid_i && m_axi_awready_i;
  assign w_hs  = m_axi_wvalid_i && m_axi_wready_i;
  assign b_hs  = m_axi_bvalid_i && m_axi_bready_i;

  // ---- AXI4: every channel's payload is held until its handshake --------------------------------
  `VTA_ASSERT_HANDSHAKE(AxiArHeld, m_axi_arvalid_i, m_axi_arready_i,
                        {m_axi_arid_i, m_axi_araddr_i, m_axi_arlen_i, m_axi_arsize_i, m_axi_arburst_i})
  `VTA_ASSERT_HANDSHAKE(AxiAwHeld, m_axi_awvalid_i, m_axi_awready_i,
                        {m_axi_awid_i, m_axi_awaddr_i, m_axi_awlen_i, m_axi_awsize_i, m_axi_awburst_i})
  `VTA_ASSERT_HANDSHAKE(AxiWHeld, m_axi_wvalid_i, m_axi_wready_i, {m_axi_wdata_i, m_axi_wstrb_i, m_axi_wlast_i})
  `VTA_ASSERT_HANDSHAKE(AxiRHeld, m_axi_rvalid_i, m_axi_rready_i,
                        {m_axi_rid_i, m_axi_rdata_i, m_axi_rresp_i, m_axi_rlast_i})
  `VTA_ASSERT_HANDSHAKE(AxiBHeld, m_axi_bvalid_i, m_axi_bready_i, {m_axi_bid_i, m_axi_bresp_i})
  `VTA_ASSERT_KNOWN(AxiArKnown, m_axi_arvalid_i, {m_axi_arid_i, m_axi_araddr_i, m_axi_arlen_i})
  `VTA_ASSERT_KNOWN(AxiAwKnown, m_axi_awvalid_i, {m_axi_awid_i, m_axi_awaddr_i, m_axi_awlen_i})
  `VTA_ASSERT_KNOWN(AxiWKnown, m_axi_wvalid_i, {m_axi_wdata_i, m_axi_wstrb_i, m_axi_wlast_i})

  // ---- AXI4 burst rules: INCR bursts of whole beats that never cross a 4 KiB page -----------------
  `VTA_ASSERT(AxiArIncrFullBeats, m_axi_arvalid_i |-> m_axi_arburst_i == BurstIncr && m_axi_arsize_i == BeatSize)
  `VTA_ASSERT(AxiAwIncrFullBeats, m_axi_awvalid_i |-> m_axi_awburst_i == BurstIncr && m_axi_awsize_i == BeatSize)
  `VTA_ASSERT(AxiArWithin4KiB,
              m_axi_arvalid_i |-> int'(m_axi_araddr_i[11:0]) + (int'(m_axi_arlen_i) + 1) * int'(StrbWidth) <= 4096)
  `VTA_ASSERT(AxiAwWithin4KiB,
              m_axi_awvalid_i |-> int'(m_axi_awaddr_i[11:0]) + (int'(m_axi_awlen_i) + 1) * int'(StrbWidth) <= 4096)

  // ---- AXI4 reads: a response only for an ID with a burst outstanding ----------------------------
  logic [NumIds-1:0][CntW-1:0] reads_q;
  `VTA_ASSERT(AxiRForOutstandingId, m_axi_rvalid_i |-> reads_q[m_axi_rid_i] != '0)
  `VTA_ASSERT_NEVER(AxiReadTrackerOverflow, ar_hs && reads_q[m_axi_arid_i] == CntW'(MaxBursts))

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
  assign len_now   = lens_n_q != '0 ? lens_q[head_q] : m_axi_awlen_i;
  `VTA_ASSERT(AxiWlastOnLastBeat, w_hs && len_known |-> m_axi_wlast_i == (beat_q == len_now))
  `VTA_ASSERT(AxiBForCompletedBurst, m_axi_bvalid_i |-> writes_q != '0)
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
    end else begin
      if (ar_hs) reads_q[m_axi_arid_i] <= reads_q[m_axi_arid_i] + 1'b1;
      if (r_hs && m_axi_rlast_i && reads_q[m_axi_rid_i] != '0) begin
        reads_q[m_axi_rid_i] <= reads_q[m_axi_rid_i] - 1'b1 + CntW'(ar_hs && m_axi_arid_i == m_axi_rid_i);
      end
      // burst lengths: pushed at AW, popped at the last W beat (or matched with a burst sent ahead)
      begin
        logic push, pop;
        push = aw_hs && ahead_q == '0 && !(w_hs && m_axi_wlast_i && lens_n_q == '0);
        pop  = w_hs && m_axi_wlast_i && lens_n_q != '0;
        if (push) begin
          lens_q[tail_q] <= m_axi_awlen_i;
          tail_q <= tail_q + 1'b1;
        end
        if (pop) head_q <= head_q + 1'b1;
        lens_n_q <= lens_n_q + CntW'(push) - CntW'(pop);
        ahead_q <= ahead_q + CntW'(w_hs && m_axi_wlast_i && lens_n_q == '0 && !aw_hs)
                           - CntW'(aw_hs && ahead_q != '0);
      end
      if (w_hs) beat_q <= m_axi_wlast_i ? '0 : beat_q + 1'b1;
      writes_q <= writes_q + CntW'(aw_hs) - CntW'(b_hs && writes_q != '0);
    end
  end

  // ---- AXI4-Lite: the host holds its requests, the registers hold their responses ----------------
  `VTA_ASSERT_HANDSHAKE(AxilAwHeld, s_axil_awvalid_i, s_axil_awready_i, s_axil_awaddr_i)
  `VTA_ASSERT_HANDSHAKE(AxilWHeld, s_axil_wvalid_i, s_axil_wready_i, {s_axil_wdata_i, s_axil_wstrb_i})
  `VTA_ASSERT_HANDSHAKE(AxilArHeld, s_axil_arvalid_i, s_axil_arready_i, s_axil_araddr_i)
  `VTA_ASSERT_HANDSHAKE(AxilBHeld, s_axil_bvalid_i, s_axil_bready_i, s_axil_bresp_i)
  `VTA_ASSERT_HANDSHAKE(AxilRHeld, s_axil_rvalid_i, s_axil_rready_i, {s_axil_rdata_i, s_axil_rresp_i})
endmodule : vta_bus_checker
