// Fetch: on start, reads insn_count 16-byte instructions from insn_addr and dispatches each, in
// program order, to the load, compute or store queue (insn_stage(), spec 4.4); a full queue blocks
// the dispatch (head-of-line).
//
// The read-data channel is shared with the other memory clients, so fetch must never hold it: it
// requests only as many instructions as its local buffer can take (credits), and therefore always
// accepts the beats it asked for. Commands ask for at least half a buffer unless fewer instructions
// remain.
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
  // read commands and data
  output logic                cmd_valid_o,
  input  logic                cmd_ready_i,
  output logic [31:0]         cmd_addr_o,
  output logic [31:0]         cmd_bytes_o,
  input  logic                rdata_valid_i,
  output logic                rdata_ready_o,
  input  logic [BusWidth-1:0] rdata_i,
  // the three instruction queues
  output logic                load_valid_o,
  input  logic                load_ready_i,
  output logic                compute_valid_o,
  input  logic                compute_ready_i,
  output logic                store_valid_o,
  input  logic                store_ready_i,
  output insn_t               insn_o
);
  localparam int unsigned InsnBytes = InsWidth / 8;
  localparam int unsigned BusBytes = BusWidth / 8;
  localparam int unsigned BeatsPerInsn = InsnBytes / BusBytes;
  localparam int unsigned BeatW = (BeatsPerInsn > 1) ? $clog2(BeatsPerInsn) : 1;
  localparam int unsigned CntW = $clog2(BufDepth + 1);

  if (BusBytes > InsnBytes) begin : gen_bus_check
    $error("vta_fetch: buses wider than one instruction (128 bits) are not supported yet");
  end

  logic               active_d, active_q;
  logic [31:0]        to_request_d, to_request_q;   // instructions not yet requested
  logic [31:0]        to_dispatch_d, to_dispatch_q; // instructions not yet dispatched
  logic [31:0]        next_addr_d, next_addr_q;
  logic [CntW-1:0]    outstanding_d, outstanding_q; // requested, not yet received
  logic [BeatW-1:0]   beat_d, beat_q;
  logic [InsWidth-1:0] gather_d, gather_q;
  logic [31:0]        chunk;
  logic [CntW-1:0]    free;

  // ---- the local buffer ------------------------------------------------------------------------
  logic       buf_wvalid, buf_wready, buf_rvalid, buf_rready;
  insn_t      buf_wdata, head;
  logic [CntW-1:0] buf_count;

  vta_fifo #(.Width(InsWidth), .Depth(BufDepth)) u_buf (
    .clk_i,
    .rst_ni,
    .wvalid_i (buf_wvalid),
    .wready_o (buf_wready),
    .wdata_i  (buf_wdata),
    .rvalid_o (buf_rvalid),
    .rready_i (buf_rready),
    .rdata_o  (head),
    .count_o  (buf_count)
  );

  if (BeatsPerInsn == 1) begin : gen_one_beat
    assign buf_wdata = insn_t'(rdata_i);
    assign gather_d  = gather_q;
  end else begin : gen_beats
    // Beats enter from the top, so the first (low) word of the instruction ends in the low bits.
    assign buf_wdata = {rdata_i, gather_q[InsWidth-1:BusWidth]};
    assign gather_d  = (rdata_valid_i && rdata_ready_o) ? buf_wdata : gather_q;
  end

  // Commands: only what the buffer can hold once everything outstanding has arrived. (Outputs in
  // their own block: no false combinational loop through the memory engine's arbiter.)
  always_comb begin
    free        = CntW'(BufDepth) - buf_count - outstanding_q;
    chunk       = (to_request_q < 32'(free)) ? to_request_q : 32'(free);
    cmd_valid_o = active_q && to_request_q != '0 && (chunk == to_request_q || chunk >= 32'(BufDepth / 2));
    cmd_addr_o  = next_addr_q;
    cmd_bytes_o = chunk * InsnBytes;
  end

  always_comb begin
    active_d      = active_q;
    to_request_d  = to_request_q;
    to_dispatch_d = to_dispatch_q;
    next_addr_d   = next_addr_q;
    outstanding_d = outstanding_q;
    beat_d        = beat_q;

    // Beats: always accepted (the credits guarantee room).
    rdata_ready_o = 1'b1;
    buf_wvalid    = rdata_valid_i && beat_q == BeatW'(BeatsPerInsn - 1);
    if (rdata_valid_i) beat_d = (beat_q == BeatW'(BeatsPerInsn - 1)) ? '0 : beat_q + 1'b1;

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

    outstanding_d = outstanding_q + ((cmd_valid_o && cmd_ready_i) ? CntW'(chunk) : '0) - CntW'(buf_wvalid);
    if (cmd_valid_o && cmd_ready_i) begin
      to_request_d = to_request_q - chunk;
      next_addr_d  = next_addr_q + chunk * InsnBytes;
    end
    if (buf_rready) begin
      to_dispatch_d = to_dispatch_q - 1'b1;
      if (to_dispatch_q == 32'd1) active_d = 1'b0;
    end

    if (!active_q && start_i) begin
      active_d      = insn_count_i != '0;
      to_request_d  = insn_count_i;
      to_dispatch_d = insn_count_i;
      next_addr_d   = insn_addr_i;
      outstanding_d = '0;
      beat_d        = '0;
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
      beat_q        <= '0;
      gather_q      <= '0;
    end else begin
      active_q      <= active_d;
      to_request_q  <= to_request_d;
      to_dispatch_q <= to_dispatch_d;
      next_addr_q   <= next_addr_d;
      outstanding_q <= outstanding_d;
      beat_q        <= beat_d;
      gather_q      <= gather_d;
    end
  end
endmodule : vta_fetch
