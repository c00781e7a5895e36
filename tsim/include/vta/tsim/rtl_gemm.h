#pragma once
/// \file vta/tsim/rtl_gemm.h
/// The DPI function behind vta_gemm's dot products in the tsim (hw/rtl/vta_gemm.sv, with
/// VTA_GEMM_DPI defined): the function the RTL's loop nest describes.

#include <cstdint>

/// `dots[b * block_out + o]` = sum over c of inp[b][c] * wgt[o][c], the elements signed, of
/// `inp_width` / `wgt_width` bits (at most 32) packed from bit 0 of the 32-bit words `inp`
/// (batch x block_in) and `wgt` (block_out x block_in); products and sum modulo 2^32.
extern "C" void vta_gemm_dot(int batch, int block_in, int block_out, int inp_width, int wgt_width, const uint32_t* inp,
                             const uint32_t* wgt, uint32_t* dots);
