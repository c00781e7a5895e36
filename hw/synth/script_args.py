"""What the hardware scripts (vta_synth.py, vta_timing.py, hw/formal/formal.py) take from their command
lines, checked one way: files must be regular files of a bounded size (a FIFO or /dev/zero is refused
before it is opened, not read forever), numbers finite and in range, text UTF-8. A usage error is one
line on stderr and exit status 2; a file that turns out unreadable later is one line and status 1.
"""
import argparse
import math
import os
import pathlib
import stat
import sys


class Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line: `prog: error: ...`, exit status 2."""

    def error(self, message):
        sys.stderr.write(f'{self.prog}: error: {message}\n')
        sys.exit(2)


def regular_file(max_bytes):
    """An argparse type: the path of an existing regular file of at most `max_bytes`."""
    def check(text):
        path = pathlib.Path(text)
        try:
            st = path.stat()
        except OSError as e:
            raise argparse.ArgumentTypeError(f'{text}: {e.strerror}') from None
        if not stat.S_ISREG(st.st_mode):
            kind = ('a FIFO' if stat.S_ISFIFO(st.st_mode) else 'a directory' if stat.S_ISDIR(st.st_mode)
                    else 'a device' if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else 'not a file')
            raise argparse.ArgumentTypeError(f'{text} is {kind}, not a regular file')
        if st.st_size > max_bytes:
            raise argparse.ArgumentTypeError(f'{text} has {st.st_size} bytes, more than the {max_bytes} accepted')
        return path
    return check


def number(low, high, kind=float, low_open=False):
    """An argparse type: a finite number (float or int) from `low` to `high` (`low` excluded when
    `low_open`)."""
    def check(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f'{text!r} is not {"an integer" if kind is int else "a number"}') \
                from None
        if isinstance(value, float) and not math.isfinite(value) or value < low or value > high or \
                (low_open and value == low):
            raise argparse.ArgumentTypeError(f'{text} is out of range ({"more than" if low_open else "from"} {low:g} '
                                             f'{"and at most" if low_open else "to"} {high:g})')
        return value
    return check


def read_text(path, max_bytes, what):
    """The UTF-8 text of `path`, at most `max_bytes`: ValueError naming `what` and the path otherwise (a
    file that changed kind or size since its argument was checked is refused the same way)."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f'{what} {path} is not a regular file')
    with open(path, 'rb') as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f'{what} {path} has more than the {max_bytes} bytes accepted')
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as e:
        raise ValueError(f'{what} {path} is not UTF-8 text (byte {e.start}: {data[e.start:e.start + 1]!r})') from None
