"""tvm.contrib.utils.tempdir: a temporary directory, removed with the object."""

import tempfile


class TempDirectory:
    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="vta-")
        self.temp_dir = self._dir.name

    def relpath(self, name):
        return f"{self.temp_dir}/{name}"


def tempdir():
    return TempDirectory()
