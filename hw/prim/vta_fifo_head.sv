// A FIFO whose head is a register: the same ports and the same cycle-by-cycle behaviour as vta_fifo
// (an entry is visible the cycle after it is written, Depth entries, count_o the occupancy), but
// rdata_o comes from a flip-flop instead of the storage's read port. A consumer that decodes its head
// and decides in the same cycle (the stages' instruction queues, docs/SYNTHESIS.md) then starts from
// a register. The oldest entry sits in the head register; the others wait in a vta_fifo of Depth - 1
// entries. A write goes straight to the head when the head is free (empty, or leaving this cycle) and
// nothing waits behind it; a read refills the head from the rest.
//
// A simulator runs the plain vta_fifo instead (the ports behave the same, cycle by cycle; proven by
// hw/formal's sets fifo and fifo_head, docs/FORMAL.md): the registered head cost the tsim about 8 % of
// its speed (docs/PERFORMANCE.md). Synthesis reads the registered form, and so does any simulation
// defining VTA_FIFO_HEAD_REGISTERED: the tests that check the two forms against one queue model
// (tests/hw, HwFifoHead.*).
`include "vta_assert.svh"

// (which text the module below has, decided where it is read)
`ifndef SYNTHESIS
`ifndef VTA_FIFO_HEAD_REGISTERED
`define VTA_FIFO_HEAD_AS_FIFO_
`endif
`endif

module vta_fifo_head #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4
) (
  `include "vta_fifo_ports.svh"
);
`ifndef VTA_FIFO_HEAD_AS_FIFO_
  localparam int unsigned CountW = $clog2(Depth + 1);
  localparam int unsigned RestCountW = $clog2(Depth);

  if (Depth < 2) begin : gen_depth_check
    $error("vta_fifo_head: Depth must be at least 2 (a head and a rest)");
  end

  logic                  head_valid_q;
  logic [Width-1:0]      head_q;
  logic [CountW-1:0]     count_q;
  logic                  do_write, do_read, to_head, rest_write, rest_read, rest_valid, rest_ready;
  logic [Width-1:0]      rest_head;
  logic [RestCountW-1:0] rest_count;

  vta_fifo #(.Width(Width), .Depth(Depth - 1)) u_rest (
    .clk_i, .rst_ni, .wvalid_i(rest_write), .wready_o(rest_ready), .wdata_i, .rvalid_o(rest_valid),
    .rready_i(rest_read), .rdata_o(rest_head), .count_o(rest_count));

  // Outputs come from registers only.
  assign wready_o   = count_q != CountW'(Depth);
  assign rvalid_o   = head_valid_q;
  assign rdata_o    = head_q;
  assign count_o    = count_q;
  assign do_write   = wvalid_i && wready_o;
  assign do_read    = head_valid_q && rready_i;
  assign to_head    = do_write && !rest_valid && (!head_valid_q || do_read);
  assign rest_write = do_write && !to_head;
  assign rest_read  = do_read && rest_valid;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_valid_q <= 1'b0;
      count_q      <= '0;
    end else begin
      if (do_read) head_valid_q <= rest_valid || to_head;
      else if (to_head) head_valid_q <= 1'b1;
      // (the count or a neighbour, chosen by the late handshakes: no carry chain after them)
      if (do_write != do_read) count_q <= do_write ? count_q + 1'b1 : count_q - 1'b1;
    end
  end

  // The head is refilled from the rest, or takes the write side's data whenever a write would go to
  // it (whether or not one comes: the head is read only while valid, and the write's valid then
  // decides only head_valid_q, not the data's path). No reset: read only while valid.
  always_ff @(posedge clk_i) begin
    if (rest_read) head_q <= rest_head;
    else if (!rest_valid && (!head_valid_q || do_read)) head_q <= wdata_i;
  end

  logic unused_rest;
  assign unused_rest = ^rest_count ^ rest_ready;  // count_q counts the head too; rest_ready: read by an assertion only

  `VTA_ASSERT_HANDSHAKE(WriteHeldUntilReady, wvalid_i, wready_o, wdata_i)
  `VTA_ASSERT_NEVER(RestTakesWhatComes, rest_write && !rest_ready)
  `VTA_ASSERT(CountIsHeadAndRest, 32'(count_q) == 32'(head_valid_q) + 32'(rest_count))
  `VTA_ASSERT_NEVER(RestWithoutHead, rest_valid && !head_valid_q)
`ifdef VTA_FORMAL
  `include "vta_fifo_head_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
`else
  vta_fifo #(.Width(Width), .Depth(Depth)) u_fifo (
    .clk_i, .rst_ni, .wvalid_i, .wready_o, .wdata_i, .rvalid_o, .rready_i, .rdata_o, .count_o);
`endif
endmodule : vta_fifo_head
`undef VTA_FIFO_HEAD_AS_FIFO_
