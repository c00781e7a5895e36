"""tvm.rpc for the tutorials: a local session over the runtime's device (VTA_TARGET picks the backend,
rpc://HOST:PORT included)."""

import os

import vta as _vta


class _Device:
    """The accelerator of a session (`remote.ext_dev(0)`); arrays made for it live where it is."""

    def __init__(self, index, remote=None):
        if index != 0:
            raise ValueError(f"ext_dev({index}): a session has one accelerator, ext_dev(0)")
        self.remote = remote


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


class RemoteSession:
    """A session on a vta-device-server: modules uploaded from files and loaded by name, arrays in the
    server's memory (`tvm.nd.array(values, remote.ext_dev(0))`), calls run there."""

    def __init__(self, remote):
        self._remote = remote

    def upload(self, path, target=None):
        if target is not None and target != os.path.basename(str(path)):
            raise NotImplementedError("upload: a module is uploaded under its file name")
        self._remote.upload(str(path))

    def load_module(self, name):
        return self._remote.load_module(name)

    def ext_dev(self, index=0):
        return _Device(index, self._remote)

    cpu = ext_dev


def connect(url, port, key="", session_timeout=0, session_constructor_args=None):
    """A session on the vta-device-server at url:port (its token, when it asks for one, from the file
    VTA_RPC_TOKEN_FILE names)."""
    if key or session_constructor_args:
        raise NotImplementedError("rpc.connect: key and session_constructor_args are TVM tracker options")
    timeout = session_timeout if session_timeout else 30.0
    return RemoteSession(_vta.connect(url, port, token_file=os.environ.get("VTA_RPC_TOKEN_FILE"), timeout=timeout))
