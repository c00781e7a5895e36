// The memory engine: an AXI4 master serving the core's memory clients (docs/HARDWARE.md).
//
// Reads: five clients (0 fetch, 1 uop, 2 inp, 3 wgt, 4 acc) send {byte address, byte count}; the
// lowest-numbered valid client is served first. A command taken passes two two-entry register slices
// (the second holds it in bus beats), then becomes INCR bursts (vta_vme_burst) with the client as
// ARID, up to MaxReads bursts outstanding; returning beats go to the client named by RID (AXI keeps
// one ID's data in order) through a two-entry register slice.
// Writes: one client (store). Each command passes two slices too, then becomes AW bursts; the client's beats pass to W with
// WLAST set per burst (a beat leaves only after its burst's AW); ack_o pulses when the B response
// of a command's last burst arrives. Up to MaxWrites bursts outstanding.
// Errors (sticky until reset): a non-OKAY RRESP/BRESP, a command past the address space, a client
// wlast that disagrees with the command's length, a response with an unknown ID.
// quiesce_i: no new command is taken (the clients hold theirs); the bursts already taken complete, so
// busy_o falls and the engine can be reset without cutting an AXI transaction short (CTRL_RESET).
// (A command in a command slice was taken: it is split and completed too.)
`include "vta_assert.svh"

module vta_vme
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned MaxReads = 16,
  parameter int unsigned MaxWrites = 8,
  localparam int unsigned StrbWidth = BusWidth / 8
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,
  // the core's memory clients
  input  mem_rd_reqs_t                      rd_req_i,
  output mem_rd_rsps_t                      rd_rsp_o,
  input  mem_wr_req_t                       wr_req_i,
  output mem_wr_rsp_t                       wr_rsp_o,
  // AXI4 master
  output axi_req_t                          axi_req_o,
  input  axi_rsp_t                          axi_rsp_i,
  input  logic                              quiesce_i,     // take no new command
  input  logic                              start_i,       // a run starts: the grant parks on fetch
  // status
  output logic                              busy_o,        // a command is being split or a burst is outstanding
  output logic [3:0]                        error_o,       // {protocol, range, write response, read response}
  output logic [3:0]                        error_client_o // read client of the first read error; WriteClient for writes
);
  localparam int unsigned ClientW = $clog2(NumReadClients);
  localparam int unsigned ReadCntW = $clog2(MaxReads + 1);
  localparam int unsigned WriteCntW = $clog2(MaxWrites + 1);
  localparam logic [1:0] BurstIncr = 2'b01;
  localparam logic [2:0] BeatSize = 3'($clog2(StrbWidth));  // AxSIZE: whole bus beats
  localparam logic [3:0] WriteClient = 4'hf;

  // A client's command {byte address, byte count} in bus beats, as the burst splitters take it:
  // {reaches past the AXI address space, first beat, beats}. Computed between a command's two slices,
  // so neither the clients' command path nor the splitters' acceptance holds byte arithmetic.
  localparam int unsigned LowW = $clog2(StrbWidth);
  localparam int unsigned BeatW = MemAddrWidth + 2 - LowW;  // vta_vme_burst's
  localparam int unsigned BeatCmdWidth = 1 + 2 * BeatW;
  function automatic logic [BeatCmdWidth-1:0] in_beats(logic [MemAddrWidth-1:0] addr, logic [31:0] bytes);
    logic [MemAddrWidth:0] end_byte;
    logic [33:0]           span;  // the bytes from the first beat's start to the end, plus a beat less one
    logic                  out_of_range;
    logic [BeatW-1:0]      first, beats;
    end_byte     = (MemAddrWidth + 1)'(addr) + (MemAddrWidth + 1)'(bytes);
    out_of_range = end_byte > (MemAddrWidth + 1)'(64'(1) << AxiAddrWidth);
    span         = 34'(addr[LowW-1:0]) + 34'(bytes) + 34'(StrbWidth) - 34'd1;
    first        = BeatW'(addr >> LowW);
    beats        = (bytes == '0) ? '0 : BeatW'(span[33:LowW]);
    in_beats     = {out_of_range, first, beats};
  endfunction

  if (NumReadClients > (1 << AxiIdWidth)) begin : gen_id_check
    $error("vta_vme: AxiIdWidth too narrow for the read clients");
  end

  // ---- reads ----------------------------------------------------------------------------------
  logic [ClientW-1:0] grant;
  logic               rd_cmd_valid, rd_cmd_taken, rd_cmd_ready, rd_range_err;
  logic               ar_valid, ar_ready, ar_fire, r_fire, r_bad_id;
  logic [AxiAddrWidth-1:0] ar_addr, aw_addr;
  logic [7:0]         ar_len, aw_len;
  logic [ClientW-1:0] ar_tag;
  logic [ReadCntW-1:0] reads_d, reads_q;

  // The grant is a register (the lowest-numbered client valid in the previous cycle), so no ready
  // depends combinationally on another client's valid. A client that keeps its command valid keeps
  // the grant; a newly served client costs one cycle. A run starts with the grant on fetch, as after
  // reset, whichever client the previous run ended with: a program's cycles do not depend on what
  // ran before it (no client is valid in the launch cycle).
  logic [ClientW-1:0] grant_d;
  logic [NumReadClients-1:0] client_cmd_valid, client_data_ready;  // per client (gen_client below)
  always_comb begin
    grant_d = start_i ? '0 : grant;
    for (int i = NumReadClients - 1; i >= 0; i--) begin
      if (client_cmd_valid[i]) grant_d = ClientW'(i);
    end
  end
  `VTA_ASSERT_IMPLIES(StartFindsNoCommand, start_i, client_cmd_valid == '0)
  mem_rd_req_t granted;
  assign granted      = rd_req_i[grant*MemRdReqSlot +: MemRdReqWidth];
  assign rd_cmd_valid = granted.cmd_valid && !quiesce_i;

  // Two command slices: a client's command is taken into registers ({client, command}), and its beats
  // computed from those into a second slice, from which the splitter works. Without them, the
  // client's own logic (fetch's credits, a loader's command), the arbiter, the byte arithmetic and
  // the splitter's first burst were one path, and the AR slice's ready ran back to every client: the
  // design's slowest paths (docs/SYNTHESIS.md). A command costs two cycles more before its first burst
  // than without them; the clients' ready comes from a register.
  logic                           rc_wready, rc_valid, rb_wready, rb_valid;
  logic [ClientW+MemCmdWidth-1:0] rc_data;
  logic [ClientW-1:0]             rc_client;
  mem_cmd_t                       rc_cmd;
  logic [ClientW+BeatCmdWidth-1:0] rb_data;
  logic [ClientW-1:0]             rb_client;
  logic                           rb_out_of_range;
  logic [BeatW-1:0]               rb_first, rb_beats;
  assign rd_cmd_taken = rd_cmd_valid && rc_wready;
  vta_fifo #(.Width(ClientW + MemCmdWidth), .Depth(2)) u_rd_cmd_slice (
    .clk_i, .rst_ni, .wvalid_i(rd_cmd_taken), .wready_o(rc_wready), .wdata_i({grant, granted.cmd}),
    .rvalid_o(rc_valid), .rready_i(rb_wready), .rdata_o(rc_data), .count_o());
  assign {rc_client, rc_cmd} = rc_data;
  vta_fifo #(.Width(ClientW + BeatCmdWidth), .Depth(2)) u_rd_beats_slice (
    .clk_i, .rst_ni, .wvalid_i(rc_valid), .wready_o(rb_wready), .wdata_i({rc_client, in_beats(rc_cmd.addr, rc_cmd.bytes)}),
    .rvalid_o(rb_valid), .rready_i(rd_cmd_ready), .rdata_o(rb_data), .count_o());
  assign {rb_client, rb_out_of_range, rb_first, rb_beats} = rb_data;

  vta_vme_burst #(.CmdAddrWidth(MemAddrWidth), .AddrWidth(AxiAddrWidth), .TagWidth(ClientW)) u_read_split (
    .clk_i, .rst_ni, .cmd_valid_i(rb_valid), .cmd_ready_o(rd_cmd_ready), .cmd_first_i(rb_first),
    .cmd_beats_i(rb_beats), .cmd_out_of_range_i(rb_out_of_range), .cmd_tag_i(rb_client), .burst_valid_o(ar_valid), .burst_ready_i(ar_ready),
    .burst_addr_o(ar_addr), .burst_len_o(ar_len), .burst_last_o(), .burst_tag_o(ar_tag),
    .range_error_o(rd_range_err));

  // Every AXI channel passes a two-entry register slice (vta_fifo: outputs from registers): no
  // combinational path between the AXI port and the core, full rate, one cycle of latency each.
  logic ar_slice_ready;
  assign ar_ready = ar_slice_ready && reads_q != ReadCntW'(MaxReads);
  assign ar_fire  = ar_valid && ar_ready;  // counted as outstanding from here
  axi_ax_t ar_in;
  assign ar_in.id    = AxiIdWidth'(ar_tag);
  assign ar_in.addr  = ar_addr;
  assign ar_in.len   = ar_len;
  assign ar_in.size  = BeatSize;
  assign ar_in.burst = BurstIncr;
  vta_fifo #(.Width($bits(ar_in)), .Depth(2)) u_ar_slice (
    .clk_i, .rst_ni, .wvalid_i(ar_fire), .wready_o(ar_slice_ready), .wdata_i(ar_in),
    .rvalid_o(axi_req_o.ar_valid), .rready_i(axi_rsp_i.ar_ready), .rdata_o(axi_req_o.ar), .count_o());

  // R: RREADY and everything the clients see come from the slice's registers. (The R and W slices
  // hold wider-than-64-bit structs as plain vectors: Verilator 5.006 simulates a FIFO of a wide struct
  // type about 20 % slower on the whole convolution, measured.)
  logic   rs_valid, rs_ready;
  axi_r_t rs;
  vta_fifo #(.Width($bits(rs)), .Depth(2)) u_r_slice (
    .clk_i, .rst_ni, .wvalid_i(axi_rsp_i.r_valid), .wready_o(axi_req_o.r_ready), .wdata_i(axi_rsp_i.r),
    .rvalid_o(rs_valid), .rready_i(rs_ready), .rdata_o(rs), .count_o());

  assign r_bad_id = rs.id >= AxiIdWidth'(NumReadClients);
  // Per client: its response, and the checks that it holds a command, and the engine its data, until
  // taken. (The checks sample per-client signals: Verilator 5.006 generates code that does not compile
  // when an assertion samples the whole response array of a 256-bit bus. Yosys 0.23 writes no member
  // of a struct declared in a generate block: the response is a concatenation in mem_rd_rsp_t's field
  // order, cmd_ready, data_valid, data. Static per-client assignments; an always_comb loop over the
  // clients made the whole tsim 12 % slower, measured.)
  for (genvar i = 0; i < NumReadClients; i++) begin : gen_client
    logic cmd_ready, data_valid;
    assign client_cmd_valid[i]  = rd_req_i[i*MemRdReqSlot + MemRdReqCmdValidBit];
    assign client_data_ready[i] = rd_req_i[i*MemRdReqSlot + MemRdReqDataReadyBit];
    assign cmd_ready            = grant == ClientW'(i) && rc_wready && !quiesce_i;
    assign data_valid           = !r_bad_id && rs.id == AxiIdWidth'(i) && rs_valid;
    assign rd_rsp_o[i*MemRdRspSlot +: MemRdRspWidth] = {cmd_ready, data_valid, rs.data};
    if (MemRdRspSlot > MemRdRspWidth) begin : gen_rsp_gap
      assign rd_rsp_o[i*MemRdRspSlot + MemRdRspWidth +: MemRdRspSlot - MemRdRspWidth] = '0;
    end
`ifndef SYNTHESIS
    mem_rd_req_t req;
    assign req = rd_req_i[i*MemRdReqSlot +: MemRdReqWidth];
    `VTA_ASSERT(ReadClientBitsAgree, client_cmd_valid[i] == req.cmd_valid && client_data_ready[i] == req.data_ready)
    `VTA_ASSERT_HANDSHAKE(ReadCmdHeld, req.cmd_valid, cmd_ready, req.cmd)
    `VTA_ASSERT_HANDSHAKE(ReadDataHeld, data_valid, req.data_ready, rs.data)
`endif
  end
`ifndef SYNTHESIS
  if ($bits(mem_rd_req_t) != MemRdReqWidth || $bits(mem_rd_rsp_t) != MemRdRspWidth ||
      $bits(mem_cmd_t) != MemCmdWidth) begin : gen_width_check
    $error("vta_pkg: MemCmdWidth / MemRdReqWidth / MemRdRspWidth disagree with the structs");
  end
  localparam mem_rd_req_t CmdValidOnly = '{cmd_valid: 1'b1, cmd: '0, data_ready: 1'b0};
  localparam mem_rd_req_t DataReadyOnly = '{cmd_valid: 1'b0, cmd: '0, data_ready: 1'b1};
  localparam mem_rd_rsp_t DataValidOnly = '{cmd_ready: 1'b0, data_valid: 1'b1, data: '0};
  if (CmdValidOnly != mem_rd_req_t'(MemRdReqWidth'(1) << MemRdReqCmdValidBit) ||
      DataReadyOnly != mem_rd_req_t'(MemRdReqWidth'(1) << MemRdReqDataReadyBit) ||
      DataValidOnly != mem_rd_rsp_t'(MemRdRspWidth'(1) << MemRdRspDataValidBit)) begin : gen_bit_check
    $error("vta_pkg: the MemRd*Bit positions disagree with the structs");
  end
`endif
  // beats with an unknown ID are drained (and flagged)
  assign rs_ready  = r_bad_id || client_data_ready[ClientW'(rs.id)];
  assign r_fire    = rs_valid && rs_ready;
  // (outstanding counts: the count or a neighbour, chosen by the late handshakes)
  assign reads_d = (ar_fire == (r_fire && rs.last)) ? reads_q : ar_fire ? reads_q + 1'b1 : reads_q - 1'b1;

  // ---- writes ---------------------------------------------------------------------------------
  logic                 aw_valid, aw_ready, aw_last, aw_fire, w_fire, b_fire, wr_range_err;
  logic [WriteCntW-1:0] writes_d, writes_q;
  logic                 wq_wready, wq_rvalid, bq_wready, bq_rvalid, bq_last;
  logic [8:0]           wq_head;     // {last of command, len}
  logic [7:0]           wbeat_d, wbeat_q;
  logic                 w_burst_end, wlast_mismatch;

  // the write command's slices (as the reads': the store's ready from a register)
  logic             wr_cmd_ready, wc_wready, wc_valid, wb_wready, wb_valid, wb_out_of_range;
  mem_cmd_t         wc_cmd;
  logic [BeatW-1:0] wb_first, wb_beats;
  assign wr_rsp_o.cmd_ready = wc_wready && !quiesce_i;
  vta_fifo #(.Width(MemCmdWidth), .Depth(2)) u_wr_cmd_slice (
    .clk_i, .rst_ni, .wvalid_i(wr_req_i.cmd_valid && wr_rsp_o.cmd_ready), .wready_o(wc_wready),
    .wdata_i(wr_req_i.cmd), .rvalid_o(wc_valid), .rready_i(wb_wready), .rdata_o(wc_cmd), .count_o());
  vta_fifo #(.Width(BeatCmdWidth), .Depth(2)) u_wr_beats_slice (
    .clk_i, .rst_ni, .wvalid_i(wc_valid), .wready_o(wb_wready), .wdata_i(in_beats(wc_cmd.addr, wc_cmd.bytes)),
    .rvalid_o(wb_valid), .rready_i(wr_cmd_ready), .rdata_o({wb_out_of_range, wb_first, wb_beats}), .count_o());
  vta_vme_burst #(.CmdAddrWidth(MemAddrWidth), .AddrWidth(AxiAddrWidth), .TagWidth(1)) u_write_split (
    .clk_i, .rst_ni, .cmd_valid_i(wb_valid), .cmd_ready_o(wr_cmd_ready), .cmd_first_i(wb_first),
    .cmd_beats_i(wb_beats), .cmd_out_of_range_i(wb_out_of_range), .cmd_tag_i(1'b0), .burst_valid_o(aw_valid), .burst_ready_i(aw_ready),
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
  axi_ax_t aw_in;
  assign aw_in.id    = '0;
  assign aw_in.addr  = aw_addr;
  assign aw_in.len   = aw_len;
  assign aw_in.size  = BeatSize;
  assign aw_in.burst = BurstIncr;
  vta_fifo #(.Width($bits(aw_in)), .Depth(2)) u_aw_slice (
    .clk_i, .rst_ni, .wvalid_i(aw_fire), .wready_o(aw_slice_ready), .wdata_i(aw_in),
    .rvalid_o(axi_req_o.aw_valid), .rready_i(axi_rsp_i.aw_ready), .rdata_o(axi_req_o.aw), .count_o());

  // W: the client's beats enter a slice; WLAST is set per burst on the way out.
  logic   ws_valid, ws_ready;
  axi_w_t ws;  // last: the client's end of command
  axi_w_t ws_in;
  assign ws_in.data = wr_req_i.data;
  assign ws_in.strb = wr_req_i.strb;
  assign ws_in.last = wr_req_i.last;
  vta_fifo #(.Width($bits(ws)), .Depth(2)) u_w_slice (
    .clk_i, .rst_ni, .wvalid_i(wr_req_i.data_valid), .wready_o(wr_rsp_o.data_ready), .wdata_i(ws_in),
    .rvalid_o(ws_valid), .rready_i(ws_ready), .rdata_o(ws), .count_o());
  assign w_burst_end    = wbeat_q == wq_head[7:0];
  assign axi_req_o.w_valid = ws_valid && wq_rvalid;
  assign axi_req_o.w.data  = ws.data;
  assign axi_req_o.w.strb  = ws.strb;
  assign axi_req_o.w.last  = w_burst_end;
  assign ws_ready          = axi_rsp_i.w_ready && wq_rvalid;
  assign w_fire            = ws_valid && wq_rvalid && axi_rsp_i.w_ready;
  assign wbeat_d        = w_fire ? (w_burst_end ? '0 : wbeat_q + 1'b1) : wbeat_q;
  assign wlast_mismatch = w_fire && (ws.last != (w_burst_end && wq_head[8]));

  // B: the acknowledgement to the client is registered.
  logic ack_d, ack_q;
  assign axi_req_o.b_ready = 1'b1;
  assign b_fire         = axi_rsp_i.b_valid;
  assign ack_d          = b_fire && bq_rvalid && bq_last;
  assign wr_rsp_o.ack       = ack_q;
  assign writes_d       = (aw_fire == (b_fire && bq_rvalid)) ? writes_q : aw_fire ? writes_q + 1'b1 : writes_q - 1'b1;
  assign busy_o         = rc_valid || rb_valid || wc_valid || wb_valid || ar_valid || aw_valid || reads_q != '0 || writes_q != '0 ||
                          ws_valid || ack_q;

  // ---- errors ---------------------------------------------------------------------------------
  // Computed in the clocked block: they depend on the AXI inputs, and next-state logic that does is
  // evaluated twice per cycle by a simulator (Verilator's input phase and its clocked phase;
  // docs/PERFORMANCE.md).
  logic [3:0] err_q, client_q;  // client_q follows the cycle's would-be client until the first error
  assign error_o        = err_q;
  assign error_client_o = err_q != '0 ? client_q : '0;

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
      if (err_q == '0) begin  // frozen from the first error on
        client_q <= (r_fire && rs.resp != 2'b00) ? 4'(rs.id) : rd_range_err ? 4'(rb_client) : WriteClient;
      end
      err_q <= err_q | {
        wlast_mismatch || (axi_rsp_i.b_valid && (!bq_rvalid || axi_rsp_i.b.id != '0)) || (r_fire && r_bad_id),
        rd_range_err || wr_range_err,
        b_fire && axi_rsp_i.b.resp != 2'b00,
        r_fire && rs.resp != 2'b00};
    end
  end

  // The write client holds a command until it is taken.
  mem_cmd_t wr_cmd;
  logic     wr_cmd_valid;
  assign wr_cmd       = wr_req_i.cmd;
  assign wr_cmd_valid = wr_req_i.cmd_valid;
  `VTA_ASSERT_HANDSHAKE(WriteCmdHeld, wr_cmd_valid, wr_rsp_o.cmd_ready, wr_cmd)

  // back-pressure on the AXI channels that have it (B is always taken), read clients competing
  `VTA_COVER(ArBackPressure, axi_req_o.ar_valid && !axi_rsp_i.ar_ready)
  `VTA_COVER(RBackPressure, axi_rsp_i.r_valid && !axi_req_o.r_ready)
  `VTA_COVER(AwBackPressure, axi_req_o.aw_valid && !axi_rsp_i.aw_ready)
  `VTA_COVER(WBackPressure, axi_req_o.w_valid && !axi_rsp_i.w_ready)
  `VTA_COVER(ReadClientsCompete, $countones(client_cmd_valid) > 1)
endmodule : vta_vme
