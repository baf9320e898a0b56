"""JAX jit peer of `hofuse bench mlp|matmul|stack`.

How to run it
-------------
In a virtual environment with JAX (CPU):

    python3 -m venv /tmp/venv-bench
    /tmp/venv-bench/bin/pip install jax numpy
    hofuse bench mlp --peers jax=/tmp/venv-bench/bin/python

hofuse writes the case file and runs `PYTHON bench/peers/jax_infer.py
CASE.json` from the repository's root; infer_common.py describes the case
file and the JSON row printed on stdout. The workload is one function of the
weights and the row input, jitted: compile_ms is jax.jit(...).lower(...)
.compile(), and each timed run is one call of the compiled function on the
input as a host (numpy) array, its result read back into a numpy array: the
same work as a hofuse row, whose times count copying the input to the device
and the result back (on a CPU these copies cost next to nothing; on a GPU
they are part of what a caller waits for). The weights are placed on the
device once, as a server holds them. float64 cases turn on jax_enable_x64.
"""

import json
import math
import time

from infer_common import load_case, missing, report, time_runs

try:
    import jax
    import jax.numpy as jnp
    import numpy as np
except ImportError as e:
    missing("jax", e)


def activate(h, act, alpha):
    if act == "relu":
        return jnp.maximum(h, 0)
    if act == "leaky_relu":
        return jnp.where(h >= 0, h, alpha * h)
    if act == "sigmoid":
        return jax.nn.sigmoid(h)
    if act == "tanh":
        return jnp.tanh(h)
    if act == "gelu":
        return jax.nn.gelu(h, approximate=False)
    if act == "gelu_tanh":
        return jax.nn.gelu(h, approximate=True)
    if act == "silu":
        return jax.nn.silu(h)
    if act == "softmax":
        return jax.nn.softmax(h, axis=-1)
    if act == "none":
        return h
    raise SystemExit(f"jax_infer: unknown activation {act!r}")


def layernorm(h, scale, shift, eps):
    m = jnp.mean(h, axis=-1, keepdims=True)
    d = h - m
    v = jnp.mean(d * d, axis=-1, keepdims=True)
    return d * jax.lax.rsqrt(v + eps) * scale + shift


def build(wl):
    kind = wl["kind"]
    if kind == "matmul":
        return lambda w, x: x @ w["B"]
    if kind == "softmax":
        return lambda w, x: jax.nn.softmax(x, axis=-1)
    if kind == "layernorm_gelu_residual":
        return lambda w, x: x + jax.nn.gelu(layernorm(x, w["ln.scale"], w["ln.shift"], wl["eps"]), approximate=False)

    layers = len(wl["sizes"]) - 1
    eps = wl["eps"]

    def mlp(w, x):
        h = x
        for i in range(1, layers + 1):
            h = h @ w[f"dense{i}.W"] + w[f"dense{i}.b"]
            if i == layers:
                break
            if wl["norm"] == "batchnorm":
                h = (h - w[f"bn{i}.mean"]) * jax.lax.rsqrt(w[f"bn{i}.var"] + eps) * w[f"bn{i}.scale"] + w[f"bn{i}.shift"]
            elif wl["norm"] == "layernorm":
                h = layernorm(h, w[f"ln{i}.scale"], w[f"ln{i}.shift"], eps)
            h = activate(h, wl["activation"], wl["leaky_relu_alpha"])
        return h

    return mlp


def main():
    case, arrays = load_case()
    if case["dtype"] == "float64":
        jax.config.update("jax_enable_x64", True)
    x = arrays.pop(case["row_input"])  # stays on the host: each run copies it in
    w = {k: jnp.asarray(a) for k, a in arrays.items()}
    start = time.perf_counter()
    compiled = jax.jit(build(case["workload"])).lower(w, x).compile()
    compile_ms = (time.perf_counter() - start) * 1e3
    times, out = time_runs(lambda: np.asarray(compiled(w, x)), case)
    report(case, "jax", "jit", times, compile_ms, np.asarray(out), jax.__version__)


if __name__ == "__main__":
    main()
