// A stage's byte count for the statistics (the bytes its LOAD or STORE moves): x_size x y_size x the
// element's bytes. The sizes are taken as the instruction starts and multiplied in its running cycles,
// so the product lies off the queue head's path (docs/SYNTHESIS.md). A unit that ends in its first
// running cycle moved no rows (y_size 0): the 0 written at the start is then its count. One cell for
// the load, compute and store stages.
`include "vta_assert.svh"
module vta_stat_bytes
  import vta_config_pkg::*;
(
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic                         take_i,        // an instruction starts: its sizes are taken
  input  logic [MemopSizeBitWidth-1:0] x_size_i,
  input  logic [MemopSizeBitWidth-1:0] y_size_i,
  input  logic                         run_i,         // the instruction is running
  input  logic [31:0]                  elem_bytes_i,  // its element's bytes (from registers)
  input  logic                         read_i,        // the count is read this cycle
  output logic [31:0]                  bytes_o
);
  logic [MemopSizeBitWidth-1:0] x_q, y_q;
  logic [31:0]                  bytes_q;
  assign bytes_o = bytes_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_q     <= '0;
      y_q     <= '0;
      bytes_q <= '0;
    end else if (take_i) begin
      x_q     <= x_size_i;
      y_q     <= y_size_i;
      bytes_q <= '0;
    end else if (run_i) begin
      bytes_q <= 32'(x_q) * 32'(y_q) * elem_bytes_i;
    end
  end

  `VTA_ASSERT_IMPLIES(StatBytesMultiplied, read_i, bytes_q == 32'(x_q) * 32'(y_q) * elem_bytes_i)
endmodule : vta_stat_bytes
