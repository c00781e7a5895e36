#!/usr/bin/env python3
"""hw/synth/result_cache.py, which gives back Yosys's and yosys-smtbmc's runs: a result is given back
only for the same question (the same options, input contents and programs, wherever the files are),
whole (the files byte for byte, the record as stored), never from a damaged entry, and the cache stays
within its size. Each case uses its own cache folder and two stand-in programs (shell scripts)."""
import gzip
import os
import pathlib
import sys
import tempfile
import unittest
from unittest import mock

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / 'hw' / 'synth'))
import result_cache  # noqa: E402


class ResultCacheTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        self.env = dict(os.environ)
        os.environ['VTA_RESULT_CACHE'] = str(self.dir / 'cache')
        os.environ.pop('VTA_RESULT_CACHE_MB', None)
        for name, text in (('tool_a', 'echo a'), ('tool_b', 'echo b')):
            tool = self.dir / name
            tool.write_text(f'#!/bin/sh\n{text}\n')
            tool.chmod(0o755)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        self.tmp.cleanup()

    def write(self, relative, text):
        path = self.dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def test_the_key_is_the_question_not_where_its_files_are(self):
        cache = result_cache.Cache('synth')
        a = self.write('one/design.sv', 'module m; endmodule\n')
        b = self.write('two/design.sv', 'module m; endmodule\n')
        tool = str(self.dir / 'tool_a')
        key = cache.key({'script': 'synth'}, [a], [tool])
        self.assertEqual(key, cache.key({'script': 'synth'}, [b], [tool]), 'the same file in another folder')
        b.write_text('module m; wire w; endmodule\n')
        self.assertNotEqual(key, cache.key({'script': 'synth'}, [b], [tool]), 'an input whose text changed')
        self.assertNotEqual(key, cache.key({'script': 'synth -flatten'}, [a], [tool]), 'other options')
        self.assertNotEqual(key, cache.key({'script': 'synth'}, [a], [str(self.dir / 'tool_b')]), 'another program')

    def test_a_stored_run_is_given_back_whole(self):
        cache = result_cache.Cache('smtbmc')
        made = self.write('run/trace.vcd', '$timescale 1ns $end\n' * 1000)
        cache.store('k1', {'returncode': 0, 'output': 'Status: PASSED\n', 'seconds': 12.5}, [made, self.dir / 'absent'])
        out = self.dir / 'elsewhere'
        out.mkdir()
        record = cache.load('k1', out)
        self.assertEqual((record['returncode'], record['output'], record['seconds']), (0, 'Status: PASSED\n', 12.5))
        self.assertEqual((out / 'trace.vcd').read_bytes(), made.read_bytes())
        self.assertEqual(record['files'], ['trace.vcd'], 'a file the run did not write is not stored')
        self.assertIsNone(cache.load('k2', out), 'a key never stored')

    def test_a_damaged_entry_is_a_miss_and_is_removed(self):
        cache = result_cache.Cache('synth')
        made = self.write('run/netlist.json', '{"modules": {}}\n' * 5000)
        cache.store('k', {'returncode': 0, 'output': '', 'seconds': 1.0}, [made])
        stored = cache.dir / 'k' / 'netlist.json.gz'
        stored.write_bytes(stored.read_bytes()[:40])  # (a disk that filled up, a copy cut short)
        self.assertIsNone(cache.load('k', self.dir / 'run'))
        self.assertFalse((cache.dir / 'k').exists())

    def test_a_store_that_fails_leaves_nothing(self):
        cache = result_cache.Cache('synth')
        made = self.write('run/netlist.json', '{}\n')

        with mock.patch.object(result_cache.gzip, 'open', side_effect=OSError(28, 'No space left on device')):
            cache.store('k', {'returncode': 0, 'output': '', 'seconds': 1.0}, [made])  # (no exception)
        self.assertEqual(list(cache.dir.iterdir()), [], 'neither the entry nor its half-written staging folder')
        self.assertIsNone(cache.load('k', self.dir / 'run'))

    def test_a_bound_that_is_not_a_size_is_named(self):
        for text in ('lots', '-5', '0', 'nan', 'inf'):
            os.environ['VTA_RESULT_CACHE_MB'] = text
            with self.assertRaisesRegex(ValueError, f'^VTA_RESULT_CACHE_MB: .*{text}'):
                result_cache.Cache('synth')

    def test_off_means_every_run_is_made(self):
        os.environ['VTA_RESULT_CACHE'] = 'off'
        cache = result_cache.Cache('synth')
        made = self.write('run/stat.json', '{}\n')
        cache.store('k', {'returncode': 0, 'output': '', 'seconds': 1.0}, [made])
        self.assertIsNone(cache.load('k', self.dir / 'run'))
        self.assertFalse((self.dir / 'cache').exists())

    def test_the_least_recently_used_entries_go_first(self):
        os.environ['VTA_RESULT_CACHE_MB'] = str(3000 / (1 << 20))  # (room for two of these entries)
        cache = result_cache.Cache('synth')
        for i, name in enumerate(('old', 'used', 'new')):
            made = self.dir / f'{name}.bin'
            made.write_bytes(os.urandom(1000))  # (incompressible: an entry is a little over 1,000 bytes)
            cache.store(name, {'returncode': 0, 'output': '', 'seconds': 1.0}, [made])
            os.utime(cache.dir / name, (1000 + i, 1000 + i))
            if name == 'used':  # 'old' stored first, but used since: 'used' is now the oldest in use
                os.utime(cache.dir / 'old', (2000, 2000))
        kept = sorted(p.name for p in cache.dir.iterdir())
        self.assertEqual(kept, ['new', 'old'])
        with gzip.open(cache.dir / 'new' / 'new.bin.gz') as f:
            self.assertEqual(len(f.read()), 1000)


if __name__ == '__main__':
    unittest.main()
