"""tvm.rpc for the tutorials: a local session over the runtime's device (VTA_TARGET picks the backend,
rpc://HOST:PORT included)."""

import os

import vta as _vta


class _Device:
    """The accelerator of a session (`remote.ext_dev(0)`)."""

    def __init__(self, index):
        if index != 0:
            raise ValueError(f"ext_dev({index}): a session has one accelerator, ext_dev(0)")


class LocalSession:
    """Modules saved to files, uploaded by path and loaded by name, run on this process's device."""

    def __init__(self):
        self._files = {}

    def upload(self, path, target=None):
        name = target or os.path.basename(str(path))
        if not os.path.isfile(path):
            raise FileNotFoundError(f"upload: {path} is not a file")
        self._files[name] = str(path)

    def load_module(self, name):
        if name not in self._files:
            raise ValueError(f"load_module: nothing named {name} was uploaded in this session")
        return _vta.load_module(self._files[name])

    def ext_dev(self, index=0):
        return _Device(index)

    cpu = ext_dev


def connect(host, port, *args, **kwargs):
    raise NotImplementedError(
        f"rpc.connect({host!r}, {port}): a device-server session from Python is not there yet; "
        f"run the tutorial with VTA_TARGET=rpc://{host}:{port} (its local session then runs on that server)")
