#!/usr/bin/env python3
"""Synthesizes the RTL with Debian's Yosys (synth_xilinx, 7-series) and reports what it uses.

  vta_synth.py --out DIR [--timeout SECONDS] FILE...

FILE... are the RTL sources in dependency order (packages first, simulation-only files left out):
the build runs this as `cmake --build BUILD --target vta_synth` with hw/CMakeLists.txt's lists and the
configuration's generated package. It writes DIR/src (the sources as Yosys reads them,
yosys_sources.py), DIR/yosys.log, DIR/netlist.json (the synthesized netlist) and
DIR/utilization.json, and prints one line (also DIR/summary.txt): LUTs, flip-flops, 36 Kb block
RAMs, DSP slices, against the PYNQ-Z1's xc7z020; then the clock estimate of vta_timing.py (DIR/timing.json:
the estimated Fmax, the critical path and the worst endpoints).

It fails, naming the message, when Yosys stops, runs out of time, or warns about anything but the
block RAM primitives' port widths: a warning such as "identifier ... is implicitly declared" means
Yosys read a construct differently from Verilator, which the synthesized numbers must not hide.
"""
import json
import pathlib
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # (no __pycache__ in the source tree)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import result_cache  # noqa: E402  (the sibling modules)
import script_args  # noqa: E402
import vta_timing  # noqa: E402
import yosys_sources  # noqa: E402

# The xc7z020 (PYNQ-Z1, the reference VTA's board): what the programmable logic offers.
XC7Z020 = {'lut': 53200, 'ff': 106400, 'bram36': 140, 'dsp': 220}
# Warnings every synth_xilinx run of block RAMs prints (the primitives' ports are wider than used).
BENIGN_WARNING = re.compile(r"^Warning: Resizing cell port \S+\.(DIADI|DIBDI|DIPADIP|DIPBDIP|DOADO|DOBDO|DOPADOP|"
                            r"DOPBDOP|WEA|WEBWE|ADDRARDADDR|ADDRBWRADDR) from \d+ bits to \d+ bits\.$")


def count(cells, prefix):
    return sum(n for name, n in cells.items() if name.startswith(prefix))


def utilization(cells):
    """LUT / FF / BRAM36 / DSP figures from the netlist's cell counts (Vivado's way of counting)."""
    lut_logic = count(cells, 'LUT')
    # distributed RAM: a RAM64M / RAM32M takes four LUTs of a SLICEM, a RAM64X1D / RAM32X1D two
    lut_memory = 4 * (cells.get('RAM64M', 0) + cells.get('RAM32M', 0)) + 2 * (
        cells.get('RAM64X1D', 0) + cells.get('RAM32X1D', 0)) + cells.get('RAM128X1D', 0) * 4
    return {
        'lut': lut_logic + lut_memory,
        'lut_logic': lut_logic,
        'lut_memory': lut_memory,
        'ff': sum(cells.get(k, 0) for k in ('FDCE', 'FDPE', 'FDRE', 'FDSE')),
        'bram36': cells.get('RAMB36E1', 0) + cells.get('RAMB18E1', 0) / 2,
        'dsp': cells.get('DSP48E1', 0),
        'carry4': cells.get('CARRY4', 0),
    }


def main():
    parser = script_args.Parser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--out', required=True, type=pathlib.Path)
    parser.add_argument('--top', default='vta_top')
    parser.add_argument('--timeout', type=script_args.number(0, 7 * 86400, low_open=True), default=1800,
                        help='bound on the Yosys run, seconds (at most a week)')
    parser.add_argument('--yosys', default='yosys')
    parser.add_argument('--max-share', type=script_args.number(0, 100, low_open=True), metavar='PERCENT',
                        help='fail when any resource (LUT, FF, BRAM36, DSP48E1) takes more of the xc7z020')
    parser.add_argument('--min-fmax', type=script_args.number(0, 10000, low_open=True), metavar='MHZ',
                        help="fail when the clock estimate (vta_timing.py) is under MHZ")
    parser.add_argument('sources', nargs='+', type=script_args.regular_file(yosys_sources.MAX_SOURCE_BYTES))
    args = parser.parse_args()

    src = args.out / 'src'
    written = yosys_sources.write(src, args.sources)
    log = args.out / 'yosys.log'
    netlist = args.out / 'netlist.json'
    stat_json = args.out / 'stat.json'
    script = (f'read_verilog -sv -DSYNTHESIS -I{src} {" ".join(str(p) for p in written)}; '
              f'synth_xilinx -top {args.top} -family xc7 -flatten; '
              f'tee -q -o {stat_json} stat -json; write_json {netlist}')
    for stale in (stat_json, netlist):  # (a previous run's figures are never reported as this run's)
        stale.unlink(missing_ok=True)
    # the same sources, script and Yosys give the same netlist: a run of them made before is given back
    # (result_cache.py; VTA_RESULT_CACHE=off runs Yosys whatever the cache holds)
    cache = result_cache.Cache('synth')
    key = cache.key({'script': script.replace(str(args.out), 'OUT')}, inputs=result_cache.folder_files(src),
                    tools=[args.yosys])
    record = cache.load(key, args.out)
    if record is None:
        start = time.monotonic()
        try:
            run = subprocess.run([args.yosys, '-q', '-l', str(log), '-p', script], capture_output=True, text=True,
                                 timeout=args.timeout, check=False)
        except FileNotFoundError:
            sys.exit(f'vta_synth: {args.yosys} not found (apt-get install yosys; scripts/setup.sh installs it)')
        except subprocess.TimeoutExpired:
            sys.exit(f'vta_synth: Yosys ran past --timeout {args.timeout:.0f} s (its log: {log})')
        record = {'returncode': run.returncode, 'output': run.stdout + run.stderr,
                  'seconds': time.monotonic() - start}
        if run.returncode == 0 and stat_json.is_file() and netlist.is_file():  # (only a whole run is kept)
            cache.store(key, record, [stat_json, netlist, log])
        made = ''
    else:
        made = f' (a result of {result_cache.made(record)} from these same inputs, result_cache.py)'
    seconds = record['seconds']
    messages = record['output'].splitlines()
    if record['returncode'] != 0:
        error = next((m for m in messages if 'ERROR' in m), messages[-1] if messages else 'no output')
        sys.exit(f'vta_synth: Yosys failed: {error} (log: {log})')
    suspicious = [m for m in messages if m.startswith('Warning') and not BENIGN_WARNING.match(m)]
    if suspicious:
        sys.exit(f'vta_synth: Yosys warned {len(suspicious)} time(s), first: {suspicious[0]} (log: {log})')

    if not stat_json.is_file() or not netlist.is_file():
        sys.exit(f'vta_synth: Yosys exited without writing {stat_json.name} and {netlist.name} (log: {log})')
    stats = json.loads(stat_json.read_text())
    cells = stats['modules']['\\' + args.top]['num_cells_by_type']
    result = {'top': args.top, 'part': 'xc7z020', 'tool': 'yosys synth_xilinx -family xc7',
              'seconds': round(seconds, 1), **utilization(cells), 'capacity': XC7Z020, 'cells': cells}
    share = {k: 100.0 * result[k] / XC7Z020[k] for k in XC7Z020}
    line = (f"{args.top}: {result['lut']} LUT ({share['lut']:.1f} % of xc7z020; {result['lut_memory']} as memory), "
            f"{result['ff']} FF ({share['ff']:.1f} %), {result['bram36']:g} BRAM36 ({share['bram36']:.1f} %), "
            f"{result['dsp']} DSP48E1 ({share['dsp']:.1f} %); Yosys {seconds:.0f} s{made}")
    timing = vta_timing.estimate(netlist, args.top)
    (args.out / 'timing.json').write_text(json.dumps(timing, indent=2) + '\n')
    result['fmax_mhz'] = timing['fmax_mhz']
    (args.out / 'utilization.json').write_text(json.dumps(result, indent=2) + '\n')
    line += '\n' + vta_timing.summary(timing)
    (args.out / 'summary.txt').write_text(line + '\n')
    print(line)
    if args.max_share is not None:
        over = [f'{k} {share[k]:.1f} %' for k in XC7Z020 if share[k] > args.max_share]
        if over:
            sys.exit(f'vta_synth: {args.top} does not fit the xc7z020 within {args.max_share:g} % of each resource: '
                     + ', '.join(over))
    refusal = vta_timing.under_goal(timing, args.min_fmax) if args.min_fmax is not None else None
    if refusal:
        sys.exit(f"vta_synth: {refusal} ({args.out / 'timing.json'})")


if __name__ == '__main__':
    try:
        main()
    except (OSError, ValueError, KeyError) as e:  # an unreadable or malformed file: one line, exit 1
        sys.exit(f'vta_synth: {e}')
