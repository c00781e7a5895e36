#ifndef VTA_HW_SPEC_H_
#define VTA_HW_SPEC_H_
/* vta/hw_spec.h: the VTA instruction and micro-op types as C bit-fields, source compatible with the
 * reference header. Every width comes from the generated vta/hw_config.h (built from
 * config/vta_config.json); the C++ encoder in vta/driver/isa.h computes the same layout at run time. */

#include <stdint.h>

#include "vta/hw_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bit ranges of the micro-op fields (inclusive), as the reference names them. */
#define VTA_UOP_GEM_0_0 0
#define VTA_UOP_GEM_0_1 (VTA_UOP_GEM_0_0 + VTA_LOG_ACC_BUFF_DEPTH - 1)
#define VTA_UOP_GEM_1_0 (VTA_UOP_GEM_0_1 + 1)
#define VTA_UOP_GEM_1_1 (VTA_UOP_GEM_1_0 + VTA_UOP_SRC_IDX_BITS - 1)
#define VTA_UOP_GEM_2_0 (VTA_UOP_GEM_1_1 + 1)
#define VTA_UOP_GEM_2_1 (VTA_UOP_GEM_2_0 + VTA_LOG_WGT_BUFF_DEPTH - 1)
#define VTA_UOP_ALU_0_0 0
#define VTA_UOP_ALU_0_1 (VTA_UOP_ALU_0_0 + VTA_LOG_ACC_BUFF_DEPTH - 1)
#define VTA_UOP_ALU_1_0 (VTA_UOP_ALU_0_1 + 1)
#define VTA_UOP_ALU_1_1 (VTA_UOP_ALU_1_0 + VTA_UOP_SRC_IDX_BITS - 1)

/* Fields shared by every instruction: opcode and the four dependency-token flags. */
typedef struct {
  uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
  uint64_t pop_prev_dep : 1;
  uint64_t pop_next_dep : 1;
  uint64_t push_prev_dep : 1;
  uint64_t push_next_dep : 1;
  uint64_t pad_0 : 64 - VTA_OPCODE_BIT_WIDTH - 4;
  uint64_t pad_1 : 64;
} VTAGenericInsn;

/* LOAD / STORE: a 2D strided transfer of y_size rows of x_size elements with zero padding. */
typedef struct {
  uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
  uint64_t pop_prev_dep : 1;
  uint64_t pop_next_dep : 1;
  uint64_t push_prev_dep : 1;
  uint64_t push_next_dep : 1;
  uint64_t memory_type : VTA_MEMOP_ID_BIT_WIDTH;
  uint64_t sram_base : VTA_MEMOP_SRAM_ADDR_BIT_WIDTH;
  uint64_t dram_base : VTA_MEMOP_DRAM_ADDR_BIT_WIDTH;
  uint64_t y_size : VTA_MEMOP_SIZE_BIT_WIDTH;
  uint64_t x_size : VTA_MEMOP_SIZE_BIT_WIDTH;
  uint64_t x_stride : VTA_MEMOP_STRIDE_BIT_WIDTH;
  uint64_t y_pad_0 : VTA_MEMOP_PAD_BIT_WIDTH;
  uint64_t y_pad_1 : VTA_MEMOP_PAD_BIT_WIDTH;
  uint64_t x_pad_0 : VTA_MEMOP_PAD_BIT_WIDTH;
  uint64_t x_pad_1 : VTA_MEMOP_PAD_BIT_WIDTH;
} VTAMemInsn;

/* GEMM: micro-ops [uop_bgn, uop_end) run inside an iter_out x iter_in loop with affine index factors. */
typedef struct {
  uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
  uint64_t pop_prev_dep : 1;
  uint64_t pop_next_dep : 1;
  uint64_t push_prev_dep : 1;
  uint64_t push_next_dep : 1;
  uint64_t reset_reg : 1;
  uint64_t uop_bgn : VTA_LOG_UOP_BUFF_DEPTH;
  uint64_t uop_end : VTA_LOG_UOP_BUFF_DEPTH + 1;
  uint64_t iter_out : VTA_LOOP_ITER_WIDTH;
  uint64_t iter_in : VTA_LOOP_ITER_WIDTH;
  uint64_t dst_factor_out : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t dst_factor_in : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t src_factor_out : VTA_LOG_INP_BUFF_DEPTH;
  uint64_t src_factor_in : VTA_LOG_INP_BUFF_DEPTH;
  uint64_t wgt_factor_out : VTA_LOG_WGT_BUFF_DEPTH;
  uint64_t wgt_factor_in : VTA_LOG_WGT_BUFF_DEPTH;
} VTAGemInsn;

/* ALU: like GEMM, but both operands index the accumulator; imm is a signed 16-bit immediate. */
typedef struct {
  uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
  uint64_t pop_prev_dep : 1;
  uint64_t pop_next_dep : 1;
  uint64_t push_prev_dep : 1;
  uint64_t push_next_dep : 1;
  uint64_t reset_reg : 1;
  uint64_t uop_bgn : VTA_LOG_UOP_BUFF_DEPTH;
  uint64_t uop_end : VTA_LOG_UOP_BUFF_DEPTH + 1;
  uint64_t iter_out : VTA_LOOP_ITER_WIDTH;
  uint64_t iter_in : VTA_LOOP_ITER_WIDTH;
  uint64_t dst_factor_out : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t dst_factor_in : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t src_factor_out : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t src_factor_in : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t alu_opcode : VTA_ALU_OPCODE_BIT_WIDTH;
  uint64_t use_imm : 1;
  int64_t imm : VTA_ALUOP_IMM_BIT_WIDTH;
} VTAAluInsn;

/* Any instruction; FINISH is conventionally written through the gemm member. */
union VTAInsn {
  VTAGenericInsn generic;
  VTAMemInsn mem;
  VTAGemInsn gemm;
  VTAAluInsn alu;
};

/* A micro-op: accumulator index, source index (input for GEMM, accumulator for ALU), weight index. */
typedef struct {
  uint32_t dst_idx : VTA_LOG_ACC_BUFF_DEPTH;
  uint32_t src_idx : VTA_UOP_SRC_IDX_BITS;
  uint32_t wgt_idx : VTA_LOG_WGT_BUFF_DEPTH;
} VTAUop;

#ifdef __cplusplus
}
#endif
#endif /* VTA_HW_SPEC_H_ */
