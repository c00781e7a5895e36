// Fetch: on start, reads insn_count 16-byte instructions from insn_addr and dispatches each, in
// program order, to the load, compute or store queue (insn_stage(), spec 4.4), with the verdict its
// stage acts on (insn_legal_o: vta_insn_check, around the local buffer, which keeps what the check
// needs beside each instruction); a full queue blocks the dispatch (head-of-line).
//
// The read-data channel is shared with the other memory clients, so fetch must never hold it: it
// requests only as many instructions as its local buffer can take (credits), and therefore accepts
// the beats it asked for at once (buses narrower than an instruction: one beat per cycle; wider: one
// instruction per cycle, the beat held until its last instruction of the stream leaves). Commands
// ask for at least half a buffer unless fewer instructions remain.
`include "vta_assert.svh"
module vta_fetch
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned BufDepth = 16   // instructions buffered between memory and dispatch
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                start_i,
  input  logic [31:0]         insn_addr_i,    // byte address, 16-byte aligned
  input  logic [31:0]         insn_count_i,
  output logic                busy_o,
  output mem_rd_req_t                 mem_req_o,
  input  mem_rd_rsp_t                 mem_rsp_i,
  // the three instruction queues
  output logic                load_valid_o,
  input  logic                load_ready_i,
  output logic                compute_valid_o,
  input  logic                compute_ready_i,
  output logic                store_valid_o,
  input  logic                store_ready_i,
  output insn_t               insn_o,
  output logic                insn_legal_o    // insn_o is one its stage runs (else the stage stops)
);
  localparam int unsigned InsnBytes = InsWidth / 8;
  localparam int unsigned BusBytes = BusWidth / 8;
  localparam int unsigned BeatsPerInsn = (InsnBytes > BusBytes) ? InsnBytes / BusBytes : 1;
  localparam int unsigned InsnsPerBeat = (BusBytes > InsnBytes) ? BusBytes / InsnBytes : 1;
  localparam int unsigned CntW = $clog2(BufDepth + 1);

  logic               active_d, active_q;
  logic [31:0]        to_request_d, to_request_q;   // instructions not yet requested
  logic [31:0]        to_dispatch_d, to_dispatch_q; // instructions not yet dispatched
  logic [31:0]        next_addr_d, next_addr_q;
  logic [CntW-1:0]    outstanding_d, outstanding_q; // requested, not yet received
  logic [31:0]        chunk;
  logic [CntW-1:0]    free;
  logic               cmd_d, cmd_q;     // the command offered: a register, held until taken
  logic [31:0]        chunk_d, chunk_q; // its size in instructions
  // The host's start, taken while idle. It comes from the AXI4-Lite inputs: the registers read it in
  // the clocked blocks only, so that no next-state logic depends on it (a simulator would evaluate
  // such logic twice per cycle, in its input phase and its clocked phase; docs/PERFORMANCE.md).
  logic               launch;
  assign launch = !active_q && start_i;

  // ---- the local buffer: each instruction with what vta_insn_check keeps for it ----------------
  localparam int unsigned EntryWidth = InsWidth + InsnCheckKeep;
  logic       buf_wvalid, buf_wready, buf_rvalid, buf_rready;
  insn_t      buf_wdata, head;
  logic [InsnCheckKeep-1:0] kept_in, kept_out;
  logic [EntryWidth-1:0] entry_out;
  logic [CntW-1:0] buf_count;

  assign {kept_out, head} = entry_out;
  // The head in a register (vta_fifo_head: the same cycles as vta_fifo, which a simulator runs): the
  // verdict and the stage's choice start from a flip-flop, not the buffer's read port
  // (docs/SYNTHESIS.md).
  vta_fifo_head #(.Width(EntryWidth), .Depth(BufDepth)) u_buf (
    .clk_i,
    .rst_ni,
    .wvalid_i (buf_wvalid),
    .wready_o (buf_wready),
    .wdata_i  ({kept_in, buf_wdata}),
    .rvalid_o (buf_rvalid),
    .rready_i (buf_rready),
    .rdata_o  (entry_out),
    .count_o  (buf_count)
  );
  vta_insn_check u_check (.new_en_i(buf_wvalid), .new_insn_i(buf_wdata), .kept_o(kept_in), .insn_i(head),
                          .kept_i(kept_out), .legal_o(insn_legal_o));

  // ---- beats into instructions -------------------------------------------------------------------
  // rx_ready: the beat on mem_rsp_i.data is consumed this cycle; rx_write: an instruction enters the buffer.
  logic rx_ready, rx_write, cmd_valid, cmd_fire, cmdq_wready;
  assign cmd_fire = cmd_valid && mem_rsp_i.cmd_ready;

  if (InsnsPerBeat > 1) begin : gen_wide
    // Several instructions per beat: one leaves the beat per cycle, from the slot of the next
    // instruction of the stream. The stream's commands are contiguous, so the slot just advances; a
    // command ending inside a beat drops the rest of it (the next command reads that beat again).
    localparam int unsigned SlotW = $clog2(InsnsPerBeat);
    logic [SlotW-1:0] slot_d, slot_q;
    logic [CntW-1:0]  left_d, left_q, cur_left, cmdq_head;
    logic             cmdq_rvalid;
    vta_fifo #(.Width(CntW), .Depth(4)) u_cmds (
      .clk_i, .rst_ni, .wvalid_i(cmd_fire), .wready_o(cmdq_wready), .wdata_i(CntW'(chunk)),
      .rvalid_o(cmdq_rvalid), .rready_i(mem_rsp_i.data_valid && left_q == '0), .rdata_o(cmdq_head), .count_o());
    assign cur_left  = (left_q != '0) ? left_q : cmdq_head;
    assign rx_ready  = slot_q == SlotW'(InsnsPerBeat - 1) || cur_left == CntW'(1);
    assign rx_write  = mem_rsp_i.data_valid;
    assign buf_wdata = mem_rsp_i.data[slot_q * InsWidth +: InsWidth];
    assign slot_d = mem_rsp_i.data_valid ? slot_q + 1'b1 : slot_q;
    assign left_d = mem_rsp_i.data_valid ? cur_left - 1'b1 : left_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        slot_q <= '0;
        left_q <= '0;
      end else if (launch) begin
        slot_q <= insn_addr_i[$clog2(BusBytes)-1:$clog2(InsnBytes)];
        left_q <= '0;
      end else begin
        slot_q <= slot_d;
        left_q <= left_d;
      end
    end
    logic unused_wide;
    assign unused_wide = cmdq_rvalid;  // a beat never arrives before its command
  end else if (BeatsPerInsn > 1) begin : gen_beats
    // Several beats per instruction: they enter from the top, so the first (low) word of the
    // instruction ends in the low bits.
    localparam int unsigned BeatW = $clog2(BeatsPerInsn);
    logic [BeatW-1:0]    beat_q;
    logic [InsWidth-BusWidth-1:0] gather_q;  // the beats so far, the newest on top
    assign cmdq_wready = 1'b1;
    assign rx_ready    = 1'b1;
    assign rx_write    = mem_rsp_i.data_valid && beat_q == BeatW'(BeatsPerInsn - 1);
    assign buf_wdata   = {mem_rsp_i.data, gather_q};
    // (both change only with a beat or a launch: no copy of the instruction's width in other cycles)
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        beat_q   <= '0;
        gather_q <= '0;
      end else begin
        if (launch) beat_q <= '0;
        else if (mem_rsp_i.data_valid) beat_q <= (beat_q == BeatW'(BeatsPerInsn - 1)) ? '0 : beat_q + 1'b1;
        if (mem_rsp_i.data_valid) gather_q <= buf_wdata[InsWidth-1:BusWidth];
      end
    end
  end else begin : gen_one_beat
    assign cmdq_wready = 1'b1;
    assign rx_ready    = 1'b1;
    assign rx_write    = mem_rsp_i.data_valid;
    assign buf_wdata   = InsWidth'(mem_rsp_i.data);
  end

  // Commands: only what the buffer can hold once everything outstanding has arrived. The command is
  // decided a cycle before it is offered, from registers only, and offered from registers (the
  // credits' arithmetic and the memory engine's command path are separate cycles:
  // docs/SYNTHESIS.md); it stays valid meanwhile, as the room only grows until a command is taken.
  // After one is taken, the next is decided from the updated counts.
  always_comb begin
    free    = CntW'(BufDepth) - buf_count - outstanding_q;
    chunk_d = (to_request_q < 32'(free)) ? to_request_q : 32'(free);
    cmd_d   = cmd_q ? !cmd_fire
                    : active_q && to_request_q != '0 && cmdq_wready &&
                      (chunk_d == to_request_q || chunk_d >= 32'(BufDepth / 2));
  end
  assign cmd_valid            = cmd_q;
  assign chunk                = chunk_q;
  assign mem_req_o.cmd_valid  = cmd_valid;
  assign mem_req_o.cmd.addr   = MemAddrWidth'(next_addr_q);
  assign mem_req_o.cmd.bytes  = chunk * InsnBytes;
  assign mem_req_o.data_ready = rx_ready;

  always_comb begin
    active_d      = active_q;
    to_request_d  = to_request_q;
    to_dispatch_d = to_dispatch_q;
    next_addr_d   = next_addr_q;
    outstanding_d = outstanding_q;

    // Beats: accepted as fast as they become instructions (the credits guarantee buffer room).
    buf_wvalid    = rx_write;

    // Dispatch the head of the buffer to its queue.
    load_valid_o    = 1'b0;
    compute_valid_o = 1'b0;
    store_valid_o   = 1'b0;
    insn_o          = head;
    unique case (insn_stage(head))
      StageLoad:  load_valid_o    = buf_rvalid;
      StageStore: store_valid_o   = buf_rvalid;
      default:    compute_valid_o = buf_rvalid;
    endcase
    buf_rready = (load_valid_o && load_ready_i) || (compute_valid_o && compute_ready_i) ||
                 (store_valid_o && store_ready_i);

    outstanding_d = outstanding_q + (cmd_fire ? CntW'(chunk) : '0) - CntW'(buf_wvalid);
    if (cmd_fire) begin
      to_request_d = to_request_q - chunk;
      next_addr_d  = next_addr_q + chunk * InsnBytes;
    end
    if (buf_rready) begin
      to_dispatch_d = to_dispatch_q - 1'b1;
      if (to_dispatch_q == 32'd1) active_d = 1'b0;
    end
    busy_o = active_q;
  end

  logic unused_signals;
  assign unused_signals = buf_wready;  // guaranteed by the credits

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q      <= 1'b0;
      to_request_q  <= '0;
      to_dispatch_q <= '0;
      next_addr_q   <= '0;
      outstanding_q <= '0;
      cmd_q         <= 1'b0;
      chunk_q       <= '0;
    end else begin
      cmd_q         <= cmd_d && !launch;
      if (!cmd_q) chunk_q <= chunk_d;
      if (launch) begin
        active_q      <= insn_count_i != '0;
        to_request_q  <= insn_count_i;
        to_dispatch_q <= insn_count_i;
        next_addr_q   <= insn_addr_i;
        outstanding_q <= '0;
      end else begin
        active_q      <= active_d;
        to_request_q  <= to_request_d;
        to_dispatch_q <= to_dispatch_d;
        next_addr_q   <= next_addr_d;
        outstanding_q <= outstanding_d;
      end
    end
  end

  // each instruction queue full while fetch holds an instruction for it (head-of-line blocking)
  `VTA_COVER(LoadQueueFull, load_valid_o && !load_ready_i)
  `VTA_COVER(ComputeQueueFull, compute_valid_o && !compute_ready_i)
  `VTA_COVER(StoreQueueFull, store_valid_o && !store_ready_i)
`ifdef VTA_FORMAL
  `include "vta_fetch_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_fetch
