// GEMM datapath: runs one GEMM instruction's micro-op loop at one micro-op per cycle.
//
//   S0  vta_uop_loop step: read the uop SRAM
//   S1  uop word arrives: form the three indices, check them against the buffer depths, read inp,
//       wgt and acc
//   S2  data arrives: BATCH x BLOCK_OUT dot products of BLOCK_IN int8 products, added to the
//       accumulator (or zero for a reset micro-op), with the accumulator forwarded from the two
//       micro-ops ahead when they wrote the same tile (read-after-write without stalls)
//   S3  write acc (int32 lanes) and out (their low 8 bits)
//
// The SRAMs live outside (vta_compute); their reads have one cycle of latency and read the old word
// when written in the same cycle, which the forwarding accounts for. An index past its buffer stops
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
  logic            s1_valid_d, s1_valid_q, s2_valid_d, s2_valid_q, s3_valid_d, s3_valid_q;
  logic [OffW-1:0] s1_dst_off_d, s1_dst_off_q, s1_src_off_d, s1_src_off_q, s1_wgt_off_d, s1_wgt_off_q;
  logic            reset_d, reset_q;          // the instruction's reset flag
  acc_addr_t       s2_addr_d, s2_addr_q, s3_addr_d, s3_addr_q, s4_addr_d, s4_addr_q;
  acc_t            s3_data_d, s3_data_q, s4_data_d, s4_data_q;
  logic            s4_valid_d, s4_valid_q;
  logic            error_d, error_q;

  // ---- S1: indices, checks and SRAM reads ----------------------------------------------------
  uop_t            uop;
  logic [OffW-1:0] a_idx, x_idx, w_idx;
  logic            bad_index;

  always_comb begin
    uop       = decode_uop(uop_rdata_i);
    a_idx     = OffW'(uop.dst) + s1_dst_off_q;
    x_idx     = OffW'(uop.src) + s1_src_off_q;
    w_idx     = OffW'(uop.wgt) + s1_wgt_off_q;
    bad_index = s1_valid_q && (a_idx >= OffW'(AccBuffDepth) ||
                               (!reset_q && (x_idx >= OffW'(InpBuffDepth) || w_idx >= OffW'(WgtBuffDepth))));
    kill      = error_q || bad_index;
    inp_re    = s1_valid_q && !kill && !reset_q;
    wgt_re    = s1_valid_q && !kill && !reset_q;
    acc_re    = s1_valid_q && !kill && !reset_q;
    inp_raddr = x_idx[LogInpBuffDepth-1:0];
    wgt_raddr = w_idx[LogWgtBuffDepth-1:0];
    acc_raddr = a_idx[LogAccBuffDepth-1:0];
  end

  // ---- S2: multiply-accumulate with forwarding ---------------------------------------------
  acc_t acc_old, acc_new;
  logic [OutMatrixWidth-1:0] out_new;
  // The dot products. The hardware's text is the loop nest below (the elements' signed products, two
  // per multiplier, summed in 32 bits), which synthesis, the hardware tests (HwGemmSynthesisText, the compute
  // harness) and a tsim configured with VTA_TSIM_GEMM_DPI=OFF read. The tsim by default defines
  // VTA_GEMM_DPI and has the simulator compute the same function, vectorized, in
  // tsim/src/rtl_gemm.cc: the loop nest unrolled by Verilator costs about 1,100 host instructions per
  // simulated cycle on the convolution, the call about 350 (docs/PERFORMANCE.md).
  // HwGemm runs the DPI text against the fsim, HwGemmDot the C++ against a plain reference.
`ifdef VTA_GEMM_DPI
  localparam int unsigned DotsWidth = Batch * BlockOut * 32;
  import "DPI-C" function void vta_gemm_dot(input int batch, input int block_in, input int block_out,
                                            input int inp_width, input int wgt_width,
                                            input bit [InpMatrixWidth-1:0] inp,
                                            input bit [WgtMatrixWidth-1:0] wgt,
                                            output bit [DotsWidth-1:0] dots);
  logic [DotsWidth-1:0] dots;  // lane b * BlockOut + o: row b of inp times row o of wgt
`else
  // Two int8 products per multiplier, sharing the input element: x * (w1 * 2^16 + w0), a 25 x 8-bit
  // product one DSP48E1 computes (the packing Xilinx documents for int8 on DSP slices), the low 16 bits
  // holding x * w0 and the high bits x * w1. Two such products and the constant 32512 are summed in
  // the DSPs' cascade (P = A * B + PCIN): the two low products' sum lies in [-32512, 32768], so with
  // 32512 added it fills the low 16 bits without borrowing from the high ones, which hold the two high
  // products' sum exactly. The fabric adds the BLOCK_IN / 2 partial sums of each lane. An odd last
  // element has its multiplier alone, its high half corrected by the low half's sign; an odd last lane
  // has plain products.
  // w1 * 2^16 + w0 for element c of weight rows o (w0) and o + 1 (w1): {w1 - sign(w0), w0 sign-extended
  // to 16 bits} (a macro: Yosys 0.23 infers a latch for a function called under a condition)
`define VTA_WEIGHT_PAIR(o, c) \
    {9'(signed'(wgt_rdata_i[((o) + 1) * BlockIn * WgtWidth + (c) * WgtWidth +: WgtWidth])) - \
         9'(wgt_rdata_i[(o) * BlockIn * WgtWidth + (c) * WgtWidth + WgtWidth - 1]), \
     {(16 - WgtWidth){wgt_rdata_i[(o) * BlockIn * WgtWidth + (c) * WgtWidth + WgtWidth - 1]}}, \
     wgt_rdata_i[(o) * BlockIn * WgtWidth + (c) * WgtWidth +: WgtWidth]}
  localparam logic signed [33:0] LowBias = 34'sd32512;
  logic signed [31:0] sum, sum_hi;      // the dot products of lanes o and o + 1
  logic signed [24:0] wpair0, wpair1;   // w1 * 2^16 + w0 of two input elements
  logic signed [33:0] two;              // their products and the bias, summed
  logic signed [31:0] one;              // an odd last element's product
`endif

  always_comb begin
    // The newest write of the same tile wins (vta_pkg::forward_source).
    unique case (forward_source(s2_addr_q, s3_valid_q, s3_addr_q, s4_valid_q, s4_addr_q))
      FromS3:  acc_old = s3_data_q;
      FromS4:  acc_old = s4_data_q;
      default: acc_old = acc_rdata_i;
    endcase
    // A reset micro-op writes zeros; so does an empty S2, whose result nothing reads (which spares
    // a simulator the products in idle cycles).
    acc_new = '0;
`ifdef VTA_GEMM_DPI
    dots    = '0;
    if (s2_valid_q && !reset_q) begin
      vta_gemm_dot(Batch, BlockIn, BlockOut, InpWidth, WgtWidth, inp_rdata_i, wgt_rdata_i, dots);
      for (int l = 0; l < Batch * BlockOut; l++) begin
        acc_new[l * AccWidth +: AccWidth] = acc_old[l * AccWidth +: AccWidth] + AccWidth'(dots[l * 32 +: 32]);
      end
    end
`else
    sum     = '0;
    sum_hi  = '0;
    wpair0  = '0;
    wpair1  = '0;
    two     = '0;
    one     = '0;
    if (s2_valid_q && !reset_q) begin
      for (int b = 0; b < Batch; b++) begin
        for (int o = 0; o + 1 < BlockOut; o += 2) begin
          sum    = '0;
          sum_hi = '0;
          for (int c = 0; c + 1 < BlockIn; c += 2) begin
            wpair0 = `VTA_WEIGHT_PAIR(o, c);
            wpair1 = `VTA_WEIGHT_PAIR(o, c + 1);
            two    = 34'(wpair0 * signed'(inp_rdata_i[(b * BlockIn + c) * InpWidth +: InpWidth])) + LowBias +
                     34'(wpair1 * signed'(inp_rdata_i[(b * BlockIn + c + 1) * InpWidth +: InpWidth]));
            sum    += 32'(two[15:0]);
            sum_hi += 32'(signed'(two[33:16]));
          end
          sum = sum - 32'(BlockIn / 2) * 32'(LowBias);
          if (BlockIn % 2 == 1) begin
            wpair0 = `VTA_WEIGHT_PAIR(o, BlockIn - 1);
            one    = 32'(wpair0 * signed'(inp_rdata_i[(b * BlockIn + BlockIn - 1) * InpWidth +: InpWidth]));
            sum    += 32'(signed'(one[15:0]));
            sum_hi += 32'(signed'(one[31:16])) + 32'(one[15]);
          end
          acc_new[(b * BlockOut + o) * AccWidth +: AccWidth] = acc_old[(b * BlockOut + o) * AccWidth +: AccWidth] + sum;
          acc_new[(b * BlockOut + o + 1) * AccWidth +: AccWidth] =
              acc_old[(b * BlockOut + o + 1) * AccWidth +: AccWidth] + sum_hi;
        end
        if (BlockOut % 2 == 1) begin
          sum = '0;
          for (int c = 0; c < BlockIn; c++) begin
            sum += 32'(signed'(inp_rdata_i[(b * BlockIn + c) * InpWidth +: InpWidth])) *
                   32'(signed'(wgt_rdata_i[((BlockOut - 1) * BlockIn + c) * WgtWidth +: WgtWidth]));
          end
          acc_new[(b * BlockOut + BlockOut - 1) * AccWidth +: AccWidth] =
              acc_old[(b * BlockOut + BlockOut - 1) * AccWidth +: AccWidth] + sum;
        end
      end
    end
`undef VTA_WEIGHT_PAIR
`endif
    for (int l = 0; l < Batch * BlockOut; l++) begin
      out_new[l * OutWidth +: OutWidth] = acc_new[l * AccWidth +: OutWidth];
    end
  end

  // ---- next state ----------------------------------------------------------------------------
  always_comb begin
    uop_re     = loop_valid && !kill;
    s1_valid_d   = loop_valid && !kill;
    s1_dst_off_d = dst_off;
    s1_src_off_d = src_off;
    s1_wgt_off_d = wgt_off;
    s2_valid_d   = s1_valid_q && !kill;
    s2_addr_d    = a_idx[LogAccBuffDepth-1:0];
    s3_valid_d   = s2_valid_q;
    s3_addr_d    = s2_addr_q;
    s3_data_d    = acc_new;
    s4_valid_d   = s3_valid_q;
    s4_addr_d    = s3_addr_q;
    s4_data_d    = s3_data_q;
    reset_d      = (start_i && !busy_o) ? insn_i.reset : reset_q;
    error_d      = (start_i && !busy_o) ? 1'b0 : (error_q || bad_index);
  end

  // S3: write back.
  assign uop_done_o  = s3_valid_q && !reset_q;

  logic [OutMatrixWidth-1:0] out_d, out_q;
  assign out_d       = out_new;
  assign acc_wr_o.we   = s3_valid_q;
  assign acc_wr_o.addr = s3_addr_q;
  assign acc_wr_o.data = s3_data_q;
  assign out_wr_o.we   = s3_valid_q;
  assign out_wr_o.addr = s3_addr_q;
  assign out_wr_o.data = out_q;

  // Busy until the loop is done (or killed) and the pipeline has drained.
  assign busy_o  = loop_busy || s1_valid_q || s2_valid_q || s3_valid_q;
  assign error_o = error_q;

  logic unused_last;
  assign unused_last = loop_last;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q   <= 1'b0;
      s2_valid_q   <= 1'b0;
      s3_valid_q   <= 1'b0;
      s4_valid_q   <= 1'b0;
      s1_dst_off_q <= '0;
      s1_src_off_q <= '0;
      s1_wgt_off_q <= '0;
      s2_addr_q    <= '0;
      s3_addr_q    <= '0;
      s4_addr_q    <= '0;
      s3_data_q    <= '0;
      s4_data_q    <= '0;
      out_q        <= '0;
      reset_q      <= 1'b0;
      error_q      <= 1'b0;
    end else begin
      s1_valid_q   <= s1_valid_d;
      s2_valid_q   <= s2_valid_d;
      s3_valid_q   <= s3_valid_d;
      s4_valid_q   <= s4_valid_d;
      s1_dst_off_q <= s1_dst_off_d;
      s1_src_off_q <= s1_src_off_d;
      s1_wgt_off_q <= s1_wgt_off_d;
      s2_addr_q    <= s2_addr_d;
      s3_addr_q    <= s3_addr_d;
      s4_addr_q    <= s4_addr_d;
      s3_data_q    <= s3_data_d;
      s4_data_q    <= s4_data_d;
      out_q        <= out_d;
      reset_q      <= reset_d;
      error_q      <= error_d;
    end
  end

  // both kinds of GEMM micro-op, and an index past its buffer
  `VTA_COVER(ResetMicroOp, s1_valid_q && reset_q)
  `VTA_COVER(AccumulateMicroOp, s1_valid_q && !reset_q)
  `VTA_COVER(IndexOutOfRange, bad_index)
endmodule : vta_gemm
