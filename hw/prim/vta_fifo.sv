// Synchronous FIFO with valid/ready on both sides. Depth entries of Width bits in registers; no
// combinational path from input to output (data is visible the cycle after it is written). Every
// queue between units uses this cell; a struct passes as its bits (.Width($bits(signal))): Yosys 0.23
// has no type parameters, and Verilator 5.006 simulates storage of a wide struct type markedly slower
// than of a vector (the R slice of vta_vme alone cost the tsim 20 %).
`include "vta_assert.svh"

module vta_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4
) (
  `include "vta_fifo_ports.svh"
);
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CountW = $clog2(Depth + 1);

  logic [Width-1:0]  mem_q [Depth];
  logic [PtrW-1:0]   wptr_q, rptr_q;
  logic [CountW-1:0] count_q;
  logic              do_write, do_read;

  if (Depth < 1) begin : gen_depth_check
    $error("vta_fifo: Depth must be at least 1");
  end

  function automatic logic [PtrW-1:0] next_ptr(logic [PtrW-1:0] p);
    next_ptr = (p == PtrW'(Depth - 1)) ? '0 : p + 1'b1;
  endfunction

  // Outputs come from registers only: no combinational path from any input to any output.
  assign wready_o = count_q != CountW'(Depth);
  assign rvalid_o = count_q != '0;
  assign rdata_o  = mem_q[rptr_q];
  assign count_o  = count_q;
  assign do_write = wvalid_i && wready_o;
  assign do_read  = rvalid_o && rready_i;

  // The pointers and the count change only with a write or a read (a queue is idle most cycles, and
  // a simulator then evaluates no next-state terms).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      count_q <= '0;
    end else begin
      if (do_write) wptr_q <= next_ptr(wptr_q);
      if (do_read) rptr_q <= next_ptr(rptr_q);
      // (the count or a neighbour, chosen by the late handshakes: no carry chain after them)
      if (do_write != do_read) count_q <= do_write ? count_q + 1'b1 : count_q - 1'b1;
    end
  end

  // Storage needs no reset: an entry is read only after it was written.
  always_ff @(posedge clk_i) begin
    if (do_write) mem_q[wptr_q] <= wdata_i;
  end

  // The producer keeps an offered entry until it is taken; so does the FIFO on its read side.
  `VTA_ASSERT_HANDSHAKE(WriteHeldUntilReady, wvalid_i, wready_o, wdata_i)
  `VTA_ASSERT_KNOWN(WriteDataKnown, wvalid_i, wdata_i)
  // The FIFO's own invariants, checked at the edges where it moves (a read or a write: its pointers
  // and count change only then, so each state it leaves is checked) rather than in every cycle, most
  // of which find a queue idle: checked in every cycle, the FIFOs' checks were 9 % of the tsim's host
  // instructions (docs/PERFORMANCE.md). hw/formal's set fifo proves them in every state.
  // The read side holds its output by construction (rdata_o is the head entry, and the read pointer
  // moves only with a read): what could break that is a write landing on the head while it is shown.
  // Checked as such, on the pointers, rather than by keeping and comparing a copy of the head.
  `VTA_ASSERT_IMPLIES(HeadNotOverwritten, do_write, !(rvalid_o && wptr_q == rptr_q))
  `VTA_ASSERT_AT(CountInRange, do_write || do_read, 32'(count_q) <= Depth)
  // (no % by a depth that is not a power of two: a simulator would divide at each move)
  `VTA_ASSERT_AT(PointersAgreeWithCount, do_write || do_read,
                 32'(wptr_q) == (32'(rptr_q) + 32'(count_q) >= Depth ? 32'(rptr_q) + 32'(count_q) - Depth
                                                                      : 32'(rptr_q) + 32'(count_q)))
`ifdef VTA_FORMAL
  `include "vta_fifo_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_fifo
