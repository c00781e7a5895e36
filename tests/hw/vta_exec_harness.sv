// One of the compute stage's two execution units (Gemm: vta_gemm, else vta_alu) with the SRAMs it
// reads and writes, plus test ports to fill them and read the results back while it is idle. Verilated
// once per unit (tests/hw/CMakeLists.txt: -GGemm=1 as Vvta_gemm_harness, -GGemm=0 as Vvta_alu_harness,
// and with the two-slot stage's ALU, -GMulCycles=2, as Vvta_alu_mul2_harness);
// the ALU reads no input or weight buffer, so there those test writes go nowhere.
module vta_exec_harness
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter bit Gemm = 1'b1,
  parameter int unsigned MulCycles = 1  // the ALU's (vta_alu)
) (
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
  uop_rd_t                   uop_rd;
  acc_rd_t                   acc_rd;
  acc_wr_t                   acc_wr;
  out_wr_t                   out_wr;
  uop_word_t                 uop_rdata;
  logic [AccMatrixWidth-1:0] acc_rdata;

  if (Gemm) begin : gen_gemm
    inp_rd_t                   inp_rd;
    wgt_rd_t                   wgt_rd;
    logic [InpMatrixWidth-1:0] inp_rdata;
    logic [WgtMatrixWidth-1:0] wgt_rdata;
    vta_gemm u_gemm (
      .clk_i, .rst_ni, .start_i, .insn_i, .busy_o, .error_o, .uop_done_o,
      .uop_rd_o(uop_rd), .uop_rdata_i(uop_rdata), .inp_rd_o(inp_rd), .inp_rdata_i(inp_rdata),
      .wgt_rd_o(wgt_rd), .wgt_rdata_i(wgt_rdata), .acc_rd_o(acc_rd), .acc_rdata_i(acc_rdata),
      .acc_wr_o(acc_wr), .out_wr_o(out_wr));
    vta_ram_1r1w #(.Width(InpMatrixWidth), .Depth(InpBuffDepth)) u_inp (
      .clk_i, .we_i(inp_we_i), .waddr_i(inp_waddr_i), .wdata_i(inp_wdata_i),
      .re_i(inp_rd.re), .raddr_i(inp_rd.addr), .rdata_o(inp_rdata));
    vta_ram_1r1w #(.Width(WgtMatrixWidth), .Depth(WgtBuffDepth)) u_wgt (
      .clk_i, .we_i(wgt_we_i), .waddr_i(wgt_waddr_i), .wdata_i(wgt_wdata_i),
      .re_i(wgt_rd.re), .raddr_i(wgt_rd.addr), .rdata_o(wgt_rdata));
  end else begin : gen_alu
    vta_alu #(.MulCycles(MulCycles)) u_alu (
      .clk_i, .rst_ni, .start_i, .insn_i, .busy_o, .error_o, .uop_done_o,
      .uop_rd_o(uop_rd), .uop_rdata_i(uop_rdata), .acc_rd_o(acc_rd), .acc_rdata_i(acc_rdata),
      .acc_wr_o(acc_wr), .out_wr_o(out_wr));
    logic unused_writes;
    assign unused_writes = ^{inp_we_i, inp_waddr_i, inp_wdata_i, wgt_we_i, wgt_waddr_i, wgt_wdata_i};
  end

  vta_ram_1r1w #(.Width(UopWidth), .Depth(UopBuffDepth)) u_uop (
    .clk_i, .we_i(uop_we_i), .waddr_i(uop_waddr_i), .wdata_i(uop_wdata_i),
    .re_i(uop_rd.re), .raddr_i(uop_rd.addr), .rdata_o(uop_rdata));
  vta_ram_1r1w #(.Width(AccMatrixWidth), .Depth(AccBuffDepth), .OutReg(1'b1)) u_acc (  // as vta_compute's
    .clk_i, .we_i(acc_wr.we || acc_we_i), .waddr_i(acc_wr.we ? acc_wr.addr : acc_waddr_i),
    .wdata_i(acc_wr.we ? acc_wr.data : acc_wdata_i),
    .re_i(acc_rd.re || tb_re_i), .raddr_i(acc_rd.re ? acc_rd.addr : tb_raddr_i), .rdata_o(acc_rdata));
  vta_ram_1r1w #(.Width(OutMatrixWidth), .Depth(AccBuffDepth)) u_out (
    .clk_i, .we_i(out_wr.we), .waddr_i(out_wr.addr), .wdata_i(out_wr.data),
    .re_i(tb_re_i), .raddr_i(tb_raddr_i), .rdata_o(out_rdata_o));

  assign acc_rdata_o = acc_rdata;
endmodule : vta_exec_harness
