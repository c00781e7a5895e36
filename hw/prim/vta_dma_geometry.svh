// How one DRAM element of ElemBytes bytes sits on the BusWidth-bit memory bus, for the two tensor DMA
// engines (vta_tensor_load, vta_tensor_store): an element narrower than the bus shares its beat with
// SlotsPerBeat - 1 others and starts at slot slot_of(low address bits); a wider one takes BeatsPerElem
// whole beats. Read inside the module body; the module has ElemBytes and SramDepth as parameters and
// imports vta_config_pkg (BusWidth, MemopDramAddrBitWidth).
localparam int unsigned BusBytes = BusWidth / 8;
localparam int unsigned ElemBits = ElemBytes * 8;
localparam bit          Narrow = ElemBytes < BusBytes;
localparam int unsigned BeatsPerElem = Narrow ? 1 : ElemBytes / BusBytes;
localparam int unsigned SlotsPerBeat = Narrow ? BusBytes / ElemBytes : 1;
localparam int unsigned SlotW = (SlotsPerBeat > 1) ? $clog2(SlotsPerBeat) : 1;
localparam int unsigned BeatW = (BeatsPerElem > 1) ? $clog2(BeatsPerElem) : 1;
localparam int unsigned AddrW = MemopDramAddrBitWidth + 8;  // byte addresses
localparam int unsigned LowW = $clog2(BusBytes);             // the byte within a beat
localparam int unsigned SramAddrW = $clog2(SramDepth);
typedef logic [AddrW-1:0] addr_t;

// Which slot of its beat a narrow element falls in, from the low bits of its byte address.
function automatic logic [SlotW-1:0] slot_of(logic [LowW-1:0] low);
  slot_of = SlotW'(low >> $clog2(ElemBytes));
endfunction

// The byte address of the element at dram_base (an instruction's first), and (narrow elements) its slot.
function automatic addr_t first_addr(logic [MemopDramAddrBitWidth-1:0] dram_base);
  first_addr = AddrW'(dram_base) * ElemBytes;
endfunction
function automatic logic [SlotW-1:0] first_slot(logic [MemopDramAddrBitWidth-1:0] dram_base);
  first_slot = Narrow ? slot_of(LowW'(first_addr(dram_base))) : '0;
endfunction
