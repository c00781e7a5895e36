// The default of `SimForm`, the parameter of each cell that has two texts: one a simulator runs
// faster, one synthesis reads (vta_insn_head, vta_insn_check). 1 in a simulation, 0 where SYNTHESIS is
// defined (Yosys, Vivado, hw/formal). Each pair is proven equal where its users read it (hw/formal,
// set sim_forms, docs/FORMAL.md).
`ifndef VTA_SIM_FORM_SVH_
`define VTA_SIM_FORM_SVH_
`ifdef SYNTHESIS
`define VTA_SIM_FORM 1'b0
`else
`define VTA_SIM_FORM 1'b1
`endif
`endif  // VTA_SIM_FORM_SVH_
