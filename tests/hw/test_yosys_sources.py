"""Unit tests of hw/synth/yosys_sources.py, the import rewriter that lets Yosys 0.23 read the RTL:
the names a package declares (every one of them, or a module using it keeps an unqualified name that
Yosys cannot resolve) and the qualification of those names in an importing module."""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / 'hw' / 'synth'))
import yosys_sources  # noqa: E402  (found through the path above)

PACKAGE = """package demo_pkg;
  localparam int unsigned Width = 8;
  localparam logic [1:0] First = 2'd0, Second = 2'd1,  // a comment, Not = 3
                         Third = {1'b1, 1'b0};
  localparam int unsigned Sum = max(Width, 4), Last = Sum + 1;
  typedef logic [Width-1:0] word_t;
  typedef enum logic [1:0] { RedE, GreenE = 2'd2 } colour_e;
  typedef struct packed { word_t a; logic b; } pair_t;
  function automatic word_t twice(word_t x);
    twice = x + x;
  endfunction
endpackage : demo_pkg
"""

MODULE = """module demo
  import demo_pkg::*;
(
  input  word_t a_i,
  output logic [1:0] sel_o
);
  assign sel_o = (a_i == twice(Width)) ? Third : Second;
endmodule
"""


class DeclaredNames(unittest.TestCase):
    def test_every_name_of_a_localparam_list(self):
        names = yosys_sources.declared_names(PACKAGE.split('\n', 1)[1])
        self.assertEqual(names, {'Width', 'First', 'Second', 'Third', 'Sum', 'Last', 'word_t', 'RedE', 'GreenE',
                                 'colour_e', 'pair_t', 'twice'})


class Write(unittest.TestCase):
    def test_the_module_names_the_package_of_each_name(self):
        with tempfile.TemporaryDirectory() as d:
            pkg = pathlib.Path(d) / 'demo_pkg.sv'
            mod = pathlib.Path(d) / 'demo.sv'
            pkg.write_text(PACKAGE)
            mod.write_text(MODULE)
            out = pathlib.Path(d) / 'out'
            yosys_sources.write(out, [pkg, mod])
            text = (out / 'demo.sv').read_text()
        self.assertNotIn('import', text)
        self.assertIn('demo_pkg::Third : demo_pkg::Second', text)
        self.assertIn('demo_pkg::twice(demo_pkg::Width)', text)
        self.assertIn('input  demo_pkg::word_t a_i', text)


if __name__ == '__main__':
    unittest.main()
