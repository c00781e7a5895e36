// The compute stage's units, which vta_compute (one instruction at a time) and vta_compute_dual (two
// slots) both run: the micro-op loader, the accumulator loaders (ACC and ACC_8BIT, which share the
// accumulator memory client and run one at a time), the GEMM and the ALU. Each starts on its start
// input with the fields given; the stage owns the SRAMs and steers the units' ports to them. The
// accumulator loaders' writes come out as one port (ld_*), the output buffer's word being the stage's
// to form.
module vta_compute_units
  import vta_config_pkg::*;
  import vta_pkg::*;
(
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       start_uop_i,
  input  logic                       start_acc_i,
  input  logic                       start_acc8_i,
  input  logic                       start_gemm_i,
  input  logic                       start_alu_i,
  input  mem_insn_t                  mem_i,   // a load's fields
  input  loop_insn_t                 gemm_i,  // a GEMM's
  input  loop_insn_t                 alu_i,   // an ALU instruction's
  output logic                       uop_busy_o,
  output logic                       acc_busy_o,
  output logic                       acc8_busy_o,
  output logic                       gemm_busy_o,
  output logic                       alu_busy_o,
  output logic                       gemm_error_o,
  output logic                       alu_error_o,
  // memory clients
  output mem_rd_req_t                uop_req_o,
  input  mem_rd_rsp_t                uop_rsp_i,
  output mem_rd_req_t                acc_req_o,
  input  mem_rd_rsp_t                acc_rsp_i,
  // the loaders' writes: micro-ops, accumulators
  output logic                       ul_we_o,
  output logic [LogUopBuffDepth-1:0] ul_waddr_o,
  output uop_word_t                  ul_wdata_o,
  output logic                       ld_we_o,
  output logic [LogAccBuffDepth-1:0] ld_waddr_o,
  output logic [AccMatrixWidth-1:0]  ld_wdata_o,
  // the GEMM's ports
  output logic                       gm_done_o,  // one non-reset GEMM micro-op (gemm_counter)
  output uop_rd_t                    gm_uop_rd_o,
  input  uop_word_t                  gm_uop_rdata_i,
  output inp_rd_t                    inp_rd_o,
  input  logic [InpMatrixWidth-1:0]  inp_rdata_i,
  output wgt_rd_t                    wgt_rd_o,
  input  logic [WgtMatrixWidth-1:0]  wgt_rdata_i,
  output acc_rd_t                    gm_acc_rd_o,
  input  logic [AccMatrixWidth-1:0]  gm_acc_rdata_i,
  output acc_wr_t                    gm_acc_wr_o,
  output out_wr_t                    gm_out_wr_o,
  // the ALU's
  output logic                       al_done_o,  // one ALU micro-op (alu_counter)
  output uop_rd_t                    al_uop_rd_o,
  input  uop_word_t                  al_uop_rdata_i,
  output acc_rd_t                    al_acc_rd_o,
  input  logic [AccMatrixWidth-1:0]  al_acc_rdata_i,
  output acc_wr_t                    al_acc_wr_o,
  output out_wr_t                    al_out_wr_o
);
  localparam int unsigned Acc8ElemBytes = Batch * BlockOut;  // int8 lanes of an ACC_8BIT element

  vta_tensor_load #(.ElemBytes(UopElemBytes), .SramWidth(UopWidth), .SramDepth(UopBuffDepth)) u_uop_load (
    .clk_i, .rst_ni, .start_i(start_uop_i), .insn_i(mem_i), .busy_o(uop_busy_o),
    .mem_req_o(uop_req_o), .mem_rsp_i(uop_rsp_i),
    .sram_we_o(ul_we_o), .sram_waddr_o(ul_waddr_o), .sram_wdata_o(ul_wdata_o));

  // ACC and ACC_8BIT loads share the accumulator memory client; only one runs at a time.
  mem_rd_req_t                al_req, a8_req;
  mem_rd_rsp_t                al_rsp, a8_rsp;
  always_comb begin
    al_rsp = acc_rsp_i;
    a8_rsp = acc_rsp_i;
    al_rsp.data_valid = acc_rsp_i.data_valid && !acc8_busy_o;
    a8_rsp.data_valid = acc_rsp_i.data_valid && acc8_busy_o;
  end
  logic                       al_we, a8_we;
  logic [LogAccBuffDepth-1:0] al_waddr, a8_waddr;
  logic [AccMatrixWidth-1:0]  al_wdata, a8_wdata;
  vta_tensor_load #(.ElemBytes(AccElemBytes), .SramWidth(AccMatrixWidth), .SramDepth(AccBuffDepth)) u_acc_load (
    .clk_i, .rst_ni, .start_i(start_acc_i), .insn_i(mem_i), .busy_o(acc_busy_o),
    .mem_req_o(al_req), .mem_rsp_i(al_rsp),
    .sram_we_o(al_we), .sram_waddr_o(al_waddr), .sram_wdata_o(al_wdata));
  vta_tensor_load #(.ElemBytes(Acc8ElemBytes), .SramWidth(AccMatrixWidth), .SramDepth(AccBuffDepth),
                    .Widen(1'b1)) u_acc8_load (
    .clk_i, .rst_ni, .start_i(start_acc8_i), .insn_i(mem_i), .busy_o(acc8_busy_o),
    .mem_req_o(a8_req), .mem_rsp_i(a8_rsp),
    .sram_we_o(a8_we), .sram_waddr_o(a8_waddr), .sram_wdata_o(a8_wdata));
  assign acc_req_o  = acc8_busy_o ? a8_req : al_req;
  assign ld_we_o    = al_we || a8_we;
  assign ld_waddr_o = al_we ? al_waddr : a8_waddr;
  assign ld_wdata_o = al_we ? al_wdata : a8_wdata;

  vta_gemm u_gemm (
    .clk_i, .rst_ni, .start_i(start_gemm_i), .insn_i(gemm_i), .busy_o(gemm_busy_o), .error_o(gemm_error_o),
    .uop_done_o(gm_done_o), .uop_rd_o(gm_uop_rd_o), .uop_rdata_i(gm_uop_rdata_i), .inp_rd_o, .inp_rdata_i,
    .wgt_rd_o, .wgt_rdata_i, .acc_rd_o(gm_acc_rd_o), .acc_rdata_i(gm_acc_rdata_i), .acc_wr_o(gm_acc_wr_o),
    .out_wr_o(gm_out_wr_o));
  // (a MUL through a stage more: the ALU's product starts from registers, docs/SYNTHESIS.md)
  vta_alu #(.MulCycles(2)) u_alu (
    .clk_i, .rst_ni, .start_i(start_alu_i), .insn_i(alu_i), .busy_o(alu_busy_o), .error_o(alu_error_o),
    .uop_done_o(al_done_o), .uop_rd_o(al_uop_rd_o), .uop_rdata_i(al_uop_rdata_i), .acc_rd_o(al_acc_rd_o),
    .acc_rdata_i(al_acc_rdata_i), .acc_wr_o(al_acc_wr_o), .out_wr_o(al_out_wr_o));
endmodule : vta_compute_units
