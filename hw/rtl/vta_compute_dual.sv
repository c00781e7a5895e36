// The compute stage with two slots (COMPUTE_ISSUE 2: the build takes this file for vta_compute.sv, with
// the same module name and ports; the rule is vta/driver/compute_issue.h's, with a
// dispatch window of 1): slot G runs GEMMs, slot A every other compute instruction (ALU, LOAD UOP,
// LOAD ACC, LOAD ACC_8BIT), each slot one instruction at a time, and instructions start in program
// order. FINISH, a load of nothing and an instruction fetch refused run alone, once both slots are
// empty. The head instruction starts when its tokens are there, its slot is free and, when the other
// slot runs, the two are independent:
//   - a GEMM and an ALU instruction or an accumulator load: each one's accumulator footprint is known
//     and lies in one half of the buffer, not the same half. The accumulator and the output buffer
//     are two banks here, one per half, so the two units read and write them in the same cycles;
//   - a GEMM and a micro-op load: the GEMM's micro-ops are not among those the load writes.
// A GEMM's or ALU instruction's footprint is known from its loop fields and the index range of its
// micro-ops, which vta_uop_table recorded while they were loaded; a load's from its fields.
//
// Tokens: an instruction pops when it starts. A push to the load stage leaves once its instruction
// started and the GEMM before it (if one runs) completed: only GEMMs read the buffers the load stage
// writes. A push to the store stage leaves once its instruction and the older one the other slot runs
// completed. An instruction that pushes to a queue starts only when no push of this stage to that queue
// is waiting, so each queue's pushes leave in program order and always find room.
//
// Everything else is vta_compute's: the same units (vta_compute_units), the output buffer written with
// every accumulator write, the same statistics. The micro-op buffer's block RAM serves the two slots on its two ports.
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
  localparam int unsigned LogHalf = LogAccBuffDepth - 1;  // a bank's index bits (the config: depth >= 4)
  localparam int unsigned Half = AccBuffDepth / 2;
  // the footprint's widths: a loop's products ((iter - 1) x factor) and reaches, a load's rows x cols
  // and last element
  localparam int unsigned FW = UopSrcIdxBits > LogAccBuffDepth ? UopSrcIdxBits : LogAccBuffDepth;
  localparam int unsigned PW = LoopIterWidth + FW;
  localparam int unsigned RW = PW + 2;
  localparam int unsigned DW = MemopSizeBitWidth + 1;
  localparam int unsigned LW = 2 * DW + 1;

  typedef enum logic [1:0] {UnitUop, UnitAcc, UnitAcc8, UnitAlu} unit_a_e;

  // ---- the head instruction -----------------------------------------------------------------------
  // Its footprint is computed in two registered steps from the cycle it is at the head, while it waits
  // for its tokens or its slot: F1 the table's lookup and the loop's products, F2 the reaches and the
  // banks. It may start once F2 holds it; a start, or a change of the table, computes them anew.
  deps_t      deps;
  mem_insn_t  m;
  loop_insn_t g, a;
  opcode_e    op;
  logic       stop_q, f1_q, capture;
  logic       go /*verilator public_flat_rd*/;
  logic       f2_q /*verilator public_flat_rd*/;
  logic       pend_prev_q, pend_next_q;
  logic [OpcodeBitWidth-1:0] head_op;
  // (the fields the units take, decoded when it may start; the pushes' room: no push of ours to that
  // queue waiting, and the queue not full)
  vta_insn_head u_head (
    .idle_i(!stop_q && f2_q), .valid_i(insn_valid_i), .insn_i, .prev_token_i(l2g_ready_i),
    .next_token_i(s2g_ready_i), .prev_room_i(!g2l_full_i && !pend_prev_q),
    .next_room_i(!g2s_full_i && !pend_next_q), .deps_o(deps), .go_o(go), .op_o(head_op), .mem_o(m),
    .gemm_o(g), .alu_o(a));
  assign op = opcode_e'(head_op);

  // the fields F1 reads, decoded (in a simulation) only in the cycle it takes them: the head as a stage
  // sees it when its tokens and room do not matter
  mem_insn_t  cm;
  loop_insn_t cg, ca;
  opcode_e    cop;
  deps_t      unused_cdeps;
  logic       unused_cgo;
  logic [OpcodeBitWidth-1:0] capture_op;
  vta_insn_head u_capture (
    .idle_i(capture), .valid_i(insn_valid_i), .insn_i, .prev_token_i(1'b1), .next_token_i(1'b1),
    .prev_room_i(1'b1), .next_room_i(1'b1), .deps_o(unused_cdeps), .go_o(unused_cgo), .op_o(capture_op),
    .mem_o(cm), .gemm_o(cg), .alu_o(ca));
  assign cop = opcode_e'(capture_op);
  logic unused_capture;  // (the fields no footprint reads)
  assign unused_capture = ^{unused_cdeps, unused_cgo, cm.dram_base, cm.x_stride, cg.reset, cg.src_factor_out, cg.src_factor_in, cg.wgt_factor_out,
                            cg.wgt_factor_in, cg.alu_opcode, cg.use_imm, cg.imm, ca.reset, ca.wgt_factor_out,
                            ca.wgt_factor_in, ca.alu_opcode, ca.imm};

  // ---- SRAMs --------------------------------------------------------------------------------------
  logic                       ul_we;
  logic [LogUopBuffDepth-1:0] ul_waddr;
  uop_word_t                  ul_wdata, gm_uop_rdata, al_uop_rdata;
  uop_rd_t                    gm_uop_rd, al_uop_rd;
  // one block RAM, two ports: the GEMM reads on B; on A the micro-op loads write and the ALU reads
  // (both slot A's: one at a time)
  vta_ram_1rw1r #(.Width(UopWidth), .Depth(UopBuffDepth)) u_uop_ram (
    .clk_i, .we_a_i(ul_we), .re_a_i(al_uop_rd.re), .addr_a_i(ul_we ? ul_waddr : al_uop_rd.addr),
    .wdata_a_i(ul_wdata), .rdata_a_o(al_uop_rdata),
    .re_b_i(gm_uop_rd.re), .addr_b_i(gm_uop_rd.addr), .rdata_b_o(gm_uop_rdata));

  // the accumulator and output banks: bank b holds indices [b * Half, (b + 1) * Half)
  // (bank b's bits at b * width: Yosys 0.23 takes an array of wires for a memory and reads no array of
  // two packed dimensions)
  localparam int unsigned HW = LogHalf, AccW = AccMatrixWidth, OutW = OutMatrixWidth;
  logic [1:0]        acc_re, acc_we, out_re, out_we;
  logic [2*HW-1:0]   acc_raddr, acc_waddr, out_raddr, out_waddr;
  logic [2*AccW-1:0] acc_wdata, acc_rdata;
  logic [2*OutW-1:0] out_wdata, out_rdata;
  for (genvar b = 0; b < 2; b++) begin : gen_bank
    vta_ram_1r1w #(.Width(AccMatrixWidth), .Depth(Half), .OutReg(1'b1)) u_acc_ram (
      .clk_i, .we_i(acc_we[b]), .waddr_i(acc_waddr[b * HW +: HW]), .wdata_i(acc_wdata[b * AccW +: AccW]),
      .re_i(acc_re[b]), .raddr_i(acc_raddr[b * HW +: HW]), .rdata_o(acc_rdata[b * AccW +: AccW]));
    vta_ram_1r1w #(.Width(OutMatrixWidth), .Depth(Half)) u_out_ram (
      .clk_i, .we_i(out_we[b]), .waddr_i(out_waddr[b * HW +: HW]), .wdata_i(out_wdata[b * OutW +: OutW]),
      .re_i(out_re[b]), .raddr_i(out_raddr[b * HW +: HW]), .rdata_o(out_rdata[b * OutW +: OutW]));
  end

  // ---- the units ----------------------------------------------------------------------------------
  logic start_uop, start_acc, start_acc8, start_gemm, start_alu;
  logic uop_busy, acc_busy, acc8_busy, gemm_busy, alu_busy, gemm_error, alu_error;

  logic                       ld_we;  // an accumulator load's write (slot A)
  logic [LogAccBuffDepth-1:0] ld_waddr;
  logic [AccMatrixWidth-1:0]  ld_wdata;
  logic                       gm_done, al_done;
  acc_rd_t                    gm_acc_rd, al_acc_rd;
  acc_wr_t                    gm_acc_wr, al_acc_wr;
  out_wr_t                    gm_out_wr, al_out_wr;
  logic [AccMatrixWidth-1:0]  gm_acc_rdata, al_acc_rdata;
  vta_compute_units u_units (
    .clk_i, .rst_ni, .start_uop_i(start_uop), .start_acc_i(start_acc), .start_acc8_i(start_acc8),
    .start_gemm_i(start_gemm), .start_alu_i(start_alu), .mem_i(m), .gemm_i(g), .alu_i(a), .uop_busy_o(uop_busy),
    .acc_busy_o(acc_busy), .acc8_busy_o(acc8_busy), .gemm_busy_o(gemm_busy), .alu_busy_o(alu_busy),
    .gemm_error_o(gemm_error), .alu_error_o(alu_error), .uop_req_o, .uop_rsp_i, .acc_req_o, .acc_rsp_i,
    .ul_we_o(ul_we), .ul_waddr_o(ul_waddr), .ul_wdata_o(ul_wdata), .ld_we_o(ld_we), .ld_waddr_o(ld_waddr),
    .ld_wdata_o(ld_wdata), .gm_done_o(gm_done), .gm_uop_rd_o(gm_uop_rd), .gm_uop_rdata_i(gm_uop_rdata), .inp_rd_o,
    .inp_rdata_i, .wgt_rd_o, .wgt_rdata_i, .gm_acc_rd_o(gm_acc_rd), .gm_acc_rdata_i(gm_acc_rdata),
    .gm_acc_wr_o(gm_acc_wr), .gm_out_wr_o(gm_out_wr), .al_done_o(al_done), .al_uop_rd_o(al_uop_rd),
    .al_uop_rdata_i(al_uop_rdata), .al_acc_rd_o(al_acc_rd), .al_acc_rdata_i(al_acc_rdata), .al_acc_wr_o(al_acc_wr),
    .al_out_wr_o(al_out_wr));

  logic unused_out_wr;  // (an output write goes with the accumulator write: its address and enable)
  assign unused_out_wr = ^{gm_out_wr.we, gm_out_wr.addr, al_out_wr.we, al_out_wr.addr};

  // ---- the banks' ports: each unit reaches the bank of the index it reads or writes ---------------
  function automatic logic [OutMatrixWidth-1:0] truncate(logic [AccMatrixWidth-1:0] acc);
    logic [OutMatrixWidth-1:0] o;
    for (int l = 0; l < Lanes; l++) o[l * OutWidth +: OutWidth] = acc[l * AccWidth +: OutWidth];
    truncate = o;
  endfunction

  localparam int unsigned Msb = LogAccBuffDepth - 1;
  logic                       gm_sel1_q, gm_sel2_q, al_sel1_q, al_sel2_q, st_sel_q;  // the bank each read went to
  logic [1:0]                 gm_rd;  // the GEMM reads bank b
  always_comb begin
    for (int b = 0; b < 2; b++) begin
      // reads: the GEMM's or the ALU's
      gm_rd[b] = gm_acc_rd.re && gm_acc_rd.addr[Msb] == 1'(b);
      acc_re[b] = gm_rd[b] || (al_acc_rd.re && al_acc_rd.addr[Msb] == 1'(b));
      acc_raddr[b * HW +: HW] = HW'(gm_rd[b] ? gm_acc_rd.addr : al_acc_rd.addr);
      // writes: the GEMM's, the ALU's or an accumulator load's (the output buffer with each)
      acc_we[b] = 1'b0;
      acc_waddr[b * HW +: HW] = HW'(ld_waddr);
      acc_wdata[b * AccW +: AccW] = ld_wdata;
      out_wdata[b * OutW +: OutW] = truncate(ld_wdata);
      if (gm_acc_wr.we && gm_acc_wr.addr[Msb] == 1'(b)) begin
        acc_we[b] = 1'b1;
        acc_waddr[b * HW +: HW] = HW'(gm_acc_wr.addr);
        acc_wdata[b * AccW +: AccW] = gm_acc_wr.data;
        out_wdata[b * OutW +: OutW] = gm_out_wr.data;
      end else if (al_acc_wr.we && al_acc_wr.addr[Msb] == 1'(b)) begin
        acc_we[b] = 1'b1;
        acc_waddr[b * HW +: HW] = HW'(al_acc_wr.addr);
        acc_wdata[b * AccW +: AccW] = al_acc_wr.data;
        out_wdata[b * OutW +: OutW] = al_out_wr.data;
      end else if (ld_we && ld_waddr[Msb] == 1'(b)) begin
        acc_we[b] = 1'b1;
      end
      out_we[b] = acc_we[b];
      out_waddr[b * HW +: HW] = acc_waddr[b * HW +: HW];
      // the store stage's reads
      out_re[b] = out_rd_i.re && out_rd_i.addr[Msb] == 1'(b);
      out_raddr[b * HW +: HW] = HW'(out_rd_i.addr);
    end
    // (the accumulator's word arrives two cycles after its read, the output's one)
    gm_acc_rdata = gm_sel2_q ? acc_rdata[AccW +: AccW] : acc_rdata[0 +: AccW];
    al_acc_rdata = al_sel2_q ? acc_rdata[AccW +: AccW] : acc_rdata[0 +: AccW];
    out_rdata_o  = st_sel_q ? out_rdata[OutW +: OutW] : out_rdata[0 +: OutW];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {gm_sel1_q, gm_sel2_q, al_sel1_q, al_sel2_q, st_sel_q} <= '0;
    end else begin
      if (gm_acc_rd.re) gm_sel1_q <= gm_acc_rd.addr[Msb];
      if (al_acc_rd.re) al_sel1_q <= al_acc_rd.addr[Msb];
      if (out_rd_i.re) st_sel_q <= out_rd_i.addr[Msb];
      gm_sel2_q <= gm_sel1_q;
      al_sel2_q <= al_sel1_q;
    end
  end

  // ---- the head's footprint ---------------------------------------------------------------------
  localparam int unsigned TN = UopLoadTableEntries;
  logic                       table_busy, tbl_busy;
  logic [TN-1:0]              hit, use_entry;
  logic [LogAccBuffDepth-1:0] dst_lo, dst_hi;
  logic [UopSrcIdxBits-1:0]   src_lo, src_hi;
  logic                       c_gemm, c_alu, c_load;
  // (each slot's state and the dispatch are read by the tsim's timeline, tsim/src/simulator.cc)
  logic                       run_g_q /*verilator public_flat_rd*/;
  logic                       run_a_q /*verilator public_flat_rd*/;
  unit_a_e                    unit_a_q;
  // what each slot runs: its accumulator footprint (in one bank, which) and micro-ops
  logic                       g_pair_q, g_bank_q, a_pair_q, a_bank_q, a_uops_q;
  logic [LW-1:0]              g_uop_lo_q, g_uop_hi_q, a_uop_lo_q, a_uop_hi_q;
  logic [TN-1:0]              f2_hit_q;
  logic                       unit_a_busy, unit_a_error, done_g, done_a, can, start, alone;
  logic                       take /*verilator public_flat_rd*/;
  logic                       to_g /*verilator public_flat_rd*/;
  logic                       to_a /*verilator public_flat_rd*/;

  vta_uop_table u_table (
    .clk_i, .rst_ni, .rec_start_i(start_uop), .rec_we_i(ul_we), .rec_addr_i(ul_waddr), .rec_word_i(ul_wdata),
    .rec_done_i(done_a && unit_a_q == UnitUop), .bgn_i(c_gemm ? cg.uop_bgn : ca.uop_bgn),
    .end_i(c_gemm ? cg.uop_end : ca.uop_end), .busy_o(tbl_busy), .use_i(use_entry),
    .hit_o(hit), .dst_lo_o(dst_lo), .dst_hi_o(dst_hi), .src_lo_o(src_lo), .src_hi_o(src_hi));

  // F1: what it is, its micro-ops' recorded ranges, its loop's products, its block's size
  logic                       f1_gemm_q, f1_alu_q, f1_uop_q, f1_acc_q, f1_acc8_q, f1_at_once_q, f1_imm_q;
  logic [TN-1:0]              f1_hit_q;  // the table's entry holding its micro-ops (one-hot; none: unknown)
  logic [LogAccBuffDepth-1:0] f1_dst_lo_q, f1_dst_hi_q;
  logic [UopSrcIdxBits-1:0]   f1_src_lo_q, f1_src_hi_q;
  logic [PW-1:0]              f1_p_do_q, f1_p_di_q, f1_p_so_q, f1_p_si_q;
  logic [LW-1:0]              f1_base_q, f1_n_q, f1_uop_lo_q, f1_uop_end_q;
  logic [LoopIterWidth-1:0]   c_out, c_in;
  assign c_gemm = cop == OpGemm;
  assign c_alu  = cop == OpAlu;
  assign c_load = cop == OpLoad;
  assign c_out  = (c_gemm ? cg.iter_out : ca.iter_out) - 1'b1;  // (legal loops count one iteration or more)
  assign c_in   = (c_gemm ? cg.iter_in : ca.iter_in) - 1'b1;

  // F2: its slot, whether its accumulator footprint is known and in one bank (pair) and which (bank);
  // the micro-ops it reads (GEMM) or writes (LOAD UOP)
  logic          f2_gemm_q, f2_alu_q, f2_uop_q, f2_acc_q, f2_acc8_q, f2_at_once_q;
  logic          f2_pair_q, f2_bank_q, f2_uops_known_q, f2_indep_q;
  logic [LW-1:0] f2_uop_lo_q, f2_uop_hi_q;
  logic [RW-1:0] reach_dst, reach_src;
  logic [LW-1:0] load_hi, f1_uop_hi;
  logic          known, pair, bank, uops_known, indep_d;

  // whether [lo, hi] lies in one bank
  function automatic logic in_one_bank(logic [LW-1:0] lo, logic [LW-1:0] hi);
    in_one_bank = hi < LW'(Half) || (lo >= LW'(Half) && hi < LW'(AccBuffDepth));
  endfunction

  always_comb begin
    // a loop's reach: r + (iter_out - 1) * factor_out + (iter_in - 1) * factor_in
    reach_dst = RW'(f1_dst_hi_q) + RW'(f1_p_do_q) + RW'(f1_p_di_q);
    reach_src = RW'(f1_src_hi_q) + RW'(f1_p_so_q) + RW'(f1_p_si_q);
    load_hi   = f1_base_q + f1_n_q - 1'b1;
    f1_uop_hi = f1_gemm_q ? f1_uop_end_q - 1'b1 : load_hi;
    known     = 1'b0;
    pair      = 1'b0;
    bank      = 1'b0;
    if (f1_gemm_q || f1_alu_q) begin
      known = |f1_hit_q && reach_dst < RW'(AccBuffDepth) && (f1_gemm_q || f1_imm_q || reach_src < RW'(AccBuffDepth));
      pair  = known && in_one_bank(LW'(f1_dst_lo_q), LW'(reach_dst)) &&
              (f1_gemm_q || f1_imm_q || (in_one_bank(LW'(f1_src_lo_q), LW'(reach_src)) &&
                                         (f1_src_lo_q >= UopSrcIdxBits'(Half)) == (f1_dst_lo_q >= LogAccBuffDepth'(Half))));
      bank  = f1_dst_lo_q >= LogAccBuffDepth'(Half);
    end else if (f1_acc_q || f1_acc8_q) begin
      known = load_hi < LW'(AccBuffDepth);
      pair  = known && in_one_bank(f1_base_q, load_hi);
      bank  = f1_base_q >= LW'(Half);
    end
    // whether it is independent of what the other slot runs (its footprint's, which changes only when
    // an instruction starts, and then F1 and F2 start again): a GEMM of a micro-op load's micro-ops or
    // of the ALU instruction's or accumulator load's bank, a micro-op load of the GEMM's micro-ops, an
    // ALU instruction or accumulator load of the GEMM's bank
    uops_known = f1_uop_q && load_hi < LW'(UopBuffDepth);
    if (f1_gemm_q) begin
      indep_d = unit_a_q == UnitUop ? a_uops_q && !(f1_uop_lo_q <= a_uop_hi_q && a_uop_lo_q <= f1_uop_hi) :
                                      pair && a_pair_q && bank != a_bank_q;
    end else if (f1_uop_q) begin
      indep_d = uops_known && !(f1_uop_lo_q <= g_uop_hi_q && g_uop_lo_q <= f1_uop_hi);
    end else begin
      indep_d = pair && g_pair_q && bank != g_bank_q;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {f1_q, f2_q} <= '0;
      {f1_gemm_q, f1_alu_q, f1_uop_q, f1_acc_q, f1_acc8_q, f1_at_once_q, f1_imm_q} <= '0;
      f1_hit_q <= '0;
      {f1_dst_lo_q, f1_dst_hi_q, f1_src_lo_q, f1_src_hi_q} <= '0;
      {f1_p_do_q, f1_p_di_q, f1_p_so_q, f1_p_si_q} <= '0;
      {f1_base_q, f1_n_q, f1_uop_lo_q, f1_uop_end_q} <= '0;
      {f2_gemm_q, f2_alu_q, f2_uop_q, f2_acc_q, f2_acc8_q, f2_at_once_q} <= '0;
      {f2_pair_q, f2_bank_q, f2_uops_known_q, f2_indep_q} <= '0;
      f2_hit_q <= '0;
      {f2_uop_lo_q, f2_uop_hi_q} <= '0;
    end else begin
      // (a start or a change of the table: the next head's, or the table's new answer, from F1 again)
      f1_q <= (f1_q || capture) && !take && !table_busy;
      f2_q <= f1_q && !take && !table_busy;
      if (capture) begin
        f1_gemm_q    <= c_gemm;
        f1_alu_q     <= c_alu;
        f1_uop_q     <= c_load && cm.mem_type == MemUop;
        f1_acc_q     <= c_load && cm.mem_type == MemAcc;
        f1_acc8_q    <= c_load && cm.mem_type == MemAcc8Bit;
        f1_at_once_q <= cop == OpFinish || (c_load && cm.x_size == '0);
        f1_imm_q     <= ca.use_imm;
        f1_hit_q     <= hit & {TN{c_gemm || c_alu}};
        f1_dst_lo_q  <= dst_lo;
        f1_dst_hi_q  <= dst_hi;
        f1_src_lo_q  <= src_lo;
        f1_src_hi_q  <= src_hi;
        f1_p_do_q    <= PW'(c_out) * (c_gemm ? PW'(cg.dst_factor_out) : PW'(ca.dst_factor_out));
        f1_p_di_q    <= PW'(c_in) * (c_gemm ? PW'(cg.dst_factor_in) : PW'(ca.dst_factor_in));
        f1_p_so_q    <= PW'(c_out) * PW'(ca.src_factor_out);
        f1_p_si_q    <= PW'(c_in) * PW'(ca.src_factor_in);
        f1_base_q    <= LW'(cm.sram_base);
        f1_n_q       <= (LW'(cm.y_pad_0) + LW'(cm.y_size) + LW'(cm.y_pad_1)) *
                        (LW'(cm.x_pad_0) + LW'(cm.x_size) + LW'(cm.x_pad_1));
        f1_uop_lo_q  <= c_gemm ? LW'(cg.uop_bgn) : LW'(cm.sram_base);
        f1_uop_end_q <= LW'(cg.uop_end);
      end
      if (f1_q) begin
        f2_gemm_q       <= f1_gemm_q;
        f2_alu_q        <= f1_alu_q;
        f2_uop_q        <= f1_uop_q;
        f2_acc_q        <= f1_acc_q;
        f2_acc8_q       <= f1_acc8_q;
        f2_at_once_q    <= f1_at_once_q;
        f2_hit_q        <= f1_hit_q;
        f2_pair_q       <= pair;
        f2_bank_q       <= bank;
        f2_uops_known_q <= uops_known;
        f2_uop_lo_q     <= f1_uop_lo_q;
        f2_uop_hi_q     <= f1_uop_hi;
        f2_indep_q      <= indep_d;
      end
    end
  end

  // ---- the slots -------------------------------------------------------------------------------
  always_comb begin
    unique case (unit_a_q)
      UnitUop:  begin unit_a_busy = uop_busy;  unit_a_error = 1'b0;      end
      UnitAcc:  begin unit_a_busy = acc_busy;  unit_a_error = 1'b0;      end
      UnitAcc8: begin unit_a_busy = acc8_busy; unit_a_error = 1'b0;      end
      default:  begin unit_a_busy = alu_busy;  unit_a_error = alu_error; end
    endcase
    done_g     = run_g_q && !gemm_busy;
    done_a     = run_a_q && !unit_a_busy;
    // a micro-op load completing changes the table over three cycles: a footprint computed before
    // them is computed again after, and nothing starts in the two after (tbl_busy). In the first only a
    // GEMM can start (slot A is still busy), one independent of the load, whose footprint holds.
    table_busy = (done_a && unit_a_q == UnitUop) || tbl_busy;
    capture    = insn_valid_i && !f1_q && !stop_q;
    alone      = !insn_legal_i || f2_at_once_q;
    to_g       = !alone && f2_gemm_q;
    to_a       = !alone && !f2_gemm_q;
    can = alone ? !run_g_q && !run_a_q :
          to_g  ? !run_g_q && (!run_a_q || f2_indep_q) :
                  !run_a_q && (!run_g_q || f2_indep_q);
    take      = !stop_q && f2_q && go && can && !tbl_busy;
    start     = take && !alone;
    use_entry = f2_hit_q & {TN{start}};

    start_gemm = start && to_g;
    start_alu  = start && to_a && f2_alu_q;
    start_uop  = start && to_a && f2_uop_q;
    start_acc  = start && to_a && f2_acc_q;
    start_acc8 = start && to_a && f2_acc8_q;
  end

  // ---- tokens -------------------------------------------------------------------------------------
  // A waiting push needs the G slot's and/or the A slot's instruction (as they were when it was made)
  // to complete first.
  logic need_prev_g_q, need_prev_a_q, need_next_g_q, need_next_a_q;
  logic now_prev, now_next, wait_prev_g, wait_next_g, wait_next_a, left_prev, left_next;
  always_comb begin
    // at the start: the older instruction the other slot runs (not completing now)
    wait_prev_g = to_g || (run_g_q && !done_g);
    wait_next_g = to_g || (run_g_q && !done_g);
    wait_next_a = to_a || (run_a_q && !done_a);
    now_prev    = take && insn_legal_i && deps.push_prev && (alone || !wait_prev_g);
    now_next    = take && insn_legal_i && deps.push_next && alone;
    left_prev   = pend_prev_q && (!need_prev_g_q || done_g) && (!need_prev_a_q || done_a);
    left_next   = pend_next_q && (!need_next_g_q || done_g) && (!need_next_a_q || done_a);
    g2l_push_o  = now_prev || left_prev;
    g2s_push_o  = now_next || left_next;
    l2g_pop_o   = take && deps.pop_prev;
    s2g_pop_o   = take && deps.pop_next;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {pend_prev_q, need_prev_g_q, need_prev_a_q, pend_next_q, need_next_g_q, need_next_a_q} <= '0;
    end else begin
      if (left_prev) pend_prev_q <= 1'b0;
      else begin
        if (done_g) need_prev_g_q <= 1'b0;
        if (done_a) need_prev_a_q <= 1'b0;
      end
      if (left_next) pend_next_q <= 1'b0;
      else begin
        if (done_g) need_next_g_q <= 1'b0;
        if (done_a) need_next_a_q <= 1'b0;
      end
      if (start && deps.push_prev && wait_prev_g) begin
        pend_prev_q   <= 1'b1;
        need_prev_g_q <= 1'b1;
        need_prev_a_q <= 1'b0;
      end
      if (start && deps.push_next) begin
        pend_next_q   <= 1'b1;
        need_next_g_q <= wait_next_g;
        need_next_a_q <= wait_next_a;
      end
    end
  end

  // ---- slot state ---------------------------------------------------------------------------------
  logic [31:0] bytes;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {run_g_q, run_a_q, stop_q, g_pair_q, g_bank_q, a_pair_q, a_bank_q, a_uops_q} <= '0;
      {g_uop_lo_q, g_uop_hi_q, a_uop_lo_q, a_uop_hi_q} <= '0;
      unit_a_q <= UnitAlu;
    end else begin
      if (done_g) run_g_q <= 1'b0;
      if (done_a) run_a_q <= 1'b0;
      // an illegal instruction, or a unit's error, stops the stage
      if ((take && !insn_legal_i) || (done_g && gemm_error) || (done_a && unit_a_error)) stop_q <= 1'b1;
      if (start_gemm) begin
        run_g_q    <= 1'b1;
        g_pair_q   <= f2_pair_q;
        g_bank_q   <= f2_bank_q;
        g_uop_lo_q <= f2_uop_lo_q;
        g_uop_hi_q <= f2_uop_hi_q;
      end
      if (start && to_a) begin
        run_a_q    <= 1'b1;
        a_pair_q   <= f2_pair_q;
        a_bank_q   <= f2_bank_q;
        a_uops_q   <= f2_uops_known_q;
        a_uop_lo_q <= f2_uop_lo_q;
        a_uop_hi_q <= f2_uop_hi_q;
        unit_a_q   <= f2_alu_q ? UnitAlu : f2_uop_q ? UnitUop : f2_acc_q ? UnitAcc : UnitAcc8;
      end
    end
  end

  // ---- statistics and status ------------------------------------------------------------------------
  logic a_load;
  assign a_load = unit_a_q != UnitAlu;
  vta_stat_bytes u_bytes (
    .clk_i, .rst_ni, .take_i(start && to_a && !f2_alu_q), .x_size_i(m.x_size), .y_size_i(m.y_size),
    .run_i(run_a_q && a_load), .elem_bytes_i(32'(unit_a_q == UnitUop ? UopElemBytes : AccElemBytes)),
    .read_i(stat_valid_o), .bytes_o(bytes));

  always_comb begin
    insn_ready_o     = take;
    finish_o         = take && insn_legal_i && op == OpFinish;
    error_o          = stop_q;
    busy_o           = run_g_q || run_a_q;
    gemm_uop_o       = gm_done;
    alu_uop_o        = al_done;
    stat_valid_o     = done_a && a_load;
    stat_uop_bytes_o = unit_a_q == UnitUop ? bytes : '0;
    stat_acc_bytes_o = unit_a_q == UnitUop ? '0 : bytes;
  end

  // The rule's consequence at the banks: two units never read, or write, one bank in the same cycle.
  `VTA_ASSERT_NEVER(TwoReadsOfABank, gm_acc_rd.re && al_acc_rd.re && gm_acc_rd.addr[Msb] == al_acc_rd.addr[Msb])
  `VTA_ASSERT_NEVER(TwoWritesOfABank, gm_acc_wr.we && (al_acc_wr.we || ld_we) &&
                                      gm_acc_wr.addr[Msb] == (al_acc_wr.we ? al_acc_wr.addr[Msb] : ld_waddr[Msb]))
  `VTA_ASSERT_NEVER(UopLoadUnderItsGemm, run_g_q && run_a_q && unit_a_q == UnitUop &&
                                         !(a_uop_hi_q < g_uop_lo_q || g_uop_hi_q < a_uop_lo_q))
  `VTA_COVER(GemmBesideAlu, run_g_q && run_a_q && unit_a_q == UnitAlu)
  `VTA_COVER(GemmBesideUopLoad, run_g_q && run_a_q && unit_a_q == UnitUop)
  `VTA_COVER(GemmBesideAccLoad, run_g_q && run_a_q && (unit_a_q == UnitAcc || unit_a_q == UnitAcc8))
  `VTA_COVER(WaitsForTheOtherSlot, !stop_q && f2_q && go && !alone && !can && (to_g ? !run_g_q : !run_a_q))
  `VTA_COVER(APushWaitsForTheOlder, pend_next_q && !left_next)
  `VTA_COVER(Finishes, finish_o)
  `VTA_COVER(RefusesAnInstruction, error_o)
`ifdef VTA_FORMAL
  `include "vta_compute_dual_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_compute
