// vta_gemm with its five SRAMs, plus test ports to fill them and read them back while it is idle.
module vta_gemm_harness
  import vta_config_pkg::*;
  import vta_pkg::*;
(
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       start_i,
  input  loop_insn_t                 insn_i,
  output logic                       busy_o,
  output logic                       error_o,
  output logic                       uop_done_o,
  // test writes
  input  logic                       uop_we_i,
  input  logic [LogUopBuffDepth-1:0] uop_waddr_i,
  input  uop_word_t                  uop_wdata_i,
  input  logic                       inp_we_i,
  input  logic [LogInpBuffDepth-1:0] inp_waddr_i,
  input  logic [InpMatrixWidth-1:0]  inp_wdata_i,
  input  logic                       wgt_we_i,
  input  logic [LogWgtBuffDepth-1:0] wgt_waddr_i,
  input  logic [WgtMatrixWidth-1:0]  wgt_wdata_i,
  input  logic                       acc_we_i,
  input  logic [LogAccBuffDepth-1:0] acc_waddr_i,
  input  logic [AccMatrixWidth-1:0]  acc_wdata_i,
  // test reads (one cycle latency)
  input  logic                       tb_re_i,
  input  logic [LogAccBuffDepth-1:0] tb_raddr_i,
  output logic [AccMatrixWidth-1:0]  acc_rdata_o,
  output logic [OutMatrixWidth-1:0]  out_rdata_o
);
  logic                       uop_re, inp_re, wgt_re, acc_re, acc_we, out_we;
  logic [LogUopBuffDepth-1:0] uop_raddr;
  logic [LogInpBuffDepth-1:0] inp_raddr;
  logic [LogWgtBuffDepth-1:0] wgt_raddr;
  logic [LogAccBuffDepth-1:0] acc_raddr, acc_waddr, out_waddr;
  uop_word_t                  uop_rdata;
  logic [InpMatrixWidth-1:0]  inp_rdata;
  logic [WgtMatrixWidth-1:0]  wgt_rdata;
  logic [AccMatrixWidth-1:0]  acc_rdata, acc_wdata;
  logic [OutMatrixWidth-1:0]  out_wdata;

  vta_gemm u_gemm (
    .clk_i, .rst_ni, .start_i, .insn_i, .busy_o, .error_o, .uop_done_o,
    .uop_re_o(uop_re), .uop_raddr_o(uop_raddr), .uop_rdata_i(uop_rdata),
    .inp_re_o(inp_re), .inp_raddr_o(inp_raddr), .inp_rdata_i(inp_rdata),
    .wgt_re_o(wgt_re), .wgt_raddr_o(wgt_raddr), .wgt_rdata_i(wgt_rdata),
    .acc_re_o(acc_re), .acc_raddr_o(acc_raddr), .acc_rdata_i(acc_rdata),
    .acc_we_o(acc_we), .acc_waddr_o(acc_waddr), .acc_wdata_o(acc_wdata),
    .out_we_o(out_we), .out_waddr_o(out_waddr), .out_wdata_o(out_wdata)
  );

  vta_ram_1r1w #(.Width(UopWidth), .Depth(UopBuffDepth)) u_uop (
    .clk_i, .we_i(uop_we_i), .waddr_i(uop_waddr_i), .wdata_i(uop_wdata_i),
    .re_i(uop_re), .raddr_i(uop_raddr), .rdata_o(uop_rdata));
  vta_ram_1r1w #(.Width(InpMatrixWidth), .Depth(InpBuffDepth)) u_inp (
    .clk_i, .we_i(inp_we_i), .waddr_i(inp_waddr_i), .wdata_i(inp_wdata_i),
    .re_i(inp_re), .raddr_i(inp_raddr), .rdata_o(inp_rdata));
  vta_ram_1r1w #(.Width(WgtMatrixWidth), .Depth(WgtBuffDepth)) u_wgt (
    .clk_i, .we_i(wgt_we_i), .waddr_i(wgt_waddr_i), .wdata_i(wgt_wdata_i),
    .re_i(wgt_re), .raddr_i(wgt_raddr), .rdata_o(wgt_rdata));
  vta_ram_1r1w #(.Width(AccMatrixWidth), .Depth(AccBuffDepth)) u_acc (
    .clk_i, .we_i(acc_we || acc_we_i), .waddr_i(acc_we ? acc_waddr : acc_waddr_i),
    .wdata_i(acc_we ? acc_wdata : acc_wdata_i),
    .re_i(acc_re || tb_re_i), .raddr_i(acc_re ? acc_raddr : tb_raddr_i), .rdata_o(acc_rdata));
  vta_ram_1r1w #(.Width(OutMatrixWidth), .Depth(AccBuffDepth)) u_out (
    .clk_i, .we_i(out_we), .waddr_i(out_waddr), .wdata_i(out_wdata),
    .re_i(tb_re_i), .raddr_i(tb_raddr_i), .rdata_o(out_rdata_o));

  assign acc_rdata_o = acc_rdata;
endmodule : vta_gemm_harness
