// Assertions in the style of OpenTitan's prim_assert: one macro per kind of check, each a named
// assertion on the rising clock edge, disabled during reset, reporting through
// vta_assert_pkg::vta_assert_failed. Active when the simulator is built with assertions (Verilator
// --assert); nothing under SYNTHESIS. A module includes this file and names each check (and each
// cover point, `VTA_COVER, counted by a coverage build):
//   `VTA_ASSERT(CountInRange, count_q <= Depth)
//   `VTA_ASSERT_HANDSHAKE(WriteHeldUntilReady, wvalid_i, wready_o, wdata_i)
// The clock and active-low reset default to clk_i and rst_ni.
`ifndef VTA_ASSERT_SVH_
`define VTA_ASSERT_SVH_

`ifdef VTA_FORMAL

// The proofs (hw/formal, docs/FORMAL.md): Yosys reads immediate assertions, so each check is one,
// evaluated in every state outside reset (`always @*`: no action block, no $sformatf, no concurrent
// property). Data is two-state there (no KNOWN check); the cover points the proofs need are their own
// (hw/formal/*.svh), so the simulation's are left out.
`define VTA_ASSERT(name, cond, clk = clk_i, rst_n = rst_ni) \
  always @* if (rst_n) name: assert (cond);
`define VTA_ASSERT_IMPLIES(name, cond, prop, clk = clk_i, rst_n = rst_ni) \
  `VTA_ASSERT(name, !(cond) || (prop), clk, rst_n)
`define VTA_ASSERT_NEVER(name, cond, clk = clk_i, rst_n = rst_ni) \
  `VTA_ASSERT(name, !(cond), clk, rst_n)
// (the proofs hold `cond` in every state, whatever `when` says)
`define VTA_ASSERT_AT(name, when, cond, clk = clk_i, rst_n = rst_ni) \
  `VTA_ASSERT(name, cond, clk, rst_n)
`define VTA_ASSERT_HANDSHAKE(name, valid, ready, data, clk = clk_i, rst_n = rst_ni) \
  logic name``_waiting_q; \
  logic [$bits(data)-1:0] name``_data_q; \
  always @(posedge clk) begin \
    name``_waiting_q <= rst_n && (valid) && !(ready); \
    if ((valid) && !(ready)) name``_data_q <= (data); \
  end \
  always @* if (rst_n && name``_waiting_q) name: assert ((valid) && (data) == name``_data_q);
`define VTA_ASSERT_KNOWN(name, valid, data, clk = clk_i, rst_n = rst_ni)
`define VTA_COVER(name, cond, clk = clk_i, rst_n = rst_ni)

`elsif SYNTHESIS

`define VTA_ASSERT(name, cond, clk = clk_i, rst_n = rst_ni)
`define VTA_ASSERT_IMPLIES(name, cond, prop, clk = clk_i, rst_n = rst_ni)
`define VTA_ASSERT_NEVER(name, cond, clk = clk_i, rst_n = rst_ni)
`define VTA_ASSERT_AT(name, when, cond, clk = clk_i, rst_n = rst_ni)
`define VTA_ASSERT_HANDSHAKE(name, valid, ready, data, clk = clk_i, rst_n = rst_ni)
`define VTA_ASSERT_KNOWN(name, valid, data, clk = clk_i, rst_n = rst_ni)
`define VTA_COVER(name, cond, clk = clk_i, rst_n = rst_ni)

`else

// The checks are immediate assertions in a block clocked by `clk` (they read the values the edge
// samples, as a concurrent assertion would): Verilator evaluates a concurrent assertion by copying
// every signal it reads at each evaluation of the model, which made the tsim a quarter slower
// (docs/PERFORMANCE.md); these cost one comparison per edge.

// `cond` holds on every rising edge of `clk` outside reset.
`define VTA_ASSERT(name, cond, clk = clk_i, rst_n = rst_ni) \
  always @(posedge clk) begin \
    if (rst_n) begin \
      name: assert (cond) else vta_assert_pkg::vta_assert_failed(`"name`", $sformatf("%m"), `__FILE__, `__LINE__); \
    end \
  end

// `cond` never holds.
`define VTA_ASSERT_NEVER(name, cond, clk = clk_i, rst_n = rst_ni) \
  `VTA_ASSERT(name, !(cond), clk, rst_n)

`ifdef VTA_ASSERT_PLAIN
// Coverage trees (tsim/CMakeLists.txt) read the checks below as one block each, evaluated in every
// cycle: the gated forms' tests would each be a line of their own to the line coverage, which counts
// the design's branches. The same checks, the same failures.
`define VTA_ASSERT_IMPLIES(name, cond, prop, clk = clk_i, rst_n = rst_ni) \
  `VTA_ASSERT(name, !(cond) || (prop), clk, rst_n)
`define VTA_ASSERT_AT(name, when, cond, clk = clk_i, rst_n = rst_ni) \
  `VTA_ASSERT(name, cond, clk, rst_n)
`define VTA_ASSERT_HANDSHAKE(name, valid, ready, data, clk = clk_i, rst_n = rst_ni) \
  logic name``_waiting_q; \
  logic [$bits(data)-1:0] name``_data_q; \
  always @(posedge clk) begin \
    if (rst_n && name``_waiting_q) begin \
      name: assert ((valid) && (data) == name``_data_q) \
        else vta_assert_pkg::vta_assert_failed(`"name`", $sformatf("%m"), `__FILE__, `__LINE__); \
    end \
    name``_waiting_q <= rst_n && (valid) && !(ready); \
    if ((valid) && !(ready)) name``_data_q <= (data); \
  end

`else

// Whenever `cond` holds, so does `prop` (the same edge). `prop` is evaluated only at those edges: a
// simulator computes `!cond || prop` whole, in every cycle (no short circuit in its generated code).
`define VTA_ASSERT_IMPLIES(name, cond, prop, clk = clk_i, rst_n = rst_ni) \
  always @(posedge clk) begin \
    if (rst_n && (cond)) begin \
      name: assert (prop) else vta_assert_pkg::vta_assert_failed(`"name`", $sformatf("%m"), `__FILE__, `__LINE__); \
    end \
  end

// `cond` holds on the rising edges of `clk` outside reset where `when` holds, and is not evaluated at
// the others: for a cell's invariants over state that changes only with `when` (a FIFO's pointers and
// count move only with a read or a write), each state the cell leaves is checked, at the cost of one
// test in the idle cycles. In a simulation it is the implication; in the proofs `cond` holds in every
// state.
`define VTA_ASSERT_AT(name, when, cond, clk = clk_i, rst_n = rst_ni) \
  `VTA_ASSERT_IMPLIES(name, when, cond, clk, rst_n)

// A valid/ready handshake: once raised, valid stays high and data stays the same until ready (the
// property `valid && !ready |=> valid && $stable(data)`, with the offer's data kept in name_data_q:
// taken at the first edge of a wait, which the later edges compare with as long as the wait lasts).
// Its bookkeeping runs only at the edges of a waiting offer and the one after (elsewhere there is
// nothing to keep): one test in the cycles without an offer, most cycles of most ports, and no copy of
// the data while an offer waits (a full queue's producer, for thousands of cycles).
`define VTA_ASSERT_HANDSHAKE(name, valid, ready, data, clk = clk_i, rst_n = rst_ni) \
  logic name``_waiting_q; \
  logic [$bits(data)-1:0] name``_data_q; \
  always @(posedge clk) begin \
    if (name``_waiting_q || ((valid) && !(ready))) begin \
      if (rst_n && name``_waiting_q) begin \
        name: assert ((valid) && (data) == name``_data_q) \
          else vta_assert_pkg::vta_assert_failed(`"name`", $sformatf("%m"), `__FILE__, `__LINE__); \
      end \
      if (!name``_waiting_q) name``_data_q <= (data); \
      name``_waiting_q <= rst_n && (valid) && !(ready); \
    end \
  end

`endif  // VTA_ASSERT_PLAIN

// Data is known (no X or Z bit) whenever valid (four-state simulators; Verilator is two-state).
`define VTA_ASSERT_KNOWN(name, valid, data, clk = clk_i, rst_n = rst_ni) \
  `VTA_ASSERT(name, !(valid) || !$isunknown(data), clk, rst_n)

// A cover point: counted on every rising edge of `clk` outside reset where `cond` holds (Verilator
// --coverage; docs/COVERAGE.md lists what the default regression leaves at zero).
`define VTA_COVER(name, cond, clk = clk_i, rst_n = rst_ni) \
  name: cover property (@(posedge clk) disable iff (!(rst_n)) (cond));

`endif

`endif  // VTA_ASSERT_SVH_
