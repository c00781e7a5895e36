// ALU datapath: runs one ALU instruction's micro-op loop over the accumulator SRAM.
//
//   S0  vta_uop_loop step: read the uop SRAM
//   S1  uop word arrives: form the indices and check them; with an immediate read acc[dst]; with a
//       vector operand read acc[src] (phase 0), then acc[dst] (phase 1): the one read port makes
//       that two cycles per micro-op, except when the source is the one the previous micro-op read
//       and nothing has written it since (a bias added along a row of pixels): then the held source
//       serves again and the micro-op takes one cycle
//   S2  the words pass the SRAM's output register; a source read in phase 0 arrives and is held
//   S3  acc[dst] arrives: BATCH x BLOCK_OUT lanes of op(dst, src or imm)
//   S4  write acc and out (low 8 bits)
//
// With MulCycles = 2 (the two-slot stage's ALU) a MUL instruction's micro-ops pass a stage more: S3
// registers the operands, S3b multiplies them (the DSP48E1s then start from registers, not from the
// forwarding's choice: docs/SYNTHESIS.md), S4 writes. One micro-op a cycle still: the product in S3b
// is the newest write for the micro-op in S3 behind it and for a source arriving in S2, so it is a
// fourth forwarding source, into the MUL's operand registers only.
//
// Every operand is forwarded from the writes its read missed, still in flight or done since
// (vta_pkg::forward_source: S4 written at the end of this cycle, S5 and S6 a cycle and two cycles
// ago), so consecutive micro-ops on the same tiles see each other's results without stalls.
// Operations (docs/ISA.md): MIN, MAX, ADD (wrapping), SHR (arithmetic; a negative amount shifts
// left; right by 31 or more leaves the sign, left by 32 or more gives 0), MUL (low 32 bits).
`include "vta_assert.svh"
module vta_alu
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned MulCycles = 1  // 1 or 2 (above)
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          start_i,
  input  loop_insn_t                    insn_i,
  output logic                          busy_o,
  output logic                          error_o,      // sticky until the next start
  output logic                          uop_done_o,   // one micro-op executed (alu_counter)
  // SRAM ports (vta_pkg): reads return data the next cycle
  output uop_rd_t                       uop_rd_o,
  input  uop_word_t                     uop_rdata_i,
  output acc_rd_t                       acc_rd_o,
  input  logic [AccMatrixWidth-1:0]     acc_rdata_i,
  output acc_wr_t                       acc_wr_o,
  output out_wr_t                       out_wr_o
);
  localparam int unsigned OffW = 32;
  localparam int unsigned Lanes = Batch * BlockOut;
  typedef logic [AccMatrixWidth-1:0] acc_t;

  logic                       uop_re, acc_re;
  logic [LogUopBuffDepth-1:0] uop_raddr;
  logic [LogAccBuffDepth-1:0] acc_raddr;
  assign uop_rd_o.re   = uop_re;
  assign uop_rd_o.addr = uop_raddr;
  assign acc_rd_o.re   = acc_re;
  assign acc_rd_o.addr = acc_raddr;
  typedef logic [LogAccBuffDepth-1:0] acc_addr_t;

  // The low 16 bits of x * y as shifts and adds, which synthesis builds from LUTs (a MUL's cross
  // products need only these bits).
  function automatic logic [15:0] mul_low16(logic [15:0] x, logic [15:0] y);
    mul_low16 = '0;
    for (int i = 0; i < 16; i++) mul_low16 = mul_low16 + ((x & {16{y[i]}}) << i);
  endfunction

  // MUL's low 32 bits from 16-bit halves: a_lo * b_lo and a_hi * b_lo (16 x 16 multipliers: a DSP slice
  // each) plus a_lo * b_hi's low half from LUTs, the cross products shifted up; a_hi * b_hi lies wholly
  // above bit 31. Two DSP slices a lane instead of three keep a packed GEMM within the xc7z020's DSPs.
  function automatic logic [31:0] mul_low32(logic [31:0] a, logic [31:0] b);
    mul_low32 = 32'(a[15:0] * b[15:0]) + {16'(a[31:16] * b[15:0]) + mul_low16(a[15:0], b[31:16]), 16'b0};
  endfunction

  // (SHR decides from b's bits, without negating all of them, W = AccWidth: right by b when
  // 0 <= b <= W - 2, the sign when b >= W - 1; left by -b when -(W - 1) <= b <= -1, from b's low
  // log2(W) bits negated; 0 when b <= -W.)
  function automatic logic [AccWidth-1:0] alu_lane(logic [AluOpcodeBitWidth-1:0] op, logic [AccWidth-1:0] a,
                                                   logic [AccWidth-1:0] b);
    logic signed [AccWidth-1:0] sa, sb;
    logic [LogAccWidth-1:0] left_by;
    logic [AccWidth-1:0] other;
    logic lt;  // one comparison serves MIN and MAX
    sa = signed'(a);
    sb = signed'(b);
    lt = sa < sb;
    left_by = ~b[LogAccWidth-1:0] + 1'b1;
    case (alu_op_e'(op))
      AluAdd:  other = a + b;
      AluMul:  other = MulCycles == 1 ? mul_low32(a, b) : a;  // (MulCycles 2: in S3b, below)
      AluShr: begin
        if (!b[AccWidth-1]) begin
          other = (b[AccWidth-2:LogAccWidth] != '0 || b[LogAccWidth-1:0] == LogAccWidth'(AccWidth - 1)) ?
                  {AccWidth{a[AccWidth-1]}} : AccWidth'(sa >>> b[LogAccWidth-1:0]);
        end else begin
          other = (&b[AccWidth-2:LogAccWidth] && b[LogAccWidth-1:0] != '0) ? a << left_by : '0;
        end
      end
      default: other = a;
    endcase
    // MIN (lt ? a : b) and MAX (lt ? b : a; equal: either) chosen last, after the comparison: one
    // LUT a bit after its carry chain, the opcode's decoding and the other results beside it
    if (alu_op_e'(op) == AluMin || alu_op_e'(op) == AluMax) begin
      alu_lane = (lt == (alu_op_e'(op) == AluMin)) ? a : b;
    end else begin
      alu_lane = other;
    end
  endfunction

  // ---- S0 ------------------------------------------------------------------------------------
  logic            loop_valid, loop_busy, loop_ready, loop_last, kill;
  logic [OffW-1:0] dst_off, src_off, wgt_off;

  vta_uop_loop #(.OffsetWidth(OffW)) u_loop (
    .clk_i,
    .rst_ni,
    .start_i      (start_i && !busy_o),
    .insn_i,
    .abort_i      (kill),
    .busy_o       (loop_busy),
    .valid_o      (loop_valid),
    .ready_i      (loop_ready),
    .uop_idx_o    (uop_raddr),
    .dst_offset_o (dst_off),
    .src_offset_o (src_off),
    .wgt_offset_o (wgt_off),
    .last_o       (loop_last)
  );

  // ---- registers -------------------------------------------------------------------------------
  loop_insn_t      insn_d, insn_q;
  logic            slow_q;                 // a MUL instruction, through S3b (MulCycles = 2, below)
  logic            s1_valid_d, s1_valid_q, phase_d, phase_q;
  logic [LogUopBuffDepth-1:0] s1_uop_d, s1_uop_q;
  logic            s1_same_d, s1_same_q;   // S1's micro-op has its predecessor's source index
  logic            held_d, held_q;         // src_q holds (or S2 is taking) acc[src_addr_q]
  logic [OffW-1:0] s1_dst_off_d, s1_dst_off_q, s1_src_off_d, s1_src_off_q;
  // the offsets' bits at or above the depth's (an index past it)
  logic            s1_dst_hi_d, s1_dst_hi_q, s1_src_hi_d, s1_src_hi_q;
  logic            s2_valid_d, s2_valid_q, s2_take_d, s2_take_q, s3_valid_d, s3_valid_q;
  logic            s4_valid_d, s4_valid_q, s5_valid_d, s5_valid_q, s6_valid_d, s6_valid_q;
  logic            s3b_valid_q;            // S3b holds a slow MUL's micro-op
  acc_addr_t       s3b_addr_q;
  logic            computing_d, computing_q;  // S3's destination is S3b's product (the next cycle's)
  // (slow_q, s3b_valid_q and computing_q are constants with MulCycles 1, below, so a simulator drops
  // every path that reads them)
  acc_addr_t       s2_addr_d, s2_addr_q, s3_addr_d, s3_addr_q, s4_addr_d, s4_addr_q;
  acc_addr_t       s5_addr_d, s5_addr_q, s6_addr_d, s6_addr_q;
  acc_t            src_q, s4_data_q, s5_data_q, s6_data_q;
  acc_t            mul_a_d, mul_a_q, mul_b_d, mul_b_q;  // a slow MUL's operands, lane by lane
  acc_t            product;                // their products (S3b)
  logic [OutMatrixWidth-1:0] out_d, out_q;
  logic            error_d, error_q;


  // ---- S1 ------------------------------------------------------------------------------------
  // An index is a micro-op's field plus its loop offset, past the buffer when a bit at or above the
  // depth's is set (the depth is a power of two): the offset's high bits (registered as it enters
  // S1) or the carry of the low bits' sum, so no 32-bit sum lies between the micro-op SRAM and the
  // read (the offsets stay far below 2^32: iterations x factors).
  localparam int unsigned SumW = (UopSrcIdxBits > LogAccBuffDepth ? UopSrcIdxBits : LogAccBuffDepth) + 1;
  uop_t            uop;
  logic [SumW-1:0] d_sum, s_sum;
  acc_addr_t       d_idx, s_idx;
  logic            vector, reuse, pair, two_phase, bad_index, s1_go, s1_leaves;
  acc_addr_t       src_addr_d, src_addr_q;

  always_comb begin
    uop       = decode_uop(uop_rdata_i);
    d_sum     = SumW'(uop.dst) + SumW'(s1_dst_off_q[LogAccBuffDepth-1:0]);
    s_sum     = SumW'(uop.src) + SumW'(s1_src_off_q[LogAccBuffDepth-1:0]);
    d_idx     = d_sum[LogAccBuffDepth-1:0];
    s_idx     = s_sum[LogAccBuffDepth-1:0];
    vector    = !insn_q.use_imm;
    // (decided from registers: the source index's sum is on no path to the read address or the step)
    reuse     = vector && s1_same_q && held_q;
    pair      = vector && !reuse;      // reads its source (phase 0), then its destination (phase 1)
    two_phase = pair;                  // S1 holds it two cycles
    bad_index = s1_valid_q && !phase_q &&
                (s1_dst_hi_q || |d_sum[SumW-1:LogAccBuffDepth] ||
                 (vector && (s1_src_hi_q || |s_sum[SumW-1:LogAccBuffDepth])));  // >= AccBuffDepth
    // A micro-op with a bad index neither reads nor leaves S1, and sets the error. What S1 holds, and
    // whether the loop steps, are decided from the error's register (no index sum on those paths): the
    // micro-op that enters S1 behind a bad one is dropped there a cycle later, when the error stops
    // the loop.
    kill      = error_q;
    s1_go     = s1_valid_q && !kill && (!two_phase || phase_q);
    s1_leaves = s1_go && !bad_index;
    acc_re    = s1_valid_q && !kill && !bad_index;
    acc_raddr = (pair && !phase_q) ? s_idx : d_idx;
    loop_ready  = !(s1_valid_q && two_phase && !phase_q);
  end

  // ---- S3 ------------------------------------------------------------------------------------
  acc_t                result;
  logic [1:0]          dst_from_d, dst_from_q;  // a forward_source code, decided as the micro-op enters S3
  logic [AccWidth-1:0] imm_ext, dst_lane, src_lane;

  // The lanes' result is a don't-care when S3 is empty (S4 takes it only from a micro-op): the
  // datapath is evaluated under s3_valid_q, so a simulator skips it in idle cycles, and each lane
  // picks its operands itself (no whole-word copies of the forwarded accumulator).
  always_comb begin
    result   = '0;
    imm_ext  = AccWidth'(signed'(insn_q.imm));
    dst_lane = '0;
    src_lane = '0;
    mul_a_d  = MulCycles == 2 ? mul_a_q : '0;
    mul_b_d  = MulCycles == 2 ? mul_b_q : '0;
    if (s3_valid_q) begin
      for (int l = 0; l < Lanes; l++) begin
        unique case (dst_from_q)
          FromWriting:  dst_lane = s4_data_q[l * AccWidth +: AccWidth];
          FromWritten1: dst_lane = s5_data_q[l * AccWidth +: AccWidth];
          FromWritten2: dst_lane = s6_data_q[l * AccWidth +: AccWidth];
          default:      dst_lane = acc_rdata_i[l * AccWidth +: AccWidth];
        endcase
        src_lane = insn_q.use_imm ? imm_ext : src_q[l * AccWidth +: AccWidth];
        if (slow_q) begin
          mul_a_d[l * AccWidth +: AccWidth] = computing_q ? product[l * AccWidth +: AccWidth] : dst_lane;
          mul_b_d[l * AccWidth +: AccWidth] = src_lane;
        end else begin
          result[l * AccWidth +: AccWidth] = alu_lane(insn_q.alu_opcode, dst_lane, src_lane);
        end
      end
    end
    if (slow_q) result = product;  // (S4 takes a slow MUL's word from S3b)
    for (int l = 0; l < Lanes; l++) out_d[l * OutWidth +: OutWidth] = result[l * AccWidth +: OutWidth];
  end

  // ---- next state ----------------------------------------------------------------------------
  logic step;
  always_comb begin
    step         = loop_valid && loop_ready && !kill;
    uop_re     = step;
    insn_d       = (start_i && !busy_o) ? insn_i : insn_q;
    error_d      = (start_i && !busy_o) ? 1'b0 : (error_q || bad_index);
    // S1 holds a vector micro-op for two cycles (one when it reuses the held source).
    if (s1_valid_q && two_phase && !phase_q && !kill) begin
      s1_valid_d   = 1'b1;
      phase_d      = 1'b1;
      s1_dst_off_d = s1_dst_off_q;
      s1_src_off_d = s1_src_off_q;
      s1_dst_hi_d  = s1_dst_hi_q;
      s1_src_hi_d  = s1_src_hi_q;
      s1_uop_d     = s1_uop_q;
      s1_same_d    = s1_same_q;
    end else begin
      s1_valid_d   = step;
      phase_d      = 1'b0;
      s1_dst_off_d = dst_off;
      s1_src_off_d = src_off;
      // (taken from the loop's offsets, not the choice above: no reduction after the late kill)
      s1_dst_hi_d  = |dst_off[OffW-1:LogAccBuffDepth];
      s1_src_hi_d  = |src_off[OffW-1:LogAccBuffDepth];
      s1_uop_d     = uop_raddr;
      // the same micro-op at the same source offset as the one in S1 now, which steps out before it
      s1_same_d    = s1_valid_q && uop_raddr == s1_uop_q && src_off == s1_src_off_q;
    end
    // The held source stays valid until a micro-op that leaves S1 writes it (its own read came
    // first); a new instruction starts with none (other units wrote the buffer meanwhile).
    if (start_i && !busy_o) held_d = 1'b0;
    else if (s1_go && pair) held_d = d_idx != s_idx;
    else if (s1_go) held_d = held_q && d_idx != src_addr_q;
    else held_d = held_q;
    // The source's address, taken in phase 0 and kept while S2 takes its word (the next micro-op's
    // phase 0 is S2's cycle at the earliest).
    src_addr_d = (s1_valid_q && !phase_q) ? s_idx : src_addr_q;
    s2_valid_d = s1_leaves;
    s2_take_d  = s1_go && pair;
    s2_addr_d  = d_idx;
    s3_valid_d = s2_valid_q;
    s3_addr_d  = s2_addr_q;
    s4_valid_d = slow_q ? s3b_valid_q : s3_valid_q;  // (a slow MUL's S4 follows S3b)
    s4_addr_d  = slow_q ? s3b_addr_q : s3_addr_q;
    s5_valid_d = s4_valid_q;
    s5_addr_d  = s4_addr_q;
    s6_valid_d = s5_valid_q;
    s6_addr_d  = s5_addr_q;
    // where S3's destination operand will come from, one cycle ahead: the stages after S3 then hold
    // what S3, S4 and S5 hold now (the choice is a register: none of the compares lies before the
    // operation)
    dst_from_d = slow_q ? forward_source(s2_addr_q, s3b_valid_q, s3b_addr_q, s4_valid_q, s4_addr_q, s5_valid_q, s5_addr_q) :
                          forward_source(s2_addr_q, s3_valid_q, s3_addr_q, s4_valid_q, s4_addr_q, s5_valid_q, s5_addr_q);
    // (a slow MUL: what S3 holds now is in S3b when S2's micro-op reaches S3, its product not yet written)
    computing_d = slow_q && s3_valid_q && s3_addr_q == s2_addr_q;
  end

  assign acc_wr_o.we   = s4_valid_q;
  assign acc_wr_o.addr = s4_addr_q;
  assign acc_wr_o.data = s4_data_q;
  assign out_wr_o.we   = s4_valid_q;
  assign out_wr_o.addr = s4_addr_q;
  assign out_wr_o.data = out_q;
  assign uop_done_o  = s4_valid_q;
  assign busy_o      = loop_busy || s1_valid_q || s2_valid_q || s3_valid_q || s3b_valid_q || s4_valid_q;
  assign error_o     = error_q;

  logic unused_signals;
  assign unused_signals = loop_last ^ (|wgt_off) ^ (|uop.wgt);  // ALU micro-ops have no weight index

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      insn_q       <= '0;
      s1_valid_q   <= 1'b0;
      phase_q      <= 1'b0;
      s1_uop_q     <= '0;
      s1_same_q    <= 1'b0;
      held_q       <= 1'b0;
      s1_dst_off_q <= '0;
      s1_src_off_q <= '0;
      s1_dst_hi_q  <= 1'b0;
      s1_src_hi_q  <= 1'b0;
      src_addr_q   <= '0;
      s2_valid_q   <= 1'b0;
      s2_take_q    <= 1'b0;
      s2_addr_q    <= '0;
      src_q        <= '0;
      s3_valid_q   <= 1'b0;
      s3_addr_q    <= '0;
      dst_from_q   <= '0;
      s4_valid_q   <= 1'b0;
      s4_addr_q    <= '0;
      s4_data_q    <= '0;
      s5_valid_q   <= 1'b0;
      s5_addr_q    <= '0;
      s5_data_q    <= '0;
      s6_valid_q   <= 1'b0;
      s6_addr_q    <= '0;
      s6_data_q    <= '0;
      out_q        <= '0;
      error_q      <= 1'b0;
    end else begin
      insn_q       <= insn_d;
      s1_valid_q   <= s1_valid_d;
      phase_q      <= phase_d;
      s1_uop_q     <= s1_uop_d;
      s1_same_q    <= s1_same_d;
      held_q       <= held_d;
      s1_dst_off_q <= s1_dst_off_d;
      s1_src_off_q <= s1_src_off_d;
      s1_dst_hi_q  <= s1_dst_hi_d;
      s1_src_hi_q  <= s1_src_hi_d;
      src_addr_q   <= src_addr_d;
      s2_valid_q   <= s2_valid_d;
      s2_take_q    <= s2_take_d;
      s2_addr_q    <= s2_addr_d;
      // A source read in phase 0 arrives as its micro-op passes S2, the newest write it missed winning.
      if (s2_take_q && s3b_valid_q && s3b_addr_q == src_addr_q) begin
        src_q <= product;  // (a slow MUL in S3b: the newest write, not yet in S4)
      end else if (s2_take_q) begin
        unique case (forward_source(src_addr_q, s4_valid_q, s4_addr_q, s5_valid_q, s5_addr_q, s6_valid_q, s6_addr_q))
          FromWriting:  src_q <= s4_data_q;
          FromWritten1: src_q <= s5_data_q;
          FromWritten2: src_q <= s6_data_q;
          default:      src_q <= acc_rdata_i;
        endcase
      end
      s3_valid_q   <= s3_valid_d;
      s3_addr_q    <= s3_addr_d;
      dst_from_q   <= dst_from_d;
      s4_valid_q   <= s4_valid_d;
      s4_addr_q    <= s4_addr_d;
      s5_valid_q   <= s5_valid_d;
      s5_addr_q    <= s5_addr_d;
      s6_valid_q   <= s6_valid_d;
      s6_addr_q    <= s6_addr_d;
      error_q      <= error_d;
      // the data words change with a micro-op only (read under their valid bits)
      if (slow_q ? s3b_valid_q : s3_valid_q) begin
        s4_data_q <= result;
        out_q     <= out_d;
      end
      if (s4_valid_q) s5_data_q <= s4_data_q;
      if (s5_valid_q) s6_data_q <= s5_data_q;
    end
  end

  // every ALU operation with a vector and with an immediate operand, and a result forwarded
  `VTA_COVER(MinVector, s3_valid_q && insn_q.alu_opcode == AluMin && !insn_q.use_imm)
  `VTA_COVER(MinImm, s3_valid_q && insn_q.alu_opcode == AluMin && insn_q.use_imm)
  `VTA_COVER(MaxVector, s3_valid_q && insn_q.alu_opcode == AluMax && !insn_q.use_imm)
  `VTA_COVER(MaxImm, s3_valid_q && insn_q.alu_opcode == AluMax && insn_q.use_imm)
  `VTA_COVER(AddVector, s3_valid_q && insn_q.alu_opcode == AluAdd && !insn_q.use_imm)
  `VTA_COVER(AddImm, s3_valid_q && insn_q.alu_opcode == AluAdd && insn_q.use_imm)
  `VTA_COVER(MulVector, s3_valid_q && insn_q.alu_opcode == AluMul && !insn_q.use_imm)
  `VTA_COVER(MulImm, s3_valid_q && insn_q.alu_opcode == AluMul && insn_q.use_imm)
  `VTA_COVER(ShrVector, s3_valid_q && insn_q.alu_opcode == AluShr && !insn_q.use_imm)
  `VTA_COVER(ShrImmRight, s3_valid_q && insn_q.alu_opcode == AluShr && insn_q.use_imm && !insn_q.imm[AluopImmBitWidth-1])
  `VTA_COVER(ShrImmLeft, s3_valid_q && insn_q.alu_opcode == AluShr && insn_q.use_imm && insn_q.imm[AluopImmBitWidth-1])
  `VTA_COVER(SourceReused, s1_valid_q && reuse && !kill)
  `VTA_COVER(ForwardedFromWriting, s3_valid_q && dst_from_q == FromWriting)
  `VTA_COVER(ForwardedFromWritten1, s3_valid_q && dst_from_q == FromWritten1)
  `VTA_COVER(ForwardedFromWritten2, s3_valid_q && dst_from_q == FromWritten2)
  `VTA_COVER(IndexOutOfRange, bad_index)
  if (MulCycles == 2) begin : g_slow_mul
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        slow_q      <= 1'b0;
        s3b_valid_q <= 1'b0;
        s3b_addr_q  <= '0;
        computing_q <= 1'b0;
        mul_a_q     <= '0;
        mul_b_q     <= '0;
      end else begin
        if (start_i && !busy_o) slow_q <= alu_op_e'(insn_i.alu_opcode) == AluMul;
        s3b_valid_q <= s3_valid_q && slow_q;
        s3b_addr_q  <= s3_addr_q;
        computing_q <= computing_d;
        if (s3_valid_q && slow_q) begin
          mul_a_q <= mul_a_d;
          mul_b_q <= mul_b_d;
        end
      end
    end
    always_comb begin
      product = '0;
      if (s3b_valid_q) begin
        for (int l = 0; l < Lanes; l++) begin
          product[l * AccWidth +: AccWidth] = mul_low32(mul_a_q[l * AccWidth +: AccWidth],
                                                        mul_b_q[l * AccWidth +: AccWidth]);
        end
      end
    end
    `VTA_COVER(MulProductForwarded, s3_valid_q && computing_q)
  end else begin : g_fast_mul
    assign slow_q      = 1'b0;
    assign s3b_valid_q = 1'b0;
    assign s3b_addr_q  = '0;
    assign computing_q = 1'b0;
    assign mul_a_q    = '0;
    assign mul_b_q    = '0;
    assign product    = '0;
    logic unused_mul;
    assign unused_mul = (|mul_a_d) ^ (|mul_b_d) ^ computing_d;
  end
endmodule : vta_alu
