// The load stage: LOAD INP and LOAD WGT, one instruction at a time in program order.
//
// For each instruction from the fetch queue: wait for a compute->load token if it pops one (taken
// when the instruction is accepted), stop with error_o when fetch found it illegal (its padded block
// past its SRAM: vta_insn_check), run the tensor load (x_size = 0: nothing), then push a
// load->compute token if asked.
// Owns the input and weight SRAMs; the GEMM reads them through the exported read ports. Reports the
// bytes each instruction counts in the statistics (padding excluded, spec 7.3).
`include "vta_assert.svh"
module vta_load
  import vta_config_pkg::*;
  import vta_pkg::*;
(
  `include "vta_stage_ports.svh"
  // tokens
  input  logic                       g2l_ready_i,
  input  logic                       l2g_full_i,
  output logic                       g2l_pop_o,
  output logic                       l2g_push_o,
  // memory clients: input and weight loads
  output mem_rd_req_t                inp_req_o,
  input  mem_rd_rsp_t                inp_rsp_i,
  output mem_rd_req_t                wgt_req_o,
  input  mem_rd_rsp_t                wgt_rsp_i,
  // SRAM read ports for the compute stage
  input  inp_rd_t                    inp_rd_i,
  output logic [InpMatrixWidth-1:0]  inp_rdata_o,
  input  wgt_rd_t                    wgt_rd_i,
  output logic [WgtMatrixWidth-1:0]  wgt_rdata_o,
  // status
  output logic                       busy_o,
  output logic                       error_o,
  output logic                       stat_valid_o,     // one completed instruction
  output logic [31:0]                stat_inp_bytes_o,
  output logic [31:0]                stat_wgt_bytes_o
);
  mem_insn_t m;
  deps_t     deps;
  logic      is_inp, go;
  logic      inp_d, inp_q;
  logic [31:0] bytes;  // the statistics' byte count (vta_stat_bytes)

  // ---- the two SRAMs and their loaders ---------------------------------------------------------
  logic                       inp_start, wgt_start, inp_busy, wgt_busy;
  logic                       inp_we, wgt_we;
  logic [LogInpBuffDepth-1:0] inp_waddr;
  logic [LogWgtBuffDepth-1:0] wgt_waddr;
  logic [InpMatrixWidth-1:0]  inp_wdata;
  logic [WgtMatrixWidth-1:0]  wgt_wdata;

  vta_tensor_load #(.ElemBytes(InpElemBytes), .SramWidth(InpMatrixWidth), .SramDepth(InpBuffDepth)) u_inp_load (
    .clk_i, .rst_ni, .start_i(inp_start), .insn_i(m), .busy_o(inp_busy),
    .mem_req_o(inp_req_o), .mem_rsp_i(inp_rsp_i),
    .sram_we_o(inp_we), .sram_waddr_o(inp_waddr), .sram_wdata_o(inp_wdata));

  vta_tensor_load #(.ElemBytes(WgtElemBytes), .SramWidth(WgtMatrixWidth), .SramDepth(WgtBuffDepth)) u_wgt_load (
    .clk_i, .rst_ni, .start_i(wgt_start), .insn_i(m), .busy_o(wgt_busy),
    .mem_req_o(wgt_req_o), .mem_rsp_i(wgt_rsp_i),
    .sram_we_o(wgt_we), .sram_waddr_o(wgt_waddr), .sram_wdata_o(wgt_wdata));

  vta_ram_1r1w #(.Width(InpMatrixWidth), .Depth(InpBuffDepth)) u_inp_ram (
    .clk_i, .we_i(inp_we), .waddr_i(inp_waddr), .wdata_i(inp_wdata),
    .re_i(inp_rd_i.re), .raddr_i(inp_rd_i.addr), .rdata_o(inp_rdata_o));

  vta_ram_1r1w #(.Width(WgtMatrixWidth), .Depth(WgtBuffDepth)) u_wgt_ram (
    .clk_i, .we_i(wgt_we), .waddr_i(wgt_waddr), .wdata_i(wgt_wdata),
    .re_i(wgt_rd_i.re), .raddr_i(wgt_rd_i.addr), .rdata_o(wgt_rdata_o));

  // ---- control --------------------------------------------------------------------------------
  // starts when its pop has a token and its push has room (only this stage pushes l2g)
  logic [OpcodeBitWidth-1:0] head_op;
  loop_insn_t                head_gemm, head_alu;
  logic                      idle, run, take, start, unused_pop_prev, unused_push_prev, unused_push_prev_q;
  vta_insn_head u_head (
    .idle_i(idle), .valid_i(insn_valid_i), .insn_i, .prev_token_i(1'b1), .next_token_i(g2l_ready_i),
    .prev_room_i(1'b1), .next_room_i(!l2g_full_i), .deps_o(deps), .go_o(go), .op_o(head_op), .mem_o(m),
    .gemm_o(head_gemm), .alu_o(head_alu));

  // a load of nothing (x_size = 0) completes at once: only its tokens act
  vta_stage_ctrl #(.HasPrev(1'b0), .HasNext(1'b1)) u_ctrl (
    .clk_i, .rst_ni, .go_i(go), .deps_i(deps), .legal_i(insn_legal_i), .at_once_i(m.x_size == '0),
    .unit_busy_i(inp_q ? inp_busy : wgt_busy), .unit_error_i(1'b0), .idle_o(idle), .run_o(run), .error_o,
    .take_o(take), .start_o(start), .done_o(stat_valid_o), .pop_prev_o(unused_pop_prev), .pop_next_o(g2l_pop_o),
    .push_prev_o(unused_push_prev), .push_next_o(l2g_push_o), .push_prev_q_o(unused_push_prev_q));

  vta_stat_bytes u_bytes (
    .clk_i, .rst_ni, .take_i(take), .x_size_i(m.x_size), .y_size_i(m.y_size),
    .run_i(run), .elem_bytes_i(32'(inp_q ? InpElemBytes : WgtElemBytes)), .read_i(stat_valid_o), .bytes_o(bytes));

  always_comb begin
    is_inp           = m.mem_type == MemInp;  // else WGT: fetch routes no other instruction here
    insn_ready_o     = take;
    inp_d            = take ? is_inp : inp_q;
    inp_start        = start && is_inp;
    wgt_start        = start && !is_inp;
    busy_o           = run;
    stat_inp_bytes_o = inp_q ? bytes : '0;
    stat_wgt_bytes_o = inp_q ? '0 : bytes;
  end

  logic unused_ctrl;
  assign unused_ctrl = unused_pop_prev ^ unused_push_prev ^ unused_push_prev_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) inp_q <= 1'b0;
    else inp_q <= inp_d;
  end

  // both buffers loaded, an instruction refused, a valid instruction waiting for its tokens
  `VTA_COVER(LoadsInputs, run && inp_q)
  `VTA_COVER(LoadsWeights, run && !inp_q)
  `VTA_COVER(RefusesAnInstruction, error_o)
  `VTA_COVER(WaitsForTokens, idle && insn_valid_i && !go)
endmodule : vta_load
