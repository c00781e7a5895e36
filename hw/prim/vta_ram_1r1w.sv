// The one SRAM cell of the design: one write port and one read port, one access per port per
// cycle, registered read with a latency of one cycle (rdata_o holds the word addressed by raddr_i in
// the cycle re_i was high, and keeps it until the next read). A read and a write of the same address
// in the same cycle return the old word.
//
// With OutReg the word passes one more register (a block RAM's output register, DOA_REG/DOB_REG on
// the 7 series): rdata_o holds it from the second cycle after re_i was high, and the RAM's
// clock-to-data delay (2.45 ns against about 0.9 with the register) leaves the reader's path.
module vta_ram_1r1w #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 16,
  parameter bit          OutReg = 1'b0
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

  if (OutReg) begin : gen_out_reg
    // loaded every cycle (the word it copies changes only after a read, so it too is held until the
    // next; an enable from re_i would put the reader's address logic on the RAM's clock enable)
    logic [Width-1:0] rdata_out_q;
    always_ff @(posedge clk_i) rdata_out_q <= rdata_q;
    assign rdata_o = rdata_out_q;
  end else begin : gen_no_out_reg
    assign rdata_o = rdata_q;
  end
endmodule : vta_ram_1r1w
