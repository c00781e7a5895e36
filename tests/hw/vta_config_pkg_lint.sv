// Lint harness for the generated configuration package: Verilator needs a top module, and this one
// checks that the derived widths agree with each other at elaboration time.
module vta_config_pkg_lint
  import vta_config_pkg::*;
(
  output logic [AccWidth*Batch*BlockOut-1:0] acc_elem_o
);
  // Elaboration-time checks of derived quantities (no simulation needed).
  if (AccMatrixWidth != AccWidth * Batch * BlockOut) begin : gen_acc_width_mismatch
    $error("AccMatrixWidth disagrees with AccWidth * Batch * BlockOut");
  end
  if ((1 << LogAccBuffDepth) != AccBuffDepth) begin : gen_acc_depth_mismatch
    $error("AccBuffDepth is not 2^LogAccBuffDepth");
  end
  if (UopSrcIdxBits < LogInpBuffDepth || UopSrcIdxBits < LogAccBuffDepth) begin : gen_uop_src_mismatch
    $error("UopSrcIdxBits narrower than an index it carries");
  end
  assign acc_elem_o = '0;
endmodule
