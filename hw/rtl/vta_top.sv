// The VTA accelerator: control registers (vta_vcr, AXI4-Lite slave), the core (vta_core) and the
// memory engine (vta_vme, AXI4 master). irq_o is high while CTRL reports done or error.
// The ports are flat, with the AXI signal names IP packagers recognise and the simulation controllers
// drive (tsim, SystemC); inside, each bus direction is one struct of vta_pkg.
module vta_top
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned MaxReads = 16,
  parameter int unsigned MaxWrites = 8,
  parameter int unsigned InsnQueueDepth = 512,
  localparam int unsigned StrbWidth = BusWidth / 8
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  output logic                    irq_o,
  // host: AXI4-Lite slave
  input  logic                    s_axil_awvalid_i,
  output logic                    s_axil_awready_o,
  input  logic [11:0]             s_axil_awaddr_i,
  input  logic                    s_axil_wvalid_i,
  output logic                    s_axil_wready_o,
  input  logic [31:0]             s_axil_wdata_i,
  input  logic [3:0]              s_axil_wstrb_i,
  output logic                    s_axil_bvalid_o,
  input  logic                    s_axil_bready_i,
  output logic [1:0]              s_axil_bresp_o,
  input  logic                    s_axil_arvalid_i,
  output logic                    s_axil_arready_o,
  input  logic [11:0]             s_axil_araddr_i,
  output logic                    s_axil_rvalid_o,
  input  logic                    s_axil_rready_i,
  output logic [31:0]             s_axil_rdata_o,
  output logic [1:0]              s_axil_rresp_o,
  // memory: AXI4 master
  output logic                    m_axi_arvalid_o,
  input  logic                    m_axi_arready_i,
  output logic [AxiIdWidth-1:0]   m_axi_arid_o,
  output logic [AxiAddrWidth-1:0] m_axi_araddr_o,
  output logic [7:0]              m_axi_arlen_o,
  output logic [2:0]              m_axi_arsize_o,
  output logic [1:0]              m_axi_arburst_o,
  input  logic                    m_axi_rvalid_i,
  output logic                    m_axi_rready_o,
  input  logic [AxiIdWidth-1:0]   m_axi_rid_i,
  input  logic [BusWidth-1:0]     m_axi_rdata_i,
  input  logic [1:0]              m_axi_rresp_i,
  input  logic                    m_axi_rlast_i,
  output logic                    m_axi_awvalid_o,
  input  logic                    m_axi_awready_i,
  output logic [AxiIdWidth-1:0]   m_axi_awid_o,
  output logic [AxiAddrWidth-1:0] m_axi_awaddr_o,
  output logic [7:0]              m_axi_awlen_o,
  output logic [2:0]              m_axi_awsize_o,
  output logic [1:0]              m_axi_awburst_o,
  output logic                    m_axi_wvalid_o,
  input  logic                    m_axi_wready_i,
  output logic [BusWidth-1:0]     m_axi_wdata_o,
  output logic [StrbWidth-1:0]    m_axi_wstrb_o,
  output logic                    m_axi_wlast_o,
  input  logic                    m_axi_bvalid_i,
  output logic                    m_axi_bready_o,
  input  logic [AxiIdWidth-1:0]   m_axi_bid_i,
  input  logic [1:0]              m_axi_bresp_i
);
  localparam int unsigned FillWidth = $clog2(InsnQueueDepth + 1);

  // ---- the ports as structs ----------------------------------------------------------------------
  axil_req_t axil_req;
  axil_rsp_t axil_rsp;
  axi_req_t  axi_req;
  axi_rsp_t  axi_rsp;
  assign axil_req.aw_valid = s_axil_awvalid_i;
  assign axil_req.aw_addr  = s_axil_awaddr_i;
  assign axil_req.w_valid  = s_axil_wvalid_i;
  assign axil_req.w_data   = s_axil_wdata_i;
  assign axil_req.w_strb   = s_axil_wstrb_i;
  assign axil_req.b_ready  = s_axil_bready_i;
  assign axil_req.ar_valid = s_axil_arvalid_i;
  assign axil_req.ar_addr  = s_axil_araddr_i;
  assign axil_req.r_ready  = s_axil_rready_i;
  // field by field (the structs' field order is theirs to choose: wide data on word boundaries)
  assign s_axil_awready_o = axil_rsp.aw_ready;
  assign s_axil_wready_o  = axil_rsp.w_ready;
  assign s_axil_bvalid_o  = axil_rsp.b_valid;
  assign s_axil_bresp_o   = axil_rsp.b_resp;
  assign s_axil_arready_o = axil_rsp.ar_ready;
  assign s_axil_rvalid_o  = axil_rsp.r_valid;
  assign s_axil_rdata_o   = axil_rsp.r_data;
  assign s_axil_rresp_o   = axil_rsp.r_resp;
  assign m_axi_awvalid_o  = axi_req.aw_valid;
  assign m_axi_awid_o     = axi_req.aw.id;
  assign m_axi_awaddr_o   = axi_req.aw.addr;
  assign m_axi_awlen_o    = axi_req.aw.len;
  assign m_axi_awsize_o   = axi_req.aw.size;
  assign m_axi_awburst_o  = axi_req.aw.burst;
  assign m_axi_wvalid_o   = axi_req.w_valid;
  assign m_axi_wdata_o    = axi_req.w.data;
  assign m_axi_wstrb_o    = axi_req.w.strb;
  assign m_axi_wlast_o    = axi_req.w.last;
  assign m_axi_bready_o   = axi_req.b_ready;
  assign m_axi_arvalid_o  = axi_req.ar_valid;
  assign m_axi_arid_o     = axi_req.ar.id;
  assign m_axi_araddr_o   = axi_req.ar.addr;
  assign m_axi_arlen_o    = axi_req.ar.len;
  assign m_axi_arsize_o   = axi_req.ar.size;
  assign m_axi_arburst_o  = axi_req.ar.burst;
  assign m_axi_rready_o   = axi_req.r_ready;
  assign axi_rsp.aw_ready = m_axi_awready_i;
  assign axi_rsp.w_ready  = m_axi_wready_i;
  assign axi_rsp.b_valid  = m_axi_bvalid_i;
  assign axi_rsp.b.id     = m_axi_bid_i;
  assign axi_rsp.b.resp   = m_axi_bresp_i;
  assign axi_rsp.ar_ready = m_axi_arready_i;
  assign axi_rsp.r_valid  = m_axi_rvalid_i;
  assign axi_rsp.r.id     = m_axi_rid_i;
  assign axi_rsp.r.data   = m_axi_rdata_i;
  assign axi_rsp.r.resp   = m_axi_rresp_i;
  assign axi_rsp.r.last   = m_axi_rlast_i;

  logic        start, clear_stats, done, mem_busy, quiesce, soft_reset;
  logic        core_rst_n;  // the pin, or the host's reset (CTRL_RESET) once the memory engine is idle
  assign core_rst_n = rst_ni && !soft_reset;
  logic [31:0] insn_addr, insn_count;
  logic [3:0]  core_error, mem_error, mem_error_client;
  logic [3:0]  busy /*verilator public_flat_rd*/;        // read by the tsim's timeline too
  logic [2:0]  insn_start /*verilator public_flat_rd*/;  // (TimelineRecorder, tsim/src/simulator.cc)
  logic [2:0]  stall /*verilator public_flat_rd*/;
  logic [4*8-1:0] tokens;  // per stage or queue, flat (Yosys 0.23 reads no multi-dimensional packed arrays)
  logic [3*FillWidth-1:0] queue_fill;
  logic [7*64-1:0] stats;
  mem_rd_reqs_t rd_req;
  mem_rd_rsps_t rd_rsp;
  mem_wr_req_t       wr_req;
  mem_wr_rsp_t       wr_rsp;

  vta_vcr #(.QueueFillWidth(FillWidth)) u_vcr (
    .clk_i, .rst_ni, .axil_req_i(axil_req), .axil_rsp_o(axil_rsp),
    .start_o(start), .clear_stats_o(clear_stats), .insn_addr_o(insn_addr), .insn_count_o(insn_count), .irq_o,
    .quiesce_o(quiesce), .soft_reset_o(soft_reset),
    .done_i(done), .core_error_i(core_error), .mem_error_i(mem_error), .mem_error_client_i(mem_error_client),
    .busy_i(busy), .mem_busy_i(mem_busy), .insn_start_i(insn_start), .stall_i(stall), .queue_fill_i(queue_fill),
    .tokens_i(tokens), .stats_i(stats));

  vta_core #(.InsnQueueDepth(InsnQueueDepth)) u_core (
    .clk_i, .rst_ni(core_rst_n), .start_i(start), .insn_addr_i(insn_addr), .insn_count_i(insn_count), .done_o(done),
    .error_o(), .error_stage_o(core_error), .busy_o(busy), .tokens_o(tokens), .queue_fill_o(queue_fill),
    .insn_start_o(insn_start), .stall_o(stall), .clear_stats_i(clear_stats),
    .inp_bytes_o(stats[0*64 +: 64]), .wgt_bytes_o(stats[1*64 +: 64]), .acc_bytes_o(stats[2*64 +: 64]),
    .uop_bytes_o(stats[3*64 +: 64]),
    .out_bytes_o(stats[4*64 +: 64]), .gemm_count_o(stats[5*64 +: 64]), .alu_count_o(stats[6*64 +: 64]),
    .rd_req_o(rd_req), .rd_rsp_i(rd_rsp), .wr_req_o(wr_req), .wr_rsp_i(wr_rsp));

  vta_vme #(.MaxReads(MaxReads), .MaxWrites(MaxWrites)) u_vme (
    .clk_i, .rst_ni(core_rst_n), .rd_req_i(rd_req), .rd_rsp_o(rd_rsp), .wr_req_i(wr_req), .wr_rsp_o(wr_rsp),
    .axi_req_o(axi_req), .axi_rsp_i(axi_rsp), .quiesce_i(quiesce), .start_i(start),
    .busy_o(mem_busy), .error_o(mem_error), .error_client_o(mem_error_client));

`ifndef SYNTHESIS
  // For the tsim's timeline (TimelineRecorder in tsim/src/simulator.cc), no function: per read client (0 fetch, 1 uop,
  // 2 inp, 3 wgt, 4 acc) a data beat taken this cycle; bit 5: the store's write client held up by
  // the memory engine.
  logic [5:0] mem_activity /*verilator public_flat_rd*/;
  always_comb begin
    for (int i = 0; i < NumReadClients; i++) begin
      mem_activity[i] = rd_rsp[i*MemRdRspSlot + MemRdRspDataValidBit] &&
                        rd_req[i*MemRdReqSlot + MemRdReqDataReadyBit];
    end
    mem_activity[5] = (wr_req.cmd_valid && !wr_rsp.cmd_ready) || (wr_req.data_valid && !wr_rsp.data_ready);
  end

  // protocol assertions on both ports (simulation only)
  vta_bus_checker u_bus_checker (
    .clk_i, .rst_ni, .axil_req_i(axil_req), .axil_rsp_i(axil_rsp), .axi_req_i(axi_req), .axi_rsp_i(axi_rsp));
`endif
endmodule : vta_top
