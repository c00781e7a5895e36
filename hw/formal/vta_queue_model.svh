// The reference queue of the FIFO proofs (vta_fifo_formal.svh, vta_fifo_head_formal.svh), included
// inside the module under proof: a shift register whose entry 0 is the oldest, fed by the module's
// write and read handshakes (ports wvalid_i, wdata_i, rready_i; parameters Width, Depth; CountW the
// count's width), and the ports' four promises against it: ready exactly with room, valid exactly
// with data, the head the oldest entry (order kept, none lost, none invented), the count.
logic [Depth*Width-1:0]      f_model_q;  // entry i in bits [i*Width +: Width]
logic [CountW-1:0]           f_count_q;
logic                        f_push, f_pop;
assign f_push = wvalid_i && f_count_q != CountW'(Depth);
assign f_pop  = rready_i && f_count_q != '0;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    f_count_q <= '0;
  end else begin
    f_count_q <= f_count_q + CountW'(f_push) - CountW'(f_pop);
    for (int i = 0; i < Depth; i++) begin
      if (f_pop) f_model_q[i*Width +: Width] <= (i + 1 < Depth) ? f_model_q[((i + 1) % Depth)*Width +: Width] : '0;
      if (f_push && 32'(i) == 32'(f_count_q) - 32'(f_pop)) f_model_q[i*Width +: Width] <= wdata_i;
    end
  end
end

`VTA_PROVE(FifoReadyIffRoom, wready_o == (f_count_q != CountW'(Depth)))
`VTA_PROVE(FifoValidIffData, rvalid_o == (f_count_q != '0))
`VTA_PROVE_IMPLIES(FifoOrderKept, rvalid_o, rdata_o == f_model_q[Width-1:0])
`VTA_PROVE(FifoCountOut, count_o == f_count_q)
