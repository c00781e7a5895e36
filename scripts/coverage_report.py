#!/usr/bin/env python3
"""Summarizes a merged Verilator coverage file (docs/COVERAGE.md).

  coverage_report.py MERGED.dat [--json OUT.json] [--require-every-cover-point] [--min-line PCT]

Prints the one-line figure (line, toggle and cover-point percentages), then every cover point
(`VTA_COVER in the RTL) the runs never reached, by module, and writes the same as JSON. The
percentages count Verilator's points the way verilator_coverage does: a point is covered when its
count is at least 1.
"""
import argparse
import collections
import json
import pathlib
import re
import sys

# A point's key: fields \\001<name>\\002<value>; 'page' is v_line/<module>, v_toggle/<module>,
# v_user/<module> (cover properties), v_branch/..., 'o' the comment (a cover point's name), 'h' the
# hierarchy, 'f' the file, 'l' the line.
FIELD = re.compile('\x01([^\x02]*)\x02([^\x01]*)')
KINDS = ('line', 'toggle', 'user')


def points(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        for number, line in enumerate(f, 1):
            if not line.startswith('C '):
                continue
            open_q, close_q = line.find("'"), line.rfind("'")
            try:
                if open_q < 0 or close_q <= open_q:
                    raise ValueError
                fields = dict(FIELD.findall(line[open_q + 1:close_q]))
                count = int(line[close_q + 1:])
            except ValueError:
                raise ValueError(f"{path}:{number}: not a coverage point (C '<key>' <count>)") from None
            yield fields, count


def kind_of(page):
    """line / toggle / user (cover properties) / other, from the page field."""
    prefix = page.split('/', 1)[0]
    return {'v_line': 'line', 'v_branch': 'line', 'v_toggle': 'toggle', 'v_user': 'user'}.get(prefix, 'other')


def summarize(path):
    totals = {k: [0, 0] for k in KINDS}  # covered, all
    uncovered = collections.defaultdict(list)
    for fields, count in points(path):
        kind = kind_of(fields.get('page', ''))
        if kind not in totals:
            continue
        totals[kind][1] += 1
        if count > 0:
            totals[kind][0] += 1
        elif kind == 'user':  # by instance: a cover point of a module used twice is two points
            name = fields.get('o', '?')
            scope = fields.get('h', '').removeprefix('TOP.').removeprefix('vta_top.').removesuffix('.' + name)
            uncovered[scope or 'vta_top'].append({'name': name, 'file': fields.get('f', ''),
                                     'line': int(fields.get('l', '0') or 0)})
    return totals, uncovered


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('merged', type=pathlib.Path)
    parser.add_argument('--json', type=pathlib.Path)
    parser.add_argument('--require-every-cover-point', action='store_true',
                        help='exit 1 when a cover point was never reached')
    parser.add_argument('--min-line', type=float, metavar='PCT',
                        help='exit 1 when line coverage is below PCT percent')
    args = parser.parse_args()
    if not args.merged.is_file():
        sys.exit(f'coverage_report: no file {args.merged}')
    totals, uncovered = summarize(args.merged)
    if totals['line'][1] == 0:
        sys.exit(f'coverage_report: {args.merged} has no line coverage points (a tsim built without '
                 'VTA_TSIM_COVERAGE?)')
    pct = {k: 100.0 * c / n if n else 0.0 for k, (c, n) in totals.items()}
    print(f"RTL coverage: line {pct['line']:.1f} % ({totals['line'][0]}/{totals['line'][1]}), "
          f"toggle {pct['toggle']:.1f} % ({totals['toggle'][0]}/{totals['toggle'][1]}), "
          f"cover points {pct['user']:.1f} % ({totals['user'][0]}/{totals['user'][1]})")
    for scope in sorted(uncovered):
        print(f'  never reached in {scope}: {", ".join(sorted(p["name"] for p in uncovered[scope]))}')
    if args.json:
        args.json.write_text(json.dumps({
            'percent': pct, 'covered': {k: v[0] for k, v in totals.items()},
            'points': {k: v[1] for k, v in totals.items()},
            'uncovered_cover_points': {m: v for m, v in sorted(uncovered.items())}}, indent=2) + '\n')
    refusals = []  # every requirement the figure misses, in one line
    if args.require_every_cover_point and uncovered:
        refusals.append('the regression no longer reaches every cover point (listed above)')
    if args.min_line is not None and pct['line'] < args.min_line:
        refusals.append(f"line coverage {pct['line']:.1f} % is below the {args.min_line} % required")
    if refusals:
        sys.exit('coverage_report: ' + '; '.join(refusals))


if __name__ == '__main__':
    try:
        main()
    except (OSError, ValueError, KeyError) as e:  # an unreadable or malformed file: one line, exit 1
        sys.exit(f'coverage_report: {e}')
