// Whether an instruction is one its stage runs, decided in fetch before the instruction is queued:
// the stage refuses what this calls illegal (error_o; the stage stops) with nothing of the check
// between its queue's head and its start (docs/HARDWARE.md). The rules, per stage (spec 3.6, 4.4; the
// fsim's validator, driver/src/program.cc, states the same ones):
//   load     LOAD INP or WGT (the only instructions routed there) whose padded block fits its buffer
//   compute  LOAD UOP, ACC or ACC_8BIT whose padded block fits its buffer; GEMM and ALU with nonzero
//            iterations and a non-empty micro-op range inside the micro-op buffer, the ALU with an
//            opcode up to MUL; FINISH
//   store    any with x_size 0; else OUT, without padding, fitting the output buffer
// A block fits when x_size is 0 or sram_base + rows * cols <= the buffer's depth.
//
// Fetch keeps what this cell gives it (kept_o) beside each instruction in its buffer and hands it back
// with the instruction as it leaves (kept_i). In synthesis that is the block's rows and columns, summed
// as the instruction enters, so that neither step is long: the multiply and the comparisons are done
// as it leaves. A simulator decides the whole verdict once, as the instruction enters, and keeps the
// verdict: it would otherwise decide it again in every cycle fetch holds an instruction for a full
// queue (the convolution's whole run). SimForm chooses (default: vta_sim_form.svh). The same rule
// (`legal`) either way; HwFetch runs both texts, and hw/formal's set sim_forms proves them equal.
`include "vta_sim_form.svh"

module vta_insn_check
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter bit SimForm = `VTA_SIM_FORM
) (
  // an instruction entering fetch's buffer, and what the buffer keeps beside it
  input  logic                       new_en_i,  // one enters this cycle
  input  insn_t                      new_insn_i,
  output logic [InsnCheckKeep-1:0]   kept_o,
  // the instruction leaving the buffer, with what was kept for it, and the verdict
  input  insn_t                      insn_i,
  input  logic [InsnCheckKeep-1:0]   kept_i,
  output logic                       legal_o
);
  localparam int unsigned DimW = BlockDimWidth;
  localparam int unsigned NeedWidth = 2 * DimW + 1;  // sram_base + rows * cols, with its carry

  function automatic logic [DimW-1:0] block_rows(insn_t insn);
    block_rows = DimW'(insn[MemYPad0Lsb +: MemYPad0Width]) + DimW'(insn[MemYSizeLsb +: MemYSizeWidth]) +
                 DimW'(insn[MemYPad1Lsb +: MemYPad1Width]);
  endfunction
  function automatic logic [DimW-1:0] block_cols(insn_t insn);
    block_cols = DimW'(insn[MemXPad0Lsb +: MemXPad0Width]) + DimW'(insn[MemXSizeLsb +: MemXSizeWidth]) +
                 DimW'(insn[MemXPad1Lsb +: MemXPad1Width]);
  endfunction

  // The rule, from the instruction's own bits and its block's rows and columns.
  function automatic logic legal(insn_t insn, logic [DimW-1:0] rows, logic [DimW-1:0] cols);
    logic [OpcodeBitWidth-1:0]  op;
    logic [MemopIdBitWidth-1:0] mem_type;
    logic                       no_x, unpadded, fits, loop_ok;
    logic [NeedWidth-1:0]       need, depth;
    logic [LogUopBuffDepth:0]   uop_bgn, uop_end;
    logic [LoopIterWidth-1:0]   iter_out, iter_in;
    op       = insn[MemOpcodeLsb +: MemOpcodeWidth];
    mem_type = MemopIdBitWidth'(insn[MemMemoryTypeLsb +: MemMemoryTypeWidth]);
    no_x     = insn[MemXSizeLsb +: MemXSizeWidth] == '0;
    unpadded = insn[MemXPad0Lsb +: MemXPad0Width] == '0 && insn[MemXPad1Lsb +: MemXPad1Width] == '0 &&
               insn[MemYPad0Lsb +: MemYPad0Width] == '0 && insn[MemYPad1Lsb +: MemYPad1Width] == '0;
    if (mem_type == MemInp) depth = NeedWidth'(InpBuffDepth);
    else if (mem_type == MemWgt) depth = NeedWidth'(WgtBuffDepth);
    else if (mem_type == MemUop) depth = NeedWidth'(UopBuffDepth);
    else depth = NeedWidth'(AccBuffDepth);  // ACC, ACC_8BIT and OUT: the accumulator's depth
    need = NeedWidth'(insn[MemSramBaseLsb +: MemSramBaseWidth]) + NeedWidth'(rows * cols);
    fits = no_x || need <= depth;
    // GEMM and ALU keep their loop fields in places of their own
    uop_bgn  = (op == OpAlu) ? (LogUopBuffDepth + 1)'(insn[AluUopBgnLsb +: AluUopBgnWidth]) :
                               (LogUopBuffDepth + 1)'(insn[GemmUopBgnLsb +: GemmUopBgnWidth]);
    uop_end  = (op == OpAlu) ? (LogUopBuffDepth + 1)'(insn[AluUopEndLsb +: AluUopEndWidth]) :
                               (LogUopBuffDepth + 1)'(insn[GemmUopEndLsb +: GemmUopEndWidth]);
    iter_out = (op == OpAlu) ? LoopIterWidth'(insn[AluIterOutLsb +: AluIterOutWidth]) :
                               LoopIterWidth'(insn[GemmIterOutLsb +: GemmIterOutWidth]);
    iter_in  = (op == OpAlu) ? LoopIterWidth'(insn[AluIterInLsb +: AluIterInWidth]) :
                               LoopIterWidth'(insn[GemmIterInLsb +: GemmIterInWidth]);
    loop_ok  = iter_out != '0 && iter_in != '0 && uop_end > uop_bgn && 32'(uop_end) <= UopBuffDepth;
    if (op == OpLoad) begin
      legal = (mem_type == MemInp || mem_type == MemWgt || mem_type == MemUop || mem_type == MemAcc ||
               mem_type == MemAcc8Bit) && fits;
    end else if (op == OpStore) begin
      legal = no_x || (mem_type == MemOut && unpadded && fits);
    end else if (op == OpGemm) begin
      legal = loop_ok;
    end else if (op == OpAlu) begin
      legal = loop_ok && 32'(insn[AluAluOpcodeLsb +: AluAluOpcodeWidth]) <= AluOpcodeMul;
    end else begin
      legal = op == OpFinish;
    end
  endfunction

  if (SimForm) begin : gen_sim  // the verdict as the instruction enters
    (* nolatches *)  // (for hw/formal's side-by-side proof, as in vta_insn_head)
    always_comb begin
      kept_o = '0;
      if (new_en_i) kept_o[0] = legal(new_insn_i, block_rows(new_insn_i), block_cols(new_insn_i));
    end
    assign legal_o = kept_i[0];
  end else begin : gen_synth  // the block's size as it enters, the verdict as it leaves
    assign kept_o  = {block_cols(new_insn_i), block_rows(new_insn_i)};
    assign legal_o = legal(insn_i, kept_i[DimW-1:0], kept_i[2*DimW-1:DimW]);
  end
endmodule : vta_insn_check
