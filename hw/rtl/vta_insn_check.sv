// Whether an instruction is one its stage runs, decided in fetch before the instruction is queued:
// the stage refuses what this calls illegal (error_o; the stage stops) with nothing of the check
// between its queue's head and its start (docs/HARDWARE.md, "Timing"). The rules, per stage (spec
// 3.6, 4.4; the fsim's validator, driver/src/program.cc, states the same ones):
//   load     LOAD INP or WGT (the only instructions routed there) whose padded block fits its buffer
//   compute  LOAD UOP, ACC or ACC_8BIT whose padded block fits its buffer; GEMM and ALU with nonzero
//            iterations and a non-empty micro-op range inside the micro-op buffer, the ALU with an
//            opcode up to MUL; FINISH
//   store    any with x_size 0; else OUT, without padding, fitting the output buffer
// A block fits when x_size is 0 or sram_base + rows * cols <= the buffer's depth. Its rows and cols
// (sizes with their pads) come with the instruction, summed when it entered fetch's buffer
// (block_rows, block_cols): what is left here is one multiply and a comparison.
module vta_insn_check
  import vta_config_pkg::*;
  import vta_pkg::*;
(
  input  insn_t                    insn_i,
  input  logic [BlockDimWidth-1:0] rows_i,
  input  logic [BlockDimWidth-1:0] cols_i,
  output logic                     legal_o
);
  localparam int unsigned NeedWidth = 2 * BlockDimWidth + 1;  // sram_base + rows * cols, with its carry

  opcode_e                    op;
  logic [1:0]                 stage;  // a stage_e
  mem_insn_t                  m;
  loop_insn_t                 g, a;
  logic [2*BlockDimWidth-1:0] area;
  logic [NeedWidth-1:0]       need, depth;
  logic                       fits, unpadded;

  always_comb begin
    op    = insn_opcode(insn_i);
    stage = insn_stage(insn_i);
    m = decode_mem(insn_i);
    g = decode_gemm(insn_i);
    a = decode_alu(insn_i);
    unique case (m.mem_type)
      MemInp:  depth = NeedWidth'(InpBuffDepth);
      MemWgt:  depth = NeedWidth'(WgtBuffDepth);
      MemUop:  depth = NeedWidth'(UopBuffDepth);
      default: depth = NeedWidth'(AccBuffDepth);  // ACC, ACC_8BIT and OUT: the accumulator's depth
    endcase
    area     = rows_i * cols_i;
    need     = NeedWidth'(m.sram_base) + NeedWidth'(area);
    fits     = m.x_size == '0 || need <= depth;
    unpadded = m.x_pad_0 == '0 && m.x_pad_1 == '0 && m.y_pad_0 == '0 && m.y_pad_1 == '0;
    unique case (stage)
      StageLoad:  legal_o = fits;
      StageStore: legal_o = m.x_size == '0 || (m.mem_type == MemOut && unpadded && fits);
      default: begin
        unique case (op)
          OpLoad:   legal_o = (m.mem_type == MemUop || m.mem_type == MemAcc || m.mem_type == MemAcc8Bit) && fits;
          OpGemm:   legal_o = g.iter_out != '0 && g.iter_in != '0 && g.uop_end > {1'b0, g.uop_bgn} &&
                              32'(g.uop_end) <= UopBuffDepth;
          OpAlu:    legal_o = a.iter_out != '0 && a.iter_in != '0 && a.uop_end > {1'b0, a.uop_bgn} &&
                              32'(a.uop_end) <= UopBuffDepth && 32'(a.alu_opcode) <= AluOpcodeMul;
          OpFinish: legal_o = 1'b1;
          default:  legal_o = 1'b0;
        endcase
      end
    endcase
  end

  // the instructions' other fields (addresses, strides, factors, flags) are not checked here
  logic unused_fields;
  assign unused_fields = ^{m.dram_base, m.x_stride, m.y_size, g.reset, g.dst_factor_out, g.dst_factor_in,
                           g.src_factor_out, g.src_factor_in, g.wgt_factor_out, g.wgt_factor_in, g.alu_opcode,
                           g.use_imm, g.imm, a.reset, a.dst_factor_out, a.dst_factor_in, a.src_factor_out,
                           a.src_factor_in, a.wgt_factor_out, a.wgt_factor_in, a.use_imm, a.imm};
endmodule : vta_insn_check
