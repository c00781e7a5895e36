// The VTA core: fetch, the load / compute / store stages, their instruction queues and the four
// dependency-token queues, plus the statistics counters. Its memory side is five read clients and one
// write client of the command/beat interface (docs/HARDWARE.md), served by the memory engine.
module vta_core
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned InsnQueueDepth = 32,
  parameter int unsigned TokenWidth = TokenCountWidth
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // control
  input  logic                start_i,
  input  logic [31:0]         insn_addr_i,
  input  logic [31:0]         insn_count_i,
  output logic                done_o,         // FINISH completed (pulse)
  output logic                error_o,        // a stage stopped on an invalid instruction, or a token overflow
  output logic [3:0]          error_stage_o,  // {token, store, compute, load}
  // debug view (for diagnostics and waveforms)
  output logic [3:0]          busy_o,         // {fetch, store, compute, load}
  output logic [4*TokenWidth-1:0] tokens_o,  // {s2g, g2s, g2l, l2g}, TokenWidth bits each
  output logic [3*$clog2(InsnQueueDepth+1)-1:0] queue_fill_o,  // {store, compute, load}, FillW bits each
  output logic [2:0]          insn_start_o,   // {store, compute, load} took an instruction from its queue
  output logic [2:0]          stall_o,        // {store, compute, load} holds an instruction, waiting for a token
  // statistics (spec 7.3), cleared by clear_stats_i
  input  logic                clear_stats_i,
  output logic [63:0]         inp_bytes_o,
  output logic [63:0]         wgt_bytes_o,
  output logic [63:0]         acc_bytes_o,
  output logic [63:0]         uop_bytes_o,
  output logic [63:0]         out_bytes_o,
  output logic [63:0]         gemm_count_o,
  output logic [63:0]         alu_count_o,
  // read clients: 0 fetch, 1 uop, 2 inp, 3 wgt, 4 acc
  output mem_rd_reqs_t        rd_req_o,
  input  mem_rd_rsps_t        rd_rsp_i,
  // write client: store
  output mem_wr_req_t          wr_req_o,
  input  mem_wr_rsp_t          wr_rsp_i
);
  // (The per-stage vectors are flat: Yosys 0.23 reads no multi-dimensional packed arrays.)
  localparam int unsigned FillW = $clog2(InsnQueueDepth + 1);

  // ---- fetch and the instruction queues -------------------------------------------------------
  logic  ld_q_wvalid, ld_q_wready, co_q_wvalid, co_q_wready, st_q_wvalid, st_q_wready;
  logic  ld_q_rvalid, ld_q_rready, co_q_rvalid, co_q_rready, st_q_rvalid, st_q_rready;
  insn_t fetched, ld_insn, co_insn, st_insn;
  logic  fetched_legal, ld_legal, co_legal, st_legal;  // each instruction's verdict (vta_insn_check)
  logic [InsWidth:0] ld_entry, co_entry, st_entry;     // the queues' heads: {verdict, instruction}
  assign {ld_legal, ld_insn} = ld_entry;
  assign {co_legal, co_insn} = co_entry;
  assign {st_legal, st_insn} = st_entry;
  logic  fetch_busy, ld_busy, co_busy, st_busy;

  vta_fetch u_fetch (
    .clk_i, .rst_ni, .start_i, .insn_addr_i, .insn_count_i, .busy_o(fetch_busy),
    .mem_req_o(rd_req_o[0*MemRdReqSlot +: MemRdReqWidth]), .mem_rsp_i(rd_rsp_i[0*MemRdRspSlot +: MemRdRspWidth]),
    .load_valid_o(ld_q_wvalid), .load_ready_i(ld_q_wready),
    .compute_valid_o(co_q_wvalid), .compute_ready_i(co_q_wready),
    .store_valid_o(st_q_wvalid), .store_ready_i(st_q_wready), .insn_o(fetched), .insn_legal_o(fetched_legal));

  vta_fifo_head #(.Width(InsWidth + 1), .Depth(InsnQueueDepth)) u_load_q (
    .clk_i, .rst_ni, .wvalid_i(ld_q_wvalid), .wready_o(ld_q_wready), .wdata_i({fetched_legal, fetched}),
    .rvalid_o(ld_q_rvalid), .rready_i(ld_q_rready), .rdata_o(ld_entry), .count_o(queue_fill_o[0*FillW +: FillW]));
  vta_fifo_head #(.Width(InsWidth + 1), .Depth(InsnQueueDepth)) u_compute_q (
    .clk_i, .rst_ni, .wvalid_i(co_q_wvalid), .wready_o(co_q_wready), .wdata_i({fetched_legal, fetched}),
    .rvalid_o(co_q_rvalid), .rready_i(co_q_rready), .rdata_o(co_entry), .count_o(queue_fill_o[1*FillW +: FillW]));
  vta_fifo_head #(.Width(InsWidth + 1), .Depth(InsnQueueDepth)) u_store_q (
    .clk_i, .rst_ni, .wvalid_i(st_q_wvalid), .wready_o(st_q_wready), .wdata_i({fetched_legal, fetched}),
    .rvalid_o(st_q_rvalid), .rready_i(st_q_rready), .rdata_o(st_entry), .count_o(queue_fill_o[2*FillW +: FillW]));

  // ---- token queues ---------------------------------------------------------------------------
  logic l2g_push, l2g_pop, l2g_ready, l2g_full, l2g_over;
  logic g2l_push, g2l_pop, g2l_ready, g2l_full, g2l_over;
  logic g2s_push, g2s_pop, g2s_ready, g2s_full, g2s_over;
  logic s2g_push, s2g_pop, s2g_ready, s2g_full, s2g_over;
  vta_token_queue #(.CountWidth(TokenWidth)) u_l2g (
    .clk_i, .rst_ni, .push_i(l2g_push), .pop_i(l2g_pop), .ready_o(l2g_ready), .full_o(l2g_full),
    .count_o(tokens_o[0*TokenWidth +: TokenWidth]), .overflow_o(l2g_over));
  vta_token_queue #(.CountWidth(TokenWidth)) u_g2l (
    .clk_i, .rst_ni, .push_i(g2l_push), .pop_i(g2l_pop), .ready_o(g2l_ready), .full_o(g2l_full),
    .count_o(tokens_o[1*TokenWidth +: TokenWidth]), .overflow_o(g2l_over));
  vta_token_queue #(.CountWidth(TokenWidth)) u_g2s (
    .clk_i, .rst_ni, .push_i(g2s_push), .pop_i(g2s_pop), .ready_o(g2s_ready), .full_o(g2s_full),
    .count_o(tokens_o[2*TokenWidth +: TokenWidth]), .overflow_o(g2s_over));
  vta_token_queue #(.CountWidth(TokenWidth)) u_s2g (
    .clk_i, .rst_ni, .push_i(s2g_push), .pop_i(s2g_pop), .ready_o(s2g_ready), .full_o(s2g_full),
    .count_o(tokens_o[3*TokenWidth +: TokenWidth]), .overflow_o(s2g_over));

  // ---- the stages -------------------------------------------------------------------------------
  inp_rd_t                    inp_rd;
  wgt_rd_t                    wgt_rd;
  acc_rd_t                    out_rd;
  logic [InpMatrixWidth-1:0]  inp_rdata;
  logic [WgtMatrixWidth-1:0]  wgt_rdata;
  logic [OutMatrixWidth-1:0]  out_rdata;
  logic ld_err, co_err, st_err, ld_stat, co_stat, st_stat, gemm_uop, alu_uop;
  logic [31:0] ld_inp_bytes, ld_wgt_bytes, co_uop_bytes, co_acc_bytes, st_out_bytes;

  vta_load u_load (
    .clk_i, .rst_ni, .insn_valid_i(ld_q_rvalid), .insn_ready_o(ld_q_rready), .insn_i(ld_insn), .insn_legal_i(ld_legal),
    .g2l_ready_i(g2l_ready), .l2g_full_i(l2g_full), .g2l_pop_o(g2l_pop), .l2g_push_o(l2g_push),
    .inp_req_o(rd_req_o[2*MemRdReqSlot +: MemRdReqWidth]), .inp_rsp_i(rd_rsp_i[2*MemRdRspSlot +: MemRdRspWidth]),
    .wgt_req_o(rd_req_o[3*MemRdReqSlot +: MemRdReqWidth]), .wgt_rsp_i(rd_rsp_i[3*MemRdRspSlot +: MemRdRspWidth]),
    .inp_rd_i(inp_rd), .inp_rdata_o(inp_rdata), .wgt_rd_i(wgt_rd), .wgt_rdata_o(wgt_rdata),
    .busy_o(ld_busy), .error_o(ld_err), .stat_valid_o(ld_stat), .stat_inp_bytes_o(ld_inp_bytes),
    .stat_wgt_bytes_o(ld_wgt_bytes));

  vta_compute u_compute (
    .clk_i, .rst_ni, .insn_valid_i(co_q_rvalid), .insn_ready_o(co_q_rready), .insn_i(co_insn), .insn_legal_i(co_legal),
    .l2g_ready_i(l2g_ready), .l2g_pop_o(l2g_pop), .s2g_ready_i(s2g_ready), .s2g_pop_o(s2g_pop),
    .g2l_full_i(g2l_full), .g2s_full_i(g2s_full),
    .g2l_push_o(g2l_push), .g2s_push_o(g2s_push),
    .uop_req_o(rd_req_o[1*MemRdReqSlot +: MemRdReqWidth]), .uop_rsp_i(rd_rsp_i[1*MemRdRspSlot +: MemRdRspWidth]),
    .acc_req_o(rd_req_o[4*MemRdReqSlot +: MemRdReqWidth]), .acc_rsp_i(rd_rsp_i[4*MemRdRspSlot +: MemRdRspWidth]),
    .inp_rd_o(inp_rd), .inp_rdata_i(inp_rdata), .wgt_rd_o(wgt_rd), .wgt_rdata_i(wgt_rdata),
    .out_rd_i(out_rd), .out_rdata_o(out_rdata),
    .busy_o(co_busy), .finish_o(done_o), .error_o(co_err), .gemm_uop_o(gemm_uop), .alu_uop_o(alu_uop),
    .stat_valid_o(co_stat), .stat_uop_bytes_o(co_uop_bytes), .stat_acc_bytes_o(co_acc_bytes));

  vta_store u_store (
    .clk_i, .rst_ni, .insn_valid_i(st_q_rvalid), .insn_ready_o(st_q_rready), .insn_i(st_insn), .insn_legal_i(st_legal),
    .g2s_ready_i(g2s_ready), .s2g_full_i(s2g_full), .g2s_pop_o(g2s_pop), .s2g_push_o(s2g_push),
    .mem_req_o(wr_req_o), .mem_rsp_i(wr_rsp_i),
    .out_rd_o(out_rd), .out_rdata_i(out_rdata),
    .busy_o(st_busy), .error_o(st_err), .stat_valid_o(st_stat), .stat_out_bytes_o(st_out_bytes));

  // the bits between the read clients' request slots (vta_pkg)
  if (MemRdReqSlot > MemRdReqWidth) begin : gen_req_gaps
    for (genvar i = 0; i < NumReadClients; i++) begin : gen_gap
      assign rd_req_o[i*MemRdReqSlot + MemRdReqWidth +: MemRdReqSlot - MemRdReqWidth] = '0;
    end
  end

  // ---- errors and statistics ----------------------------------------------------------------------
  assign error_stage_o = {l2g_over || g2l_over || g2s_over || s2g_over, st_err, co_err, ld_err};
  assign error_o       = |error_stage_o;

  // The counters change in the clocked block, each only when it counts: the host's clear comes from
  // the AXI4-Lite inputs, and next-state logic reading it would be evaluated twice per cycle by a
  // simulator (Verilator's input phase and its clocked phase; docs/PERFORMANCE.md).
  logic [63:0] inp_q, wgt_q, acc_q, uop_q, out_q, gemm_q, alu_q;
  assign inp_bytes_o  = inp_q;
  assign wgt_bytes_o  = wgt_q;
  assign acc_bytes_o  = acc_q;
  assign uop_bytes_o  = uop_q;
  assign out_bytes_o  = out_q;
  assign gemm_count_o = gemm_q;
  assign alu_count_o  = alu_q;

  assign busy_o = {fetch_busy, st_busy, co_busy, ld_busy};
  assign insn_start_o = {st_q_rvalid && st_q_rready, co_q_rvalid && co_q_rready, ld_q_rvalid && ld_q_rready};
  assign stall_o = {st_q_rvalid && !st_q_rready && !st_busy, co_q_rvalid && !co_q_rready && !co_busy,
                    ld_q_rvalid && !ld_q_rready && !ld_busy};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {inp_q, wgt_q, uop_q, acc_q, out_q, gemm_q, alu_q} <= '0;
    end else begin
      if (clear_stats_i) begin
        {inp_q, wgt_q, uop_q, acc_q, out_q, gemm_q, alu_q} <= '0;
      end else begin
        if (ld_stat) begin
          inp_q <= inp_q + 64'(ld_inp_bytes);
          wgt_q <= wgt_q + 64'(ld_wgt_bytes);
        end
        if (co_stat) begin
          uop_q <= uop_q + 64'(co_uop_bytes);
          acc_q <= acc_q + 64'(co_acc_bytes);
        end
        if (st_stat) out_q <= out_q + 64'(st_out_bytes);
        if (gemm_uop) gemm_q <= gemm_q + 1'b1;
        if (alu_uop) alu_q <= alu_q + 1'b1;
      end
    end
  end
endmodule : vta_core
