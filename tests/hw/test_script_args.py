#!/usr/bin/env python3
"""The hardware scripts (hw/synth/vta_synth.py, vta_timing.py, hw/formal/formal.py) given what a user
or a hostile caller might: a FIFO or a device as a file (refused before it is opened, not read forever),
numbers out of range or not finite, text that is not UTF-8, JSON that is not a netlist, a Yosys that
writes nothing. Each is one line on stderr naming the problem, exit status 2 for a usage error and 1
otherwise, and never a traceback. No Yosys needed: where a run gets that far, a stand-in is given.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SYNTH = ROOT / 'hw' / 'synth' / 'vta_synth.py'
TIMING = ROOT / 'hw' / 'synth' / 'vta_timing.py'
FORMAL = ROOT / 'hw' / 'formal' / 'formal.py'


class ScriptArguments(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = pathlib.Path(self.dir.name)
        self.fifo = self.tmp / 'fifo'
        os.mkfifo(self.fifo)
        self.source = self.tmp / 'ok.sv'
        self.source.write_text('module ok; endmodule\n')

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, script, *args, status, says):
        # (a cache of its own: a stand-in's run is never given back to another test, nor kept in the user's)
        env = dict(os.environ, VTA_RESULT_CACHE=str(self.tmp / 'results'))
        r = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True,
                           timeout=60, check=False, env=env)
        self.assertEqual(r.returncode, status, r.stderr)
        self.assertNotIn('Traceback', r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn(says, r.stderr)

    def test_files_that_are_not_regular_files_are_refused_unopened(self):
        self.run_script(TIMING, self.fifo, status=2, says=f'{self.fifo} is a FIFO, not a regular file')
        self.run_script(TIMING, '/dev/zero', status=2, says='/dev/zero is a device, not a regular file')
        self.run_script(SYNTH, '--out', self.tmp / 'o', self.fifo, status=2, says='is a FIFO')
        self.run_script(SYNTH, '--out', self.tmp / 'o', '/dev/zero', status=2, says='is a device')
        self.run_script(FORMAL, '--out', self.tmp / 'f', self.fifo, status=2, says='is a FIFO')
        self.run_script(TIMING, self.tmp / 'missing.json', status=2, says='No such file or directory')

    def test_numbers_out_of_range_or_not_finite_are_refused(self):
        for bad in ('-1', '0', 'nan', 'inf'):
            self.run_script(SYNTH, '--out', self.tmp / 'o', '--timeout', bad, self.source, status=2,
                            says=f'argument --timeout: {bad} is out of range')
        self.run_script(SYNTH, '--out', self.tmp / 'o', '--max-share', 'nan', self.source, status=2,
                        says='argument --max-share: nan is out of range')
        self.run_script(SYNTH, '--out', self.tmp / 'o', '--min-fmax', '-1', self.source, status=2,
                        says='argument --min-fmax: -1 is out of range')
        self.run_script(TIMING, self.source, '--paths', '-1', status=2, says='argument --paths: -1 is out of range')
        self.run_script(FORMAL, '--out', self.tmp / 'f', '--timeout', '1e20', self.source, status=2,
                        says="argument --timeout: '1e20' is not an integer")
        self.run_script(FORMAL, '--out', self.tmp / 'f', '--timeout', '0', self.source, status=2,
                        says='argument --timeout: 0 is out of range')

    def test_malformed_contents_are_named(self):
        netlist = self.tmp / 'list.json'
        netlist.write_text('[]')
        self.run_script(TIMING, netlist, status=1, says=f'{netlist} is not a Yosys JSON netlist')
        latin = self.tmp / 'latin.sv'
        latin.write_bytes(b'module caf\xe9; endmodule\n')
        self.run_script(FORMAL, '--out', self.tmp / 'f', '--yosys', sys.executable, '--smtbmc', sys.executable,
                        '--solver', sys.executable, latin, status=1, says=f'{latin} is not UTF-8 text (byte 10')

    def test_a_yosys_that_writes_nothing_is_not_reported_from_an_earlier_run(self):
        out = self.tmp / 'synth'
        out.mkdir()
        (out / 'stat.json').write_text('{"modules": {"\\\\ok": {"num_cells_by_type": {"LUT2": 1}}}}')
        (out / 'netlist.json').write_text('{"modules": {}}')
        silent = self.tmp / 'yosys'
        silent.write_text('#!/bin/sh\nexit 0\n')
        silent.chmod(0o755)
        self.run_script(SYNTH, '--out', out, '--yosys', silent, '--top', 'ok', self.source, status=1,
                        says='Yosys exited without writing stat.json and netlist.json')


if __name__ == '__main__':
    unittest.main()
