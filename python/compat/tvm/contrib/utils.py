"""tvm.contrib.utils.tempdir: a temporary directory, removed with the object (or by remove())."""

import os
import tempfile


class TempDirectory:
    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="vta-")
        self.temp_dir = self._dir.name

    def relpath(self, name):
        return f"{self.temp_dir}/{name}"

    def listdir(self):
        return os.listdir(self.temp_dir)

    def remove(self):
        self._dir.cleanup()

    def __del__(self):
        # (removed here, not by the finalizer of TemporaryDirectory, which warns that it had to)
        if getattr(self, "_dir", None) is not None:
            self._dir.cleanup()


def tempdir():
    return TempDirectory()
