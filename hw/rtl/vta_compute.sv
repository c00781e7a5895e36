// The compute stage: LOAD UOP, LOAD ACC, LOAD ACC_8BIT, GEMM, ALU and FINISH, one at a time in
// program order.
//
// For each instruction from the fetch queue: wait for the tokens it pops (load->compute for pop_prev,
// store->compute for pop_next; both taken when it is accepted), stop with error_o when fetch found it
// illegal (an illegal opcode or memory type, zero iterations, an empty or too large micro-op range, an
// illegal ALU opcode, a load block past its buffer: vta_insn_check), run it, then push compute->load
// (push_prev) and compute->store (push_next) if asked. FINISH completes at once and pulses finish_o.
//
// Owns the micro-op, accumulator and output SRAMs. Every accumulator write also writes the output
// SRAM with the low 8 bits of each lane (accumulator loads included), so a STORE reads what the
// fsim's truncating store would produce.
`include "vta_assert.svh"
module vta_compute
  import vta_config_pkg::*;
  import vta_pkg::*;
(
  `include "vta_stage_ports.svh"
  // tokens
  input  logic                       l2g_ready_i,
  output logic                       l2g_pop_o,
  input  logic                       s2g_ready_i,
  input  logic                       g2l_full_i,
  input  logic                       g2s_full_i,
  output logic                       s2g_pop_o,
  output logic                       g2l_push_o,
  output logic                       g2s_push_o,
  // memory clients: micro-op and accumulator loads
  output mem_rd_req_t                uop_req_o,
  input  mem_rd_rsp_t                uop_rsp_i,
  output mem_rd_req_t                acc_req_o,
  input  mem_rd_rsp_t                acc_rsp_i,
  // input and weight SRAMs (owned by the load stage)
  output inp_rd_t                    inp_rd_o,
  input  logic [InpMatrixWidth-1:0]  inp_rdata_i,
  output wgt_rd_t                    wgt_rd_o,
  input  logic [WgtMatrixWidth-1:0]  wgt_rdata_i,
  // output SRAM read port for the store stage
  input  acc_rd_t                    out_rd_i,
  output logic [OutMatrixWidth-1:0]  out_rdata_o,
  // status
  output logic                       busy_o,
  output logic                       finish_o,
  output logic                       error_o,
  output logic                       gemm_uop_o,       // one non-reset GEMM micro-op (gemm_counter)
  output logic                       alu_uop_o,        // one ALU micro-op (alu_counter)
  output logic                       stat_valid_o,     // one completed load
  output logic [31:0]                stat_uop_bytes_o,
  output logic [31:0]                stat_acc_bytes_o
);
  localparam int unsigned Lanes = Batch * BlockOut;
  localparam int unsigned Acc8ElemBytes = Batch * BlockOut;  // int8 lanes of an ACC_8BIT element

  typedef enum logic [2:0] {UnitUop, UnitAcc, UnitAcc8, UnitGemm, UnitAlu} unit_e;
  unit_e  unit_d, unit_q;
  deps_t  deps;
  logic [31:0] bytes;  // the statistics' byte count (vta_stat_bytes)

  mem_insn_t  m;
  loop_insn_t g, a;
  opcode_e    op;

  // ---- SRAMs -----------------------------------------------------------------------------------
  logic                       uop_we;
  logic [LogUopBuffDepth-1:0] uop_waddr;
  uop_word_t                  uop_wdata, uop_rdata;
  uop_rd_t                    uop_rd;
  acc_rd_t                    acc_rd;
  acc_wr_t                    acc_wr;
  out_wr_t                    out_wr;
  logic [AccMatrixWidth-1:0]  acc_rdata;

  vta_ram_1r1w #(.Width(UopWidth), .Depth(UopBuffDepth)) u_uop_ram (
    .clk_i, .we_i(uop_we), .waddr_i(uop_waddr), .wdata_i(uop_wdata),
    .re_i(uop_rd.re), .raddr_i(uop_rd.addr), .rdata_o(uop_rdata));
  // (the accumulator's word passes the block RAM's output register: the GEMM and the ALU read it two
  // cycles ahead; its clock-to-data delay was the design's slowest path, docs/SYNTHESIS.md)
  vta_ram_1r1w #(.Width(AccMatrixWidth), .Depth(AccBuffDepth), .OutReg(1'b1)) u_acc_ram (
    .clk_i, .we_i(acc_wr.we), .waddr_i(acc_wr.addr), .wdata_i(acc_wr.data),
    .re_i(acc_rd.re), .raddr_i(acc_rd.addr), .rdata_o(acc_rdata));
  vta_ram_1r1w #(.Width(OutMatrixWidth), .Depth(AccBuffDepth)) u_out_ram (
    .clk_i, .we_i(out_wr.we), .waddr_i(out_wr.addr), .wdata_i(out_wr.data),
    .re_i(out_rd_i.re), .raddr_i(out_rd_i.addr), .rdata_o(out_rdata_o));

  // ---- the units -------------------------------------------------------------------------------
  logic start_uop, start_acc, start_acc8, start_gemm, start_alu;
  logic uop_busy, acc_busy, acc8_busy, gemm_busy, alu_busy, gemm_error, alu_error;

  logic                       ul_we;
  logic [LogUopBuffDepth-1:0] ul_waddr;
  uop_word_t                  ul_wdata;
  vta_tensor_load #(.ElemBytes(UopElemBytes), .SramWidth(UopWidth), .SramDepth(UopBuffDepth)) u_uop_load (
    .clk_i, .rst_ni, .start_i(start_uop), .insn_i(m), .busy_o(uop_busy),
    .mem_req_o(uop_req_o), .mem_rsp_i(uop_rsp_i),
    .sram_we_o(ul_we), .sram_waddr_o(ul_waddr), .sram_wdata_o(ul_wdata));

  // ACC and ACC_8BIT loads share the accumulator memory client; only one runs at a time.
  mem_rd_req_t                al_req, a8_req;
  mem_rd_rsp_t                al_rsp, a8_rsp;
  always_comb begin
    al_rsp = acc_rsp_i;
    a8_rsp = acc_rsp_i;
    al_rsp.data_valid = acc_rsp_i.data_valid && !acc8_busy;
    a8_rsp.data_valid = acc_rsp_i.data_valid && acc8_busy;
  end
  logic                       al_we, a8_we;
  logic [LogAccBuffDepth-1:0] al_waddr, a8_waddr;
  logic [AccMatrixWidth-1:0]  al_wdata, a8_wdata;
  vta_tensor_load #(.ElemBytes(AccElemBytes), .SramWidth(AccMatrixWidth), .SramDepth(AccBuffDepth)) u_acc_load (
    .clk_i, .rst_ni, .start_i(start_acc), .insn_i(m), .busy_o(acc_busy),
    .mem_req_o(al_req), .mem_rsp_i(al_rsp),
    .sram_we_o(al_we), .sram_waddr_o(al_waddr), .sram_wdata_o(al_wdata));
  vta_tensor_load #(.ElemBytes(Acc8ElemBytes), .SramWidth(AccMatrixWidth), .SramDepth(AccBuffDepth),
                    .Widen(1'b1)) u_acc8_load (
    .clk_i, .rst_ni, .start_i(start_acc8), .insn_i(m), .busy_o(acc8_busy),
    .mem_req_o(a8_req), .mem_rsp_i(a8_rsp),
    .sram_we_o(a8_we), .sram_waddr_o(a8_waddr), .sram_wdata_o(a8_wdata));

  assign acc_req_o = acc8_busy ? a8_req : al_req;

  logic    gm_done, al_done;
  uop_rd_t gm_uop_rd, al_uop_rd;
  acc_rd_t gm_acc_rd, al_acc_rd;
  acc_wr_t gm_acc_wr, al_acc_wr;
  out_wr_t gm_out_wr, al_out_wr;
  vta_gemm u_gemm (
    .clk_i, .rst_ni, .start_i(start_gemm), .insn_i(g), .busy_o(gemm_busy), .error_o(gemm_error),
    .uop_done_o(gm_done), .uop_rd_o(gm_uop_rd), .uop_rdata_i(uop_rdata), .inp_rd_o, .inp_rdata_i, .wgt_rd_o,
    .wgt_rdata_i, .acc_rd_o(gm_acc_rd), .acc_rdata_i(acc_rdata), .acc_wr_o(gm_acc_wr), .out_wr_o(gm_out_wr));
  vta_alu u_alu (
    .clk_i, .rst_ni, .start_i(start_alu), .insn_i(a), .busy_o(alu_busy), .error_o(alu_error),
    .uop_done_o(al_done), .uop_rd_o(al_uop_rd), .uop_rdata_i(uop_rdata), .acc_rd_o(al_acc_rd),
    .acc_rdata_i(acc_rdata), .acc_wr_o(al_acc_wr), .out_wr_o(al_out_wr));

  // ---- SRAM port muxes: one unit runs at a time ---------------------------------------------------
  function automatic logic [OutMatrixWidth-1:0] truncate(logic [AccMatrixWidth-1:0] acc);
    logic [OutMatrixWidth-1:0] o;
    for (int l = 0; l < Lanes; l++) o[l * OutWidth +: OutWidth] = acc[l * AccWidth +: OutWidth];
    truncate = o;
  endfunction

  always_comb begin
    uop_we    = ul_we;
    uop_waddr = ul_waddr;
    uop_wdata = ul_wdata;
    uop_rd.re   = gm_uop_rd.re || al_uop_rd.re;
    uop_rd.addr = alu_busy ? al_uop_rd.addr : gm_uop_rd.addr;
    acc_rd.re   = gm_acc_rd.re || al_acc_rd.re;
    acc_rd.addr = alu_busy ? al_acc_rd.addr : gm_acc_rd.addr;
    if (al_we || a8_we) begin
      acc_wr.we   = 1'b1;
      acc_wr.addr = al_we ? al_waddr : a8_waddr;
      acc_wr.data = al_we ? al_wdata : a8_wdata;
      out_wr.we   = 1'b1;
      out_wr.addr = acc_wr.addr;
      out_wr.data = truncate(acc_wr.data);
    end else begin
      acc_wr = al_acc_wr.we ? al_acc_wr : gm_acc_wr;
      acc_wr.we = gm_acc_wr.we || al_acc_wr.we;
      out_wr = al_out_wr.we ? al_out_wr : gm_out_wr;
      out_wr.we = gm_out_wr.we || al_out_wr.we;
    end
  end

  // ---- control --------------------------------------------------------------------------------
  logic go, unit_busy, unit_error, idle, run, take, start, done, unused_push_prev_q;
  // starts when its pops have tokens and its pushes have room (only this stage pushes g2l and g2s)
  logic [OpcodeBitWidth-1:0] head_op;
  vta_insn_head u_head (
    .idle_i(idle), .valid_i(insn_valid_i), .insn_i, .prev_token_i(l2g_ready_i),
    .next_token_i(s2g_ready_i), .prev_room_i(!g2l_full_i), .next_room_i(!g2s_full_i), .deps_o(deps), .go_o(go),
    .op_o(head_op), .mem_o(m), .gemm_o(g), .alu_o(a));
  assign op = opcode_e'(head_op);

  // FINISH and a LOAD of nothing complete at once: only their tokens act (and FINISH ends the run)
  vta_stage_ctrl #(.HasPrev(1'b1), .HasNext(1'b1)) u_ctrl (
    .clk_i, .rst_ni, .go_i(go), .deps_i(deps), .legal_i(insn_legal_i),
    .at_once_i(op == OpFinish || (op == OpLoad && m.x_size == '0)), .unit_busy_i(unit_busy),
    .unit_error_i(unit_error), .idle_o(idle), .run_o(run), .error_o, .take_o(take), .start_o(start),
    .done_o(done), .pop_prev_o(l2g_pop_o), .pop_next_o(s2g_pop_o), .push_prev_o(g2l_push_o),
    .push_next_o(g2s_push_o), .push_prev_q_o(unused_push_prev_q));

  vta_stat_bytes u_bytes (
    .clk_i, .rst_ni, .take_i(take), .x_size_i(m.x_size), .y_size_i(m.y_size),
    .run_i(run), .elem_bytes_i(32'(unit_q == UnitUop ? UopElemBytes : AccElemBytes)), .read_i(stat_valid_o), .bytes_o(bytes));

  always_comb begin

    unique case (unit_q)
      UnitUop:  begin unit_busy = uop_busy;  unit_error = 1'b0;      end
      UnitAcc:  begin unit_busy = acc_busy;  unit_error = 1'b0;      end
      UnitAcc8: begin unit_busy = acc8_busy; unit_error = 1'b0;      end
      UnitGemm: begin unit_busy = gemm_busy; unit_error = gemm_error; end
      default:  begin unit_busy = alu_busy;  unit_error = alu_error;  end
    endcase

    // the unit an instruction starts: GEMM, ALU, or the load of micro-ops, accumulators or ACC_8BIT
    unit_d     = unit_q;
    start_gemm = 1'b0;
    start_alu  = 1'b0;
    start_uop  = 1'b0;
    start_acc  = 1'b0;
    start_acc8 = 1'b0;
    if (start) begin
      if (op == OpGemm) begin
        unit_d = UnitGemm;
        start_gemm = 1'b1;
      end else if (op == OpAlu) begin
        unit_d = UnitAlu;
        start_alu = 1'b1;
      end else if (m.mem_type == MemUop) begin
        unit_d = UnitUop;
        start_uop = 1'b1;
      end else if (m.mem_type == MemAcc) begin
        unit_d = UnitAcc;
        start_acc = 1'b1;
      end else begin
        unit_d = UnitAcc8;
        start_acc8 = 1'b1;
      end
    end
    insn_ready_o     = take;
    finish_o         = take && insn_legal_i && op == OpFinish;
    stat_valid_o     = done && (unit_q == UnitUop || unit_q == UnitAcc || unit_q == UnitAcc8);
    busy_o           = run;
    gemm_uop_o       = gm_done;
    alu_uop_o        = al_done;
    stat_uop_bytes_o = unit_q == UnitUop ? bytes : '0;
    stat_acc_bytes_o = unit_q == UnitUop ? '0 : bytes;
  end

  logic unused_ctrl;
  assign unused_ctrl = unused_push_prev_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) unit_q <= UnitUop;
    else unit_q <= unit_d;
  end

  // every unit at work, an instruction refused, a valid instruction waiting for its tokens
  `VTA_COVER(LoadsMicroOps, run && unit_q == UnitUop)
  `VTA_COVER(LoadsAccumulators, run && unit_q == UnitAcc)
  `VTA_COVER(LoadsAcc8, run && unit_q == UnitAcc8)
  `VTA_COVER(RunsGemm, run && unit_q == UnitGemm)
  `VTA_COVER(RunsAlu, run && unit_q == UnitAlu)
  `VTA_COVER(Finishes, finish_o)
  `VTA_COVER(RefusesAnInstruction, error_o)
  `VTA_COVER(WaitsForTokens, idle && insn_valid_i && !go)
endmodule : vta_compute
