// VTA instruction-set types for the RTL. Every width and every field position comes from the
// generated vta_config_pkg (itself printed from config/vta_config.json by vta-config, with field
// positions from the same layout engine the C++ encoder uses).
package vta_pkg;
  import vta_config_pkg::*;

  typedef logic [InsWidth-1:0] insn_t;
  typedef logic [UopWidth-1:0] uop_word_t;

  typedef enum logic [OpcodeBitWidth-1:0] {
    OpLoad   = OpcodeBitWidth'(OpcodeLoad),
    OpStore  = OpcodeBitWidth'(OpcodeStore),
    OpGemm   = OpcodeBitWidth'(OpcodeGemm),
    OpFinish = OpcodeBitWidth'(OpcodeFinish),
    OpAlu    = OpcodeBitWidth'(OpcodeAlu)
  } opcode_e;

  typedef enum logic [MemopIdBitWidth-1:0] {
    MemUop     = MemopIdBitWidth'(MemIdUop),
    MemWgt     = MemopIdBitWidth'(MemIdWgt),
    MemInp     = MemopIdBitWidth'(MemIdInp),
    MemAcc     = MemopIdBitWidth'(MemIdAcc),
    MemOut     = MemopIdBitWidth'(MemIdOut),
    MemAcc8Bit = MemopIdBitWidth'(MemIdAcc8bit)
  } mem_id_e;

  typedef enum logic [AluOpcodeBitWidth-1:0] {
    AluMin = AluOpcodeBitWidth'(AluOpcodeMin),
    AluMax = AluOpcodeBitWidth'(AluOpcodeMax),
    AluAdd = AluOpcodeBitWidth'(AluOpcodeAdd),
    AluShr = AluOpcodeBitWidth'(AluOpcodeShr),
    AluMul = AluOpcodeBitWidth'(AluOpcodeMul)
  } alu_op_e;

  // The four dependency-token flags of every instruction.
  typedef struct packed {
    logic pop_prev;
    logic pop_next;
    logic push_prev;
    logic push_next;
  } deps_t;

  // LOAD / STORE, decoded.
  typedef struct packed {
    logic [MemopIdBitWidth-1:0]       mem_type;
    logic [MemopSramAddrBitWidth-1:0] sram_base;
    logic [MemopDramAddrBitWidth-1:0] dram_base;
    logic [MemopSizeBitWidth-1:0]     y_size;
    logic [MemopSizeBitWidth-1:0]     x_size;
    logic [MemopStrideBitWidth-1:0]   x_stride;
    logic [MemopPadBitWidth-1:0]      y_pad_0;
    logic [MemopPadBitWidth-1:0]      y_pad_1;
    logic [MemopPadBitWidth-1:0]      x_pad_0;
    logic [MemopPadBitWidth-1:0]      x_pad_1;
  } mem_insn_t;

  // A LOAD or STORE's padded block, (y_pad_0 + y_size + y_pad_1) rows of (x_pad_0 + x_size + x_pad_1)
  // elements: each dimension a size plus two pads. InsnCheckKeep: the width of what fetch keeps beside
  // each instruction for vta_insn_check (a block's two dimensions in synthesis, the verdict in
  // simulation).
  localparam int unsigned BlockDimWidth = (MemopPadBitWidth < MemopSizeBitWidth) ? MemopSizeBitWidth + 1 :
                                                                                  MemopPadBitWidth + 2;
  localparam int unsigned InsnCheckKeep = 2 * BlockDimWidth;

  // GEMM and ALU share the micro-op loop; source factors are as wide as the wider index space.
  typedef struct packed {
    logic                         reset;
    logic [LogUopBuffDepth-1:0]   uop_bgn;
    logic [LogUopBuffDepth:0]     uop_end;
    logic [LoopIterWidth-1:0]     iter_out;
    logic [LoopIterWidth-1:0]     iter_in;
    logic [LogAccBuffDepth-1:0]   dst_factor_out;
    logic [LogAccBuffDepth-1:0]   dst_factor_in;
    logic [UopSrcIdxBits-1:0]     src_factor_out;
    logic [UopSrcIdxBits-1:0]     src_factor_in;
    logic [LogWgtBuffDepth-1:0]   wgt_factor_out;   // GEMM only
    logic [LogWgtBuffDepth-1:0]   wgt_factor_in;    // GEMM only
    logic [AluOpcodeBitWidth-1:0] alu_opcode;       // ALU only
    logic                         use_imm;          // ALU only
    logic [AluopImmBitWidth-1:0]  imm;              // ALU only, two's complement
  } loop_insn_t;

  typedef struct packed {
    logic [LogAccBuffDepth-1:0] dst;
    logic [UopSrcIdxBits-1:0]   src;
    logic [LogWgtBuffDepth-1:0] wgt;
  } uop_t;

  // The decoders build each struct as a concatenation in its field order (Yosys 0.23 reads neither
  // assignment patterns nor members written in a function); every field is sized to its struct width.
  //
  // The load, compute and store stages decode their queue's head as vta_insn_head shows it: in
  // simulation the flags only while the stage is idle with a valid head, the rest only in the cycle
  // it starts (zeros otherwise), so a simulator skips the decoders in every other cycle.
  function automatic opcode_e insn_opcode(insn_t insn);
    insn_opcode = opcode_e'(insn[MemOpcodeLsb +: MemOpcodeWidth]);
  endfunction

  function automatic deps_t insn_deps(insn_t insn);
    insn_deps = {insn[MemPopPrevDepLsb], insn[MemPopNextDepLsb], insn[MemPushPrevDepLsb], insn[MemPushNextDepLsb]};
  endfunction

  function automatic mem_insn_t decode_mem(insn_t insn);
    decode_mem = {MemopIdBitWidth'(insn[MemMemoryTypeLsb +: MemMemoryTypeWidth]),
                  MemopSramAddrBitWidth'(insn[MemSramBaseLsb +: MemSramBaseWidth]),
                  MemopDramAddrBitWidth'(insn[MemDramBaseLsb +: MemDramBaseWidth]),
                  MemopSizeBitWidth'(insn[MemYSizeLsb +: MemYSizeWidth]),
                  MemopSizeBitWidth'(insn[MemXSizeLsb +: MemXSizeWidth]),
                  MemopStrideBitWidth'(insn[MemXStrideLsb +: MemXStrideWidth]),
                  MemopPadBitWidth'(insn[MemYPad0Lsb +: MemYPad0Width]),
                  MemopPadBitWidth'(insn[MemYPad1Lsb +: MemYPad1Width]),
                  MemopPadBitWidth'(insn[MemXPad0Lsb +: MemXPad0Width]),
                  MemopPadBitWidth'(insn[MemXPad1Lsb +: MemXPad1Width])};
  endfunction

  function automatic loop_insn_t decode_gemm(insn_t insn);
    decode_gemm = {insn[GemmResetRegLsb],
                   LogUopBuffDepth'(insn[GemmUopBgnLsb +: GemmUopBgnWidth]),
                   (LogUopBuffDepth + 1)'(insn[GemmUopEndLsb +: GemmUopEndWidth]),
                   LoopIterWidth'(insn[GemmIterOutLsb +: GemmIterOutWidth]),
                   LoopIterWidth'(insn[GemmIterInLsb +: GemmIterInWidth]),
                   LogAccBuffDepth'(insn[GemmDstFactorOutLsb +: GemmDstFactorOutWidth]),
                   LogAccBuffDepth'(insn[GemmDstFactorInLsb +: GemmDstFactorInWidth]),
                   UopSrcIdxBits'(insn[GemmSrcFactorOutLsb +: GemmSrcFactorOutWidth]),
                   UopSrcIdxBits'(insn[GemmSrcFactorInLsb +: GemmSrcFactorInWidth]),
                   LogWgtBuffDepth'(insn[GemmWgtFactorOutLsb +: GemmWgtFactorOutWidth]),
                   LogWgtBuffDepth'(insn[GemmWgtFactorInLsb +: GemmWgtFactorInWidth]),
                   AluOpcodeBitWidth'(0), 1'b0, AluopImmBitWidth'(0)};  // the ALU's fields
  endfunction

  function automatic loop_insn_t decode_alu(insn_t insn);
    decode_alu = {1'b0,  // reset
                  LogUopBuffDepth'(insn[AluUopBgnLsb +: AluUopBgnWidth]),
                  (LogUopBuffDepth + 1)'(insn[AluUopEndLsb +: AluUopEndWidth]),
                  LoopIterWidth'(insn[AluIterOutLsb +: AluIterOutWidth]),
                  LoopIterWidth'(insn[AluIterInLsb +: AluIterInWidth]),
                  LogAccBuffDepth'(insn[AluDstFactorOutLsb +: AluDstFactorOutWidth]),
                  LogAccBuffDepth'(insn[AluDstFactorInLsb +: AluDstFactorInWidth]),
                  UopSrcIdxBits'(insn[AluSrcFactorOutLsb +: AluSrcFactorOutWidth]),
                  UopSrcIdxBits'(insn[AluSrcFactorInLsb +: AluSrcFactorInWidth]),
                  LogWgtBuffDepth'(0), LogWgtBuffDepth'(0),  // the weight factors: GEMM only
                  AluOpcodeBitWidth'(insn[AluAluOpcodeLsb +: AluAluOpcodeWidth]),
                  insn[AluUseImmLsb],
                  AluopImmBitWidth'(insn[AluImmLsb +: AluImmWidth])};
  endfunction

  function automatic uop_t decode_uop(uop_word_t word);
    decode_uop = {LogAccBuffDepth'(word[UopDstIdxLsb +: UopDstIdxWidth]),
                  UopSrcIdxBits'(word[UopSrcIdxLsb +: UopSrcIdxWidth]),
                  LogWgtBuffDepth'(word[UopWgtIdxLsb +: UopWgtIdxWidth])};
  endfunction

  // ---- SRAM ports between units (vta_ram_1r1w: registered read, data the cycle after re) --------
  typedef struct packed {
    logic                       re;
    logic [LogUopBuffDepth-1:0] addr;
  } uop_rd_t;
  typedef struct packed {
    logic                       re;
    logic [LogInpBuffDepth-1:0] addr;
  } inp_rd_t;
  typedef struct packed {
    logic                       re;
    logic [LogWgtBuffDepth-1:0] addr;
  } wgt_rd_t;
  typedef struct packed {  // the accumulator and the output buffer (same depth)
    logic                       re;
    logic [LogAccBuffDepth-1:0] addr;
  } acc_rd_t;
  typedef struct packed {
    logic                       we;
    logic [LogAccBuffDepth-1:0] addr;
    logic [AccMatrixWidth-1:0]  data;
  } acc_wr_t;
  typedef struct packed {
    logic                       we;
    logic [LogAccBuffDepth-1:0] addr;
    logic [OutMatrixWidth-1:0]  data;
  } out_wr_t;

  // ---- the memory clients' command/beat interface (docs/HARDWARE.md) ----------------------------
  // A client sends a command {byte address, byte count}; a read client then takes the bus-aligned
  // beats covering the range, a write client sends them (with strobes, `last` on the final beat) and
  // gets `ack` when the memory has taken them all. Each valid is held, its payload stable, until ready.
  localparam int unsigned MemAddrWidth = MemopDramAddrBitWidth + 8;  // byte addresses
  typedef struct packed {
    logic [MemAddrWidth-1:0] addr;
    logic [31:0]             bytes;
  } mem_cmd_t;
  typedef struct packed {  // read client -> memory engine
    logic     cmd_valid;
    mem_cmd_t cmd;
    logic     data_ready;
  } mem_rd_req_t;
  typedef struct packed {  // memory engine -> read client
    logic                cmd_ready;
    logic                data_valid;
    logic [BusWidth-1:0] data;
  } mem_rd_rsp_t;
  // The memory engine's read clients (0 fetch, 1 uop, 2 inp, 3 wgt, 4 acc): client i's request and
  // response are the low MemRdReqWidth / MemRdRspWidth bits of the i-th slot of these vectors, the
  // slots rounded up to whole 32-bit words (the bits between are zeros: a simulator copies a struct
  // in and out of a slot word by word instead of shifting every word). (Yosys 0.23 selects elements
  // of packed struct arrays wrongly and has no $bits of a type: the widths are stated here, and
  // vta_vme checks them against the structs at elaboration.)
  localparam int unsigned NumReadClients = 5;
  localparam int unsigned MemCmdWidth = MemAddrWidth + 32;            // $bits(mem_cmd_t)
  localparam int unsigned MemRdReqWidth = 1 + MemCmdWidth + 1;         // $bits(mem_rd_req_t)
  localparam int unsigned MemRdRspWidth = 2 + BusWidth;               // $bits(mem_rd_rsp_t)
  localparam int unsigned MemRdReqSlot = (MemRdReqWidth + 31) / 32 * 32;
  localparam int unsigned MemRdRspSlot = (MemRdRspWidth + 31) / 32 * 32;
  // Where the one-bit fields sit in a client's request and response (checked against the structs in
  // vta_vme): read from the vectors directly, they spare a simulator copying whole structs out.
  localparam int unsigned MemRdReqCmdValidBit = MemRdReqWidth - 1;  // the first (top) field
  localparam int unsigned MemRdReqDataReadyBit = 0;                 // the last field
  localparam int unsigned MemRdRspDataValidBit = BusWidth;          // just above the data
  typedef logic [NumReadClients*MemRdReqSlot-1:0] mem_rd_reqs_t;
  typedef logic [NumReadClients*MemRdRspSlot-1:0] mem_rd_rsps_t;
  typedef struct packed {  // write client -> memory engine
    logic                  cmd_valid;
    mem_cmd_t              cmd;
    logic                  data_valid;
    logic                  last;
    logic [BusWidth/8-1:0] strb;
    logic [BusWidth-1:0]   data;
  } mem_wr_req_t;
  typedef struct packed {  // memory engine -> write client
    logic cmd_ready;
    logic data_ready;
    logic ack;
  } mem_wr_rsp_t;

  // ---- AXI4 (memory master) and AXI4-Lite (control slave) channels --------------------------------
  // vta_top's ports stay flat, with the names IP packagers and the simulation controllers expect;
  // inside, each direction of each bus is one struct.
  localparam int unsigned AxiAddrWidth = 32;
  localparam int unsigned AxiIdWidth = 4;
  typedef struct packed {  // AR and AW
    logic [AxiIdWidth-1:0]   id;
    logic [AxiAddrWidth-1:0] addr;
    logic [7:0]              len;
    logic [2:0]              size;
    logic [1:0]              burst;
  } axi_ax_t;
  typedef struct packed {  // the data in the low bits
    logic [BusWidth/8-1:0] strb;
    logic                  last;
    logic [BusWidth-1:0]   data;
  } axi_w_t;
  typedef struct packed {  // the data in the low bits (word-aligned for a simulator's copies)
    logic [AxiIdWidth-1:0] id;
    logic [1:0]            resp;
    logic                  last;
    logic [BusWidth-1:0]   data;
  } axi_r_t;
  typedef struct packed {
    logic [AxiIdWidth-1:0] id;
    logic [1:0]            resp;
  } axi_b_t;
  typedef struct packed {  // master -> slave (the write data in the low bits)
    logic    aw_valid;
    axi_ax_t aw;
    logic    b_ready;
    logic    ar_valid;
    axi_ax_t ar;
    logic    r_ready;
    logic    w_valid;
    axi_w_t  w;
  } axi_req_t;
  typedef struct packed {  // slave -> master
    logic   aw_ready;
    logic   w_ready;
    logic   b_valid;
    axi_b_t b;
    logic   ar_ready;
    logic   r_valid;
    axi_r_t r;
  } axi_rsp_t;

  typedef struct packed {  // host -> registers (the write data in the low bits)
    logic        aw_valid;
    logic [11:0] aw_addr;
    logic        w_valid;
    logic [3:0]  w_strb;
    logic        b_ready;
    logic        ar_valid;
    logic [11:0] ar_addr;
    logic        r_ready;
    logic [31:0] w_data;
  } axil_req_t;
  typedef struct packed {  // registers -> host (the read data in the low bits)
    logic        aw_ready;
    logic        w_ready;
    logic        b_valid;
    logic [1:0]  b_resp;
    logic        ar_ready;
    logic        r_valid;
    logic [1:0]  r_resp;
    logic [31:0] r_data;
  } axil_rsp_t;

  // The module an instruction executes on (spec 4.4).
  typedef enum logic [1:0] {
    StageLoad    = 2'd1,
    StageCompute = 2'd2,
    StageStore   = 2'd3
  } stage_e;

  function automatic logic [1:0] insn_stage(insn_t insn);  // a stage_e (Yosys 0.23: no enum results)
    logic [MemopIdBitWidth-1:0] mem_type;
    mem_type = insn[MemMemoryTypeLsb +: MemMemoryTypeWidth];
    if (insn_opcode(insn) == OpStore) insn_stage = StageStore;
    else if (insn_opcode(insn) == OpLoad && (mem_type == MemInp || mem_type == MemWgt)) insn_stage = StageLoad;
    else insn_stage = StageCompute;
  endfunction

  // Read-after-write forwarding in the compute datapaths (vta_gemm, vta_alu). The accumulator SRAM
  // answers a read two cycles after it (its output register), and a read and a write of one address
  // in one cycle return the old word; so a word read at cycle t misses the writes at the ends of
  // cycles t, t + 1 and t + 2. When the word arrives (cycle t + 2) they are the write stage's (written
  // at the end of this cycle), the stage after it (written a cycle ago) and the next (two cycles ago):
  // the newest of them to the same address is the word, else the SRAM's. The choice is made on the
  // narrow addresses; each datapath copies the wide word it names once, where it uses it.
  localparam logic [1:0] FromSram = 2'd0;
  localparam logic [1:0] FromWriting = 2'd1;   // the write stage
  localparam logic [1:0] FromWritten1 = 2'd2;  // written a cycle ago
  localparam logic [1:0] FromWritten2 = 2'd3;  // written two cycles ago
  function automatic logic [1:0] forward_source(logic [LogAccBuffDepth-1:0] addr, logic v1,
                                                logic [LogAccBuffDepth-1:0] a1, logic v2,
                                                logic [LogAccBuffDepth-1:0] a2, logic v3,
                                                logic [LogAccBuffDepth-1:0] a3);
    if (v1 && a1 == addr) forward_source = FromWriting;
    else if (v2 && a2 == addr) forward_source = FromWritten1;
    else if (v3 && a3 == addr) forward_source = FromWritten2;
    else forward_source = FromSram;
  endfunction

endpackage : vta_pkg
