#!/usr/bin/env python3
"""sweep/charts.py: the labels a chart gives configurations, the charts a panel gets, and the message
for an input it cannot use. Usage: test_charts.py SOURCE_DIR WORK_DIR"""
import json
import pathlib
import subprocess
import sys

sys.dont_write_bytecode = True
src, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
sys.path.insert(0, str(src / 'sweep'))
import charts  # noqa: E402

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f'{what}: got {got!r}, want {want!r}')


# names: the words all start with dropped, the buffer sizes and other log2 keys written short
check('short names', charts.short_names(['this build LOG_ACC_BUFF_SIZE=16',
                                         'this build LOG_ACC_BUFF_SIZE=15 LOG_BLOCK=3 LOG_INP_BUFF_SIZE=13']),
      ['ACC=16', 'ACC=15 BLOCK=3 INP=13'])
check('one name kept whole', charts.short_names(['this build']), ['this build'])
check('file names untouched', charts.short_names(['block8.json', 'default.json']), ['block8.json', 'default.json'])

# a panel with energy and LUTs gets three charts, their titles and the points' labels as text
work.mkdir(parents=True, exist_ok=True)
points = [{'config': f'this build LOG_ACC_BUFF_SIZE={a}', 'cycles': c, 'sram': s, 'luts': l, 'cost': l,
           'energy_uj': e, 'edp': e * c, 'front': f, 'energy_front': f, 'edp_front': f}
          for a, c, s, l, e, f in ((16, 7281631, 409600, 36879, 22270.3, False), (17, 7236039, 491520, 36520, 22807.2, True))]
(work / 'pareto.json').write_text(json.dumps({'panels': [{'title': 'resnet18 224 on tsim', 'cost_axis': 'LUTs',
                                                          'points': points}]}))
run = subprocess.run([sys.executable, str(src / 'sweep' / 'charts.py'), str(work / 'pareto.json'), '--out', str(work)],
                     capture_output=True, text=True, timeout=120)
check('exit status', run.returncode, 0)
svg = (work / 'pareto.svg').read_text() if (work / 'pareto.svg').exists() else ''
# (energy in joules: 22.3 and 22.8 mJ put a tick at 22.5 mJ)
for text in ('>ACC=16<', '>ACC=17<', '>LUTs<', '>cycles<', '>energy per run<', 'energy-delay product (J x cycles)',
             'Pareto front', '>22.5 mJ<'):
    if text not in svg:
        failures.append(f'pareto.svg lacks {text!r}')
# a precision panel (an fsim sweep of three widths: no cycles, each point with its top-1 accuracy and
# energy, synthesized): the two precision charts alone, their axes and the front's name
precision = [{'config': name, 'cycles': None, 'sram': 1, 'luts': l, 'cost': l, 'energy_uj': e, 'edp': None,
              'accuracy': a, 'front': False, 'energy_front': False, 'edp_front': False, 'accuracy_front': f,
              'accuracy_lut_front': f}
             for name, l, e, a, f in (('this build', 33674, 20.4, 92.47, True), ('w4a8.json', 32740, 15.2, 92.15, True),
                                      ('w4a4.json', 32396, 17.1, 91.77, False))]
(work / 'precision').mkdir(exist_ok=True)
(work / 'precision' / 'pareto.json').write_text(json.dumps({'panels': [{'title': 'onnx cnn on fsim',
                                                                        'cost_axis': 'LUTs', 'points': precision}]}))
run = subprocess.run([sys.executable, str(src / 'sweep' / 'charts.py'), str(work / 'precision' / 'pareto.json'),
                      '--out', str(work / 'precision')], capture_output=True, text=True, timeout=120)
check('precision exit status', run.returncode, 0)
svg = (work / 'precision' / 'pareto.svg').read_text() if (work / 'precision' / 'pareto.svg').exists() else ''
for text in ('>w4a8.json<', '>energy per inference<', 'top-1 accuracy (%)', 'nothing both more accurate and left'):
    if text not in svg:
        failures.append(f'the precision pareto.svg lacks {text!r}')
for text in ('>cycles<', 'energy-delay product'):
    if text in svg:
        failures.append(f'the precision pareto.svg has {text!r}, without cycles')

# an input it cannot use: the message names the file
(work / 'bad.json').write_text('{"panels": [{"title": "x"}]}')
bad = subprocess.run([sys.executable, str(src / 'sweep' / 'charts.py'), str(work / 'bad.json'), '--out', str(work)],
                     capture_output=True, text=True, timeout=120)
check('bad input status', bad.returncode, 1)
if 'bad.json: KeyError' not in bad.stderr:
    failures.append(f'bad input message: {bad.stderr!r}')

if failures:
    sys.exit('test_charts.py:\n  ' + '\n  '.join(failures))
print('charts: names shortened, three charts with their axes and labels, the precision charts, bad input named')
