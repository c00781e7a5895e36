// The memory engine: an AXI4 master serving the core's memory clients (docs/HARDWARE.md).
//
// Reads: five clients (0 fetch, 1 uop, 2 inp, 3 wgt, 4 acc) send {byte address, byte count}; the
// lowest-numbered valid client is served first. Commands become INCR bursts (vta_vme_burst) with the
// client as ARID, up to MaxReads bursts outstanding; returning beats go to the client named by RID
// (AXI keeps one ID's data in order) through a two-entry register slice.
// Writes: one client (store). Each command becomes AW bursts; the client's beats pass to W with
// WLAST set per burst (a beat leaves only after its burst's AW); ack_o pulses when the B response
// of a command's last burst arrives. Up to MaxWrites bursts outstanding.
// Errors (sticky until reset): a non-OKAY RRESP/BRESP, a command past the address space, a client
// wlast that disagrees with the command's length, a response with an unknown ID.
`include "vta_assert.svh"

module vta_vme
  import vta_config_pkg::*;
#(
  parameter int unsigned NumReadClients = 5,
  parameter int unsigned MaxReads = 16,
  parameter int unsigned MaxWrites = 8,
  parameter int unsigned AddrWidth = 32,
  parameter int unsigned IdWidth = 4,
  localparam int unsigned CmdAddrWidth = MemopDramAddrBitWidth + 8,
  localparam int unsigned StrbWidth = BusWidth / 8
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // read clients
  input  logic [NumReadClients-1:0]                   rd_cmd_valid_i,
  output logic [NumReadClients-1:0]                   rd_cmd_ready_o,
  input  logic [NumReadClients-1:0][CmdAddrWidth-1:0] rd_cmd_addr_i,
  input  logic [NumReadClients-1:0][31:0]             rd_cmd_bytes_i,
  output logic [NumReadClients-1:0]                   rd_valid_o,
  input  logic [NumReadClients-1:0]                   rd_ready_i,
  output logic [BusWidth-1:0]                         rd_data_o,
  // write client
  input  logic                    wr_cmd_valid_i,
  output logic                    wr_cmd_ready_o,
  input  logic [CmdAddrWidth-1:0] wr_cmd_addr_i,
  input  logic [31:0]             wr_cmd_bytes_i,
  input  logic                    wr_valid_i,
  output logic                    wr_ready_o,
  input  logic [BusWidth-1:0]     wr_data_i,
  input  logic [StrbWidth-1:0]    wr_strb_i,
  input  logic                    wr_last_i,
  output logic                    wr_ack_o,
  // AXI4 master: read address
  output logic                 m_axi_arvalid_o,
  input  logic                 m_axi_arready_i,
  output logic [IdWidth-1:0]   m_axi_arid_o,
  output logic [AddrWidth-1:0] m_axi_araddr_o,
  output logic [7:0]           m_axi_arlen_o,
  output logic [2:0]           m_axi_arsize_o,
  output logic [1:0]           m_axi_arburst_o,
  // read data
  input  logic                 m_axi_rvalid_i,
  output logic                 m_axi_rready_o,
  input  logic [IdWidth-1:0]   m_axi_rid_i,
  input  logic [BusWidth-1:0]  m_axi_rdata_i,
  input  logic [1:0]           m_axi_rresp_i,
  input  logic                 m_axi_rlast_i,
  // write address
  output logic                 m_axi_awvalid_o,
  input  logic                 m_axi_awready_i,
  output logic [IdWidth-1:0]   m_axi_awid_o,
  output logic [AddrWidth-1:0] m_axi_awaddr_o,
  output logic [7:0]           m_axi_awlen_o,
  output logic [2:0]           m_axi_awsize_o,
  output logic [1:0]           m_axi_awburst_o,
  // write data
  output logic                 m_axi_wvalid_o,
  input  logic                 m_axi_wready_i,
  output logic [BusWidth-1:0]  m_axi_wdata_o,
  output logic [StrbWidth-1:0] m_axi_wstrb_o,
  output logic                 m_axi_wlast_o,
  // write response
  input  logic                 m_axi_bvalid_i,
  output logic                 m_axi_bready_o,
  input  logic [IdWidth-1:0]   m_axi_bid_i,
  input  logic [1:0]           m_axi_bresp_i,
  // status
  output logic                 busy_o,        // a command is being split or a burst is outstanding
  output logic [3:0]           error_o,       // {protocol, range, write response, read response}
  output logic [3:0]           error_client_o // read client of the first read error; WriteClient for writes
);
  localparam int unsigned ClientW = $clog2(NumReadClients);
  localparam int unsigned ReadCntW = $clog2(MaxReads + 1);
  localparam int unsigned WriteCntW = $clog2(MaxWrites + 1);
  localparam logic [1:0] BurstIncr = 2'b01;
  localparam logic [3:0] WriteClient = 4'hf;

  if (NumReadClients > (1 << IdWidth)) begin : gen_id_check
    $error("vta_vme: IdWidth too narrow for the read clients");
  end

  // ---- reads ----------------------------------------------------------------------------------
  logic [ClientW-1:0] grant;
  logic               rd_cmd_valid, rd_cmd_ready, rd_range_err;
  logic               ar_valid, ar_ready, ar_fire, r_fire, r_bad_id;
  logic [AddrWidth-1:0] ar_addr, aw_addr;
  logic [7:0]         ar_len, aw_len;
  logic [ClientW-1:0] ar_tag;
  logic [ReadCntW-1:0] reads_d, reads_q;

  // The grant is a register (the lowest-numbered client valid in the previous cycle), so no ready
  // depends combinationally on another client's valid. A client that keeps its command valid keeps
  // the grant; a newly served client costs one cycle.
  logic [ClientW-1:0] grant_d;
  always_comb begin
    grant_d = grant;
    for (int i = NumReadClients - 1; i >= 0; i--) begin
      if (rd_cmd_valid_i[i]) grant_d = ClientW'(i);
    end
  end
  assign rd_cmd_valid = rd_cmd_valid_i[grant];
  always_comb begin
    rd_cmd_ready_o = '0;
    rd_cmd_ready_o[grant] = rd_cmd_ready;
  end

  vta_vme_burst #(.AddrWidth(AddrWidth), .TagWidth(ClientW)) u_read_split (
    .clk_i, .rst_ni, .cmd_valid_i(rd_cmd_valid), .cmd_ready_o(rd_cmd_ready), .cmd_addr_i(rd_cmd_addr_i[grant]),
    .cmd_bytes_i(rd_cmd_bytes_i[grant]), .cmd_tag_i(grant), .burst_valid_o(ar_valid), .burst_ready_i(ar_ready),
    .burst_addr_o(ar_addr), .burst_len_o(ar_len), .burst_last_o(), .burst_tag_o(ar_tag),
    .range_error_o(rd_range_err));

  // Every AXI channel passes a two-entry register slice (vta_fifo: outputs from registers): no
  // combinational path between the AXI port and the core, full rate, one cycle of latency each.
  logic ar_slice_ready;
  assign ar_ready = ar_slice_ready && reads_q != ReadCntW'(MaxReads);
  assign ar_fire  = ar_valid && ar_ready;  // counted as outstanding from here
  vta_fifo #(.Width(IdWidth + AddrWidth + 8), .Depth(2)) u_ar_slice (
    .clk_i, .rst_ni, .wvalid_i(ar_fire), .wready_o(ar_slice_ready), .wdata_i({IdWidth'(ar_tag), ar_addr, ar_len}),
    .rvalid_o(m_axi_arvalid_o), .rready_i(m_axi_arready_i), .rdata_o({m_axi_arid_o, m_axi_araddr_o, m_axi_arlen_o}),
    .count_o());
  assign m_axi_arsize_o  = 3'($clog2(StrbWidth));
  assign m_axi_arburst_o = BurstIncr;

  // R: RREADY and everything the clients see come from the slice's registers.
  localparam int unsigned RWidth = IdWidth + 2 + 1 + BusWidth;
  logic               rs_valid, rs_ready, rs_last;
  logic [IdWidth-1:0] rs_id;
  logic [1:0]         rs_resp;
  logic [BusWidth-1:0] rs_data;
  vta_fifo #(.Width(RWidth), .Depth(2)) u_r_slice (
    .clk_i, .rst_ni, .wvalid_i(m_axi_rvalid_i), .wready_o(m_axi_rready_o),
    .wdata_i({m_axi_rid_i, m_axi_rresp_i, m_axi_rlast_i, m_axi_rdata_i}),
    .rvalid_o(rs_valid), .rready_i(rs_ready), .rdata_o({rs_id, rs_resp, rs_last, rs_data}), .count_o());

  assign r_bad_id = rs_id >= IdWidth'(NumReadClients);
  always_comb begin
    rd_valid_o = '0;
    if (!r_bad_id) rd_valid_o[ClientW'(rs_id)] = rs_valid;
  end
  // beats with an unknown ID are drained (and flagged)
  assign rs_ready  = r_bad_id || rd_ready_i[ClientW'(rs_id)];
  assign rd_data_o = rs_data;
  assign r_fire    = rs_valid && rs_ready;
  assign reads_d        = reads_q + ReadCntW'(ar_fire) - ReadCntW'(r_fire && rs_last);

  // ---- writes ---------------------------------------------------------------------------------
  logic                 aw_valid, aw_ready, aw_last, aw_fire, w_fire, b_fire, wr_range_err;
  logic [WriteCntW-1:0] writes_d, writes_q;
  logic                 wq_wready, wq_rvalid, bq_wready, bq_rvalid, bq_last;
  logic [8:0]           wq_head;     // {last of command, len}
  logic [7:0]           wbeat_d, wbeat_q;
  logic                 w_burst_end, wlast_mismatch;

  vta_vme_burst #(.AddrWidth(AddrWidth), .TagWidth(1)) u_write_split (
    .clk_i, .rst_ni, .cmd_valid_i(wr_cmd_valid_i), .cmd_ready_o(wr_cmd_ready_o), .cmd_addr_i(wr_cmd_addr_i),
    .cmd_bytes_i(wr_cmd_bytes_i), .cmd_tag_i(1'b0), .burst_valid_o(aw_valid), .burst_ready_i(aw_ready),
    .burst_addr_o(aw_addr), .burst_len_o(aw_len), .burst_last_o(aw_last), .burst_tag_o(),
    .range_error_o(wr_range_err));

  // W beats follow their burst's AW: the AW side queues {last, len} for W and {last} for B.
  vta_fifo #(.Width(9), .Depth(MaxWrites)) u_w_bursts (
    .clk_i, .rst_ni, .wvalid_i(aw_fire), .wready_o(wq_wready), .wdata_i({aw_last, aw_len}),
    .rvalid_o(wq_rvalid), .rready_i(w_fire && w_burst_end), .rdata_o(wq_head), .count_o());
  vta_fifo #(.Width(1), .Depth(MaxWrites)) u_b_bursts (
    .clk_i, .rst_ni, .wvalid_i(aw_fire), .wready_o(bq_wready), .wdata_i(aw_last),
    .rvalid_o(bq_rvalid), .rready_i(b_fire), .rdata_o(bq_last), .count_o());

  logic aw_slice_ready;
  assign aw_ready = aw_slice_ready && writes_q != WriteCntW'(MaxWrites) && wq_wready && bq_wready;
  assign aw_fire  = aw_valid && aw_ready;
  vta_fifo #(.Width(AddrWidth + 8), .Depth(2)) u_aw_slice (
    .clk_i, .rst_ni, .wvalid_i(aw_fire), .wready_o(aw_slice_ready), .wdata_i({aw_addr, aw_len}),
    .rvalid_o(m_axi_awvalid_o), .rready_i(m_axi_awready_i), .rdata_o({m_axi_awaddr_o, m_axi_awlen_o}), .count_o());
  assign m_axi_awid_o    = '0;
  assign m_axi_awsize_o  = 3'($clog2(StrbWidth));
  assign m_axi_awburst_o = BurstIncr;

  // W: the client's beats enter a slice; WLAST is set per burst on the way out.
  logic                 ws_valid, ws_ready, ws_last;
  logic [BusWidth-1:0]  ws_data;
  logic [StrbWidth-1:0] ws_strb;
  vta_fifo #(.Width(BusWidth + StrbWidth + 1), .Depth(2)) u_w_slice (
    .clk_i, .rst_ni, .wvalid_i(wr_valid_i), .wready_o(wr_ready_o), .wdata_i({wr_data_i, wr_strb_i, wr_last_i}),
    .rvalid_o(ws_valid), .rready_i(ws_ready), .rdata_o({ws_data, ws_strb, ws_last}), .count_o());
  assign w_burst_end    = wbeat_q == wq_head[7:0];
  assign m_axi_wvalid_o = ws_valid && wq_rvalid;
  assign ws_ready       = m_axi_wready_i && wq_rvalid;
  assign m_axi_wdata_o  = ws_data;
  assign m_axi_wstrb_o  = ws_strb;
  assign m_axi_wlast_o  = w_burst_end;
  assign w_fire         = m_axi_wvalid_o && m_axi_wready_i;
  assign wbeat_d        = w_fire ? (w_burst_end ? '0 : wbeat_q + 1'b1) : wbeat_q;
  assign wlast_mismatch = w_fire && (ws_last != (w_burst_end && wq_head[8]));

  // B: the acknowledgement to the client is registered.
  logic ack_d, ack_q;
  assign m_axi_bready_o = 1'b1;
  assign b_fire         = m_axi_bvalid_i;
  assign ack_d          = b_fire && bq_rvalid && bq_last;
  assign wr_ack_o       = ack_q;
  assign writes_d       = writes_q + WriteCntW'(aw_fire) - WriteCntW'(b_fire && bq_rvalid);
  assign busy_o         = ar_valid || aw_valid || reads_q != '0 || writes_q != '0 || ws_valid || ack_q;

  // ---- errors ---------------------------------------------------------------------------------
  logic [3:0] err_d, err_q, client_d, client_q;
  always_comb begin
    err_d = err_q | {
      wlast_mismatch || (m_axi_bvalid_i && (!bq_rvalid || m_axi_bid_i != '0)) || (r_fire && r_bad_id),
      rd_range_err || wr_range_err,
      b_fire && m_axi_bresp_i != 2'b00,
      r_fire && rs_resp != 2'b00};
    client_d = client_q;
    if (err_q == '0 && err_d != '0) begin
      client_d = (r_fire && rs_resp != 2'b00) ? 4'(rs_id)
               : rd_range_err ? 4'(grant) : WriteClient;
    end
  end
  assign error_o        = err_q;
  assign error_client_o = client_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      grant    <= '0;
      ack_q    <= 1'b0;
      reads_q  <= '0;
      writes_q <= '0;
      wbeat_q  <= '0;
      err_q    <= '0;
      client_q <= '0;
    end else begin
      grant    <= grant_d;
      ack_q    <= ack_d;
      reads_q  <= reads_d;
      writes_q <= writes_d;
      wbeat_q  <= wbeat_d;
      err_q    <= err_d;
      client_q <= client_d;
    end
  end

  // The clients hold a command until it is taken; the engine holds returned data until it is taken.
  for (genvar i = 0; i < NumReadClients; i++) begin : gen_client_checks
    `VTA_ASSERT_HANDSHAKE(ReadCmdHeld, rd_cmd_valid_i[i], rd_cmd_ready_o[i], {rd_cmd_addr_i[i], rd_cmd_bytes_i[i]})
    `VTA_ASSERT_HANDSHAKE(ReadDataHeld, rd_valid_o[i], rd_ready_i[i], rd_data_o)
  end
  `VTA_ASSERT_HANDSHAKE(WriteCmdHeld, wr_cmd_valid_i, wr_cmd_ready_o, {wr_cmd_addr_i, wr_cmd_bytes_i})
endmodule : vta_vme
