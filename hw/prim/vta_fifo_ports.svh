// The ports of a FIFO cell (vta_fifo, vta_fifo_head: the same ports, the same behaviour at them),
// read inside the module's port list; the module has the parameters Width and Depth.
input  logic                     clk_i,
input  logic                     rst_ni,
// write side
input  logic                     wvalid_i,
output logic                     wready_o,
input  logic [Width-1:0]         wdata_i,
// read side
output logic                     rvalid_o,
input  logic                     rready_i,
output logic [Width-1:0]         rdata_o,
// occupancy
output logic [$clog2(Depth+1)-1:0] count_o
