#!/usr/bin/env python3
"""A cache of the Yosys flow's deterministic runs, keyed by everything that decides their results.

Yosys's synthesis and yosys-smtbmc's proofs give the same output for the same input: the same RTL text,
script, tool binaries and solver. Both cost minutes of one core (Synth.Xc7z020 300-400 s, the proofs'
covers up to a minute each) and both are run again by every test command whose RTL did not change. A
run is looked up first (`Cache.load`) under a key (`Cache.key`) that hashes

  - what the caller says decides the run: the script or the command's options, with the run's own
    paths left out (a clone elsewhere, or another build tree, asks the same question), and
  - the contents of every input file it names, and
  - the identity of every program it names: the file's SHA-256, and for Yosys also the files of its
    data directory (/usr/share/yosys: the cell libraries and techmap rules synth_xilinx reads), by
    name, size and modification time;

a hit gives back the run's exit status, its output and the files it wrote (gzip-compressed in the
cache), and the caller says so in what it prints; after a miss the caller runs the command and stores
the same (`Cache.store`).
Nothing of the caller's own checking is cached: vta_synth.py reads the restored netlist and estimates
the clock every time, formal.py reads the restored verdict and covers every time.

The cache is a folder of entries, one per key, written whole under a temporary name and renamed into
place (concurrent tests storing the same key leave one complete entry; a reader never sees a partial
one). It is ${VTA_RESULT_CACHE}, or ${XDG_CACHE_HOME:-~/.cache}/vta/results; VTA_RESULT_CACHE=off turns
it off. Its size is bounded (VTA_RESULT_CACHE_MB, 1024 by default): the entries used least recently go
first. An entry that cannot be read is a miss, and is removed.
"""
import gzip
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # (no __pycache__ in the source tree)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import script_args  # noqa: E402  (the hardware scripts' checks of numbers, shared)

DEFAULT_MB = 1024
_tool_digests = {}


def root():
    """The cache's folder, or None when VTA_RESULT_CACHE=off (or no home to put it in)."""
    setting = os.environ.get('VTA_RESULT_CACHE', '')
    if setting.lower() == 'off':
        return None
    if setting:
        return pathlib.Path(setting)
    base = os.environ.get('XDG_CACHE_HOME') or (os.path.join(os.environ['HOME'], '.cache')
                                                 if os.environ.get('HOME') else '')
    return pathlib.Path(base) / 'vta' / 'results' if base else None


def limit_bytes():
    """The cache's bound: VTA_RESULT_CACHE_MB (a positive number of MiB), 1024 when unset. ValueError
    naming the variable for anything else."""
    text = os.environ.get('VTA_RESULT_CACHE_MB', '')
    if not text:
        return DEFAULT_MB << 20
    try:
        return int(script_args.number(0, 1 << 30, low_open=True)(text) * (1 << 20))
    except script_args.argparse.ArgumentTypeError as error:
        raise ValueError(f'VTA_RESULT_CACHE_MB: {error} (MiB the result cache may hold)') from None


def folder_files(folder):
    """Every file of FOLDER, for a key's inputs: a run pointed at a folder (Yosys's -I) may read any."""
    return sorted(p for p in pathlib.Path(folder).iterdir() if p.is_file())


def file_digest(path):
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def tool_identity(program):
    """What a program is, for a key: its resolved path's SHA-256 (and Yosys's data files, listed)."""
    found = shutil.which(str(program))
    if found is None:
        return f'missing:{program}'
    path = os.path.realpath(found)
    if path not in _tool_digests:
        identity = file_digest(path)
        if os.path.basename(path).startswith('yosys'):
            share = subprocess.run([path + '-config', '--datdir'], capture_output=True, text=True, check=False,
                                   timeout=60).stdout.strip() if os.path.exists(path + '-config') else ''
            share = share or '/usr/share/yosys'
            listing = hashlib.sha256()
            for entry in sorted(pathlib.Path(share).rglob('*')) if os.path.isdir(share) else []:
                if entry.is_file():
                    stat = entry.stat()
                    listing.update(f'{entry.relative_to(share)} {stat.st_size} {stat.st_mtime_ns}\n'.encode())
            identity += ':' + listing.hexdigest()
        _tool_digests[path] = identity
    return _tool_digests[path]


class Cache:
    """One kind of run's entries (a subfolder of the cache: 'synth', 'smtbmc')."""

    def __init__(self, kind):
        base = root()
        self.dir = base / kind if base is not None else None
        self.limit = limit_bytes()

    def key(self, decides, inputs=(), tools=()):
        """The key of a run: DECIDES (JSON-able, without the run's paths), the contents of INPUTS (paths,
        named by their file names) and the identities of TOOLS (program names or paths)."""
        material = {'decides': decides,
                    'inputs': sorted((pathlib.Path(p).name, file_digest(p)) for p in inputs),
                    'tools': [tool_identity(t) for t in tools]}
        return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]

    def load(self, key, out_dir):
        """The stored record of KEY with its files written into OUT_DIR, or None."""
        if self.dir is None:
            return None
        entry = self.dir / key
        try:
            record = json.loads((entry / 'record.json').read_text())
            for name in record['files']:
                with gzip.open(entry / (name + '.gz'), 'rb') as src, open(out_dir / name, 'wb') as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            os.utime(entry)  # (used now: the last to be evicted)
            return record
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, EOFError):  # a damaged entry: gone, and a miss
            shutil.rmtree(entry, ignore_errors=True)
            return None

    def store(self, key, record, files):
        """Stores RECORD (JSON-able) and FILES (paths; those that exist) under KEY."""
        if self.dir is None:
            return
        staging = None
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            staging = pathlib.Path(tempfile.mkdtemp(prefix='.new-', dir=self.dir))
            names = []
            for path in files:
                path = pathlib.Path(path)
                if path.is_file():
                    packed = staging / (path.name + '.gz')
                    with open(path, 'rb') as src, gzip.open(packed, 'wb', compresslevel=1) as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    names.append(path.name)
            (staging / 'record.json').write_text(json.dumps({**record, 'files': names, 'stored': time.time()}))
            try:
                staging.rename(self.dir / key)
                staging = None
            except OSError:  # (another run stored the same key first: its entry is as good)
                pass
            self.evict()
        except OSError:  # a cache that cannot be written (a full disk) costs the next run its time only
            pass
        finally:
            if staging is not None:  # (nothing half-written is left behind)
                shutil.rmtree(staging, ignore_errors=True)

    def evict(self):
        """Removes the least recently used entries until the kind's folder is within the limit."""
        entries = []
        for entry in self.dir.iterdir():
            if entry.name.startswith('.new-'):
                if time.time() - entry.stat().st_mtime > 86400:  # (a writer that died a day ago)
                    shutil.rmtree(entry, ignore_errors=True)
                continue
            size = sum(f.stat().st_size for f in entry.iterdir() if f.is_file())
            entries.append((entry.stat().st_mtime, size, entry))
        total = sum(size for _, size, _ in entries)
        for _, size, entry in sorted(entries):
            if total <= self.limit:
                break
            shutil.rmtree(entry, ignore_errors=True)
            total -= size


def made(record):
    """When a stored run was made, for the line that says a result came from the cache."""
    return time.strftime('%Y-%m-%d %H:%M', time.localtime(record.get('stored', 0)))
