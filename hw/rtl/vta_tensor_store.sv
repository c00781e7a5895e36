// One 2D STORE from the output SRAM (spec 3.5): y_size rows of x_size elements read contiguously from
// sram_base (SRAM row pitch x_size), written to DRAM rows x_stride elements apart.
//
// Memory side: one write command per DRAM row ({byte address, byte count}), then the bus beats
// covering that byte range, aligned to the bus, with byte strobes (elements narrower than the bus
// fill only their slots of a beat), wlast on each command's last beat; mem_rsp_i.ack pulses once per command
// when its data is in memory. busy_o ends when the instruction's last beat is sent; pending_o stays
// high while any command (of this or an earlier instruction) is unacknowledged, so a token push can
// wait for the data to be in DRAM without serialising every store on the write latency.
module vta_tensor_store
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned ElemBytes = 16,
  parameter int unsigned SramDepth = 2048
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic                         start_i,
  input  mem_insn_t                    insn_i,
  output logic                         busy_o,     // beats of the current instruction still to send
  output logic                         pending_o,  // a command of any instruction is not yet acknowledged
  output mem_wr_req_t                 mem_req_o,
  input  mem_wr_rsp_t                 mem_rsp_i,
  // write data
  // output SRAM read port (one cycle of latency)
  output logic                         sram_re_o,
  output logic [$clog2(SramDepth)-1:0] sram_raddr_o,
  input  logic [ElemBytes*8-1:0]       sram_rdata_i
);
  `include "vta_dma_geometry.svh"

  mem_insn_t insn_q;
  logic      active_q;

  // ---- commands -----------------------------------------------------------------------------
  logic [MemopSizeBitWidth-1:0] cmd_row_q;
  addr_t                        cmd_addr_q;
  logic                         cmd_go;               // a row's command is taken this cycle
  logic [15:0]                  pend_q;               // commands not yet acknowledged (all instructions)

  // ---- SRAM reader: elements into a two-entry FIFO ------------------------------------------
  logic [MemopSizeBitWidth-1:0] rd_row_q, rd_col_q;  // the next element to read
  logic [SramAddrW:0]   rd_addr_q;
  logic                 inflight_q;                   // a read whose data arrives next cycle
  logic                 fifo_wready, fifo_rvalid, fifo_rready;
  logic [1:0]           fifo_count;
  logic [ElemBits-1:0]  elem;

  vta_fifo #(.Width(ElemBits), .Depth(2)) u_elems (
    .clk_i,
    .rst_ni,
    .wvalid_i (inflight_q),
    .wready_o (fifo_wready),
    .wdata_i  (sram_rdata_i),
    .rvalid_o (fifo_rvalid),
    .rready_i (fifo_rready),
    .rdata_o  (elem),
    .count_o  (fifo_count)
  );

  // The command and read-ahead decisions. An idle store engine (most cycles of a program) drives
  // nothing but the acknowledgement count: the rest is evaluated under active_q, so a simulator skips
  // it then.
  always_comb begin
    mem_req_o.cmd_valid = 1'b0;
    mem_req_o.cmd.addr  = cmd_addr_q;
    mem_req_o.cmd.bytes = 32'(insn_q.x_size) * ElemBytes;
    cmd_go    = 1'b0;
    sram_re_o = 1'b0;
    if (active_q) begin
      mem_req_o.cmd_valid = cmd_row_q != insn_q.y_size;
      cmd_go = mem_req_o.cmd_valid && mem_rsp_i.cmd_ready;
      // Read ahead while the FIFO (plus the read in flight) has room.
      sram_re_o = rd_row_q != insn_q.y_size && (32'(fifo_count) + 32'(inflight_q)) < 2;
    end
    sram_raddr_o = rd_addr_q[SramAddrW-1:0];
    busy_o    = active_q;
    pending_o = pend_q != '0;
  end

  // ---- beat former: the write channel --------------------------------------------------------
  logic [MemopSizeBitWidth-1:0] bt_row_q, bt_col_q;
  addr_t                        bt_addr_q;               // byte address of the current row
  logic [SlotW-1:0]             slot_q;
  logic [BeatW-1:0]             beat_q;
  logic [BusWidth-1:0]          acc_data_q;              // narrow: the beat being filled
  logic [BusBytes-1:0]          acc_strb_q;
  logic                         rows_left, row_end, beat_sent;
  addr_t                        next_row_addr;

  // A row's beats follow its command: only rows whose command was accepted may send data.
  assign rows_left     = active_q && bt_row_q != insn_q.y_size && bt_row_q < cmd_row_q;
  assign row_end       = bt_col_q + 1'b1 == insn_q.x_size;
  assign next_row_addr = bt_addr_q + AddrW'(insn_q.x_stride) * ElemBytes;
  assign beat_sent     = mem_req_o.data_valid && mem_rsp_i.data_ready;

  if (Narrow) begin : gen_narrow
    // Put the element into its slot; send the beat when the row ends or the beat is full.
    logic beat_full;
    always_comb begin
      beat_full = slot_q == SlotW'(SlotsPerBeat - 1);
      mem_req_o.data   = acc_data_q;
      mem_req_o.strb   = acc_strb_q;
      for (int s = 0; s < SlotsPerBeat; s++) begin
        if (SlotW'(s) == slot_q) begin
          mem_req_o.data[s * ElemBits +: ElemBits]   = elem;
          mem_req_o.strb[s * ElemBytes +: ElemBytes] = '1;
        end
      end
      mem_req_o.last       = row_end;
      mem_req_o.data_valid = rows_left && fifo_rvalid && (row_end || beat_full);
      fifo_rready = rows_left && fifo_rvalid && (mem_rsp_i.data_ready || !(row_end || beat_full));
    end
  end else begin : gen_wide
    // An element is BeatsPerElem whole beats.
    always_comb begin
      mem_req_o.data       = elem[beat_q * BusWidth +: BusWidth];
      mem_req_o.strb       = '1;
      mem_req_o.last       = row_end && beat_q == BeatW'(BeatsPerElem - 1);
      mem_req_o.data_valid = rows_left && fifo_rvalid;
      fifo_rready = mem_req_o.data_valid && mem_rsp_i.data_ready && beat_q == BeatW'(BeatsPerElem - 1);
    end
  end

  logic unused_signals;
  // Row addresses and the partial beat only matter for narrow elements (slots), beat counts only for
  // wide ones; insn_q's fields read only as the instruction starts are read from insn_i.
  assign unused_signals = fifo_wready ^ (|bt_addr_q[0]) ^ (|next_row_addr) ^ (|beat_q) ^ (|insn_q) ^
                          (|acc_data_q) ^ (|acc_strb_q);

  // The state changes here only when the engine starts or moves (no next-state copies: an idle store
  // engine costs a simulator its acknowledgement count).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      insn_q     <= '0;
      active_q   <= 1'b0;
      cmd_row_q  <= '0;
      cmd_addr_q <= '0;
      pend_q     <= '0;
      rd_row_q   <= '0;
      rd_col_q   <= '0;
      rd_addr_q  <= '0;
      inflight_q <= 1'b0;
      bt_row_q   <= '0;
      bt_col_q   <= '0;
      bt_addr_q  <= '0;
      slot_q     <= '0;
      beat_q     <= '0;
      acc_data_q <= '0;
      acc_strb_q <= '0;
    end else begin
      inflight_q <= sram_re_o;
      if (cmd_go != mem_rsp_i.ack) pend_q <= cmd_go ? pend_q + 1'b1 : pend_q - 1'b1;
      if (!active_q) begin
        if (start_i) begin
          insn_q     <= insn_i;
          active_q   <= insn_i.x_size != '0 && insn_i.y_size != '0;
          cmd_addr_q <= first_addr(insn_i.dram_base);
          rd_addr_q  <= (SramAddrW + 1)'(insn_i.sram_base);
          bt_addr_q  <= first_addr(insn_i.dram_base);
          slot_q     <= first_slot(insn_i.dram_base);
          // rows and columns 0, an empty beat
          {cmd_row_q, rd_row_q, rd_col_q, bt_row_q, bt_col_q, beat_q, acc_data_q, acc_strb_q} <= '0;
        end
      end else begin
        // Done when every beat is sent (acknowledgements are tracked by pending_o).
        if (bt_row_q == insn_q.y_size) active_q <= 1'b0;
        if (cmd_go) begin
          cmd_row_q  <= cmd_row_q + 1'b1;
          cmd_addr_q <= cmd_addr_q + AddrW'(insn_q.x_stride) * ElemBytes;
        end
        if (sram_re_o) begin
          rd_addr_q <= rd_addr_q + 1'b1;
          if (rd_col_q + 1'b1 == insn_q.x_size) begin
            rd_col_q <= '0;
            rd_row_q <= rd_row_q + 1'b1;
          end else begin
            rd_col_q <= rd_col_q + 1'b1;
          end
        end
        if (Narrow) begin
          if (fifo_rready) begin
            // A sent beat starts the next one empty; otherwise the element is parked in the beat.
            acc_data_q <= mem_req_o.data_valid ? '0 : mem_req_o.data;
            acc_strb_q <= mem_req_o.data_valid ? '0 : mem_req_o.strb;
            if (row_end) begin
              bt_col_q  <= '0;
              bt_row_q  <= bt_row_q + 1'b1;
              bt_addr_q <= next_row_addr;
              slot_q    <= slot_of(LowW'(next_row_addr));
            end else begin
              bt_col_q <= bt_col_q + 1'b1;
              slot_q   <= slot_q + 1'b1;
            end
          end
        end else begin
          if (beat_sent) beat_q <= fifo_rready ? '0 : beat_q + 1'b1;
          if (fifo_rready) begin
            bt_col_q <= row_end ? '0 : bt_col_q + 1'b1;
            if (row_end) bt_row_q <= bt_row_q + 1'b1;
          end
        end
      end
    end
  end
endmodule : vta_tensor_store
