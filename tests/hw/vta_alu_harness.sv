// vta_alu with its micro-op, accumulator and output SRAMs, plus test ports to fill and read them.
module vta_alu_harness
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
  input  logic                       uop_we_i,
  input  logic [LogUopBuffDepth-1:0] uop_waddr_i,
  input  uop_word_t                  uop_wdata_i,
  input  logic                       acc_we_i,
  input  logic [LogAccBuffDepth-1:0] acc_waddr_i,
  input  logic [AccMatrixWidth-1:0]  acc_wdata_i,
  input  logic                       tb_re_i,
  input  logic [LogAccBuffDepth-1:0] tb_raddr_i,
  output logic [AccMatrixWidth-1:0]  acc_rdata_o,
  output logic [OutMatrixWidth-1:0]  out_rdata_o
);
  logic                       uop_re, acc_re, acc_we, out_we;
  logic [LogUopBuffDepth-1:0] uop_raddr;
  logic [LogAccBuffDepth-1:0] acc_raddr, acc_waddr, out_waddr;
  uop_word_t                  uop_rdata;
  logic [AccMatrixWidth-1:0]  acc_rdata, acc_wdata;
  logic [OutMatrixWidth-1:0]  out_wdata;

  vta_alu u_alu (
    .clk_i, .rst_ni, .start_i, .insn_i, .busy_o, .error_o, .uop_done_o,
    .uop_re_o(uop_re), .uop_raddr_o(uop_raddr), .uop_rdata_i(uop_rdata),
    .acc_re_o(acc_re), .acc_raddr_o(acc_raddr), .acc_rdata_i(acc_rdata),
    .acc_we_o(acc_we), .acc_waddr_o(acc_waddr), .acc_wdata_o(acc_wdata),
    .out_we_o(out_we), .out_waddr_o(out_waddr), .out_wdata_o(out_wdata)
  );

  vta_ram_1r1w #(.Width(UopWidth), .Depth(UopBuffDepth)) u_uop (
    .clk_i, .we_i(uop_we_i), .waddr_i(uop_waddr_i), .wdata_i(uop_wdata_i),
    .re_i(uop_re), .raddr_i(uop_raddr), .rdata_o(uop_rdata));
  vta_ram_1r1w #(.Width(AccMatrixWidth), .Depth(AccBuffDepth)) u_acc (
    .clk_i, .we_i(acc_we || acc_we_i), .waddr_i(acc_we ? acc_waddr : acc_waddr_i),
    .wdata_i(acc_we ? acc_wdata : acc_wdata_i),
    .re_i(acc_re || tb_re_i), .raddr_i(acc_re ? acc_raddr : tb_raddr_i), .rdata_o(acc_rdata));
  vta_ram_1r1w #(.Width(OutMatrixWidth), .Depth(AccBuffDepth)) u_out (
    .clk_i, .we_i(out_we), .waddr_i(out_waddr), .wdata_i(out_wdata),
    .re_i(tb_re_i), .raddr_i(tb_raddr_i), .rdata_o(out_rdata_o));

  assign acc_rdata_o = acc_rdata;
endmodule : vta_alu_harness
