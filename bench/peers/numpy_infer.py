"""numpy peer of `hofuse bench mlp|matmul|stack`.

How to run it
-------------
In a virtual environment with numpy:

    python3 -m venv /tmp/venv-bench
    /tmp/venv-bench/bin/pip install numpy
    hofuse bench mlp --peers numpy=/tmp/venv-bench/bin/python

hofuse writes the case file and runs `PYTHON bench/peers/numpy_infer.py
CASE.json` from the repository's root; infer_common.py describes the case
file and the JSON row printed on stdout. The computation is eager numpy in
the case's dtype; matrix products go to the BLAS numpy was built with
(OpenBLAS in the wheels). numpy has no erf: GELU uses Abramowitz and
Stegun's formula 7.1.26 (absolute error under 1.5e-7), close enough for
float32 and within about 1e-7 of hofuse's for float64.
"""

import math

from infer_common import load_case, missing, report, time_runs

try:
    import numpy as np
except ImportError as e:
    missing("numpy", e)


def erf(x):
    # Abramowitz and Stegun 7.1.26.
    p = 0.3275911
    a1, a2, a3, a4, a5 = 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429
    s = np.sign(x)
    ax = np.abs(x)
    t = 1 / (1 + p * ax)
    y = 1 - (((((a5 * t + a4) * t) + a3) * t + a2) * t + a1) * t * np.exp(-ax * ax)
    return (s * y).astype(x.dtype, copy=False)


def activate(h, act, alpha):
    if act == "relu":
        return np.maximum(h, 0)
    if act == "leaky_relu":
        return np.where(h >= 0, h, h * h.dtype.type(alpha))
    if act == "sigmoid":
        return 1 / (1 + np.exp(-h))
    if act == "tanh":
        return np.tanh(h)
    if act == "gelu":
        return 0.5 * h * (1 + erf(h * h.dtype.type(1 / math.sqrt(2))))
    if act == "gelu_tanh":
        c = h.dtype.type(math.sqrt(2 / math.pi))
        return 0.5 * h * (1 + np.tanh(c * (h + h.dtype.type(0.044715) * h * h * h)))
    if act == "silu":
        return h / (1 + np.exp(-h))
    if act == "softmax":
        return softmax(h)
    if act == "none":
        return h
    raise SystemExit(f"numpy_infer: unknown activation {act!r}")


def softmax(h):
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layernorm(h, scale, shift, eps):
    m = h.mean(axis=-1, keepdims=True)
    d = h - m
    v = (d * d).mean(axis=-1, keepdims=True)
    return d / np.sqrt(v + h.dtype.type(eps)) * scale + shift


def build(wl, w):
    kind = wl["kind"]
    if kind == "matmul":
        return lambda x: x @ w["B"]
    if kind == "softmax":
        return softmax
    if kind == "layernorm_gelu_residual":
        return lambda x: x + activate(layernorm(x, w["ln.scale"], w["ln.shift"], wl["eps"]), "gelu", 0)

    layers = len(wl["sizes"]) - 1
    eps = wl["eps"]

    def mlp(x):
        h = x
        for i in range(1, layers + 1):
            h = h @ w[f"dense{i}.W"] + w[f"dense{i}.b"]
            if i == layers:
                break
            if wl["norm"] == "batchnorm":
                k = w[f"bn{i}.scale"] / np.sqrt(w[f"bn{i}.var"] + h.dtype.type(eps))
                h = (h - w[f"bn{i}.mean"]) * k + w[f"bn{i}.shift"]
            elif wl["norm"] == "layernorm":
                h = layernorm(h, w[f"ln{i}.scale"], w[f"ln{i}.shift"], eps)
            h = activate(h, wl["activation"], wl["leaky_relu_alpha"])
        return h

    return mlp


def main():
    case, arrays = load_case()
    x = arrays.pop(case["row_input"])
    fn = build(case["workload"], arrays)
    times, out = time_runs(lambda: fn(x), case)
    report(case, "numpy", "eager", times, 0.0, out, np.__version__)


if __name__ == "__main__":
    main()
