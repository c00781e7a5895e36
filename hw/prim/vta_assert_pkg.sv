// The simulator side of the RTL's assertions (vta_assert.svh): a failed assertion calls this DPI
// function with its name, its hierarchical path and its source line. The tsim and the hardware tests
// implement it (tsim/src/rtl_assert.cc) and fail the run or test naming the assertion.
package vta_assert_pkg;
  import "DPI-C" function void vta_assert_failed(input string name, input string path, input string file,
                                                 input int line);
endpackage : vta_assert_pkg
