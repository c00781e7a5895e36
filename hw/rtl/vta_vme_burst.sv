// Splits memory-client commands ({byte address, byte count}) into AXI4 INCR bursts: the bus beats
// covering the byte range, at most 256 beats per burst and never crossing a 4 KiB boundary (AXI4
// rules). One command is split at a time; the next is accepted in the cycle its last burst leaves, so
// back-to-back commands issue one burst per cycle. A command reaching past the AXI address space is
// dropped with range_error_o (the core stops on the error status; no access wraps around).
module vta_vme_burst
  import vta_config_pkg::*;
#(
  parameter int unsigned CmdAddrWidth = MemopDramAddrBitWidth + 8,
  parameter int unsigned AddrWidth = 32,
  parameter int unsigned TagWidth = 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 cmd_valid_i,
  output logic                 cmd_ready_o,
  input  logic [CmdAddrWidth-1:0] cmd_addr_i,
  input  logic [31:0]          cmd_bytes_i,
  input  logic [TagWidth-1:0]  cmd_tag_i,
  output logic                 burst_valid_o,
  input  logic                 burst_ready_i,
  output logic [AddrWidth-1:0] burst_addr_o,
  output logic [7:0]           burst_len_o,    // beats - 1 (AXI AxLEN)
  output logic                 burst_last_o,   // the last burst of its command
  output logic [TagWidth-1:0]  burst_tag_o,
  output logic                 range_error_o   // pulse: a command was dropped
);
  localparam int unsigned BusBytes = BusWidth / 8;
  localparam int unsigned LowW = $clog2(BusBytes);
  localparam int unsigned BeatsPer4K = 4096 / BusBytes;
  localparam int unsigned MaxBurst = (BeatsPer4K < 256) ? BeatsPer4K : 256;
  localparam int unsigned PageW = $clog2(BeatsPer4K);
  // Beat indices and counts: wide enough for any command (address + 2^32 bytes).
  localparam int unsigned BeatW = CmdAddrWidth + 2 - LowW;
  typedef logic [BeatW-1:0] beat_t;

  if (AddrWidth > CmdAddrWidth + 1) begin : gen_width_check
    $error("vta_vme_burst: AddrWidth wider than the command addresses");
  end

  logic                active_d, active_q;
  beat_t               beat_d, beat_q;    // next beat to request
  beat_t               left_d, left_q;    // beats still to request
  logic [TagWidth-1:0] tag_d, tag_q;
  beat_t               first, end_beat, to_page, n;
  logic [CmdAddrWidth:0] end_byte;
  logic                accept, fire, out_of_range;

  // Outputs from registers only, then the handshakes (separate blocks: no false combinational loops
  // through the clients).
  always_comb begin
    // this burst: up to the 4 KiB page end, at most MaxBurst, at most what is left
    to_page = BeatW'(BeatsPer4K) - BeatW'(beat_q[PageW-1:0]);
    n       = left_q;
    if (n > to_page) n = to_page;
    if (n > BeatW'(MaxBurst)) n = BeatW'(MaxBurst);
  end
  assign burst_valid_o = active_q;
  assign burst_addr_o  = AddrWidth'(beat_q << LowW);
  assign burst_len_o   = 8'(n - 1'b1);
  assign burst_last_o  = n == left_q;
  assign burst_tag_o   = tag_q;
  assign fire          = active_q && burst_ready_i;
  assign cmd_ready_o   = !active_q || (fire && burst_last_o);
  assign accept        = cmd_valid_i && cmd_ready_o;
  assign end_byte      = (CmdAddrWidth + 1)'(cmd_addr_i) + (CmdAddrWidth + 1)'(cmd_bytes_i);
  assign out_of_range  = end_byte > (CmdAddrWidth + 1)'(64'(1) << AddrWidth);
  assign first         = BeatW'(cmd_addr_i >> LowW);
  assign end_beat      = BeatW'((end_byte + (CmdAddrWidth + 1)'(BusBytes) - 1'b1) >> LowW);
  assign range_error_o = accept && out_of_range;

  always_comb begin
    active_d = active_q;
    beat_d   = beat_q;
    left_d   = left_q;
    tag_d    = tag_q;
    if (fire) begin
      beat_d   = beat_q + n;
      left_d   = left_q - n;
      active_d = !burst_last_o;
    end
    if (accept) begin
      beat_d   = first;
      left_d   = end_beat - first;
      tag_d    = cmd_tag_i;
      active_d = !out_of_range && cmd_bytes_i != '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      beat_q   <= '0;
      left_q   <= '0;
      tag_q    <= '0;
    end else begin
      active_q <= active_d;
      beat_q   <= beat_d;
      left_q   <= left_d;
      tag_q    <= tag_d;
    end
  end
`ifdef VTA_FORMAL
  `include "vta_vme_burst_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_vme_burst
