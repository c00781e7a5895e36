// An SRAM cell with two ports, as a block RAM's true dual port serves them: port A writes or reads
// (one of the two in a cycle: the address is shared), port B reads. Reads are registered with a latency
// of one cycle, as vta_ram_1r1w's (rdata holds the word addressed in the cycle its enable was high, and
// keeps it until the port's next read); a read on B of the address A writes in the same cycle returns
// the old word.
`include "vta_assert.svh"
module vta_ram_1rw1r #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 16
) (
  input  logic                     clk_i,
  // port A: a write (we_a_i) or a read (re_a_i) at addr_a_i
  input  logic                     we_a_i,
  input  logic                     re_a_i,
  input  logic [$clog2(Depth)-1:0] addr_a_i,
  input  logic [Width-1:0]         wdata_a_i,
  output logic [Width-1:0]         rdata_a_o,
  // port B: a read
  input  logic                     re_b_i,
  input  logic [$clog2(Depth)-1:0] addr_b_i,
  output logic [Width-1:0]         rdata_b_o
);
  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_a_q, rdata_b_q;

  always_ff @(posedge clk_i) begin
    if (we_a_i) mem_q[addr_a_i] <= wdata_a_i;
    if (re_a_i) rdata_a_q <= mem_q[addr_a_i];
    if (re_b_i) rdata_b_q <= mem_q[addr_b_i];
  end
  assign rdata_a_o = rdata_a_q;
  assign rdata_b_o = rdata_b_q;

  // (the cell has no reset: the check holds from the first cycle)
  `VTA_ASSERT_NEVER(WritesAndReadsPortA, we_a_i && re_a_i, clk_i, 1'b1)
endmodule : vta_ram_1rw1r
