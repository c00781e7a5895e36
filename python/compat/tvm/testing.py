"""tvm.testing: assertions on arrays."""

import numpy as np


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=True)
