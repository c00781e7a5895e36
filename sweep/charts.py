#!/usr/bin/env python3
"""Draws a sweep's charts with matplotlib: vta-sweep's report step runs it on DIR/pareto.json.

  charts.py DIR/pareto.json --out DIR

pareto.json (written by sweep/src/report.cc, which also decides every front) holds one panel per
workload and backend, each point a configuration with its cycles, SRAM bytes, LUTs, energy and
energy-delay product, and its place on the fronts. Per panel, side by side:
  1. cycles against the cost (LUTs where every configuration was synthesized, else SRAM bytes);
  2. energy against cycles, when the tasks measured energy;
  3. energy-delay product against LUTs, when they were synthesized too.
Every point is labelled with its configuration; the front is joined and named in the legend.
Writes DIR/pareto.svg and DIR/pareto.png; exits 1 with a message when the input is unusable.
"""
import argparse
import json
import pathlib
import sys

sys.dont_write_bytecode = True


def label_points(ax, xs, ys, names):
    for x, y, name in zip(xs, ys, names):
        ax.annotate(name, (x, y), textcoords='offset points', xytext=(5, 4), fontsize=7, color='#333333')


def draw(ax, points, x_key, y_key, front_key, x_label, y_label):
    """One scatter: every configuration a labelled point, the front joined in red."""
    from matplotlib.ticker import EngFormatter
    pts = [p for p in points if p.get(x_key) is not None and p.get(y_key) is not None]
    rest = [p for p in pts if not p[front_key]]
    front = sorted((p for p in pts if p[front_key]), key=lambda p: p[x_key])
    ax.scatter([p[x_key] for p in rest], [p[y_key] for p in rest], color='#7f8c8d', s=22, zorder=2,
               label='other configurations')
    ax.plot([p[x_key] for p in front], [p[y_key] for p in front], color='#c0392b', marker='o', markersize=5,
            zorder=3, label='Pareto front (nothing both lower and left)')
    label_points(ax, [p[x_key] for p in pts], [p[y_key] for p in pts], [p['config'] for p in pts])
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.xaxis.set_major_formatter(EngFormatter(sep=' '))
    ax.yaxis.set_major_formatter(EngFormatter(sep=' '))
    ax.grid(True, color='#e5e5e5', zorder=0)
    ax.margins(0.15)
    ax.legend(fontsize=7, loc='upper right')


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
            charts = [('cost', 'cycles', 'front', f'{panel["cost_axis"]}', 'cycles')]
            if all(p.get('energy_uj') is not None for p in pts):
                charts.append(('cycles', 'energy_uj', 'energy_front', 'cycles', 'energy (µJ)'))
                if all(p.get('luts') is not None for p in pts):
                    charts.append(('luts', 'edp', 'edp_front', 'LUTs', 'energy-delay product (µJ × cycles)'))
            rows.append((panel['title'], pts, charts))
        if not rows:
            sys.exit('charts.py: no panel to draw (no task measured cycles)')
        columns = max(len(charts) for _, _, charts in rows)
        fig, axes = plt.subplots(len(rows), columns, figsize=(6.2 * columns, 4.6 * len(rows)), squeeze=False)
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
