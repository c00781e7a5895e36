# vta_project.tcl: the Vivado project, block design and bitstream of VTA for a board.
#
# NOT RUN HERE: Vivado is not in Debian, and this repository's CI has no board. What the test Fpga.Kit
# checks without Vivado (hw/fpga/check_kit.py): that the sources below are every file the synthesis
# build uses, in its order; that the top is the wrapper around vta_top; that the addresses and the
# interrupt agree with the device-tree overlays. The block design follows Xilinx's documented PS7 and
# PS8 configuration names; what a first run on a board finds wrong is for docs/FPGA.md.
#
# usage: vivado -mode batch -source hw/fpga/vta_project.tcl -tclargs BOARD BUILD [MHZ]
#   BOARD  pynq-z1, pynq-z2 or ultra96
#   BUILD  a configured build tree of this repository (its generated/hw/vta_config_pkg.sv is the
#          configuration the bitstream is made for; the host must use the same one)
#   MHZ    the fabric clock (default 50: the clock estimate of docs/SYNTHESIS.md is 53 MHz on the
#          xc7z020; 100 once the estimate reaches it)
# writes BUILD/vivado_BOARD/ (the project) and BUILD/vta_BOARD.bit, and the utilization and timing
# reports beside it.

if {[llength $argv] < 2} { error "usage: -tclargs BOARD BUILD \[MHZ\]" }
set board [lindex $argv 0]
set build [file normalize [lindex $argv 1]]
set mhz [expr {[llength $argv] > 2 ? [lindex $argv 2] : 50}]
set here [file dirname [file normalize [info script]]]
set root [file normalize "$here/../.."]

switch -- $board {
  pynq-z1 - pynq-z2 { set part xc7z020clg400-1;     set ps zynq7;  set ctrl_base 0x43C00000 }
  ultra96           { set part xczu3eg-sbva484-1-i; set ps zynqmp; set ctrl_base 0xA0000000 }
  default { error "unknown board $board (pynq-z1, pynq-z2, ultra96)" }
}

# The configuration's bus and ID widths, read from the build's generated package.
set pkg_file "$build/generated/hw/vta_config_pkg.sv"
set f [open $pkg_file r]; set pkg [read $f]; close $f
if {![regexp {\mBusWidth = (\d+);} $pkg -> bus_width]} { error "$pkg_file: no BusWidth" }
set f [open "$root/hw/rtl/vta_pkg.sv" r]; set vpkg [read $f]; close $f
if {![regexp {AxiIdWidth = (\d+);} "$pkg\n$vpkg" -> id_width]} { error "no AxiIdWidth" }

# The compute stage the configuration asks for, chosen as hw/CMakeLists.txt chooses it: the reference's
# (one instruction at a time), or with "COMPUTE_ISSUE": 2 the two-slot stage with its table, units and
# two-port RAM (docs/HARDWARE.md).
set stage_one [list $root/hw/rtl/vta_compute.sv]
set stage_two [list $root/hw/prim/vta_ram_1rw1r.sv $root/hw/rtl/vta_compute_units.sv $root/hw/rtl/vta_uop_table.sv $root/hw/rtl/vta_compute_dual.sv]
set stage [expr {[regexp {\mComputeIssue = 2;} $pkg] ? $stage_two : $stage_one}]

# The synthesis sources in dependency order: hw/CMakeLists.txt's VTA_HW_SYNTH_SOURCES, and the wrapper.
set sources [list \
  $build/generated/hw/vta_config_pkg.sv \
  $root/hw/rtl/vta_pkg.sv \
  $root/hw/prim/vta_fifo.sv \
  $root/hw/prim/vta_fifo_head.sv \
  $root/hw/prim/vta_ram_1r1w.sv \
  $root/hw/prim/vta_token_queue.sv \
  $root/hw/rtl/vta_uop_loop.sv \
  $root/hw/rtl/vta_gemm.sv \
  $root/hw/rtl/vta_alu.sv \
  $root/hw/rtl/vta_tensor_load.sv \
  $root/hw/rtl/vta_tensor_store.sv \
  $root/hw/rtl/vta_insn_check.sv \
  $root/hw/rtl/vta_insn_head.sv \
  $root/hw/rtl/vta_stat_bytes.sv \
  $root/hw/rtl/vta_stage_ctrl.sv \
  $root/hw/rtl/vta_fetch.sv \
  $root/hw/rtl/vta_load.sv \
  $root/hw/rtl/vta_store.sv \
  {*}$stage \
  $root/hw/rtl/vta_core.sv \
  $root/hw/rtl/vta_vme_burst.sv \
  $root/hw/rtl/vta_vme.sv \
  $root/hw/rtl/vta_vcr.sv \
  $root/hw/rtl/vta_top.sv \
  $root/hw/fpga/vta_axi_wrapper.v \
]

create_project vta_$board "$build/vivado_$board" -part $part -force
add_files -norecurse $sources
set_property include_dirs [list "$root/hw/prim"] [current_fileset]
# what Yosys reads too: no simulation-only code (the assertions, the bus checker)
set_property verilog_define {SYNTHESIS} [current_fileset]
add_files -fileset constrs_1 -norecurse "$here/vta.xdc"

# ---- the block design: the PS, VTA's register port on a general-purpose master, its memory port on a
# high-performance slave, the fabric clock, the interrupt
create_bd_design vta_bd
if {$ps eq "zynq7"} {
  set ps_cell [create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7 ps]
  apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 \
    -config {make_external "FIXED_IO, DDR" apply_board_preset "0"} $ps_cell
  set_property -dict [list \
    CONFIG.PCW_USE_M_AXI_GP0 {1} \
    CONFIG.PCW_USE_S_AXI_HP0 {1} \
    CONFIG.PCW_S_AXI_HP0_DATA_WIDTH [expr {$bus_width > 64 ? 64 : $bus_width}] \
    CONFIG.PCW_USE_FABRIC_INTERRUPT {1} \
    CONFIG.PCW_IRQ_F2P_INTR {1} \
    CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ $mhz \
  ] $ps_cell
  set gp_master ps/M_AXI_GP0
  set hp_slave ps/S_AXI_HP0
  set clk ps/FCLK_CLK0
  set irq ps/IRQ_F2P
} else {
  set ps_cell [create_bd_cell -type ip -vlnv xilinx.com:ip:zynq_ultra_ps_e ps]
  set_property -dict [list \
    CONFIG.PSU__USE__M_AXI_GP0 {1} \
    CONFIG.PSU__USE__M_AXI_GP1 {0} \
    CONFIG.PSU__USE__S_AXI_GP2 {1} \
    CONFIG.PSU__SAXIGP2__DATA_WIDTH [expr {$bus_width > 128 ? 128 : $bus_width}] \
    CONFIG.PSU__USE__IRQ0 {1} \
    CONFIG.PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ $mhz \
  ] $ps_cell
  set gp_master ps/M_AXI_HPM0_FPD
  set hp_slave ps/S_AXI_HP0_FPD
  set clk ps/pl_clk0
  set irq ps/pl_ps_irq0
}

# VTA (the RTL as a module reference: the wrapper gives its ports AXI names Vivado recognises)
set vta [create_bd_cell -type module -reference vta_axi_wrapper vta]
set_property -dict [list CONFIG.BUS_WIDTH $bus_width CONFIG.ID_WIDTH $id_width] $vta
apply_bd_automation -rule xilinx.com:bd_rule:axi4 \
  -config [list Master "/$gp_master" Clk_master "/$clk" Clk_slave "/$clk" Clk_xbar "/$clk"] \
  [get_bd_intf_pins vta/s_axi_control]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 \
  -config [list Slave "/$hp_slave" Clk_master "/$clk" Clk_slave "/$clk" Clk_xbar "/$clk"] \
  [get_bd_intf_pins vta/m_axi_gmem]
connect_bd_net [get_bd_pins vta/interrupt] [get_bd_pins $irq]
# the reset: the one the automation made for the clock's domain
if {[llength [get_bd_nets -quiet -of_objects [get_bd_pins vta/ap_rst_n]]] == 0} {
  set rst [lindex [get_bd_cells -filter {VLNV =~ *proc_sys_reset*}] 0]
  connect_bd_net [get_bd_pins $rst/peripheral_aresetn] [get_bd_pins vta/ap_rst_n]
}

assign_bd_address
set_property offset $ctrl_base [get_bd_addr_segs -of_objects [get_bd_addr_spaces $gp_master] -filter {NAME =~ *vta*}]
set_property range 4K [get_bd_addr_segs -of_objects [get_bd_addr_spaces $gp_master] -filter {NAME =~ *vta*}]
validate_bd_design
save_bd_design

make_wrapper -files [get_files vta_bd.bd] -top
add_files -norecurse [glob "$build/vivado_$board/vta_$board.gen/sources_1/bd/vta_bd/hdl/vta_bd_wrapper.v"]
set_property top vta_bd_wrapper [current_fileset]

launch_runs impl_1 -to_step write_bitstream -jobs 2
wait_on_run impl_1
if {[get_property PROGRESS [get_runs impl_1]] ne "100%"} { error "implementation failed: see $build/vivado_$board" }
open_run impl_1
report_utilization -file "$build/vta_${board}_utilization.txt"
report_timing_summary -file "$build/vta_${board}_timing.txt"
file copy -force [glob "$build/vivado_$board/vta_$board.runs/impl_1/*.bit"] "$build/vta_$board.bit"
puts "vta_project.tcl: $build/vta_$board.bit (fabric clock $mhz MHz); reports beside it"
