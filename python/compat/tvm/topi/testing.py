"""tvm.topi.testing: plain NumPy references."""

import numpy as np


def conv2d_nchw_python(a_np, w_np, stride, padding):
    """NCHW convolution of `a_np` by OIHW `w_np` with zero padding, in the inputs' type."""
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    n, c, h, w = a_np.shape
    o, _, kh, kw = w_np.shape
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    padded = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=a_np.dtype)
    padded[:, :, ph:ph + h, pw:pw + w] = a_np
    out = np.zeros((n, o, oh, ow), dtype=a_np.dtype)
    for y in range(kh):
        for x in range(kw):
            window = padded[:, :, y:y + sh * oh:sh, x:x + sw * ow:sw]  # n, c, oh, ow
            out += np.einsum("ncij,oc->noij", window, w_np[:, :, y, x]).astype(a_np.dtype)
    return out
