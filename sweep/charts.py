#!/usr/bin/env python3
"""Draws a sweep's charts with matplotlib: vta-sweep's report step runs it on DIR/pareto.json.

  charts.py DIR/pareto.json --out DIR

pareto.json (written by sweep/src/report.cc, which also decides every front) holds one panel per
workload and backend, each point a configuration with its cycles, SRAM bytes, LUTs, energy and
energy-delay product, top-1 accuracy, and its place on the fronts. Per panel, side by side:
  1. cycles against the cost (LUTs where every configuration was synthesized, else SRAM bytes), when
     the tasks measured cycles (the tsim, SystemC);
  2. energy against cycles, when the tasks measured energy too;
  3. energy-delay product against LUTs, when they were synthesized too;
  4. top-1 accuracy against energy, when the workload measured accuracy (the precision front);
  5. top-1 accuracy against LUTs, when they were synthesized too.
Every point is labelled with its configuration; the front is joined and named in the legend.
Writes DIR/pareto.svg and DIR/pareto.png; exits 1 with a message when the input is unusable.
"""
import argparse
import json
import pathlib
import re
import sys

sys.dont_write_bytecode = True


def short_names(names):
    """The configurations' names as a chart shows them: the words all of two or more start with left out
    ("this build"), LOG_X_BUFF_SIZE=n written X=n and LOG_X=n written X=n (the value is the log2 in both)."""
    words = [name.split() for name in names]
    common = 0
    while len(words) > 1 and all(len(w) > common + 1 and w[common] == words[0][common] for w in words):
        common += 1
    shorter = [' '.join(w[common:]) for w in words]
    return [re.sub(r'LOG_(\w+?)_BUFF_SIZE=', r'\1=', re.sub(r'\bLOG_(?!\w+_BUFF_SIZE)', '', s)) for s in shorter]


def label_points(ax, xs, ys, names):
    """Each point's configuration beside it; a label that would land on an earlier one's goes below
    its point instead (close in both axes: within 12 % of the x range and 4 % of the y range)."""
    span_x = (max(xs) - min(xs)) or 1
    span_y = (max(ys) - min(ys)) or 1
    placed = []
    for x, y, name in sorted(zip(xs, ys, names), key=lambda p: (-p[1], p[0])):
        crowded = any(abs(x - px) < 0.12 * span_x and abs(y - py) < 0.04 * span_y and above for px, py, above in placed)
        ax.annotate(name, (x, y), textcoords='offset points', xytext=(5, -11 if crowded else 4), fontsize=7,
                    color='#333333')
        placed.append((x, y, not crowded))


def draw(ax, points, x_key, y_key, front_key, x_label, y_label, units=('', ''),
         front_label='Pareto front (nothing both lower and left)'):
    """One scatter: every configuration a labelled point, the front joined in red; tick values in
    engineering notation with the axes' units (`units`: x's and y's SI unit, if any)."""
    from matplotlib.ticker import EngFormatter
    pts = [p for p in points if p.get(x_key) is not None and p.get(y_key) is not None]
    rest = [p for p in pts if not p[front_key]]
    front = sorted((p for p in pts if p[front_key]), key=lambda p: p[x_key])
    ax.scatter([p[x_key] for p in rest], [p[y_key] for p in rest], color='#7f8c8d', s=22, zorder=2,
               label='other configurations')
    ax.plot([p[x_key] for p in front], [p[y_key] for p in front], color='#c0392b', marker='o', markersize=5,
            zorder=3, label=front_label)
    label_points(ax, [p[x_key] for p in pts], [p[y_key] for p in pts], short_names([p['config'] for p in pts]))
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.xaxis.set_major_formatter(EngFormatter(unit=units[0], sep=' '))
    ax.yaxis.set_major_formatter(EngFormatter(unit=units[1], sep=' '))
    ax.grid(True, color='#e5e5e5', zorder=0)
    ax.margins(0.15)
    # (below the axes: inside, it would cover points or their labels)
    ax.legend(fontsize=7, loc='upper center', bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('panels', type=pathlib.Path)
    parser.add_argument('--out', type=pathlib.Path, required=True)
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use('Agg')
        matplotlib.rcParams['svg.fonttype'] = 'none'  # text stays text: searchable, and the labels readable
        import matplotlib.pyplot as plt
    except ImportError as error:
        sys.exit(f'charts.py: matplotlib is not available to {sys.executable} ({error}); scripts/setup.sh installs '
                 'python3-matplotlib')
    try:
        panels = json.loads(args.panels.read_text())['panels']
        rows = []
        for panel in panels:
            pts = panel['points']
            for p in pts:  # (in joules: the ticks say mJ, µJ or J as the values need)
                p['energy_j'] = p['energy_uj'] * 1e-6 if p.get('energy_uj') is not None else None
                p['edp_j'] = p['edp'] * 1e-6 if p.get('edp') is not None else None
            charts = []
            energy = all(p['energy_j'] is not None for p in pts)
            luts = all(p.get('luts') is not None for p in pts)
            if all(p.get('cycles') is not None for p in pts):
                charts.append(('cost', 'cycles', 'front', f'{panel["cost_axis"]}', 'cycles'))
                if energy:
                    charts.append(('cycles', 'energy_j', 'energy_front', 'cycles', 'energy per run', ('', 'J')))
                    if luts:
                        charts.append(('luts', 'edp_j', 'edp_front', 'LUTs', 'energy-delay product (J x cycles)'))
            if all(p.get('accuracy') is not None for p in pts):
                better = 'Pareto front (nothing both more accurate and left)'
                if energy:
                    charts.append(('energy_j', 'accuracy', 'accuracy_front', 'energy per inference',
                                   'top-1 accuracy (%)', ('J', ''), better))
                if luts:
                    charts.append(('luts', 'accuracy', 'accuracy_lut_front', 'LUTs', 'top-1 accuracy (%)', ('', ''),
                                   better))
            if not charts:
                continue
            rows.append((panel['title'], pts, charts))
        if not rows:
            sys.exit('charts.py: no panel to draw (no task measured cycles or accuracy)')
        columns = max(len(charts) for _, _, charts in rows)
        fig, axes = plt.subplots(len(rows), columns, figsize=(6.4 * columns, 5.0 * len(rows)), squeeze=False)
        for r, (title, pts, charts) in enumerate(rows):
            for c in range(columns):
                ax = axes[r][c]
                if c >= len(charts):
                    ax.axis('off')
                    continue
                draw(ax, pts, *charts[c])
                ax.set_title(title, fontsize=10, loc='left')
        fig.tight_layout()
        args.out.mkdir(parents=True, exist_ok=True)
        for suffix in ('svg', 'png'):
            fig.savefig(args.out / f'pareto.{suffix}', dpi=110, metadata={'Date': None} if suffix == 'svg' else None)
    except (OSError, ValueError, KeyError, TypeError) as error:
        sys.exit(f'charts.py: {args.panels}: {type(error).__name__}: {error}')


if __name__ == '__main__':
    main()
