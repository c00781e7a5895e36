// The vocabulary of the proofs (docs/FORMAL.md). A property set is a file in hw/formal included at
// the end of the module it is about, under VTA_FORMAL (Yosys 0.23 parses `bind` but drops the bound
// module, so an include is how a set reaches the module's own signals). Each property is an immediate
// assertion in every state outside reset, proven by k-induction with yosys-smtbmc (hw/formal/formal.py);
// each has a cover point showing the situation it speaks about is reachable.
//   `VTA_PROVE(Name, cond)    proven: cond holds in every reachable state
//   `VTA_PROVE_IMPLIES(Name, cond, prop)
//                             proven: whenever cond holds, so does prop; and covered: some trace
//                             from reset reaches cond (Name_Reached), so the proof is not vacuous
//   `VTA_REACH(Name, cond)    covered: some trace from reset reaches cond
//   `VTA_ASSUME(Name, cond)   the environment's obligation when this module is the top of a proof; a
//                             submodule's assumptions are proven in its parent's proof instead
// Registers a set keeps for itself are named f_*, reset like the module's.
`ifndef VTA_FORMAL_SVH_
`define VTA_FORMAL_SVH_

`include "vta_assert.svh"  // (its VTA_FORMAL branch: the RTL's own assertions, proven alike)

`define VTA_PROVE(name, cond) `VTA_ASSERT(name, cond)
`define VTA_REACH(name, cond) \
  always @* if (rst_ni) name: cover (cond);
`define VTA_PROVE_IMPLIES(name, cond, prop) \
  `VTA_ASSERT_IMPLIES(name, cond, prop) \
  `VTA_REACH(name``_Reached, cond)
`define VTA_ASSUME(name, cond) \
  always @* if (rst_ni) name: assume (cond);

`endif  // VTA_FORMAL_SVH_
