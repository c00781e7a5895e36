"""tvm.rpc for the tutorials: the vta package's sessions (vta/session.py): a local session over the
runtime's device (VTA_TARGET picks the backend, rpc://HOST:PORT included), or a device server's."""

from vta.session import LocalSession, RemoteSession  # noqa: F401
from vta.session import connect as _connect


def connect(url, port, key="", session_timeout=0, session_constructor_args=None):
    """A session on the vta-device-server at url:port (its token, when it asks for one, from the file
    VTA_RPC_TOKEN_FILE names)."""
    if key or session_constructor_args:
        raise NotImplementedError("rpc.connect: key and session_constructor_args are TVM tracker options")
    return _connect(url, port, timeout=session_timeout if session_timeout else 30.0)
