"""tvm.contrib: utils (temporary directories)."""

from . import utils  # noqa: F401
