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
  uop_rd_t                   uop_rd;
  acc_rd_t                   acc_rd;
  acc_wr_t                   acc_wr;
  out_wr_t                   out_wr;
  uop_word_t                 uop_rdata;
  logic [AccMatrixWidth-1:0] acc_rdata;

  vta_alu u_alu (
    .clk_i, .rst_ni, .start_i, .insn_i, .busy_o, .error_o, .uop_done_o,
    .uop_rd_o(uop_rd), .uop_rdata_i(uop_rdata), .acc_rd_o(acc_rd), .acc_rdata_i(acc_rdata),
    .acc_wr_o(acc_wr), .out_wr_o(out_wr));

  vta_ram_1r1w #(.Width(UopWidth), .Depth(UopBuffDepth)) u_uop (
    .clk_i, .we_i(uop_we_i), .waddr_i(uop_waddr_i), .wdata_i(uop_wdata_i),
    .re_i(uop_rd.re), .raddr_i(uop_rd.addr), .rdata_o(uop_rdata));
  vta_ram_1r1w #(.Width(AccMatrixWidth), .Depth(AccBuffDepth)) u_acc (
    .clk_i, .we_i(acc_wr.we || acc_we_i), .waddr_i(acc_wr.we ? acc_wr.addr : acc_waddr_i),
    .wdata_i(acc_wr.we ? acc_wr.data : acc_wdata_i),
    .re_i(acc_rd.re || tb_re_i), .raddr_i(acc_rd.re ? acc_rd.addr : tb_raddr_i), .rdata_o(acc_rdata));
  vta_ram_1r1w #(.Width(OutMatrixWidth), .Depth(AccBuffDepth)) u_out (
    .clk_i, .we_i(out_wr.we), .waddr_i(out_wr.addr), .wdata_i(out_wr.data),
    .re_i(tb_re_i), .raddr_i(tb_raddr_i), .rdata_o(out_rdata_o));

  assign acc_rdata_o = acc_rdata;
endmodule : vta_alu_harness
