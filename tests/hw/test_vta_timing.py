#!/usr/bin/env python3
"""hw/synth/vta_timing.py on small netlists whose longest paths are computed here by hand.

Each case writes a Yosys-style JSON netlist (the format synth_xilinx's write_json produces), runs the
estimate, and compares the critical path with a sum written out below from the cell library's figures
(cells_sim.v: LUT2 I0->O 238 ps, LUT6 I5->O 127 ps, FDRE C->Q 303 ps, CE setup 109 ps, ...) and the
net model (350 ps + 100 ps x log2(fanout); 0 on dedicated connections).
"""
import json
import math
import pathlib
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / 'hw' / 'synth'))
import vta_timing  # noqa: E402

NET = 350  # one net of fanout 1


def ff(d, q, ce=None):
    conn = {'C': [2], 'D': [d], 'Q': [q], 'CE': [ce if ce is not None else '1'], 'R': ['0']}
    return {'type': 'FDRE', 'parameters': {}, 'port_directions': {
        'C': 'input', 'D': 'input', 'Q': 'output', 'CE': 'input', 'R': 'input'}, 'connections': conn}


def lut(kind, inputs, out):
    conn = {f'I{i}': [b] for i, b in enumerate(inputs)}
    dirs = {f'I{i}': 'input' for i in range(len(inputs))}
    conn['O'] = [out]
    dirs['O'] = 'output'
    return {'type': kind, 'parameters': {}, 'port_directions': dirs, 'connections': conn}


def cell(kind, conns, outputs, params=None):
    return {'type': kind, 'parameters': params or {}, 'connections': conns,
            'port_directions': {p: 'output' if p in outputs else 'input' for p in conns}}


class TimingEstimate(unittest.TestCase):
    def run_estimate(self, cells, names=None):
        netlist = {'modules': {'top': {'cells': cells, 'netnames': {
            n: {'hide_name': 0, 'bits': b} for n, b in (names or {}).items()}}}}
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / 'netlist.json'
            path.write_text(json.dumps(netlist))
            return vta_timing.estimate(path, top='top', paths=5)

    def test_register_to_register_through_two_luts(self):
        # q1 (C->Q 303) -net-> LUT2.I0 (238) -net-> LUT6.I5 (127) -net-> FDRE.D (setup 0)
        r = self.run_estimate({
            'a': ff(20, 10), 'l1': lut('LUT2', [10, 11], 12), 'l2': lut('LUT6', [3, 4, 5, 6, 7, 12], 13),
            'b': ff(13, 14), 'c': ff(14, 11)}, {'a_q': [10], 'b_q': [14]})
        expected = 303 + NET + 238 + NET + 127 + NET
        self.assertAlmostEqual(r['period_ns'], expected / 1000, places=3)
        self.assertEqual(r['worst'][0]['from'], 'a_q')
        self.assertEqual(r['worst'][0]['to'], 'b_q')
        self.assertEqual(r['worst'][0]['logic_levels'], 2)
        self.assertAlmostEqual(r['worst'][0]['cell_ns'], (303 + 238 + 127) / 1000, places=3)
        self.assertAlmostEqual(r['fmax_bound_mhz'], round(1e6 / (303 + 238 + 127), 1), places=1)

    def test_fanout_lengthens_the_net_and_clock_enable_has_its_setup(self):
        # q drives 8 flip-flops' CE: net 350 + 100 x log2(8), setup 109
        cells = {'src': ff(20, 10)}
        for i in range(8):
            cells[f'd{i}'] = ff(30 + i, 40 + i, ce=10)
        r = self.run_estimate(cells)
        self.assertAlmostEqual(r['period_ns'], (303 + NET + 100 * math.log2(8) + 109) / 1000, places=3)

    def test_carry_chain_and_wide_mux_connections_are_free(self):
        # LUT2 -> CARRY4.S[0] (dedicated) -> CO[3] (S0->CO3: 508) -> CARRY4.CI (dedicated) -> O[3] (CI->O3: 313)
        carry1 = cell('CARRY4', {'CI': ['0'], 'CYINIT': ['0'], 'DI': ['0'] * 4, 'S': [12, '0', '0', '0'],
                                 'O': [50, 51, 52, 53], 'CO': [54, 55, 56, 57]}, ('O', 'CO'))
        carry2 = cell('CARRY4', {'CI': [57], 'CYINIT': ['0'], 'DI': ['0'] * 4, 'S': ['0'] * 4,
                                 'O': [60, 61, 62, 63], 'CO': [64, 65, 66, 67]}, ('O', 'CO'))
        r = self.run_estimate({'a': ff(20, 10), 'l': lut('LUT2', [10, 11], 12), 'c1': carry1, 'c2': carry2,
                               'b': ff(63, 70)})
        self.assertAlmostEqual(r['period_ns'], (303 + NET + 238 + 0 + 508 + 0 + 313 + NET) / 1000, places=3)

    def test_inverters_are_folded(self):
        inv = cell('INV', {'I': [10], 'O': [11]}, ('O',))
        r = self.run_estimate({'a': ff(20, 10), 'i': inv, 'b': ff(11, 12)})
        self.assertAlmostEqual(r['period_ns'], (303 + NET) / 1000, places=3)

    def test_block_ram_clock_to_out_depends_on_its_output_register(self):
        for reg, clk_to_out in (('0', 2454), ('1', 882)):
            bram = cell('RAMB36E1', {'CLKARDCLK': [2], 'DOADO': [10], 'ADDRARDADDR': [30]}, ('DOADO',),
                        {'DOA_REG': reg, 'DOB_REG': '0'})
            r = self.run_estimate({'m': bram, 'b': ff(10, 11)})
            self.assertAlmostEqual(r['period_ns'], (clk_to_out + NET) / 1000, places=3, msg=f'DOA_REG {reg}')

    def test_dsp_without_registers_is_a_combinational_multiplier(self):
        # A -> P 2823 ps when no pipeline register is used; with PREG, P leaves at 329 ps after the clock
        comb = cell('DSP48E1', {'CLK': [2], 'A': [10], 'B': ['0'], 'P': [11]}, ('P',), {'USE_MULT': 'MULTIPLY'})
        r = self.run_estimate({'a': ff(20, 10), 'm': comb, 'b': ff(11, 12)})
        self.assertAlmostEqual(r['period_ns'], (303 + NET + 2823 + NET) / 1000, places=3)
        piped = cell('DSP48E1', {'CLK': [2], 'A': [10], 'B': ['0'], 'P': [11]}, ('P',),
                     {'USE_MULT': 'MULTIPLY', 'PREG': '1'})
        r = self.run_estimate({'a': ff(20, 10), 'm': piped, 'b': ff(11, 12)})
        self.assertAlmostEqual(r['period_ns'], (303 + NET + 2739) / 1000, places=3)  # A's setup before PREG

    def test_the_goal_is_refused_with_the_critical_path(self):
        r = self.run_estimate({'a': ff(20, 10), 'l1': lut('LUT2', [10, 11], 12), 'b': ff(12, 14)},
                              {'a_q': [10], 'b_q': [14]})
        self.assertIsNone(vta_timing.under_goal(r, r['fmax_mhz']))
        refusal = vta_timing.under_goal(r, r['fmax_mhz'] + 1)
        self.assertIn('under the goal', refusal)
        self.assertIn('a_q -> b_q', refusal)

    def test_a_combinational_loop_is_refused_by_name(self):
        with self.assertRaises(SystemExit) as e:
            self.run_estimate({'a': lut('LUT2', [11, 3], 10), 'b': lut('LUT2', [10, 3], 11)}, {'loop_net': [10]})
        self.assertIn('combinational loop', str(e.exception))

    def test_a_missing_top_is_refused_by_name(self):
        with self.assertRaises(SystemExit) as e:
            vta_timing.Design({'modules': {}}, 'vta_top', {})
        self.assertIn('no module vta_top', str(e.exception))


if __name__ == '__main__':
    unittest.main()
