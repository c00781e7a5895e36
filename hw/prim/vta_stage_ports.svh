// The ports every stage (vta_load, vta_compute, vta_store) has: its clock and reset, and the head of
// its instruction queue in fetch. Read inside the stage's port list; the stage imports vta_pkg.
input  logic                       clk_i,
input  logic                       rst_ni,
// instruction queue
input  logic                       insn_valid_i,
output logic                       insn_ready_o,
input  insn_t                      insn_i,
input  logic                       insn_legal_i,  // fetch's verdict on insn_i (vta_insn_check)
