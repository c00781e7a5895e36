// The VTA accelerator: control registers (vta_vcr, AXI4-Lite slave), the core (vta_core) and the
// memory engine (vta_vme, AXI4 master). irq_o is high while CTRL reports done or error.
module vta_top
  import vta_config_pkg::*;
#(
  parameter int unsigned AxiAddrWidth = 32,
  parameter int unsigned AxiIdWidth = 4,
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
  localparam int unsigned CmdAddrWidth = MemopDramAddrBitWidth + 8;
  localparam int unsigned FillWidth = $clog2(InsnQueueDepth + 1);

  logic        start, clear_stats, done, mem_busy;
  logic [31:0] insn_addr, insn_count;
  logic [3:0]  core_error, mem_error, mem_error_client, busy;
  logic [2:0]  insn_start, stall;
  logic [3:0][7:0] tokens;
  logic [2:0][FillWidth-1:0] queue_fill;
  logic [6:0][63:0] stats;

  logic [4:0]                   rd_cmd_valid, rd_cmd_ready, rd_valid, rd_ready;
  logic [4:0][CmdAddrWidth-1:0] rd_cmd_addr;
  logic [4:0][31:0]             rd_cmd_bytes;
  logic [BusWidth-1:0]          rd_data, wr_data;
  logic                         wr_cmd_valid, wr_cmd_ready, wr_valid, wr_ready, wr_last, wr_ack;
  logic [CmdAddrWidth-1:0]      wr_cmd_addr;
  logic [31:0]                  wr_cmd_bytes;
  logic [StrbWidth-1:0]         wr_strb;

  vta_vcr #(.QueueFillWidth(FillWidth)) u_vcr (
    .clk_i, .rst_ni,
    .s_axil_awvalid_i, .s_axil_awready_o, .s_axil_awaddr_i, .s_axil_wvalid_i, .s_axil_wready_o, .s_axil_wdata_i,
    .s_axil_wstrb_i, .s_axil_bvalid_o, .s_axil_bready_i, .s_axil_bresp_o, .s_axil_arvalid_i, .s_axil_arready_o,
    .s_axil_araddr_i, .s_axil_rvalid_o, .s_axil_rready_i, .s_axil_rdata_o, .s_axil_rresp_o,
    .start_o(start), .clear_stats_o(clear_stats), .insn_addr_o(insn_addr), .insn_count_o(insn_count), .irq_o,
    .done_i(done), .core_error_i(core_error), .mem_error_i(mem_error), .mem_error_client_i(mem_error_client),
    .busy_i(busy), .mem_busy_i(mem_busy), .insn_start_i(insn_start), .stall_i(stall), .queue_fill_i(queue_fill),
    .tokens_i(tokens), .stats_i(stats));

  vta_core #(.InsnQueueDepth(InsnQueueDepth)) u_core (
    .clk_i, .rst_ni, .start_i(start), .insn_addr_i(insn_addr), .insn_count_i(insn_count), .done_o(done),
    .error_o(), .error_stage_o(core_error), .busy_o(busy), .tokens_o(tokens), .queue_fill_o(queue_fill),
    .insn_start_o(insn_start), .stall_o(stall), .clear_stats_i(clear_stats),
    .inp_bytes_o(stats[0]), .wgt_bytes_o(stats[1]), .acc_bytes_o(stats[2]), .uop_bytes_o(stats[3]),
    .out_bytes_o(stats[4]), .gemm_count_o(stats[5]), .alu_count_o(stats[6]),
    .rd_cmd_valid_o(rd_cmd_valid), .rd_cmd_ready_i(rd_cmd_ready), .rd_cmd_addr_o(rd_cmd_addr),
    .rd_cmd_bytes_o(rd_cmd_bytes), .rd_valid_i(rd_valid), .rd_ready_o(rd_ready), .rd_data_i(rd_data),
    .wr_cmd_valid_o(wr_cmd_valid), .wr_cmd_ready_i(wr_cmd_ready), .wr_cmd_addr_o(wr_cmd_addr),
    .wr_cmd_bytes_o(wr_cmd_bytes), .wvalid_o(wr_valid), .wready_i(wr_ready), .wdata_o(wr_data), .wstrb_o(wr_strb),
    .wlast_o(wr_last), .wack_i(wr_ack));

  vta_vme #(.MaxReads(MaxReads), .MaxWrites(MaxWrites), .AddrWidth(AxiAddrWidth), .IdWidth(AxiIdWidth)) u_vme (
    .clk_i, .rst_ni,
    .rd_cmd_valid_i(rd_cmd_valid), .rd_cmd_ready_o(rd_cmd_ready), .rd_cmd_addr_i(rd_cmd_addr),
    .rd_cmd_bytes_i(rd_cmd_bytes), .rd_valid_o(rd_valid), .rd_ready_i(rd_ready), .rd_data_o(rd_data),
    .wr_cmd_valid_i(wr_cmd_valid), .wr_cmd_ready_o(wr_cmd_ready), .wr_cmd_addr_i(wr_cmd_addr),
    .wr_cmd_bytes_i(wr_cmd_bytes), .wr_valid_i(wr_valid), .wr_ready_o(wr_ready), .wr_data_i(wr_data),
    .wr_strb_i(wr_strb), .wr_last_i(wr_last), .wr_ack_o(wr_ack),
    .m_axi_arvalid_o, .m_axi_arready_i, .m_axi_arid_o, .m_axi_araddr_o, .m_axi_arlen_o, .m_axi_arsize_o,
    .m_axi_arburst_o, .m_axi_rvalid_i, .m_axi_rready_o, .m_axi_rid_i, .m_axi_rdata_i, .m_axi_rresp_i,
    .m_axi_rlast_i, .m_axi_awvalid_o, .m_axi_awready_i, .m_axi_awid_o, .m_axi_awaddr_o, .m_axi_awlen_o,
    .m_axi_awsize_o, .m_axi_awburst_o, .m_axi_wvalid_o, .m_axi_wready_i, .m_axi_wdata_o, .m_axi_wstrb_o,
    .m_axi_wlast_o, .m_axi_bvalid_i, .m_axi_bready_o, .m_axi_bid_i, .m_axi_bresp_i,
    .busy_o(mem_busy), .error_o(mem_error), .error_client_o(mem_error_client));

`ifndef SYNTHESIS
  // protocol assertions on both ports (simulation only)
  vta_bus_checker #(.AddrWidth(AxiAddrWidth), .IdWidth(AxiIdWidth)) u_bus_checker (
    .clk_i, .rst_ni,
    .s_axil_awvalid_i, .s_axil_awready_i(s_axil_awready_o), .s_axil_awaddr_i, .s_axil_wvalid_i,
    .s_axil_wready_i(s_axil_wready_o), .s_axil_wdata_i, .s_axil_wstrb_i, .s_axil_bvalid_i(s_axil_bvalid_o),
    .s_axil_bready_i, .s_axil_bresp_i(s_axil_bresp_o), .s_axil_arvalid_i, .s_axil_arready_i(s_axil_arready_o),
    .s_axil_araddr_i, .s_axil_rvalid_i(s_axil_rvalid_o), .s_axil_rready_i, .s_axil_rdata_i(s_axil_rdata_o),
    .s_axil_rresp_i(s_axil_rresp_o),
    .m_axi_arvalid_i(m_axi_arvalid_o), .m_axi_arready_i, .m_axi_arid_i(m_axi_arid_o), .m_axi_araddr_i(m_axi_araddr_o),
    .m_axi_arlen_i(m_axi_arlen_o), .m_axi_arsize_i(m_axi_arsize_o), .m_axi_arburst_i(m_axi_arburst_o),
    .m_axi_rvalid_i, .m_axi_rready_i(m_axi_rready_o), .m_axi_rid_i, .m_axi_rdata_i, .m_axi_rresp_i, .m_axi_rlast_i,
    .m_axi_awvalid_i(m_axi_awvalid_o), .m_axi_awready_i, .m_axi_awid_i(m_axi_awid_o), .m_axi_awaddr_i(m_axi_awaddr_o),
    .m_axi_awlen_i(m_axi_awlen_o), .m_axi_awsize_i(m_axi_awsize_o), .m_axi_awburst_i(m_axi_awburst_o),
    .m_axi_wvalid_i(m_axi_wvalid_o), .m_axi_wready_i, .m_axi_wdata_i(m_axi_wdata_o), .m_axi_wstrb_i(m_axi_wstrb_o),
    .m_axi_wlast_i(m_axi_wlast_o), .m_axi_bvalid_i, .m_axi_bready_i(m_axi_bready_o), .m_axi_bid_i, .m_axi_bresp_i);
`endif
endmodule : vta_top
