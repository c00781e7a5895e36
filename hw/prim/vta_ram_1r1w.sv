// The one SRAM cell of the design: one write port and one read port, one access per port per
// cycle, registered read with a latency of one cycle (rdata_o holds the word addressed by raddr_i in
// the cycle re_i was high, and keeps it until the next read). A read and a write of the same address
// in the same cycle return the old word.
module vta_ram_1r1w #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 16
) (
  input  logic                     clk_i,
  input  logic                     we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0]         wdata_i,
  input  logic                     re_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0]         rdata_o
);
  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
    if (re_i) rdata_q <= mem_q[raddr_i];
  end

  assign rdata_o = rdata_q;
endmodule : vta_ram_1r1w
