// Splits memory-client commands into AXI4 INCR bursts: at most 256 beats per burst and never crossing
// a 4 KiB boundary (AXI4 rules). A command arrives in bus beats ({first beat, beat count}, vta_vme
// converts a client's {byte address, byte count}), so no byte arithmetic lies between the command's
// acceptance and its first burst. One command is split at a time; the next is accepted in the cycle
// its last burst leaves, so back-to-back commands issue one burst per cycle. Each burst's length and
// last flag are registers, computed when the previous burst leaves or the command is accepted. A
// command flagged as reaching past the AXI address space is dropped with range_error_o (the core
// stops on the error status; no access wraps around).
module vta_vme_burst
  import vta_config_pkg::*;
#(
  parameter int unsigned CmdAddrWidth = MemopDramAddrBitWidth + 8,
  parameter int unsigned AddrWidth = 32,
  parameter int unsigned TagWidth = 1,
  // beat numbers and counts: wide enough for any command (byte address + 2^32 bytes)
  localparam int unsigned BeatW = CmdAddrWidth + 2 - $clog2(BusWidth / 8)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 cmd_valid_i,
  output logic                 cmd_ready_o,
  input  logic [BeatW-1:0]     cmd_first_i,        // the command's first beat (byte address / bus bytes)
  input  logic [BeatW-1:0]     cmd_beats_i,        // its beats (0: none to request)
  input  logic                 cmd_out_of_range_i, // it reaches past the AXI address space
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
  typedef logic [BeatW-1:0] beat_t;
  typedef logic [8:0] len_t;  // a burst's beats, 1 to 256

  if (AddrWidth > CmdAddrWidth + 1) begin : gen_width_check
    $error("vta_vme_burst: AddrWidth wider than the command addresses");
  end

  // The burst whose first beat lies at `in_page` within its 4 KiB page, with `left` beats to request:
  // {it ends the command, its beats}. A burst reaches up to the page's end, at most MaxBurst beats
  // (the cap), at most what is left. (Plain vectors: Yosys 0.23 takes no typedef inside a function.)
  function automatic logic [9:0] burst_beats(logic [PageW-1:0] in_page, logic [BeatW-1:0] left);
    logic [PageW:0] to_page;
    logic [8:0] cap, n;
    logic last;
    to_page = (PageW + 1)'(BeatsPer4K) - (PageW + 1)'(in_page);
    cap = (BeatW'(to_page) < BeatW'(MaxBurst)) ? 9'(to_page) : 9'(MaxBurst);
    last = left <= BeatW'(cap);
    n = last ? left[8:0] : cap;
    burst_beats = {last, n};
  endfunction

  logic                active_q;
  beat_t               beat_q;    // this burst's first beat
  beat_t               left_q;    // beats still to request, this burst's included
  len_t                n_q;       // this burst's beats
  logic                last_q;    // this burst ends the command
  logic [TagWidth-1:0] tag_q;
  beat_t               next_beat, next_left;
  logic [9:0]          next_burst, first_burst;  // {last, beats}
  logic                accept, fire;

  // Outputs from registers only, then the handshakes (separate blocks: no false combinational loops
  // through the clients).
  assign burst_valid_o = active_q;
  assign burst_addr_o  = AddrWidth'(beat_q << LowW);
  assign burst_len_o   = 8'(n_q - 1'b1);
  assign burst_last_o  = last_q;
  assign burst_tag_o   = tag_q;
  assign fire          = active_q && burst_ready_i;
  assign cmd_ready_o   = !active_q || (fire && last_q);
  assign accept        = cmd_valid_i && cmd_ready_o;
  assign range_error_o = accept && cmd_out_of_range_i;

  // the two candidates for the next burst, computed side by side: the command's next one, a new
  // command's first
  assign next_beat = beat_q + BeatW'(n_q);
  assign next_left = left_q - BeatW'(n_q);
  assign next_burst  = burst_beats(next_beat[PageW-1:0], next_left);
  assign first_burst = burst_beats(cmd_first_i[PageW-1:0], cmd_beats_i);

  // The state changes only when a command is accepted or a burst leaves (an idle engine costs a
  // simulator two tests); a new command wins over the burst that ends the one before.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      beat_q   <= '0;
      left_q   <= '0;
      n_q      <= '0;
      last_q   <= 1'b0;
      tag_q    <= '0;
    end else if (accept) begin
      beat_q   <= cmd_first_i;
      left_q   <= cmd_beats_i;
      {last_q, n_q} <= first_burst;
      tag_q    <= cmd_tag_i;
      active_q <= !cmd_out_of_range_i && cmd_beats_i != '0;
    end else if (fire) begin
      beat_q   <= next_beat;
      left_q   <= next_left;
      {last_q, n_q} <= next_burst;
      active_q <= !last_q;
    end
  end
`ifdef VTA_FORMAL
  `include "vta_vme_burst_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_vme_burst
