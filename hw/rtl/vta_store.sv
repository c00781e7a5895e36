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
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       insn_valid_i,
  output logic                       insn_ready_o,
  input  insn_t                      insn_i,
  input  logic                       insn_legal_i,  // fetch's verdict on insn_i (vta_insn_check)
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
  typedef enum logic [1:0] {StIdle, StRun, StError} state_e;
  state_e state_d, state_q;

  mem_insn_t   m;
  deps_t       deps;
  logic        go, start, engine_busy, engine_pending;
  logic        push_d, push_q;
  logic [31:0] bytes;  // the statistics' byte count (vta_stat_bytes)

  vta_tensor_store #(.ElemBytes(OutElemBytes), .SramDepth(AccBuffDepth)) u_store (
    .clk_i, .rst_ni, .start_i(start), .insn_i(m), .busy_o(engine_busy), .pending_o(engine_pending),
    .mem_req_o, .mem_rsp_i,
    .sram_re_o(out_rd_o.re), .sram_raddr_o(out_rd_o.addr), .sram_rdata_i(out_rdata_i));

  // starts when its pop has a token and its push has room (only this stage pushes s2g)
  logic [OpcodeBitWidth-1:0] head_op;
  loop_insn_t                head_gemm, head_alu;
  vta_insn_head u_head (
    .idle_i(state_q == StIdle), .valid_i(insn_valid_i), .insn_i, .prev_token_i(g2s_ready_i), .next_token_i(1'b1),
    .prev_room_i(!s2g_full_i), .next_room_i(1'b1), .deps_o(deps), .go_o(go), .op_o(head_op), .mem_o(m),
    .gemm_o(head_gemm), .alu_o(head_alu));

  vta_stat_bytes u_bytes (
    .clk_i, .rst_ni, .take_i(state_q == StIdle && go), .x_size_i(m.x_size), .y_size_i(m.y_size),
    .run_i(state_q == StRun), .elem_bytes_i(32'(OutElemBytes)), .read_i(stat_valid_o), .bytes_o(bytes));

  always_comb begin

    state_d      = state_q;
    push_d       = push_q;
    insn_ready_o = 1'b0;
    g2s_pop_o    = 1'b0;
    s2g_push_o   = 1'b0;
    start        = 1'b0;
    stat_valid_o = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (go) begin
          insn_ready_o = 1'b1;
          g2s_pop_o    = deps.pop_prev;
          push_d       = deps.push_prev;
          if (!insn_legal_i) begin
            state_d = StError;
          end else if (m.x_size == '0) begin
            // a no-op: only its tokens act (a push still waits for earlier stores' data)
            if (deps.push_prev && engine_pending) state_d = StRun;
            else s2g_push_o = deps.push_prev;
          end else begin
            start   = 1'b1;
            state_d = StRun;
          end
        end
      end
      StRun: begin
        // A push tells compute (and through it, any later reader) the data is in DRAM: it waits for
        // every outstanding acknowledgement. Without a push the next store starts at once.
        if (!engine_busy && !(push_q && engine_pending)) begin
          s2g_push_o   = push_q;
          stat_valid_o = 1'b1;
          state_d      = StIdle;
        end
      end
      default: ;  // StError: stopped until reset
    endcase
    busy_o           = state_q == StRun;
    error_o          = state_q == StError;
    stat_out_bytes_o = bytes;
  end

  // The store stage has no next stage: pop_next / push_next are ignored (spec 4.1).
  logic unused_deps;
  assign unused_deps = deps.pop_next ^ deps.push_next;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      push_q  <= 1'b0;
    end else begin
      state_q <= state_d;
      push_q  <= push_d;
    end
  end

  // a store, an instruction refused, a valid instruction waiting for its tokens
  `VTA_COVER(Stores, state_q == StRun)
  `VTA_COVER(RefusesAnInstruction, state_q == StError)
  `VTA_COVER(WaitsForTokens, state_q == StIdle && insn_valid_i && !go)
endmodule : vta_store
