// One 2D LOAD into one SRAM (spec 3.2): y_size rows of x_size DRAM elements, x_stride apart, written
// densely from sram_base with zero padding (y_pad_0 rows, x_pad_0 / x_pad_1 elements around each row,
// y_pad_1 rows). One SRAM write per cycle, pads included.
//
// Memory side: one read command per DRAM row ({byte address, byte count}); the memory engine returns
// the bus beats covering that byte range, aligned to the bus, in order (several commands may be
// outstanding). Elements wider than the bus take ElemBytes/BusBytes beats; narrower ones are taken
// one per cycle out of each beat (a row may start in the middle of a beat), holding the beat until
// its last element is used (mem_req_o.data_ready back-pressure).
//
// Widen = 1 is the ACC_8BIT load: each DRAM element of SramWidth/32 bytes is sign-extended from int8
// to int32 lanes.
`include "vta_assert.svh"
module vta_tensor_load
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned ElemBytes = 16,     // bytes of one DRAM element
  parameter int unsigned SramWidth = 128,    // bits of one SRAM element
  parameter int unsigned SramDepth = 2048,
  parameter bit          Widen     = 1'b0
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // one instruction, accepted when idle
  input  logic                         start_i,
  input  mem_insn_t                    insn_i,
  output logic                         busy_o,
  // read commands
  output mem_rd_req_t                 mem_req_o,
  input  mem_rd_rsp_t                 mem_rsp_i,
  // read data
  // SRAM write port
  output logic                         sram_we_o,
  output logic [$clog2(SramDepth)-1:0] sram_waddr_o,
  output logic [SramWidth-1:0]         sram_wdata_o
);
  `include "vta_dma_geometry.svh"

  if (Widen && SramWidth != ElemBits * 4) begin : gen_widen_check
    $error("vta_tensor_load: Widen needs SramWidth = 4 x the DRAM element");
  end
  if (!Widen && SramWidth != ElemBits) begin : gen_width_check
    $error("vta_tensor_load: SramWidth must equal the DRAM element width");
  end

  mem_insn_t insn_q;
  logic      active_q;

  // ---- command issue: one per DRAM row --------------------------------------------------------
  logic [MemopSizeBitWidth-1:0] cmd_row_q;
  addr_t                        cmd_addr_q;   // byte address of the next row
  logic                         cmd_go;       // a row's command is taken this cycle

  // ---- element extraction: row by row, element by element ------------------------------------
  logic [MemopSizeBitWidth-1:0] ext_row_q, ext_col_q;
  addr_t                        ext_addr_q;   // byte address of the current row
  logic [SlotW-1:0]             slot_q;
  logic [BeatW-1:0]             beat_q;
  logic [ElemBits-1:0]          gather_q;     // wide elements: beats collected so far
  logic                         gather_en;    // a beat is gathered this cycle
  logic                         elem_valid, elem_take, ext_row_end;
  logic [ElemBits-1:0]          elem, gather_next;

  // The element the current beat completes (or holds, for narrow elements).
  if (Narrow) begin : gen_narrow
    assign elem        = mem_rsp_i.data[slot_q * ElemBits +: ElemBits];
    assign gather_next = gather_q;
  end else if (BeatsPerElem == 1) begin : gen_equal
    assign elem        = mem_rsp_i.data;
    assign gather_next = gather_q;
  end else begin : gen_wide
    // Beats are shifted in from the top, so the first beat ends in the lowest bits (lane 0).
    assign elem        = {mem_rsp_i.data, gather_q[ElemBits-1:BusWidth]};
    assign gather_next = elem;
  end

  // ---- SRAM writer: walks the padded block ----------------------------------------------------
  logic [MemopSizeBitWidth+4:0] wr_row_q, wr_col_q;
  logic [SramAddrW:0]           wr_addr_q;
  logic                         pad, write, last_write;
  // The padded block's bounds, taken as the instruction starts (no adder in a cycle's writer logic):
  // where the data rows and columns end, the last row and column.
  logic [MemopSizeBitWidth+4:0] y_end_q, x_end_q, last_row_q, last_col_q;

  // The SRAM word of an element: itself, or (Widen) its bytes sign-extended to 32-bit lanes. Written
  // as wires rather than a function: a simulator then copies no temporaries of the word's width.
  logic [SramWidth-1:0] elem_word;
  if (Widen) begin : gen_widen
    for (genvar l = 0; l < ElemBytes; l++) begin : gen_lane
      assign elem_word[l * 32 +: 32] = 32'(signed'(elem[l * 8 +: 8]));
    end
  end else begin : gen_same
    assign elem_word = elem;
  end

  // The cycle's decisions and the outputs. An idle loader (most cycles of a program) drives nothing
  // and decides nothing: every term is evaluated under active_q, so a simulator skips the lot then.
  always_comb begin
    mem_req_o.cmd_valid  = 1'b0;
    mem_req_o.cmd.addr   = cmd_addr_q;
    mem_req_o.cmd.bytes  = 32'(insn_q.x_size) * ElemBytes;
    mem_req_o.data_ready = 1'b0;
    cmd_go      = 1'b0;
    elem_valid  = 1'b0;
    gather_en   = 1'b0;
    pad         = 1'b1;
    elem_take   = 1'b0;
    ext_row_end = 1'b0;
    write       = 1'b0;
    last_write  = 1'b0;
    if (active_q) begin
      // Commands.
      mem_req_o.cmd_valid = cmd_row_q != insn_q.y_size;
      cmd_go = mem_req_o.cmd_valid && mem_rsp_i.cmd_ready;

      // Element extraction from the beat stream.
      if (Narrow) begin
        // The element in slot slot_q of the current beat; the beat is released after the row's last
        // element or the beat's last slot.
        elem_valid = mem_rsp_i.data_valid && ext_row_q != insn_q.y_size;
      end else begin
        // A wide element completes with its last beat; earlier beats are gathered.
        elem_valid = mem_rsp_i.data_valid && ext_row_q != insn_q.y_size && beat_q == BeatW'(BeatsPerElem - 1);
        gather_en  = mem_rsp_i.data_valid && ext_row_q != insn_q.y_size && beat_q != BeatW'(BeatsPerElem - 1);
        if (gather_en) mem_req_o.data_ready = 1'b1;
      end

      // Writer: pads are written at once; data positions wait for an element.
      pad        = wr_row_q < (MemopSizeBitWidth + 5)'(insn_q.y_pad_0) || wr_row_q >= y_end_q ||
                   wr_col_q < (MemopSizeBitWidth + 5)'(insn_q.x_pad_0) || wr_col_q >= x_end_q;
      elem_take  = !pad && elem_valid;
      write      = pad || elem_valid;
      last_write = wr_row_q == last_row_q && wr_col_q == last_col_q;

      // The extractor's element is written: release its beat when the row or the beat ends.
      ext_row_end = ext_col_q + 1'b1 == insn_q.x_size;
      if (elem_take) begin
        if (ext_row_end || !Narrow || slot_q == SlotW'(SlotsPerBeat - 1)) mem_req_o.data_ready = 1'b1;
      end
    end
    sram_we_o    = write;
    sram_waddr_o = wr_addr_q[SramAddrW-1:0];
    sram_wdata_o = pad ? '0 : elem_word;
    busy_o       = active_q;
  end

  // the last beat's share of gather_q is never read; nor are the fields of insn_q read only as the
  // instruction starts (from insn_i: its opcode, memory type, buffer and DRAM bases)
  logic unused_signals;
  assign unused_signals = |ext_addr_q[0] ^ (|gather_q) ^ (|insn_q);

  // The gathered beats change only when a beat arrives (an enable, not a copy every cycle: the
  // register is a whole element wide).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) gather_q <= '0;
    else if (gather_en) gather_q <= gather_next;
  end

  // The state changes here only when the loader starts or moves (no next-state copies: an idle loader
  // costs a simulator one test).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      insn_q     <= '0;
      active_q   <= 1'b0;
      cmd_row_q  <= '0;
      cmd_addr_q <= '0;
      ext_row_q  <= '0;
      ext_col_q  <= '0;
      ext_addr_q <= '0;
      slot_q     <= '0;
      beat_q     <= '0;
      wr_row_q   <= '0;
      wr_col_q   <= '0;
      wr_addr_q  <= '0;
      y_end_q    <= '0;
      x_end_q    <= '0;
      last_row_q <= '0;
      last_col_q <= '0;
    end else if (!active_q) begin
      if (start_i) begin
        insn_q     <= insn_i;
        // x_size = 0 is a no-op; so is a block with no rows at all (nothing to write).
        active_q   <= insn_i.x_size != '0 && (insn_i.y_size != '0 || insn_i.y_pad_0 != '0 || insn_i.y_pad_1 != '0);
        {cmd_row_q, ext_row_q, ext_col_q, beat_q, wr_row_q, wr_col_q} <= '0;
        cmd_addr_q <= first_addr(insn_i.dram_base);
        ext_addr_q <= first_addr(insn_i.dram_base);
        slot_q     <= first_slot(insn_i.dram_base);
        wr_addr_q  <= (SramAddrW + 1)'(insn_i.sram_base);
        y_end_q    <= (MemopSizeBitWidth + 5)'(insn_i.y_pad_0) + (MemopSizeBitWidth + 5)'(insn_i.y_size);
        x_end_q    <= (MemopSizeBitWidth + 5)'(insn_i.x_pad_0) + (MemopSizeBitWidth + 5)'(insn_i.x_size);
        last_row_q <= (MemopSizeBitWidth + 5)'(insn_i.y_pad_0) + (MemopSizeBitWidth + 5)'(insn_i.y_size) +
                      (MemopSizeBitWidth + 5)'(insn_i.y_pad_1) - 1'b1;
        last_col_q <= (MemopSizeBitWidth + 5)'(insn_i.x_pad_0) + (MemopSizeBitWidth + 5)'(insn_i.x_size) +
                      (MemopSizeBitWidth + 5)'(insn_i.x_pad_1) - 1'b1;
      end
    end else begin
      if (cmd_go) begin
        cmd_row_q  <= cmd_row_q + 1'b1;
        cmd_addr_q <= cmd_addr_q + AddrW'(insn_q.x_stride) * ElemBytes;
      end
      if (gather_en) beat_q <= beat_q + 1'b1;
      if (write) begin
        wr_addr_q <= wr_addr_q + 1'b1;
        if (wr_col_q == last_col_q) begin
          wr_col_q <= '0;
          wr_row_q <= wr_row_q + 1'b1;
        end else begin
          wr_col_q <= wr_col_q + 1'b1;
        end
        if (last_write) active_q <= 1'b0;
      end
      // Advance the extractor when its element is written.
      if (elem_take) begin
        beat_q <= '0;
        if (ext_row_end) begin
          ext_col_q  <= '0;
          ext_row_q  <= ext_row_q + 1'b1;
          ext_addr_q <= ext_addr_q + AddrW'(insn_q.x_stride) * ElemBytes;
          if (Narrow) slot_q <= slot_of(LowW'(ext_addr_q + AddrW'(insn_q.x_stride) * ElemBytes));
        end else begin
          ext_col_q <= ext_col_q + 1'b1;
          if (Narrow) slot_q <= slot_q + 1'b1;
        end
      end
    end
  end

  // every kind of padding, and a narrow row starting in the middle of a bus beat
  `VTA_COVER(PadTop, start_i && !active_q && insn_i.x_size != '0 && insn_i.y_pad_0 != '0)
  `VTA_COVER(PadBottom, start_i && !active_q && insn_i.x_size != '0 && insn_i.y_pad_1 != '0)
  `VTA_COVER(PadLeft, start_i && !active_q && insn_i.x_size != '0 && insn_i.x_pad_0 != '0)
  `VTA_COVER(PadRight, start_i && !active_q && insn_i.x_size != '0 && insn_i.x_pad_1 != '0)
  `VTA_COVER(StridedRows, start_i && !active_q && insn_i.y_size > MemopSizeBitWidth'(1) &&
                          insn_i.x_stride != MemopStrideBitWidth'(insn_i.x_size))
  if (Narrow) begin : gen_narrow_cover
    `VTA_COVER(RowStartsMidBeat, active_q && ext_row_q != insn_q.y_size && ext_col_q == '0 && slot_q != '0)
  end
endmodule : vta_tensor_load
