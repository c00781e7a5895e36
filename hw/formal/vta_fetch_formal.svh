// vta_fetch's proofs: each instruction goes to the queue spec 4.4 names for its opcode (LOAD of
// inputs or weights to load, STORE to store, everything else to compute), one queue at a time; the
// credits keep every requested instruction a place in the buffer (fetch never holds the shared read
// channel); a command offered is held until taken; a run dispatches exactly INSN_COUNT instructions.
`include "vta_formal.svh"

// the memory answers only what was asked (the memory engine's side of the credits)
`VTA_ASSUME(FetchMemoryAnswersRequests, !mem_rsp_i.data_valid || outstanding_q != '0)

logic [2:0] f_op;
logic [MemopIdBitWidth-1:0] f_mem;
assign f_op  = insn_o[MemOpcodeLsb +: 3];
assign f_mem = insn_o[MemMemoryTypeLsb +: MemopIdBitWidth];
`VTA_PROVE(FetchLoadQueueBySpec, load_valid_o == (buf_rvalid && f_op == 3'(OpcodeLoad) &&
                                                  (f_mem == MemopIdBitWidth'(MemIdInp) || f_mem == MemopIdBitWidth'(MemIdWgt))))
`VTA_PROVE(FetchStoreQueueBySpec, store_valid_o == (buf_rvalid && f_op == 3'(OpcodeStore)))
`VTA_PROVE(FetchComputeQueueBySpec, compute_valid_o == (buf_rvalid && !load_valid_o && !store_valid_o))
`VTA_PROVE(FetchOneQueueAtATime, 32'(load_valid_o) + 32'(compute_valid_o) + 32'(store_valid_o) <= 1)
`VTA_PROVE(FetchCreditsWithinBuffer, 32'(outstanding_q) + 32'(buf_count) <= BufDepth)
`VTA_PROVE_IMPLIES(FetchNoInstructionDropped, buf_wvalid, buf_wready)
`VTA_PROVE_IMPLIES(FetchCommandWithinCredits, cmd_valid, 32'(chunk) + 32'(outstanding_q) + 32'(buf_count) <= BufDepth)

// a run: INSN_COUNT instructions requested in order from INSN_ADDR, and as many dispatched
logic [31:0] f_count_q, f_requested_q, f_dispatched_q, f_addr_q;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    f_count_q      <= '0;
    f_requested_q  <= '0;
    f_dispatched_q <= '0;
    f_addr_q       <= '0;
  end else if (launch) begin
    f_count_q      <= insn_count_i;
    f_requested_q  <= '0;
    f_dispatched_q <= '0;
    f_addr_q       <= insn_addr_i;
  end else begin
    if (mem_req_o.cmd_valid && mem_rsp_i.cmd_ready) f_requested_q <= f_requested_q + (mem_req_o.cmd.bytes >> $clog2(InsnBytes));
    if (buf_rready) f_dispatched_q <= f_dispatched_q + 1;
  end
end
`VTA_PROVE_IMPLIES(FetchCommandAtNextInstruction, mem_req_o.cmd_valid, mem_req_o.cmd.addr == MemAddrWidth'(32'(f_addr_q + f_requested_q * InsnBytes)))
`VTA_PROVE_IMPLIES(FetchRequestsNoMore, mem_req_o.cmd_valid, f_requested_q + (mem_req_o.cmd.bytes >> $clog2(InsnBytes)) <= f_count_q)
`VTA_PROVE_IMPLIES(FetchCommandNotEmpty, mem_req_o.cmd_valid, mem_req_o.cmd.bytes != '0)
`VTA_PROVE_IMPLIES(FetchBusyUntilAllDispatched, active_q, busy_o && f_dispatched_q < f_count_q)

logic        f_offered_q;
logic [MemAddrWidth+31:0] f_cmd_q;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) f_offered_q <= 1'b0;
  else f_offered_q <= mem_req_o.cmd_valid && !mem_rsp_i.cmd_ready;
end
always_ff @(posedge clk_i) f_cmd_q <= {mem_req_o.cmd.addr, mem_req_o.cmd.bytes};
`VTA_PROVE_IMPLIES(FetchCommandHeld, f_offered_q, (mem_req_o.cmd_valid && {mem_req_o.cmd.addr, mem_req_o.cmd.bytes} == f_cmd_q))

// ---- strengthening invariants: the run's counters are the proof's --------------------------------
`VTA_PROVE_IMPLIES(FetchCountersAgree, active_q, (to_request_q == f_count_q - f_requested_q && to_dispatch_q == f_count_q - f_dispatched_q
                                             && next_addr_q == f_addr_q + f_requested_q * InsnBytes
                                             && f_dispatched_q < f_count_q && f_dispatched_q <= f_requested_q && f_requested_q <= f_count_q
                                             && f_dispatched_q + 32'(buf_count) + 32'(outstanding_q) == f_requested_q
                                             && (!cmd_q || (chunk_q != '0 && chunk_q <= to_request_q
                                                  && 32'(chunk_q) + 32'(outstanding_q) + 32'(buf_count) <= BufDepth))))

// (and an idle fetch holds nothing: no instruction buffered, none on its way, no command offered)
`VTA_PROVE_IMPLIES(FetchIdleIsEmpty, !active_q, outstanding_q == '0 && buf_count == '0 && !cmd_q)

`VTA_REACH(FetchToLoad, load_valid_o && load_ready_i)
`VTA_REACH(FetchToStore, store_valid_o && store_ready_i)
`VTA_REACH(FetchToCompute, compute_valid_o && compute_ready_i)
`VTA_REACH(FetchQueueBlocks, load_valid_o && !load_ready_i)
`VTA_REACH(FetchBufferFull, 32'(buf_count) == BufDepth)
`VTA_REACH(FetchCommandWaits, f_offered_q)
`VTA_REACH(FetchRunEnds, active_q && !active_d && f_count_q > 1)
