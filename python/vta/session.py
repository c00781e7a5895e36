"""The sessions `vta.testing.run` hands to a test and `tvm.rpc` returns: modules saved to files,
uploaded by path and loaded by name; arrays for a session's device (`tvm.nd.array(a, remote.ext_dev(0))`).

`LocalSession` runs the modules in this process on the runtime's device (VTA_TARGET: fsim, tsim,
systemc, fpga, or rpc://HOST:PORT, whose runs go to that server); `RemoteSession` runs them on a
vta-device-server, arrays in its memory. See docs/PYTHON.md.
"""

import os

import vta as _vta


class Device:
    """The accelerator of a session (`remote.ext_dev(0)`); arrays made for it live where it is
    (`remote`: the device server's session, None for this process)."""

    def __init__(self, index, remote=None):
        if index != 0:
            raise ValueError(f"ext_dev({index}): a session has one accelerator, ext_dev(0)")
        self.remote = remote

    def __repr__(self):
        return "ext_dev(0)" + ("" if self.remote is None else " of a device server")


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
        return Device(index)

    cpu = ext_dev

    def stats(self):
        """The seven statistics of this process's device and its cycle count (vta.stats())."""
        return _vta.stats()

    def clear_stats(self):
        _vta.clear_stats()


class RemoteSession:
    """A session on a vta-device-server: modules uploaded from files and loaded by name, arrays in the
    server's memory (`tvm.nd.array(values, remote.ext_dev(0))`), calls and statistics there."""

    def __init__(self, remote):
        self._remote = remote

    def upload(self, path, target=None):
        if target is not None and target != os.path.basename(str(path)):
            raise NotImplementedError("upload: a module is uploaded under its file name")
        self._remote.upload(str(path))

    def load_module(self, name):
        return self._remote.load_module(name)

    def ext_dev(self, index=0):
        return Device(index, self._remote)

    cpu = ext_dev

    def stats(self):
        """The seven statistics of the server's device and its cycle count."""
        return self._remote.stats()

    def clear_stats(self):
        self._remote.clear_stats()


def connect(host, port, timeout=30.0):
    """A RemoteSession on the vta-device-server at host:port (its token, when it asks for one, from the
    file VTA_RPC_TOKEN_FILE names)."""
    return RemoteSession(_vta.connect(host, port, token_file=os.environ.get("VTA_RPC_TOKEN_FILE"), timeout=timeout))
