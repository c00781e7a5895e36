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

  function automatic opcode_e insn_opcode(insn_t insn);
    return opcode_e'(insn[MemOpcodeLsb +: MemOpcodeWidth]);
  endfunction

  function automatic deps_t insn_deps(insn_t insn);
    deps_t d;
    d.pop_prev  = insn[MemPopPrevDepLsb];
    d.pop_next  = insn[MemPopNextDepLsb];
    d.push_prev = insn[MemPushPrevDepLsb];
    d.push_next = insn[MemPushNextDepLsb];
    return d;
  endfunction

  function automatic mem_insn_t decode_mem(insn_t insn);
    mem_insn_t m;
    m.mem_type  = insn[MemMemoryTypeLsb +: MemMemoryTypeWidth];
    m.sram_base = insn[MemSramBaseLsb +: MemSramBaseWidth];
    m.dram_base = insn[MemDramBaseLsb +: MemDramBaseWidth];
    m.y_size    = insn[MemYSizeLsb +: MemYSizeWidth];
    m.x_size    = insn[MemXSizeLsb +: MemXSizeWidth];
    m.x_stride  = insn[MemXStrideLsb +: MemXStrideWidth];
    m.y_pad_0   = insn[MemYPad0Lsb +: MemYPad0Width];
    m.y_pad_1   = insn[MemYPad1Lsb +: MemYPad1Width];
    m.x_pad_0   = insn[MemXPad0Lsb +: MemXPad0Width];
    m.x_pad_1   = insn[MemXPad1Lsb +: MemXPad1Width];
    return m;
  endfunction

  function automatic loop_insn_t decode_gemm(insn_t insn);
    loop_insn_t g;
    g = '0;
    g.reset          = insn[GemmResetRegLsb];
    g.uop_bgn        = insn[GemmUopBgnLsb +: GemmUopBgnWidth];
    g.uop_end        = insn[GemmUopEndLsb +: GemmUopEndWidth];
    g.iter_out       = insn[GemmIterOutLsb +: GemmIterOutWidth];
    g.iter_in        = insn[GemmIterInLsb +: GemmIterInWidth];
    g.dst_factor_out = insn[GemmDstFactorOutLsb +: GemmDstFactorOutWidth];
    g.dst_factor_in  = insn[GemmDstFactorInLsb +: GemmDstFactorInWidth];
    g.src_factor_out = UopSrcIdxBits'(insn[GemmSrcFactorOutLsb +: GemmSrcFactorOutWidth]);
    g.src_factor_in  = UopSrcIdxBits'(insn[GemmSrcFactorInLsb +: GemmSrcFactorInWidth]);
    g.wgt_factor_out = insn[GemmWgtFactorOutLsb +: GemmWgtFactorOutWidth];
    g.wgt_factor_in  = insn[GemmWgtFactorInLsb +: GemmWgtFactorInWidth];
    return g;
  endfunction

  function automatic loop_insn_t decode_alu(insn_t insn);
    loop_insn_t a;
    a = '0;
    a.uop_bgn        = insn[AluUopBgnLsb +: AluUopBgnWidth];
    a.uop_end        = insn[AluUopEndLsb +: AluUopEndWidth];
    a.iter_out       = insn[AluIterOutLsb +: AluIterOutWidth];
    a.iter_in        = insn[AluIterInLsb +: AluIterInWidth];
    a.dst_factor_out = insn[AluDstFactorOutLsb +: AluDstFactorOutWidth];
    a.dst_factor_in  = insn[AluDstFactorInLsb +: AluDstFactorInWidth];
    a.src_factor_out = UopSrcIdxBits'(insn[AluSrcFactorOutLsb +: AluSrcFactorOutWidth]);
    a.src_factor_in  = UopSrcIdxBits'(insn[AluSrcFactorInLsb +: AluSrcFactorInWidth]);
    a.alu_opcode     = insn[AluAluOpcodeLsb +: AluAluOpcodeWidth];
    a.use_imm        = insn[AluUseImmLsb];
    a.imm            = insn[AluImmLsb +: AluImmWidth];
    return a;
  endfunction

  function automatic uop_t decode_uop(uop_word_t word);
    uop_t u;
    u.dst = word[UopDstIdxLsb +: UopDstIdxWidth];
    u.src = word[UopSrcIdxLsb +: UopSrcIdxWidth];
    u.wgt = word[UopWgtIdxLsb +: UopWgtIdxWidth];
    return u;
  endfunction

  // The module an instruction executes on (spec 4.4).
  typedef enum logic [1:0] {
    StageLoad    = 2'd1,
    StageCompute = 2'd2,
    StageStore   = 2'd3
  } stage_e;

  function automatic stage_e insn_stage(insn_t insn);
    logic [MemopIdBitWidth-1:0] mem_type;
    mem_type = insn[MemMemoryTypeLsb +: MemMemoryTypeWidth];
    if (insn_opcode(insn) == OpStore) return StageStore;
    if (insn_opcode(insn) == OpLoad && (mem_type == MemInp || mem_type == MemWgt)) return StageLoad;
    return StageCompute;
  endfunction

endpackage : vta_pkg
