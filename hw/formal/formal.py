#!/usr/bin/env python3
"""Proves the RTL's property sets by k-induction with Debian's Yosys and yosys-smtbmc (docs/FORMAL.md).

  formal.py --out DIR [--set NAME]... [--proofs | --mutations] [--solver cvc5] FILE...

FILE... are the RTL sources in dependency order, as for hw/synth/vta_synth.py (the build passes its
lists: `cmake --build BUILD --target vta_formal`, or ctest -L formal). hw/formal/sets.json names the
property sets; each is a file in hw/formal included at the end of its module under VTA_FORMAL.

For every proof of a set (a top module with parameters): Yosys writes the design as SMT-LIB 2
(read_verilog -formal, flatten, async2sync), then yosys-smtbmc runs
  1. the base case: no assertion fails in the first DEPTH steps from reset (bounded model checking),
  2. the induction step (-i): DEPTH steps in which every assertion holds, from any state at all, are
     never followed by one in which an assertion fails. With 1, every assertion holds in every
     reachable state: the property is proven, not only checked to a depth;
  3. the covers (-c): each cover point is reached from reset within COVER_DEPTH steps, so no proof
     holds only because its situation never arises (the "unreached" list of a proof names covers that
     must stay unreached: a situation the design rules out).
A set's mutation plants a bug in a copy of the sources (a text replacement) and requires the base
case to fail: a counterexample from reset, not an induction step that gives up; a set may plant several
("mutations"), each naming the property it is planted for ("caught_by": that one must be among the
failing ones).

A proof may also name sources to swap ("replace": {"vta_compute.sv": "vta_compute_dual.sv"}, the file
beside the one replaced: two texts of one module, never read together), instances to cut ("cut":
selection patterns inside the top; Yosys's cutpoint gives their outputs any value in every cycle, so
what is proven holds whatever they answer), and assertions of the top it leaves to others ("leave":
about what it cuts, say).

The RTL is read as synthesis reads it (SYNTHESIS defined, and VTA_FORMAL): the proofs are about the
design that becomes the netlist; the blocks only the simulators compile are the tsim's to check.
Assertions of the top module that speak only of its inputs (the "assume" list) become assumptions;
a submodule's assumptions are the parent's to prove, so they become assertions. Every solver call has
a time limit (--timeout); the run fails naming the proof, the phase and the solver's last words.
Writes DIR/results.json and prints a table (--markdown: docs/FORMAL.md's).
"""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # (no __pycache__ in the source tree)
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / 'synth'))
import result_cache  # noqa: E402  (the Yosys flow's deterministic runs given back, shared)
import script_args  # noqa: E402  (the scripts' checks of their arguments and files, shared)
import yosys_sources  # noqa: E402  (the synthesis flow's reader of the RTL, shared)


class Failure(Exception):
    pass


def run(cmd, timeout, what, cwd=None):
    """Runs `cmd`; returns (returncode, output, seconds). Raises Failure on a timeout."""
    start = time.monotonic()
    # a session of its own: on a timeout the solver that yosys-smtbmc started goes too
    with subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          start_new_session=True) as child:
        try:
            out, _ = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            raise Failure(f'{what}: no answer within {timeout} s') from None
        except BaseException:  # (an interrupt: no solver left behind either)
            os.killpg(child.pid, signal.SIGKILL)
            raise
    return child.returncode, out, time.monotonic() - start


def last_words(output, n=12):
    lines = [line for line in output.splitlines() if 'seconds' not in line or 'Status' in line]
    return '\n'.join(lines[-n:])


def cells(yosys, rtlil, top, timeout):
    """The names of the flattened design's property cells, by kind: {'assert': [...], 'assume': [...],
    'cover': [...]} (one Yosys run lists the three)."""
    kinds = ('assert', 'assume', 'cover')
    listing = {kind: rtlil.with_suffix(f'.{kind}.txt') for kind in kinds}
    script = f'read_rtlil {rtlil}; ' + '; '.join(f'tee -q -o {listing[kind]} select -list {top}/t:${kind}'
                                                  for kind in kinds)
    rc, out, _ = run([yosys, '-q', '-p', script], timeout, 'yosys listing the properties')
    if rc != 0:
        raise Failure(f'yosys could not list the properties:\n{last_words(out)}')
    names = {}
    for kind in kinds:
        names[kind] = []
        for line in listing[kind].read_text().splitlines():
            name = line.split('/', 1)[1] if '/' in line else line
            if name.startswith('$'):
                raise Failure(f'{top}: an unlabelled {kind} ({name}): every property needs a name')
            names[kind].append(name)
        names[kind].sort()
    return names


def smt2(args, proof, sources, work):
    """Writes the proof's design as SMT-LIB 2; returns (smt2 path, asserts, assumes, covers)."""
    top = proof['top']
    work.mkdir(parents=True, exist_ok=True)
    files = ' '.join(str(p) for p in sources)
    params = ' '.join(f'-set {k} {v}' for k, v in proof.get('parameters', {}).items())
    chparam = f'chparam {params} {top}; ' if params else ''
    # the cut instances: their outputs any value in every cycle (Yosys's cutpoint), what the proof
    # claims holding whatever they answer
    cuts = ''.join(f'select -assert-min 1 {top}/{cut}; cutpoint {top}/{cut}; ' for cut in proof.get('cut', []))
    flat = work / 'flat.il'
    script = (f'read_verilog -sv -formal -DVTA_FORMAL -DSYNTHESIS -I{sources[0].parent} {files}; {chparam}'
              f'prep -top {top}; {cuts}flatten; memory_map; opt -fast; write_rtlil {flat}')
    rc, out, _ = run([args.yosys, '-q', '-p', script], args.timeout, f'yosys reading {top}')
    if rc != 0:
        raise Failure(f'yosys could not read {top}:\n{last_words(out)}')
    listed = cells(args.yosys, flat, top, args.timeout)
    asserts, assumes, covers = listed['assert'], listed['assume'], listed['cover']
    wanted = set(proof.get('assume', []))
    unknown = wanted - set(asserts)
    if unknown:
        raise Failure(f'{top}: "assume" names no assertion of the design: {", ".join(sorted(unknown))}')
    # A submodule's assumptions (hierarchical names) are the parent's obligations, and so are the
    # submodule assertions the proof names in "obligations" (its input rules, say). The submodule's
    # other assertions are proven by its own proofs: left out here, they cost the parent's solver
    # nothing and claim nothing (only the parent's own properties and its obligations are proven).
    obligations = set(proof.get('obligations', []))
    unknown = obligations - set(asserts)
    if unknown:
        raise Failure(f'{top}: "obligations" names no assertion of the design: {", ".join(sorted(unknown))}')
    to_assert = [a for a in assumes if '.' in a]
    # the top's assertions this proof leaves to others ("leave": about what it cuts, say)
    left = set(proof.get('leave', []))
    unknown = left - set(asserts)
    if unknown:
        raise Failure(f'{top}: "leave" names no assertion of the design: {", ".join(sorted(unknown))}')
    dropped = [a for a in asserts if ('.' in a and a not in obligations) or a in left]
    # a submodule's covers are its own proofs' business (in its parent some are rightly unreachable)
    script = f'read_rtlil {flat}; '
    script += ''.join(f'delete {top}/{c}; ' for c in covers if '.' in c)
    script += ''.join(f'delete {top}/{a}; ' for a in dropped)
    script += ''.join(f'chformal -assume2assert {top}/{a}; ' for a in to_assert)
    script += ''.join(f'chformal -assert2assume {top}/{a}; ' for a in sorted(wanted))
    out_path = work / 'design.smt2'
    script += f'opt_clean; async2sync; dffunmap; write_smt2 -wires {out_path}'
    rc, out, _ = run([args.yosys, '-q', '-p', script], args.timeout, f'yosys writing {top}')
    if rc != 0:
        raise Failure(f'yosys could not write {top} as SMT-LIB 2:\n{last_words(out)}')
    asserts = sorted((set(asserts) - wanted - set(dropped)) | set(to_assert))
    assumes = sorted((set(assumes) - set(to_assert)) | wanted)
    return out_path, asserts, assumes, [c for c in covers if '.' not in c]


def smt2_cached(args, proof, sources, work):
    """smt2(), or the design and lists it wrote before for the same proof, sources, Yosys and formal.py
    (result_cache.py: three Yosys runs per proof, seconds each)."""
    cache = result_cache.Cache('formal-design')
    work.mkdir(parents=True, exist_ok=True)
    # (the `include files beside the sources, hw/formal's property sets among them, are read too)
    key = cache.key({'proof': proof, 'order': [p.name for p in sources],
                     'formal.py': result_cache.file_digest(__file__)},
                    inputs=result_cache.folder_files(sources[0].parent), tools=[args.yosys])
    record = cache.load(key, work)
    if record is not None:
        return work / 'design.smt2', record['asserts'], record['assumes'], record['covers']
    design, asserts, assumes, covers = smt2(args, proof, sources, work)
    cache.store(key, {'asserts': asserts, 'assumes': assumes, 'covers': covers}, [design])
    return design, asserts, assumes, covers


def trace_of(design, mode):
    """The counterexample or the cover traces of a phase, for GTKWave."""
    return design.parent / f'{mode}.vcd'


# solver runs made, and given back by the result cache (the same design, options and tools give the
# same verdict and traces: result_cache.py; VTA_RESULT_CACHE=off runs every one)
SOLVER_RUNS = {'run': 0, 'cached': 0}
VERDICT = re.compile(r'Status: (PASSED|FAILED)')


def smtbmc(args, design, mode, depth, what):
    """Runs yosys-smtbmc; returns (passed, output, seconds)."""
    reset = design.parent / 'reset.smtc'
    reset.write_text('initial\nassume (not [rst_ni])\n')  # every run from reset starts in it
    trace = trace_of(design, mode)
    cmd = [args.smtbmc, '-s', args.solver, '-t', str(depth)]
    cmd += {'base': ['--presat', '--smtc', str(reset)], 'induction': ['--presat', '-i'],
            'cover': ['-c', '--smtc', str(reset)]}[mode]
    cmd += ['--dump-vcd', str(trace)]
    cache = result_cache.Cache('smtbmc')
    options = [a for a in cmd[1:] if a not in (str(reset), str(trace))]
    key = cache.key({'options': options}, inputs=[design, reset], tools=[args.smtbmc, args.solver])
    record = cache.load(key, design.parent)
    if record is None:
        rc, out, seconds = run(cmd + [str(design)], args.timeout, what)
        record = {'returncode': rc, 'output': out, 'seconds': seconds}
        if VERDICT.search(out):  # (a run without a verdict is not kept)
            cache.store(key, record, [trace])
        SOLVER_RUNS['run'] += 1
    else:
        SOLVER_RUNS['cached'] += 1
    rc, out, seconds = record['returncode'], record['output'], record['seconds']
    status = VERDICT.findall(out)
    if not status:
        raise Failure(f'{what}: yosys-smtbmc ended without a verdict (exit {rc}):\n{last_words(out)}')
    return status[-1] == 'PASSED', out, seconds


def label(proof):
    params = ','.join(f'{k}={v}' for k, v in proof.get('parameters', {}).items())
    top = f'{proof["top"]}({params})' if params else proof['top']
    replaced = ', '.join(proof.get('replace', {}).values())
    return f'{top} of {replaced}' if replaced else top


def proof_sources(proof, sources, others):
    """The sources of `proof`: `sources`, each file its "replace" names swapped for its replacement (one of
    `others`, the replacements written beside them), in the same place."""
    replace = proof.get('replace', {})
    names = [p.name for p in sources]
    missing = sorted(set(replace) - set(names))
    if missing:
        raise Failure(f'{label(proof)}: "replace" names no source: {", ".join(missing)}')
    by_name = {p.name: p for p in others}
    return [by_name[replace[p.name]] if p.name in replace else p for p in sources]


def prove(args, name, proof, sources, work):
    what = f'{name}: {label(proof)}'
    design, asserts, assumes, covers = smt2_cached(args, proof, sources, work)
    depth = proof['depth']
    result = {'set': name, 'proof': label(proof), 'depth': depth, 'solver': args.solver, 'asserts': asserts,
              'assumes': assumes, 'covers': covers, 'seconds': {}}
    for mode in ('base', 'induction'):
        ok, out, seconds = smtbmc(args, design, mode, depth, f'{what}: {mode} case')
        result['seconds'][mode] = round(seconds, 2)
        if not ok:
            failed = sorted(set(re.findall(r'Assert(?:ion)? failed in \S+: (\S+)', out)))
            raise Failure(f'{what}: the {mode} case fails at depth {depth} ({", ".join(failed) or "see below"}; '
                          f'the trace: {trace_of(design, mode)}):\n{last_words(out)}')
    cover_depth = proof.get('cover_depth', 12)
    _, out, seconds = smtbmc(args, design, 'cover', cover_depth, f'{what}: covers')
    result['seconds']['cover'] = round(seconds, 2)
    reached = set(re.findall(r'Reached cover statement at (\S+) in step', out))
    unreached = set(proof.get('unreached', []))
    missing = sorted(set(covers) - reached - unreached)
    if missing:
        raise Failure(f'{what}: not reached within {cover_depth} steps: {", ".join(missing)} '
                      '(a property about a situation that never arises proves nothing)')
    wrongly = sorted(reached & unreached)
    if wrongly:
        raise Failure(f'{what}: reached although the set says it cannot be: {", ".join(wrongly)}')
    if unreached - set(covers):
        raise Failure(f'{what}: "unreached" names no cover: {", ".join(sorted(unreached - set(covers)))}')
    result['reached'] = sorted(reached)
    return result


def mutate(args, name, mutation, proofs, sources, others, work):
    """Plants one of the set's bugs in a copy of the sources; the base case must fail, and when the
    mutation names the property it is about ("caught_by"), that property among the failing ones."""
    copy = work / 'src'
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(sources[0].parent, copy)
    target = copy / mutation['file']
    text = target.read_text()
    if text.count(mutation['from']) != 1:
        raise Failure(f'{name}: the mutation\'s "from" text occurs {text.count(mutation["from"])} times in '
                      f'{mutation["file"]}, not once (the RTL changed: update hw/formal/sets.json)')
    target.write_text(text.replace(mutation['from'], mutation['to']))
    proof = proofs[mutation.get('proof', 0)]
    mine = proof_sources(proof, sources, others)
    design, *_ = smt2_cached(args, proof, [copy / p.name for p in mine], work)
    depth = mutation.get('depth', proof['depth'])
    what = f'{name}: mutation "{mutation["bug"]}"'
    ok, out, seconds = smtbmc(args, design, 'base', depth, what)
    if ok:
        raise Failure(f'{what}: no counterexample within {depth} steps: the proof would not catch this bug')
    caught = sorted(set(re.findall(r'Assert(?:ion)? failed in \S+: (\S+)', out)))
    if 'caught_by' in mutation and mutation['caught_by'] not in caught:
        raise Failure(f'{what}: caught by {", ".join(caught)}, not by {mutation["caught_by"]}, the property it '
                      'is planted for')
    return {'set': name, 'bug': mutation['bug'], 'caught_by': caught, 'depth': depth, 'seconds': round(seconds, 2)}


def markdown(results, mutations):
    rows = ['| set | proof | properties (own module) | depth | solver | base s | induction s | cover s |',
            '|---|---|---|---|---|---|---|---|']
    for r in results:
        own = [a for a in r['asserts'] if '.' not in a]
        rows.append(f'| {r["set"]} | `{r["proof"]}` | {len(own)} ({len(r["asserts"])} with submodules) | '
                    f'{r["depth"]} | {r["solver"]} | {r["seconds"]["base"]} | {r["seconds"]["induction"]} | '
                    f'{r["seconds"]["cover"]} |')
    if mutations:
        rows += ['', '| set | planted bug | caught by | s |', '|---|---|---|---|']
        rows += [f'| {m["set"]} | {m["bug"]} | {", ".join(m["caught_by"])} | {m["seconds"]} |' for m in mutations]
    return '\n'.join(rows)


def main():
    parser = script_args.Parser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--out', required=True, type=pathlib.Path)
    parser.add_argument('--set', action='append', default=[], help='only this set (repeatable)')
    what = parser.add_mutually_exclusive_group()
    what.add_argument('--proofs', action='store_true', help='the proofs and covers only')
    what.add_argument('--mutations', action='store_true', help='the planted bugs only')
    parser.add_argument('--solver', default='cvc5', help='yosys-smtbmc -s (default cvc5; see docs/FORMAL.md)')
    parser.add_argument('--yosys', default='yosys')
    parser.add_argument('--smtbmc', default='yosys-smtbmc')
    parser.add_argument('--timeout', type=script_args.number(1, 7 * 86400, int), default=300,
                        help='seconds per tool call (default 300, at most a week)')
    parser.add_argument('--markdown', action='store_true', help='print the tables as Markdown')
    parser.add_argument('sources', nargs='+', type=script_args.regular_file(yosys_sources.MAX_SOURCE_BYTES))
    args = parser.parse_args()
    try:
        for tool in (args.yosys, args.smtbmc, args.solver):
            if not shutil.which(tool):
                raise Failure(f'{tool} is not installed (scripts/setup.sh installs yosys and {args.solver})')
        missing = [str(p) for p in args.sources if not p.is_file()]
        if missing:
            raise Failure(f'no such source file: {", ".join(missing)}')
        sets = json.loads((HERE / 'sets.json').read_text())['sets']
        unknown = set(args.set) - {s['name'] for s in sets}
        if unknown:
            raise Failure(f'no property set named {", ".join(sorted(unknown))} (hw/formal/sets.json has '
                          f'{", ".join(s["name"] for s in sets)})')
        args.out.mkdir(parents=True, exist_ok=True)
        # (hw/formal's own modules, the sets that compare two cells side by side, after the RTL)
        # (and the files the proofs' "replace" swap in, beside the RTL they replace: the two-slot
        # compute stage for vta_compute.sv, one module name, so never read together)
        chosen = [s for s in sets if not args.set or s['name'] in args.set]
        by_name = {p.name: p for p in args.sources}
        others = []
        for proof in (proof for spec in chosen for proof in spec['proofs']):
            for old, new in proof.get('replace', {}).items():
                if old not in by_name:  # (the proof says so when it runs, after the sources are read)
                    continue
                other = by_name[old].parent / new
                if not other.is_file():
                    raise Failure(f'{label(proof)}: no such replacement beside {old}: {other}')
                if other not in others:
                    others.append(other)
        written = yosys_sources.write(args.out / 'src', args.sources + sorted(HERE.glob('*.sv')) + others,
                                      sorted(HERE.glob('*.svh')))
        sources, others = written[:len(written) - len(others)], written[len(written) - len(others):]
        results, mutations = [], []
        for spec in sets:
            if args.set and spec['name'] not in args.set:
                continue
            if not args.mutations:
                for i, proof in enumerate(spec['proofs']):
                    results.append(prove(args, spec['name'], proof, proof_sources(proof, sources, others),
                                         args.out / spec['name'] / str(i)))
                    r = results[-1]
                    print(f'{spec["name"]}: {r["proof"]}: {len(r["asserts"])} properties proven by induction '
                          f'(depth {r["depth"]}, {args.solver}: base {r["seconds"]["base"]} s, induction '
                          f'{r["seconds"]["induction"]} s), {len(r["reached"])} of {len(r["covers"])} covers '
                          f'reached ({r["seconds"]["cover"]} s)', flush=True)
            if not args.proofs:
                planted = spec['mutations'] if 'mutations' in spec else [spec['mutation']]
                for i, mutation in enumerate(planted):
                    m = mutate(args, spec['name'], mutation, spec['proofs'], sources, others,
                               args.out / spec['name'] / f'mutation{i if i else ""}')
                    mutations.append(m)
                    print(f'{spec["name"]}: planted bug "{m["bug"]}" caught by {", ".join(m["caught_by"])} '
                          f'({m["seconds"]} s)', flush=True)
        (args.out / 'results.json').write_text(json.dumps({'proofs': results, 'mutations': mutations}, indent=1))
        if args.markdown:
            print(markdown(results, mutations))
        own = {(r['set'], a) for r in results for a in r['asserts'] if '.' not in a}
        summary = []
        if not args.mutations:
            summary.append(f'{len(own)} distinct properties proven by induction in {len(results)} proofs, each '
                           'module\'s covers reached')
        if not args.proofs:
            summary.append(f'{len(mutations)} planted bugs caught')
        if SOLVER_RUNS['cached']:
            summary.append(f'{SOLVER_RUNS["cached"]} of {SOLVER_RUNS["cached"] + SOLVER_RUNS["run"]} solver runs '
                           'given back by the result cache (hw/synth/result_cache.py)')
        print('formal: ' + '; '.join(summary))
    except Failure as error:
        sys.exit(f'formal.py: {error}')
    except ValueError as error:  # (a file that is not UTF-8, JSON that is not JSON)
        sys.exit(f'formal.py: {error}')
    except (OSError, KeyError) as error:
        sys.exit(f'formal.py: {type(error).__name__}: {error}')


if __name__ == '__main__':
    main()
