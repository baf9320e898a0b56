"""Reference batch statistics of float32 data with a large mean and a small
spread, for hofuse's BatchNorm in training mode (layers/batchnorm.go).

What it does
------------
For every case below it draws x, a float32 array of shape [batch, features]
whose columns are centred far from 0 with a small spread (1000 + N(0, 1),
1e4 + 0.05 N(0, 1), -300 + 0.01 N(0, 1)), at batch sizes 2, 7, 32 and 256,
and a float32 scale and shift. From the float32 values, converted exactly to
float64, numpy computes in float64:

  mean          the batch mean of every column, sum(x, 0) / batch
  var           the biased variance, mean((x - mean)^2, 0), which BatchNorm
                normalises with (numpy's var with ddof=0)
  y             (x - mean) / sqrt(var + eps) * scale + shift, eps = 1e-5
  running_mean  PyTorch's running mean after one step from 0 with momentum
                0.1: 0.9 * 0 + 0.1 * mean
  running_var   PyTorch's running variance after one step from 1: 0.9 * 1 +
                0.1 * var * batch / (batch - 1), the unbiased variance
                (numpy's var with ddof=1)

and, for comparison only (the Go test does not assert them), the relative
error of three float32 computations of the variance against var:

  f32_naive_relerr      E[x^2] - E[x]^2 with both sums accumulated in
                        float32 row after row, as a reduction left to right
                        does (the one-traversal formula that cancels)
  f32_twopass_relerr    the centred two-pass formula in float32, row after
                        row (the accurate two-traversal one)
  jax_f32_var_relerr    jax.numpy.var on the float32 array (XLA's reduction)

each the largest over the columns. The naive formula loses every digit on
this data; hofuse's shifted one-traversal formula must stay within the
tolerance layers/batchnorm_stats_test.go states.

Values are written with Python's repr of float64 (shortest round trip), so
Go's encoding/json reads back the exact bits; x, scale and shift hold float32
values exactly. Arrays are row-major {"shape": [...], "data": [...]}.

How to rerun (from the repository root; the file is rewritten in place, bit
for bit the same with the versions below on x86-64 CPU):

  python3 -m venv /tmp/hofuse-jax && \
  /tmp/hofuse-jax/bin/pip install jax==0.10.2 jaxlib==0.10.2 numpy==2.4.6 && \
  /tmp/hofuse-jax/bin/python layers/testdata/make_bn_stats.py

Generated with Python 3.11.7, jax 0.10.2, jaxlib 0.10.2 and numpy 2.4.6 on
CPU. The Go test that reads bn_stats.json is layers/batchnorm_stats_test.go.
"""

import json
import os

import numpy as np
import jax
import jax.numpy as jnp

EPS = 1e-5
MOMENTUM = 0.1

# name, batch, features, centre, spread, seed
CASES = [
    ("mean1000_b2", 2, 8, 1000.0, 1.0, 1),
    ("mean1000_b32", 32, 16, 1000.0, 1.0, 2),
    ("mean1000_b256", 256, 8, 1000.0, 1.0, 3),
    ("mean1e4_b256", 256, 8, 1e4, 0.05, 4),
    ("meanneg300_b7", 7, 5, -300.0, 0.01, 5),
]


def arr(a):
    a = np.asarray(a, dtype=np.float64)
    return {"shape": list(a.shape), "data": [float(v) for v in a.reshape(-1)]}


def seq_sum32(rows):
    """Sum of the rows of a float32 matrix, left to right, in float32."""
    s = np.zeros(rows.shape[1], dtype=np.float32)
    for r in rows:
        s = (s + r).astype(np.float32)
    return s


def relerr(got, want):
    return float(np.max(np.abs(np.asarray(got, np.float64) - want) / want))


def case(name, batch, features, centre, spread, seed):
    rng = np.random.default_rng(seed)
    # Every column its own centre near the case's, so that columns differ.
    centres = centre + spread * rng.uniform(-3, 3, size=features)
    x32 = (centres + spread * rng.standard_normal((batch, features))).astype(np.float32)
    scale32 = rng.uniform(0.5, 1.5, size=features).astype(np.float32)
    shift32 = rng.uniform(-0.5, 0.5, size=features).astype(np.float32)
    x = x32.astype(np.float64)
    scale = scale32.astype(np.float64)
    shift = shift32.astype(np.float64)

    mean = x.mean(axis=0)
    var = x.var(axis=0)  # ddof=0: biased
    y = (x - mean) / np.sqrt(var + EPS) * scale + shift
    running_mean = (1 - MOMENTUM) * 0.0 + MOMENTUM * mean
    running_var = (1 - MOMENTUM) * 1.0 + MOMENTUM * x.var(axis=0, ddof=1)
    assert np.allclose(running_var, 0.9 + 0.1 * var * batch / (batch - 1), rtol=1e-14)

    n = np.float32(batch)
    m32 = (seq_sum32(x32) / n).astype(np.float32)
    naive = (seq_sum32(x32 * x32) / n - m32 * m32).astype(np.float32)
    d = (x32 - m32).astype(np.float32)
    twopass = (seq_sum32(d * d) / n).astype(np.float32)
    jvar = np.asarray(jnp.var(jnp.asarray(x32), axis=0))
    assert jvar.dtype == np.float32

    return {
        "name": name,
        "batch": batch,
        "features": features,
        "eps": EPS,
        "momentum": MOMENTUM,
        "x": arr(x),
        "scale": arr(scale),
        "shift": arr(shift),
        "mean": arr(mean),
        "var": arr(var),
        "y": arr(y),
        "running_mean": arr(running_mean),
        "running_var": arr(running_var),
        "f32_naive_relerr": relerr(naive, var),
        "f32_twopass_relerr": relerr(twopass, var),
        "jax_f32_var_relerr": relerr(jvar, var),
    }


def main():
    jax.config.update("jax_platform_name", "cpu")
    out = {"cases": [case(*c) for c in CASES]}
    for c in out["cases"]:
        print(f'{c["name"]:16s} naive f32 {c["f32_naive_relerr"]:.3g}  two-pass f32 '
              f'{c["f32_twopass_relerr"]:.3g}  jax f32 {c["jax_f32_var_relerr"]:.3g}')
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bn_stats.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
