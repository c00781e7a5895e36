# Constraints of VTA's bitstream (hw/fpga/vta_project.tcl). VTA has no pins of its own: its ports are the
# PS's AXI ports, its clock the PS's fabric clock (FCLK_CLK0 / pl_clk0), whose period the PS IP
# constrains itself from the frequency the project sets; its reset comes from that clock's domain. So
# nothing here but the bitstream's own settings. Not run here (docs/FPGA.md).
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
