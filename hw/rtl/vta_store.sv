// The store stage: STORE instructions, one at a time in program order.
//
// For each instruction from the fetch queue: wait for a compute->store token if it pops one (taken
// when the instruction is accepted), stop with error_o when fetch found it illegal (not OUT, padded,
// or rows past the output buffer: vta_insn_check), run the tensor store
// (x_size = 0: nothing), and after the last write is acknowledged push a store->compute token if
// asked. Reads the output SRAM, which the compute stage owns, through its read port.
`include "vta_assert.svh"
module vta_store
  import vta_config_pkg::*;
  import vta_pkg::*;
(
  `include "vta_stage_ports.svh"
  input  logic                       g2s_ready_i,
  input  logic                       s2g_full_i,
  output logic                       g2s_pop_o,
  output logic                       s2g_push_o,
  // memory write client
  output mem_wr_req_t                mem_req_o,
  input  mem_wr_rsp_t                mem_rsp_i,
  // output SRAM read port
  output acc_rd_t                    out_rd_o,
  input  logic [OutMatrixWidth-1:0]  out_rdata_i,
  // status
  output logic                       busy_o,
  output logic                       error_o,
  output logic                       stat_valid_o,
  output logic [31:0]                stat_out_bytes_o
);
  mem_insn_t   m;
  deps_t       deps;
  logic        go, start, engine_busy, engine_pending;
  logic [31:0] bytes;  // the statistics' byte count (vta_stat_bytes)

  vta_tensor_store #(.ElemBytes(OutElemBytes), .SramDepth(AccBuffDepth)) u_store (
    .clk_i, .rst_ni, .start_i(start), .insn_i(m), .busy_o(engine_busy), .pending_o(engine_pending),
    .mem_req_o, .mem_rsp_i,
    .sram_re_o(out_rd_o.re), .sram_raddr_o(out_rd_o.addr), .sram_rdata_i(out_rdata_i));

  // starts when its pop has a token and its push has room (only this stage pushes s2g)
  logic [OpcodeBitWidth-1:0] head_op;
  loop_insn_t                head_gemm, head_alu;
  logic                      idle, run, take, go_on, push_q, unused_pop_next, unused_push_next;
  vta_insn_head u_head (
    .idle_i(idle), .valid_i(insn_valid_i), .insn_i, .prev_token_i(g2s_ready_i), .next_token_i(1'b1),
    .prev_room_i(!s2g_full_i), .next_room_i(1'b1), .deps_o(deps), .go_o(go), .op_o(head_op), .mem_o(m),
    .gemm_o(head_gemm), .alu_o(head_alu));

  // A push tells compute (and through it, any later reader) the data is in DRAM: it waits for every
  // outstanding acknowledgement, a store of nothing (x_size = 0) too; without a push the next store
  // starts at once, and a store of nothing completes at once.
  vta_stage_ctrl #(.HasPrev(1'b1), .HasNext(1'b0)) u_ctrl (
    .clk_i, .rst_ni, .go_i(go), .deps_i(deps), .legal_i(insn_legal_i),
    .at_once_i(m.x_size == '0 && !(deps.push_prev && engine_pending)),
    .unit_busy_i(engine_busy || (push_q && engine_pending)), .unit_error_i(1'b0), .idle_o(idle), .run_o(run),
    .error_o, .take_o(take), .start_o(go_on), .done_o(stat_valid_o), .pop_prev_o(g2s_pop_o),
    .pop_next_o(unused_pop_next), .push_prev_o(s2g_push_o), .push_next_o(unused_push_next), .push_prev_q_o(push_q));

  vta_stat_bytes u_bytes (
    .clk_i, .rst_ni, .take_i(take), .x_size_i(m.x_size), .y_size_i(m.y_size),
    .run_i(run), .elem_bytes_i(32'(OutElemBytes)), .read_i(stat_valid_o), .bytes_o(bytes));

  always_comb begin
    insn_ready_o     = take;
    start            = go_on && m.x_size != '0;  // (a store of nothing that waits starts no engine)
    busy_o           = run;
    stat_out_bytes_o = bytes;
  end

  logic unused_ctrl;
  assign unused_ctrl = unused_pop_next ^ unused_push_next;

  // a store, an instruction refused, a valid instruction waiting for its tokens
  `VTA_COVER(Stores, run)
  `VTA_COVER(RefusesAnInstruction, error_o)
  `VTA_COVER(WaitsForTokens, idle && insn_valid_i && !go)
endmodule : vta_store
