// The control registers: an AXI4-Lite slave (32-bit data) holding the register map of vta/driver/vcr_map.h,
// emitted into vta_config_pkg as Vcr* constants. The first four registers keep the reference offsets
// (spec 5.3): CTRL (launch/done), CYCLES, INSN_COUNT, INSN_ADDR. The rest: error status and the
// memory client of a memory error, the seven statistics (64 bits each, kept in the core), per-stage
// instruction, busy and stall counters of the current run, a status word and the deadlock watchdog.
//
// A run: the host writes INSN_COUNT and INSN_ADDR, then CTRL = 1; start_o pulses and CTRL bit 0
// stays set while running. FINISH (once the stores' data is in memory) sets CTRL to 0x2, an error (or the watchdog) to 0x4; irq_o is
// high while bit 1 or bit 2 is set. One read and one write transaction at a time; a write needs AW
// and W together; unmapped addresses read 0 and ignore writes.
//
// A reset from the host (CTRL bit 4, what a board's driver uses after a failed run: it has no reset
// pin): quiesce_o stops the memory engine taking new commands, and once its bursts are done
// (mem_busy_i low) soft_reset_o resets the core and the memory engine for one cycle, and this block
// forgets the run (CTRL, errors, cycles, the run's counters). The register port itself, INSN_COUNT,
// INSN_ADDR and WATCHDOG are kept. STATUS_RESET_PENDING is high from the write until the reset.
module vta_vcr
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned QueueFillWidth = 6,
  parameter int unsigned TokenWidth = TokenCountWidth
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // AXI4-Lite slave
  input  axil_req_t   axil_req_i,
  output axil_rsp_t   axil_rsp_o,
  // to the core
  output logic        start_o,
  output logic        clear_stats_o,
  output logic [31:0] insn_addr_o,
  output logic [31:0] insn_count_o,
  output logic        irq_o,
  output logic        quiesce_o,        // a reset waits: take no new memory command
  output logic        soft_reset_o,     // reset the core and the memory engine (one cycle)
  // from the core and the memory engine
  input  logic        done_i,
  input  logic [3:0]  core_error_i,     // {token, store, compute, load}
  input  logic [3:0]  mem_error_i,      // {protocol, range, write, read}
  input  logic [3:0]  mem_error_client_i,
  input  logic [3:0]  busy_i,           // {fetch, store, compute, load}
  input  logic        mem_busy_i,
  input  logic [2:0]  insn_start_i,     // {store, compute, load} took an instruction
  input  logic [2:0]  stall_i,          // {store, compute, load} holds an instruction waiting for a token
  input  logic [3*QueueFillWidth-1:0] queue_fill_i,  // {store, compute, load}
  input  logic [4*TokenWidth-1:0] tokens_i,          // {s2g, g2s, g2l, l2g}
  input  logic [7*64-1:0] stats_i  // inp, wgt, acc, uop, out bytes, gemm, alu counters (64 bits each, inp lowest)
);
  localparam logic [1:0] RespOkay = 2'b00;
  if (QueueFillWidth > 10) begin : gen_fill_check
    $error("vta_vcr: QUEUE_FILL holds queue fills of at most 10 bits (depth 1023)");
  end

  logic [31:0] ctrl_d, ctrl_q, count_q, addr_q, wdog_q, idle_q;
  logic [8:0]  err_q;
  logic [3:0]  client_q;
  logic [63:0] cycles_q;
  logic [3*32-1:0] insns_q, busy_q, stall_q;  // per stage, 32 bits each
  logic        bvalid_d, bvalid_q, rvalid_d, rvalid_q;
  logic [31:0] rdata_q;
  logic        wr, rd, running, launch, idle;
  logic        finish_d, finish_q;  // FINISH executed, waiting for the stages to drain
  logic        drained;
  logic [8:0]  err_now;
  logic        reset_req, reset_req_q, soft_reset_q;

  function automatic logic [31:0] apply_strobes(logic [31:0] old, logic [31:0] data, logic [3:0] strb);
    logic [31:0] r;
    r = old;
    for (int b = 0; b < 4; b++) begin
      if (strb[b]) r[8*b +: 8] = data[8*b +: 8];
    end
    apply_strobes = r;
  endfunction

  // ---- the register read multiplexer: the value of the register at `addr` (called in the clocked
  // block on a read only, so a simulator computes it once per read, not on every evaluation) --------
  function automatic logic [31:0] register_value(logic [11:0] addr);
    logic [31:0] status_word, fill_word, tokens_word;
    status_word = '0;
    status_word[VcrStatusBusyLsb +: VcrStatusBusyWidth] = VcrStatusBusyWidth'(busy_i);
    status_word[VcrStatusMemBusyLsb] = mem_busy_i;
    status_word[VcrStatusErrorPendingLsb] = (core_error_i != '0) || (mem_error_i != '0);
    status_word[VcrStatusResetPendingLsb] = reset_req_q;
    fill_word = '0;
    fill_word[VcrQueueFillLoadLsb +: VcrQueueFillLoadWidth] = VcrQueueFillLoadWidth'(queue_fill_i[0*QueueFillWidth +: QueueFillWidth]);
    fill_word[VcrQueueFillComputeLsb +: VcrQueueFillComputeWidth] = VcrQueueFillComputeWidth'(queue_fill_i[1*QueueFillWidth +: QueueFillWidth]);
    fill_word[VcrQueueFillStoreLsb +: VcrQueueFillStoreWidth] = VcrQueueFillStoreWidth'(queue_fill_i[2*QueueFillWidth +: QueueFillWidth]);
    tokens_word = '0;
    tokens_word[VcrTokensL2gLsb +: VcrTokensL2gWidth] = VcrTokensL2gWidth'(tokens_i[0*TokenWidth +: TokenWidth]);
    tokens_word[VcrTokensG2lLsb +: VcrTokensG2lWidth] = VcrTokensG2lWidth'(tokens_i[1*TokenWidth +: TokenWidth]);
    tokens_word[VcrTokensG2sLsb +: VcrTokensG2sWidth] = VcrTokensG2sWidth'(tokens_i[2*TokenWidth +: TokenWidth]);
    tokens_word[VcrTokensS2gLsb +: VcrTokensS2gWidth] = VcrTokensS2gWidth'(tokens_i[3*TokenWidth +: TokenWidth]);
    unique case (addr)
      VcrCtrl:          register_value = ctrl_q;
      VcrCycles:        register_value = cycles_q[31:0];
      VcrInsnCount:     register_value = count_q;
      VcrInsnAddr:      register_value = addr_q;
      VcrErrorStatus:   register_value = 32'(err_q);
      VcrErrorInfo:     register_value = 32'(client_q) << VcrErrorInfoClientLsb;
      VcrCyclesHi:      register_value = cycles_q[63:32];
      VcrTokens:        register_value = tokens_word;
      VcrInpBytesLo:    register_value = stats_i[0*64 +: 32];
      VcrInpBytesHi:    register_value = stats_i[0*64+32 +: 32];
      VcrWgtBytesLo:    register_value = stats_i[1*64 +: 32];
      VcrWgtBytesHi:    register_value = stats_i[1*64+32 +: 32];
      VcrAccBytesLo:    register_value = stats_i[2*64 +: 32];
      VcrAccBytesHi:    register_value = stats_i[2*64+32 +: 32];
      VcrUopBytesLo:    register_value = stats_i[3*64 +: 32];
      VcrUopBytesHi:    register_value = stats_i[3*64+32 +: 32];
      VcrOutBytesLo:    register_value = stats_i[4*64 +: 32];
      VcrOutBytesHi:    register_value = stats_i[4*64+32 +: 32];
      VcrGemmCountLo:   register_value = stats_i[5*64 +: 32];
      VcrGemmCountHi:   register_value = stats_i[5*64+32 +: 32];
      VcrAluCountLo:    register_value = stats_i[6*64 +: 32];
      VcrAluCountHi:    register_value = stats_i[6*64+32 +: 32];
      VcrLoadInsns:     register_value = insns_q[0*32 +: 32];
      VcrComputeInsns:  register_value = insns_q[1*32 +: 32];
      VcrStoreInsns:    register_value = insns_q[2*32 +: 32];
      VcrLoadBusy:      register_value = busy_q[0*32 +: 32];
      VcrComputeBusy:   register_value = busy_q[1*32 +: 32];
      VcrStoreBusy:     register_value = busy_q[2*32 +: 32];
      VcrLoadStall:     register_value = stall_q[0*32 +: 32];
      VcrComputeStall:  register_value = stall_q[1*32 +: 32];
      VcrStoreStall:    register_value = stall_q[2*32 +: 32];
      VcrStatus:        register_value = status_word;
      VcrQueueFill:     register_value = fill_word;
      VcrWatchdog:      register_value = wdog_q;
      VcrWatchdogCount: register_value = idle_q;
      default:          register_value = '0;
    endcase
  endfunction

  // ---- transactions and control ---------------------------------------------------------------------
  assign wr = axil_req_i.aw_valid && axil_req_i.w_valid && !bvalid_q;
  assign rd = axil_req_i.ar_valid && !rvalid_q;
  assign axil_rsp_o.aw_ready = wr;
  assign axil_rsp_o.w_ready  = wr;
  assign axil_rsp_o.b_valid  = bvalid_q;
  assign axil_rsp_o.b_resp   = RespOkay;
  assign axil_rsp_o.ar_ready = !rvalid_q;
  assign axil_rsp_o.r_valid  = rvalid_q;
  assign axil_rsp_o.r_data   = rdata_q;
  assign axil_rsp_o.r_resp   = RespOkay;
  assign bvalid_d = wr || (bvalid_q && !axil_req_i.b_ready);
  assign rvalid_d = rd || (rvalid_q && !axil_req_i.r_ready);

  assign running       = ctrl_q[VcrCtrlLaunchBit];
  // a write of this cycle, by register
  logic [11:0] waddr;
  logic [31:0] wdata;
  logic [3:0]  wstrb;
  assign waddr = axil_req_i.aw_addr;
  assign wdata = axil_req_i.w_data;
  assign wstrb = axil_req_i.w_strb;
  assign launch        = wr && waddr == VcrCtrl && wstrb[0] && wdata[VcrCtrlLaunchBit] && !running && !reset_req_q;
  assign reset_req     = wr && waddr == VcrCtrl && wstrb[0] && wdata[VcrCtrlResetBit];
  assign quiesce_o     = reset_req_q;
  assign soft_reset_o  = soft_reset_q;
  assign start_o       = launch;
  assign clear_stats_o = wr && waddr == VcrCtrl && wstrb[0] && wdata[VcrCtrlClearStatsBit];
  assign insn_addr_o   = addr_q;
  assign insn_count_o  = count_q;
  assign irq_o         = ctrl_q[VcrCtrlDoneBit] || ctrl_q[VcrCtrlErrorBit];

  // The control state (narrow) as next-state logic; the wide registers (counters, the registers the
  // host writes, the read data) change in the clocked block below only when they change, so that a
  // simulator does not compute their next values on every evaluation (docs/PERFORMANCE.md). The
  // running accelerator's transitions depend on registers only and the host's launch on the
  // AXI4-Lite inputs: two blocks, so that a simulator evaluating the logic of changed inputs (each
  // cycle, Verilator's input phase) evaluates only the second.
  logic [31:0] ctrl_run;
  logic        finish_run;
  always_comb begin
    drained = busy_i == '0 && !mem_busy_i;
    for (int s = 0; s < 3; s++) begin
      if (queue_fill_i[s*QueueFillWidth +: QueueFillWidth] != '0 && !stall_i[s]) drained = 1'b0;
    end
    // the watchdog: idle = running with no stage busy, no memory traffic and no instruction taken
    idle    = running && busy_i[2:0] == '0 && !mem_busy_i && insn_start_i == '0;
    err_now = {running && wdog_q != '0 && idle_q >= wdog_q, mem_error_i, core_error_i};

    ctrl_run = ctrl_q;
    if (running && err_now != '0) begin
      ctrl_run = 32'(1) << VcrCtrlErrorBit;
    end else if (running && (done_i || finish_q) && drained) begin
      // done once FINISH executed, every stage is idle or waiting for a token, every instruction is
      // dispatched and every store's data is in memory
      ctrl_run = 32'(1) << VcrCtrlDoneBit;
    end
    finish_run = running && (finish_q || done_i) && !ctrl_run[VcrCtrlDoneBit] && !ctrl_run[VcrCtrlErrorBit];
  end
  assign ctrl_d   = launch ? 32'(1) << VcrCtrlLaunchBit : soft_reset_q ? '0 : ctrl_run;
  assign finish_d = finish_run && !launch && !soft_reset_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctrl_q   <= '0;
      finish_q <= 1'b0;
      count_q  <= '0;
      addr_q   <= '0;
      wdog_q   <= 32'(VcrDefaultWatchdog);
      idle_q   <= '0;
      err_q    <= '0;
      client_q <= '0;
      cycles_q <= '0;
      insns_q  <= '0;
      busy_q   <= '0;
      stall_q  <= '0;
      bvalid_q <= 1'b0;
      rvalid_q <= 1'b0;
      rdata_q  <= '0;
      reset_req_q  <= 1'b0;
      soft_reset_q <= 1'b0;
    end else begin
      ctrl_q   <= ctrl_d;
      finish_q <= finish_d;
      bvalid_q <= bvalid_d;
      rvalid_q <= rvalid_d;
      soft_reset_q <= reset_req_q && !mem_busy_i;
      reset_req_q  <= (reset_req_q && mem_busy_i) || (reset_req && !soft_reset_q);
      if (rd) rdata_q <= register_value(axil_req_i.ar_addr);
      if (wr && waddr == VcrInsnCount) count_q <= apply_strobes(count_q, wdata, wstrb);
      if (wr && waddr == VcrInsnAddr) addr_q <= apply_strobes(addr_q, wdata, wstrb);
      if (wr && waddr == VcrWatchdog) wdog_q <= apply_strobes(wdog_q, wdata, wstrb);
      if (launch || soft_reset_q) begin
        err_q    <= '0;
        client_q <= '0;
        cycles_q <= '0;
        insns_q  <= '0;
        busy_q   <= '0;
        stall_q  <= '0;
        idle_q   <= '0;
      end else begin
        // Error sources are recorded even after done (an instruction FINISH did not wait for may
        // fail later); only a running accelerator stops on them.
        if (err_now != '0 && err_q == '0) client_q <= mem_error_client_i;
        err_q  <= err_q | err_now;
        idle_q <= idle ? idle_q + 1'b1 : '0;
        if (running) begin
          cycles_q <= cycles_q + 1'b1;
          // (each stage's event enables its counter's increment: the event is late in the cycle, the
          // increment is computed from the register alone)
          for (int s = 0; s < 3; s++) begin
            if (insn_start_i[s]) insns_q[s*32 +: 32] <= insns_q[s*32 +: 32] + 1'b1;
            if (busy_i[s]) busy_q[s*32 +: 32] <= busy_q[s*32 +: 32] + 1'b1;
            if (stall_i[s]) stall_q[s*32 +: 32] <= stall_q[s*32 +: 32] + 1'b1;
          end
        end
      end
    end
  end
`ifdef VTA_FORMAL
  `include "vta_vcr_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_vcr
