#!/usr/bin/env python3
"""Estimates the clock a synthesized netlist reaches on the xc7z020 (-1): static timing over Yosys's netlist.

  vta_timing.py NETLIST.json [--top vta_top] [--out timing.json] [--paths N] [--min-fmax MHZ]

NETLIST.json is what vta_synth.py writes (Yosys synth_xilinx -flatten, then write_json). The estimate
is a longest-path search over the mapped cells, with this delay model (docs/SYNTHESIS.md, "Timing
estimate"):

- Cells: the timing arcs of Yosys's own Xilinx cell library (share/yosys/xilinx/cells_sim.v, its
  `specify` blocks: LUTs, wide multiplexers, carry chains, flip-flops, distributed and block RAM), read
  from the installed file. Those figures are Project X-Ray's Artix-7 database (Vivado's own delays for
  the 7-series fabric the Zynq-7000's programmable logic is built from, -1 speed grade). The DSP48E1's
  arcs depend on its pipeline registers; the library computes them in functions, which DSP48E1_ARCS
  below restates for the configurations synth_xilinx produces. A block RAM without its output
  register takes the library's 2,454 ps from clock to data (the library states that arc under a
  condition that never holds, so Yosys's own `sta` drops it).
- Nets: placement and routing are not known before place and route, so each net costs
  NET_BASE_PS + NET_PER_FANOUT_DOUBLING_PS x log2(fanout); the dedicated connections (carry chain, a LUT
  into its slice's MUXF7, MUXF7 into MUXF8, a LUT into its slice's carry logic, DSP cascades) cost 0.
- Inverters are folded into the pins they drive (as Vivado does); clock nets are ideal (no skew);
  asynchronous resets are not timed (recovery is a reset-release check, not a data path).
- Top-level ports: registered outside (an AXI register slice or the PS), so an input arrives at a
  flip-flop's clock-to-out and an output must meet a flip-flop's setup.

It prints the estimated Fmax and the critical path (from which register, through which cells, to
which register), writes the N worst endpoints to --out, and with --min-fmax fails (exit 1, a line
starting "vta_timing: ") when the estimate is under the goal.
"""
import collections
import json
import math
import pathlib
import re
import sys

sys.dont_write_bytecode = True  # (no __pycache__ in the source tree)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import script_args  # noqa: E402  (the scripts' checks of their arguments and files)

MAX_NETLIST_BYTES = 1 << 30  # (the xc7z020 netlist of the default configuration is about 30 MB)
CELLS_SIM = pathlib.Path('/usr/share/yosys/xilinx/cells_sim.v')
NET_BASE_PS = 350  # one net between two slices, fanout 1
NET_PER_FANOUT_DOUBLING_PS = 100  # a net reaching 2^k sinks is k x this longer
FF_CLK_TO_Q_PS = 303  # FDRE C->Q in the cell library: the external register behind a top-level port
CLOCK_PINS = {'C', 'CLK', 'WCLK', 'CLKARDCLK', 'CLKBWRCLK'}
ASYNC_PINS = {'CLR', 'PRE'}
BRAM_CLK_TO_DO_PS = {False: 2454, True: 882}  # without / with the output register (DOA_REG, DOB_REG)

# DSP48E1 (USE_DPORT FALSE), from the cell library's functions: (USE_MULT, registers) -> arcs.
# 'comb': input port -> {output port: ps} when neither that input's register nor PREG/MREG is used;
# 'required': setup of a registered input; 'arrival': clock-to-out of P when any register is used.
DSP48E1_COMB = {
    'MULTIPLY': {'A': {'P': 2823, 'PCOUT': 2970}, 'B': {'P': 2690, 'PCOUT': 2838}, 'C': {'P': 1325, 'PCOUT': 1474},
                 'PCIN': {'P': 1107, 'PCOUT': 1255}},
    'NONE': {'A': {'P': 1523, 'PCOUT': 1671}, 'B': {'P': 1509, 'PCOUT': 1658}, 'C': {'P': 1325, 'PCOUT': 1474},
             'PCIN': {'P': 1107, 'PCOUT': 1255}},
}


def dsp48e1_arcs(p):
    """(comb arcs, setups, clock-to-out) of one DSP48E1 from its parameters, as the cell library says."""
    reg = {k: int(p.get(k, '0'), 2) != 0 for k in ('AREG', 'BREG', 'CREG', 'MREG', 'PREG')}
    mult = 'MULTIPLY' if p.get('USE_MULT', 'MULTIPLY') == 'MULTIPLY' else 'NONE'
    comb, setup, out = {}, {}, {}
    table = DSP48E1_COMB[mult]
    for port in ('A', 'B'):
        if not reg[port[0] + 'REG'] and not reg['PREG'] and not (mult == 'MULTIPLY' and reg['MREG']):
            comb[port] = table[port]
    if not reg['PREG'] and not reg['CREG']:
        comb['C'] = table['C']
    if not reg['PREG']:
        comb['PCIN'] = table['PCIN']
    if mult == 'MULTIPLY':
        setup['A'] = 254 if reg['AREG'] else 1416 if reg['MREG'] else 2739 if reg['PREG'] else None
        setup['B'] = 324 if reg['BREG'] else 1285 if reg['MREG'] else 2608 if reg['PREG'] else None
    else:
        setup['A'] = 254 if reg['AREG'] else 1441 if reg['PREG'] else None
        setup['B'] = 324 if reg['BREG'] else 1428 if reg['PREG'] else None
    setup['C'] = 168 if reg['CREG'] else 1244 if reg['PREG'] else None
    setup['PCIN'] = 1025 if reg['PREG'] else None
    setup = {k: v for k, v in setup.items() if v is not None}
    if any(reg.values()):
        if reg['PREG']:
            out = {'P': 329, 'PCOUT': 435}
        elif reg['CREG'] or reg['MREG']:
            out = {'P': 1687, 'PCOUT': 1835}
        else:  # only input registers: their clock-to-out plus the multiplier
            out = {'P': 2952, 'PCOUT': 3098} if mult == 'MULTIPLY' else {'P': 1632, 'PCOUT': 1780}
    return comb, setup, out


PIN = r'(\w+)(?:\s*\[(\d+)\])?'
COMB_ARC = re.compile(r'\(\s*' + PIN + r'\s*[=*]>\s*' + PIN + r'\s*\)\s*=\s*(\d+)\s*;')
CLK_ARC = re.compile(r'\(\s*posedge\s+(\w+)\s*=>\s*\(\s*' + PIN + r'\s*:[^)]*\)\s*\)\s*=\s*(\d+)\s*;')
SETUP = re.compile(r'\$setup\(\s*' + PIN + r'\s*,\s*posedge\s+(\w+)[^,]*,\s*(?:/\*[^*]*\*/\s*)?(\d+)\s*\)')


class CellTiming:
    """The timing arcs of one cell type: comb[(in, i)] -> [((out, j), ps)], clk_out[(out, j)], setup[(in, i)]."""

    def __init__(self):
        self.comb = collections.defaultdict(dict)
        self.clk_out = {}
        self.setup = {}


def read_library(path):
    """Every cell type's arcs from the specify blocks of Yosys's Xilinx cell library (the largest figure
    where a block states several under conditions)."""
    try:
        text = path.read_text()
    except OSError as e:
        raise SystemExit(f'vta_timing: cannot read the Yosys Xilinx cell library {path}: {e.strerror} '
                         '(apt-get install yosys; scripts/setup.sh installs it)') from None
    lib = {}
    for m in re.finditer(r'^module\s+(\\\S+|\w+)(.*?)^endmodule', text, re.S | re.M):
        body = m.group(2)
        t = CellTiming()
        for block in re.findall(r'specify(.*?)endspecify', body, re.S):
            block = re.sub(r'`ifndef YOSYS.*?`(?:else|endif)', '', block, flags=re.S)  # the simulators' arcs
            block = re.sub(r'//[^\n]*', '', block)
            for a, ai, b, bi, ps in COMB_ARC.findall(block):
                key = (a, int(ai) if ai else None)
                out = (b, int(bi) if bi else None)
                t.comb[key][out] = max(int(ps), t.comb[key].get(out, 0))
            for clk, b, bi, ps in CLK_ARC.findall(block):
                if clk in CLOCK_PINS:
                    out = (b, int(bi) if bi else None)
                    t.clk_out[out] = max(int(ps), t.clk_out.get(out, 0))
            for a, ai, clk, ps in SETUP.findall(block):
                if clk in CLOCK_PINS and a not in ASYNC_PINS:
                    key = (a, int(ai) if ai else None)
                    t.setup[key] = max(int(ps), t.setup.get(key, 0))
        lib[m.group(1)] = t
    return lib


def lookup(table, port, index):
    """A pin's entry: the per-bit one (S[2]) or the port's (DIA)."""
    if (port, index) in table:
        return table[(port, index)]
    return table.get((port, None))


def dedicated(driver_type, driver_port, sink_type, sink_port):
    """Connections inside a slice or a column that use no general routing."""
    lut = driver_type.startswith('LUT')
    return ((driver_type == 'CARRY4' and driver_port == 'CO' and sink_type == 'CARRY4' and sink_port == 'CI')
            or (lut and sink_type == 'MUXF7') or (driver_type == 'MUXF7' and sink_type == 'MUXF8')
            or (lut and sink_type == 'CARRY4' and sink_port in ('S', 'DI'))
            or (driver_port == 'PCOUT' and sink_port == 'PCIN'))


class Design:
    """The timing graph of the top module: pins as (cell, port, index), nets as bits."""

    def __init__(self, netlist, top, lib):
        self.nets = True  # False: every net free (the bound no placement can beat); analyse() again after a change
        modules = netlist.get('modules', {})
        if top not in modules:
            raise SystemExit(f'vta_timing: the netlist has no module {top} (it has {", ".join(sorted(modules))})')
        self.module = modules[top]
        self.cells = self.module['cells']
        self.lib = lib
        self.driver = {}  # bit -> (cell, port, index)
        self.sinks = collections.defaultdict(list)  # bit -> [(cell, port, index)]
        for name, cell in self.cells.items():
            for port, bits in cell['connections'].items():
                direction = cell['port_directions'].get(port)
                for i, bit in enumerate(bits):
                    if not isinstance(bit, int):
                        continue  # a constant
                    if direction == 'output':
                        self.driver[bit] = (name, port, i)
                    else:
                        self.sinks[bit].append((name, port, i))
        self.names = {}
        # a bit's name: a visible one, the deepest in the hierarchy (a register's own, not a port's alias)
        for net, info in sorted(self.module.get('netnames', {}).items(),
                                key=lambda kv: (kv[1].get('hide_name', 0), -kv[0].count('.'), len(kv[0]))):
            for i, bit in enumerate(info['bits']):
                if isinstance(bit, int) and bit not in self.names:
                    self.names[bit] = net if len(info['bits']) == 1 else f'{net}[{i}]'

    def source(self, bit):
        """The bit's driver, looking through inverters (folded into the pins they drive)."""
        seen = 0
        while bit in self.driver:
            cell, port, _ = self.driver[bit]
            if self.cells[cell]['type'] != 'INV' or seen > 64:
                return self.driver[bit]
            bit = self.cells[cell]['connections']['I'][0]
            seen += 1
        return None

    def wire(self, bit, sink_cell, sink_port):
        """The delay of the net from the bit's driver to one sink pin."""
        if not self.nets:
            return 0
        src = self.source(bit)
        if src is not None and dedicated(self.cells[src[0]]['type'], src[1], self.cells[sink_cell]['type'], sink_port):
            return 0
        return NET_BASE_PS + NET_PER_FANOUT_DOUBLING_PS * math.log2(max(len(self.sinks[bit]), 1))

    def arcs(self, name):
        """(comb arcs, setups, clock-to-out) of one cell, in its pins."""
        cell = self.cells[name]
        kind = cell['type']
        if kind == 'DSP48E1':
            comb, setup, out = dsp48e1_arcs(cell['parameters'])
            return ({(p, None): {(o, None): ps for o, ps in outs.items()} for p, outs in comb.items()},
                    {(p, None): ps for p, ps in setup.items()}, {(p, None): ps for p, ps in out.items()})
        t = self.lib.get(kind)
        if t is None:
            raise SystemExit(f'vta_timing: cell type {kind} ({name}) has no timing in {CELLS_SIM}')
        clk_out = dict(t.clk_out)
        if kind.startswith('RAMB'):
            p = cell['parameters']
            for port, reg in (('DOADO', 'DOA_REG'), ('DOPADOP', 'DOA_REG'), ('DOBDO', 'DOB_REG'), ('DOPBDOP', 'DOB_REG')):
                clk_out[(port, None)] = BRAM_CLK_TO_DO_PS[int(p.get(reg, '0'), 2) != 0]
        return t.comb, t.setup, clk_out

    def analyse(self):
        """Arrival time of every net bit (ps after the clock edge) and the path to it."""
        arrival, via = {}, {}
        pending = collections.Counter()  # bit -> comb inputs not yet timed
        edges = collections.defaultdict(list)  # input bit -> [(output bit, ps, cell, in pin)]
        self.endpoints = []  # (input bit, cell, pin, setup ps)
        for name, cell in self.cells.items():
            kind = cell['type']
            conn = cell['connections']
            if kind in ('BUFG',):
                continue
            if kind == 'IBUF':
                arrival[conn['O'][0]] = FF_CLK_TO_Q_PS
                via[conn['O'][0]] = None
                continue
            if kind == 'OBUF':
                if isinstance(conn['I'][0], int):
                    self.endpoints.append((conn['I'][0], name, ('I', 0), 0))
                continue
            if kind == 'INV':
                edges[conn['I'][0]].append((conn['O'][0], 0, name, ('I', 0)))
                pending[conn['O'][0]] += 1
                continue
            comb, setup, clk_out = self.arcs(name)
            for port, bits in conn.items():
                direction = cell['port_directions'].get(port)
                for i, bit in enumerate(bits):
                    if not isinstance(bit, int):
                        continue
                    if direction == 'output':
                        ps = lookup(clk_out, port, i)
                        if ps is not None:
                            arrival[bit] = max(arrival.get(bit, 0), ps)
                            via.setdefault(bit, None)
                        continue
                    if port in CLOCK_PINS or port in ASYNC_PINS:
                        continue
                    for (out, j), ps in (lookup(comb, port, i) or {}).items():
                        targets = conn.get(out, [])
                        for k, obit in enumerate(targets):
                            if isinstance(obit, int) and (j is None or j == k):
                                w = self.wire(bit, name, port) + ps
                                edges[bit].append((obit, w, name, (port, i)))
                                pending[obit] += 1
                    s = lookup(setup, port, i)
                    if s is not None:
                        self.endpoints.append((bit, name, (port, i), s))
        # longest paths in topological order (Kahn), from the sources: sequential outputs, inputs, constants
        ready = [b for b in set(edges) | set(arrival) if pending[b] == 0]
        for b in ready:
            arrival.setdefault(b, 0)
            via.setdefault(b, None)
        while ready:
            b = ready.pop()
            for obit, w, cell, pin in edges[b]:
                t = arrival[b] + w
                if t > arrival.get(obit, -1):
                    arrival[obit] = t
                    via[obit] = (b, cell, pin, w)
                pending[obit] -= 1
                if pending[obit] == 0:
                    ready.append(obit)
        stuck = [b for b, n in pending.items() if n > 0]
        if stuck:
            raise SystemExit(f'vta_timing: a combinational loop through {self.names.get(stuck[0], stuck[0])} '
                             f'({len(stuck)} nets on or behind loops)')
        self.arrival, self.via = arrival, via

    def path(self, bit):
        """The cells from the path's start to `bit`: [(cell, type, in pin, out bit, arrival ps)]."""
        hops = []
        while self.via.get(bit) is not None:
            prev, cell, pin, _ = self.via[bit]
            hops.append((cell, self.cells[cell]['type'], pin, bit, self.arrival[bit]))
            bit = prev
        hops.reverse()
        return bit, hops

    def describe(self, bit):
        name = self.names.get(bit)
        if name:
            return name
        d = self.driver.get(bit)
        return f'{d[0]}.{d[1]}' if d else f'net {bit}'

    def worst(self, count):
        """The `count` worst endpoints, one per register (its worst bit)."""
        rows = []
        for bit, cell, pin, setup in self.endpoints:
            if bit not in self.arrival:
                continue  # driven by a constant
            total = self.arrival[bit] + self.wire(bit, cell, pin[0]) + setup
            rows.append((total, bit, cell, pin, setup))
        rows.sort(key=lambda r: -r[0])
        out, seen = [], set()
        for total, bit, cell, pin, setup in rows:
            end = self.end_name(cell, pin)
            register = re.sub(r'\[\d+\]$', '', end)
            if register in seen:
                continue
            seen.add(register)
            start, hops = self.path(bit)
            levels = sum(1 for h in hops if h[1].startswith(('LUT', 'MUXF', 'CARRY4', 'DSP48E1', 'RAM64M', 'RAM32M')))
            out.append({'delay_ns': round(total / 1000, 3), 'fmax_mhz': round(1e6 / total, 1),
                        'from': self.start_name(start), 'to': end,
                        'through': [f'{h[1]} {self.describe(h[3])}' for h in hops],
                        'logic_levels': levels, 'setup_ns': setup / 1000,
                        'cell_ns': round((self.arrival[start] + sum(self.cell_part(h) for h in hops) + setup) / 1000,
                                         3)})
            if len(out) == count:
                break
        return out

    def cell_part(self, hop):
        cell, _, pin, out_bit, _ = hop
        prev, _, _, w = self.via[out_bit]
        return w - (0 if self.cells[cell]['type'] == 'INV' else self.wire(prev, cell, pin[0]))

    def start_name(self, bit):
        d = self.driver.get(bit)
        if d and self.cells[d[0]]['type'] == 'IBUF':
            return f'input port {self.describe(bit)}'
        if d and self.cells[d[0]]['type'].startswith(('RAM', 'DSP')):
            return f"{self.cells[d[0]]['type']} {d[0]} pin {d[1]}"
        return self.describe(bit)

    def end_name(self, cell, pin):
        kind = self.cells[cell]['type']
        if kind == 'OBUF':
            return f'output port {self.describe(self.cells[cell]["connections"]["O"][0])}'
        if kind.startswith('FD'):
            return self.describe(self.cells[cell]['connections']['Q'][0])
        return f'{kind} {cell} pin {pin[0]}'


def estimate(netlist_path, top='vta_top', paths=10, library=CELLS_SIM):
    """The estimate as a dict: fmax_mhz, period_ns, the bound with free routing, the model, the worst
    `paths` endpoints."""
    netlist = json.loads(script_args.read_text(netlist_path, MAX_NETLIST_BYTES, 'the netlist'))
    if not isinstance(netlist, dict) or not isinstance(netlist.get('modules'), dict):
        raise ValueError(f'{netlist_path} is not a Yosys JSON netlist (no "modules" object)')
    lib = read_library(library)
    design = Design(netlist, top, lib)
    design.analyse()
    worst = design.worst(paths)
    if not worst:
        raise SystemExit(f'vta_timing: {top} has no timed path (no registers?)')
    design.nets = False  # the same graph, every net free
    design.analyse()
    best = design.worst(1)[0]
    return {'part': 'xc7z020-1', 'tool': 'vta_timing.py over Yosys synth_xilinx', 'top': top,
            'fmax_mhz': worst[0]['fmax_mhz'], 'period_ns': worst[0]['delay_ns'],
            'fmax_bound_mhz': best['fmax_mhz'], 'bound_path': {k: best[k] for k in ('from', 'to', 'delay_ns')},
            'model': {'cells': f'{library} specify arcs (Project X-Ray, Artix-7 -1)',
                      'net_ps': f'{NET_BASE_PS} + {NET_PER_FANOUT_DOUBLING_PS} x log2(fanout); 0 on dedicated '
                                'carry, wide-mux and cascade connections',
                      'clock': 'ideal (no skew or jitter)', 'ports': 'registered outside'},
            'worst': worst}


def under_goal(result, min_fmax):
    """The refusal when the estimate is under `min_fmax` MHz (None: it meets it)."""
    if result['fmax_mhz'] >= min_fmax:
        return None
    w = result['worst'][0]
    return (f"{result['top']} is estimated at {result['fmax_mhz']:.1f} MHz, under the goal of {min_fmax:g} MHz "
            f"(critical path {w['from']} -> {w['to']})")


def summary(result):
    w = result['worst'][0]
    return (f"{result['top']}: Fmax estimate {result['fmax_mhz']:.1f} MHz on the xc7z020-1 "
            f"(critical path {w['delay_ns']:.2f} ns, {w['cell_ns']:.2f} ns in cells, {w['logic_levels']} levels: "
            f"{w['from']} -> {w['to']}); with routing free, at most {result['fmax_bound_mhz']:.1f} MHz")


def main():
    parser = script_args.Parser(description=__doc__.split('\n\n')[0])
    parser.add_argument('netlist', type=script_args.regular_file(MAX_NETLIST_BYTES))
    parser.add_argument('--top', default='vta_top')
    parser.add_argument('--out', type=pathlib.Path, help='write the estimate and the worst paths as JSON')
    parser.add_argument('--paths', type=script_args.number(1, 100000, int), default=10,
                        help='how many worst endpoints to report')
    parser.add_argument('--min-fmax', type=script_args.number(0, 10000, low_open=True), metavar='MHZ',
                        help='fail when the estimate is under MHZ')
    args = parser.parse_args()
    result = estimate(args.netlist, args.top, args.paths)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + '\n')
    print(summary(result))
    for w in result['worst'][1:]:
        print(f"  {w['fmax_mhz']:7.1f} MHz  {w['delay_ns']:6.2f} ns  {w['logic_levels']:2d} levels  "
              f"{w['from']} -> {w['to']}")
    refusal = under_goal(result, args.min_fmax) if args.min_fmax is not None else None
    if refusal:
        sys.exit(f'vta_timing: {refusal}')


if __name__ == '__main__':
    try:
        main()
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f'vta_timing: {e}')
