// GEMM datapath: runs one GEMM instruction's micro-op loop at one micro-op per cycle.
//
//   S0  vta_uop_loop step: read the uop SRAM
//   S1  uop word arrives: form the three indices, check them against the buffer depths, read inp
//       and wgt
//   S2  data arrives: the int8 products, two per DSP48E1, registered; read acc
//   S3  their sums: BATCH x BLOCK_OUT dot products of BLOCK_IN products, registered
//   S4  the dot products added to the accumulator (or zero for a reset micro-op), with the
//       accumulator forwarded from the three micro-ops ahead when they wrote the same tile
//       (read-after-write without stalls)
//   S5  write acc (int32 lanes) and out (their low 8 bits)
//
// The products, their sums and the accumulation are stages of their own (commit fa0684b): in one stage,
// block RAM to DSP to adder tree to accumulator add was the design's slowest path
// (docs/SYNTHESIS.md). It costs a GEMM instruction two cycles, not a micro-op's throughput.
// The SRAMs live outside (vta_compute); their reads have one cycle of latency, the accumulator's two
// (its output register), and read the old word when written in the same cycle, which the forwarding
// accounts for. An index past its buffer stops
// the instruction with error_o (the compute module turns it into the error status).
`include "vta_assert.svh"
module vta_gemm
  import vta_config_pkg::*;
  import vta_pkg::*;
(
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          start_i,
  input  loop_insn_t                    insn_i,
  output logic                          busy_o,
  output logic                          error_o,      // sticky until the next start
  output logic                          uop_done_o,   // one non-reset micro-op executed (gemm_counter)
  // SRAM ports (vta_pkg): reads return data the next cycle
  output uop_rd_t                       uop_rd_o,
  input  uop_word_t                     uop_rdata_i,
  output inp_rd_t                       inp_rd_o,
  input  logic [InpMatrixWidth-1:0]     inp_rdata_i,
  output wgt_rd_t                       wgt_rd_o,
  input  logic [WgtMatrixWidth-1:0]     wgt_rdata_i,
  output acc_rd_t                       acc_rd_o,
  input  logic [AccMatrixWidth-1:0]     acc_rdata_i,
  output acc_wr_t                       acc_wr_o,
  output out_wr_t                       out_wr_o   // written with every accumulator write
);
  localparam int unsigned OffW = 32;
  typedef logic [AccMatrixWidth-1:0] acc_t;

  logic                       uop_re, inp_re, wgt_re, acc_re;
  logic [LogUopBuffDepth-1:0] uop_raddr;
  logic [LogInpBuffDepth-1:0] inp_raddr;
  logic [LogWgtBuffDepth-1:0] wgt_raddr;
  logic [LogAccBuffDepth-1:0] acc_raddr;
  assign uop_rd_o.re   = uop_re;
  assign uop_rd_o.addr = uop_raddr;
  assign inp_rd_o.re   = inp_re;
  assign inp_rd_o.addr = inp_raddr;
  assign wgt_rd_o.re   = wgt_re;
  assign wgt_rd_o.addr = wgt_raddr;
  assign acc_rd_o.re   = acc_re;
  assign acc_rd_o.addr = acc_raddr;
  typedef logic [LogAccBuffDepth-1:0] acc_addr_t;

  // ---- S0: loop generator ------------------------------------------------------------------
  logic            loop_valid, loop_busy, loop_last;
  logic [OffW-1:0] dst_off, src_off, wgt_off;
  logic            kill;  // an error stops issuing

  vta_uop_loop #(.OffsetWidth(OffW)) u_loop (
    .clk_i,
    .rst_ni,
    .start_i      (start_i && !busy_o),
    .insn_i,
    .abort_i      (kill),
    .busy_o       (loop_busy),
    .valid_o      (loop_valid),
    .ready_i      (1'b1),
    .uop_idx_o    (uop_raddr),
    .dst_offset_o (dst_off),
    .src_offset_o (src_off),
    .wgt_offset_o (wgt_off),
    .last_o       (loop_last)
  );

  // ---- pipeline registers ------------------------------------------------------------------
  logic            s1_valid_d, s1_valid_q, s2_valid_d, s2_valid_q, s3_valid_d, s3_valid_q, s4_valid_d, s4_valid_q;
  logic            s5_valid_d, s5_valid_q, s6_valid_d, s6_valid_q, s7_valid_d, s7_valid_q;
  // the offsets' bits below their buffer's depth
  logic [LogAccBuffDepth-1:0] s1_dst_off_d, s1_dst_off_q;
  logic [LogInpBuffDepth-1:0] s1_src_off_d, s1_src_off_q;
  logic [LogWgtBuffDepth-1:0] s1_wgt_off_d, s1_wgt_off_q;
  logic            reset_d, reset_q;          // the instruction's reset flag
  // the offsets' bits at or above their buffer's depth (an index past it), taken as they enter S1
  logic            s1_dst_hi_d, s1_dst_hi_q, s1_src_hi_d, s1_src_hi_q, s1_wgt_hi_d, s1_wgt_hi_q;
  acc_addr_t       s2_addr_d, s2_addr_q, s3_addr_d, s3_addr_q, s4_addr_d, s4_addr_q, s5_addr_d, s5_addr_q;
  acc_addr_t       s6_addr_d, s6_addr_q, s7_addr_d, s7_addr_q;
  acc_t            s5_data_d, s5_data_q, s6_data_d, s6_data_q, s7_data_d, s7_data_q;
  logic            error_d, error_q;

  // ---- S1: indices, checks and SRAM reads ----------------------------------------------------
  // An index is a micro-op's field plus its loop offset, past its buffer (whose depth is a power of two)
  // when the offset's high bits are set (registered as it enters S1) or the sum of the field and the
  // offset's low bits carries past the depth's: no 32-bit sum between the micro-op SRAM and the checks.
  localparam int unsigned AW = LogAccBuffDepth + 1;  // (uop_t's dst and wgt are their buffer's index width)
  localparam int unsigned XW = (UopSrcIdxBits > LogInpBuffDepth ? UopSrcIdxBits : LogInpBuffDepth) + 1;
  localparam int unsigned WW = LogWgtBuffDepth + 1;
  uop_t            uop;
  logic [AW-1:0]   a_idx;
  logic [XW-1:0]   x_idx;
  logic [WW-1:0]   w_idx;
  logic            bad_index;

  always_comb begin
    uop       = decode_uop(uop_rdata_i);
    a_idx     = AW'(uop.dst) + AW'(s1_dst_off_q);
    x_idx     = XW'(uop.src) + XW'(s1_src_off_q);
    w_idx     = WW'(uop.wgt) + WW'(s1_wgt_off_q);
    bad_index = s1_valid_q && (s1_dst_hi_q || |a_idx[AW-1:LogAccBuffDepth] ||
                               (!reset_q && (s1_src_hi_q || |x_idx[XW-1:LogInpBuffDepth] ||
                                             s1_wgt_hi_q || |w_idx[WW-1:LogWgtBuffDepth])));
    kill      = error_q || bad_index;
    inp_re    = s1_valid_q && !kill && !reset_q;
    wgt_re    = s1_valid_q && !kill && !reset_q;
    inp_raddr = x_idx[LogInpBuffDepth-1:0];
    wgt_raddr = w_idx[LogWgtBuffDepth-1:0];
  end
  // the accumulator is read in S2, so that it arrives with the dot products (two cycles: the output
  // register)
  assign acc_re    = s2_valid_q && !reset_q;
  assign acc_raddr = s2_addr_q;

  // ---- S2: the products; S3: their sums, the dot products ------------------------------------
  localparam int unsigned DotsWidth = Batch * BlockOut * 32;
  logic [DotsWidth-1:0] dots, dots_q;  // lane b * BlockOut + o: row b of inp times row o of wgt
  // The dot products. The hardware's text is the loop nests below (the elements' signed products, two
  // per multiplier, summed in 32 bits), which synthesis, the hardware tests (HwGemmSynthesisText, the compute
  // harness) and a tsim configured with VTA_TSIM_GEMM_DPI=OFF read. The tsim by default defines
  // VTA_GEMM_DPI and has the simulator compute the same function, vectorized, in
  // tsim/src/rtl_gemm.cc: the loop nest unrolled by Verilator costs about 1,100 host instructions per
  // simulated cycle on the convolution, the call about 350 (docs/PERFORMANCE.md).
  // HwGemm runs the DPI text against the fsim, HwGemmDot the C++ against a plain reference.
`ifdef VTA_GEMM_DPI
  import "DPI-C" function void vta_gemm_dot(input int batch, input int block_in, input int block_out,
                                            input int inp_width, input int wgt_width,
                                            input bit [InpMatrixWidth-1:0] inp,
                                            input bit [WgtMatrixWidth-1:0] wgt,
                                            output bit [DotsWidth-1:0] dots);
  // made in S2 (none in an empty S2 or for a reset micro-op, which spares a simulator them) and held
  // through S3's register, so that an instruction takes the hardware text's cycles
  // (called at the edge, so the register holds otherwise: S4 reads it only for a micro-op that is not
  // a reset)
  logic [DotsWidth-1:0] dpi_dots_q;
  always_ff @(posedge clk_i) begin
    if (s2_valid_q && !reset_q) begin : dot
      logic [DotsWidth-1:0] made;
      vta_gemm_dot(Batch, BlockIn, BlockOut, InpWidth, WgtWidth, inp_rdata_i, wgt_rdata_i, made);
      dpi_dots_q <= made;
    end
  end
  assign dots = dpi_dots_q;
`else
  // Two int8 products per multiplier, sharing the input element: x * (w1 * 2^16 + w0), a 25 x 8-bit
  // product one DSP48E1 computes (the packing Xilinx documents for int8 on DSP slices), the low 16 bits
  // holding x * w0 and the high bits x * w1. Two such products and the constant 32512 are summed in
  // the DSPs' cascade (P = A * B + PCIN), registered at the cascade's end (S2 -> S3: the DSP48E1's own
  // output register): the two low products' sum lies in [-32512, 32768], so with 32512 added it fills
  // the low 16 bits without borrowing from the high ones, which hold the two high products' sum
  // exactly. In S3 the fabric adds the BLOCK_IN / 2 partial sums of each pair of lanes.
  if (BlockIn % 2 != 0 || BlockOut % 2 != 0) begin : gen_block_check
    $error("vta_gemm: BLOCK_IN and BLOCK_OUT must be even (the products are packed two per multiplier)");
  end
  // w1 * 2^16 + w0 for element c of weight rows o (w0) and o + 1 (w1): {w1 - sign(w0), w0 sign-extended
  // to 16 bits} (a macro: Yosys 0.23 infers a latch for a function called under a condition)
`define VTA_WEIGHT_PAIR(o, c) \
    {9'(signed'(wgt_rdata_i[((o) + 1) * BlockIn * WgtWidth + (c) * WgtWidth +: WgtWidth])) - \
         9'(wgt_rdata_i[(o) * BlockIn * WgtWidth + (c) * WgtWidth + WgtWidth - 1]), \
     {(16 - WgtWidth){wgt_rdata_i[(o) * BlockIn * WgtWidth + (c) * WgtWidth + WgtWidth - 1]}}, \
     wgt_rdata_i[(o) * BlockIn * WgtWidth + (c) * WgtWidth +: WgtWidth]}
  localparam logic signed [33:0] LowBias = 34'sd32512;
  localparam int unsigned Pairs = Batch * (BlockOut / 2) * (BlockIn / 2);
  // pair ((b * BlockOut / 2) + o / 2) * BlockIn / 2 + c / 2: elements c, c + 1 of input row b times
  // weight rows o, o + 1, and the bias
  logic [Pairs*34-1:0] two, two_q;
  logic signed [24:0]  wpair0, wpair1;   // w1 * 2^16 + w0 of two input elements
  always_comb begin
    two    = '0;
    wpair0 = '0;
    wpair1 = '0;
    if (s2_valid_q && !reset_q) begin
      for (int b = 0; b < Batch; b++) begin
        for (int o = 0; o < BlockOut; o += 2) begin
          for (int c = 0; c < BlockIn; c += 2) begin
            wpair0 = `VTA_WEIGHT_PAIR(o, c);
            wpair1 = `VTA_WEIGHT_PAIR(o, c + 1);
            two[((b * (BlockOut / 2) + o / 2) * (BlockIn / 2) + c / 2) * 34 +: 34] =
                34'(wpair0 * signed'(inp_rdata_i[(b * BlockIn + c) * InpWidth +: InpWidth])) + LowBias +
                34'(wpair1 * signed'(inp_rdata_i[(b * BlockIn + c + 1) * InpWidth +: InpWidth]));
          end
        end
      end
    end
  end
`undef VTA_WEIGHT_PAIR
  always_ff @(posedge clk_i) two_q <= two;
  logic signed [31:0] sum, sum_hi;  // the dot products of lanes o and o + 1
  logic        [33:0] t;
  always_comb begin
    dots   = '0;
    sum    = '0;
    sum_hi = '0;
    t      = '0;
    for (int b = 0; b < Batch; b++) begin
      for (int o = 0; o < BlockOut; o += 2) begin
        sum    = '0;
        sum_hi = '0;
        for (int c = 0; c < BlockIn; c += 2) begin
          t       = two_q[((b * (BlockOut / 2) + o / 2) * (BlockIn / 2) + c / 2) * 34 +: 34];
          sum    += 32'(t[15:0]);
          sum_hi += 32'(signed'(t[33:16]));
        end
        dots[(b * BlockOut + o) * 32 +: 32]     = sum - 32'(BlockIn / 2) * 32'(LowBias);
        dots[(b * BlockOut + o + 1) * 32 +: 32] = sum_hi;
      end
    end
  end
`endif

  // ---- S4: accumulate with forwarding --------------------------------------------------------
  acc_t acc_old, acc_new;
  logic [OutMatrixWidth-1:0] out_new;
  always_comb begin
    // The newest write of the same tile wins (vta_pkg::forward_source: the write stage S5, then S6
    // and S7, written since the read in S2).
    unique case (forward_source(s4_addr_q, s5_valid_q, s5_addr_q, s6_valid_q, s6_addr_q, s7_valid_q, s7_addr_q))
      FromWriting:  acc_old = s5_data_q;
      FromWritten1: acc_old = s6_data_q;
      FromWritten2: acc_old = s7_data_q;
      default:      acc_old = acc_rdata_i;
    endcase
    acc_new = '0;  // a reset micro-op writes zeros
    if (s4_valid_q && !reset_q) begin
      for (int l = 0; l < Batch * BlockOut; l++) begin
        acc_new[l * AccWidth +: AccWidth] = acc_old[l * AccWidth +: AccWidth] + AccWidth'(dots_q[l * 32 +: 32]);
      end
    end
    for (int l = 0; l < Batch * BlockOut; l++) begin
      out_new[l * OutWidth +: OutWidth] = acc_new[l * AccWidth +: OutWidth];
    end
  end

  // ---- next state ----------------------------------------------------------------------------
  always_comb begin
    uop_re     = loop_valid && !kill;
    s1_valid_d   = loop_valid && !kill;
    s1_dst_off_d = dst_off[LogAccBuffDepth-1:0];
    s1_src_off_d = src_off[LogInpBuffDepth-1:0];
    s1_wgt_off_d = wgt_off[LogWgtBuffDepth-1:0];
    s1_dst_hi_d  = |dst_off[OffW-1:LogAccBuffDepth];
    s1_src_hi_d  = |src_off[OffW-1:LogInpBuffDepth];
    s1_wgt_hi_d  = |wgt_off[OffW-1:LogWgtBuffDepth];
    s2_valid_d   = s1_valid_q && !kill;
    s2_addr_d    = a_idx[LogAccBuffDepth-1:0];
    s3_valid_d   = s2_valid_q;
    s3_addr_d    = s2_addr_q;
    s4_valid_d   = s3_valid_q;
    s4_addr_d    = s3_addr_q;
    s5_valid_d   = s4_valid_q;
    s5_addr_d    = s4_addr_q;
    s5_data_d    = acc_new;
    s6_valid_d   = s5_valid_q;
    s6_addr_d    = s5_addr_q;
    s6_data_d    = s5_data_q;
    s7_valid_d   = s6_valid_q;
    s7_addr_d    = s6_addr_q;
    s7_data_d    = s6_data_q;
    reset_d      = (start_i && !busy_o) ? insn_i.reset : reset_q;
    error_d      = (start_i && !busy_o) ? 1'b0 : (error_q || bad_index);
  end

  // S5: write back.
  assign uop_done_o  = s5_valid_q && !reset_q;

  logic [OutMatrixWidth-1:0] out_d, out_q;
  assign out_d       = out_new;
  assign acc_wr_o.we   = s5_valid_q;
  assign acc_wr_o.addr = s5_addr_q;
  assign acc_wr_o.data = s5_data_q;
  assign out_wr_o.we   = s5_valid_q;
  assign out_wr_o.addr = s5_addr_q;
  assign out_wr_o.data = out_q;

  // Busy until the loop is done (or killed) and the pipeline has drained.
  assign busy_o  = loop_busy || s1_valid_q || s2_valid_q || s3_valid_q || s4_valid_q || s5_valid_q;
  assign error_o = error_q;

  logic unused_last;
  assign unused_last = loop_last;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q   <= 1'b0;
      s2_valid_q   <= 1'b0;
      s3_valid_q   <= 1'b0;
      s4_valid_q   <= 1'b0;
      s5_valid_q   <= 1'b0;
      s6_valid_q   <= 1'b0;
      s7_valid_q   <= 1'b0;
      s1_dst_off_q <= '0;
      s1_src_off_q <= '0;
      s1_wgt_off_q <= '0;
      {s1_dst_hi_q, s1_src_hi_q, s1_wgt_hi_q} <= '0;
      s2_addr_q    <= '0;
      s3_addr_q    <= '0;
      s4_addr_q    <= '0;
      s5_addr_q    <= '0;
      s6_addr_q    <= '0;
      s7_addr_q    <= '0;
      s5_data_q    <= '0;
      s6_data_q    <= '0;
      s7_data_q    <= '0;
      dots_q       <= '0;
      out_q        <= '0;
      reset_q      <= 1'b0;
      error_q      <= 1'b0;
    end else begin
      s1_valid_q   <= s1_valid_d;
      s2_valid_q   <= s2_valid_d;
      s3_valid_q   <= s3_valid_d;
      s4_valid_q   <= s4_valid_d;
      s5_valid_q   <= s5_valid_d;
      s6_valid_q   <= s6_valid_d;
      s7_valid_q   <= s7_valid_d;
      s1_dst_off_q <= s1_dst_off_d;
      s1_src_off_q <= s1_src_off_d;
      s1_wgt_off_q <= s1_wgt_off_d;
      s1_dst_hi_q  <= s1_dst_hi_d;
      s1_src_hi_q  <= s1_src_hi_d;
      s1_wgt_hi_q  <= s1_wgt_hi_d;
      s2_addr_q    <= s2_addr_d;
      s3_addr_q    <= s3_addr_d;
      s4_addr_q    <= s4_addr_d;
      s5_addr_q    <= s5_addr_d;
      s6_addr_q    <= s6_addr_d;
      s7_addr_q    <= s7_addr_d;
      // The wide data registers load only with a micro-op in the stage before (elsewhere their
      // valid bit is low and nothing reads them): a simulator copies no idle pipeline's data.
      if (s4_valid_q) s5_data_q <= s5_data_d;
      if (s5_valid_q) s6_data_q <= s6_data_d;
      if (s6_valid_q) s7_data_q <= s7_data_d;
      if (s3_valid_q) dots_q <= dots;
      if (s4_valid_q) out_q <= out_d;
      reset_q      <= reset_d;
      error_q      <= error_d;
    end
  end

  // both kinds of GEMM micro-op, an index past its buffer, and the accumulator forwarded from each
  // of the three writes a read misses
  `VTA_COVER(ResetMicroOp, s1_valid_q && reset_q)
  `VTA_COVER(AccumulateMicroOp, s1_valid_q && !reset_q)
  `VTA_COVER(IndexOutOfRange, bad_index)
  `VTA_COVER(ForwardedFromWriting, s4_valid_q && !reset_q && s5_valid_q && s5_addr_q == s4_addr_q)
  `VTA_COVER(ForwardedFromWritten1, s4_valid_q && !reset_q && s6_valid_q && s6_addr_q == s4_addr_q &&
                                    !(s5_valid_q && s5_addr_q == s4_addr_q))
  `VTA_COVER(ForwardedFromWritten2, s4_valid_q && !reset_q && s7_valid_q && s7_addr_q == s4_addr_q &&
                                    !(s5_valid_q && s5_addr_q == s4_addr_q) && !(s6_valid_q && s6_addr_q == s4_addr_q))
endmodule : vta_gemm
