"""Reference convolutions and poolings, with their gradients, computed by JAX.

What it does
------------
For every case below it draws, in float64, an input x, a kernel K and a bias
b (convolutions) and a cotangent c of the output's shape, and computes with
JAX (jax.lax.conv_general_dilated, jax.lax.reduce_window, jax.grad):

  y          the layer's output
  dx, dK, db the gradients of L = sum(y * c) with respect to x, K and b

The cases cover every padding mode hofuse's layers take ("valid", "same",
explicit), strides, dilations, groups (depthwise included), both data
formats (channels last NHWC with an HWIO kernel, channels first NCHW with an
OIHW kernel), odd sizes, one-dimensional convolutions, and max and average
pooling (padding excluded from the average's count, or included).

Conventions (what hofuse's layers/conv.go and pool.go document):
  - "same" pads max((out-1)*stride + span - in, 0) in total, the odd element
    after (TensorFlow's SAME); JAX's padding="SAME" does the same.
  - explicit pads are [before, after] per spatial axis.
  - groups: lax's feature_group_count; input channel group g feeds output
    channel group g.
  - max pooling pads with -inf; average pooling divides by the number of
    window elements inside the input unless count_include_pad.
  - The max pooling's gradient in JAX goes wholly to one arg-max on a tie;
    hofuse splits it. The random inputs have no ties.

The arrays are written flat, row-major, in layers/testdata/conv_jax.json,
which the Go tests (layers/conv_fixture_test.go) read; go test needs no
Python.

How to rerun
------------
    python3 -m venv /tmp/venv-win
    /tmp/venv-win/bin/pip install "jax[cpu]" numpy
    /tmp/venv-win/bin/python layers/testdata/make_conv_fixtures.py

(from the repository root). The draws are seeded, so a rerun with the same
JAX version reproduces the file up to the last bits of the float64 sums.
"""

import json
import os

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conv_jax.json")


def flat(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).reshape(-1)]


def padding_arg(case):
    mode = case["padding"]
    if mode == "valid":
        return "VALID"
    if mode == "same":
        return "SAME"
    p = case["pads"]
    return [(p[2 * i], p[2 * i + 1]) for i in range(len(p) // 2)]


def conv_case(rng, case):
    nsp = len(case["spatial"])
    first = case["format"] == "first"
    cin, cout, g = case["in"], case["out"], case.get("groups", 1)
    k = case["kernel"]
    if first:
        xs = [case["batch"], cin] + case["spatial"]
        ks = [cout, cin // g] + k
        lhs = "NC" + "HW"[:nsp] if nsp == 2 else "NCH"
        rhs = "OI" + ("HW" if nsp == 2 else "H")
        dn = (lhs, rhs, lhs)
    else:
        xs = [case["batch"]] + case["spatial"] + [cin]
        ks = k + [cin // g, cout]
        lhs = "N" + ("HW" if nsp == 2 else "H") + "C"
        rhs = ("HW" if nsp == 2 else "H") + "IO"
        dn = (lhs, rhs, lhs)
    x = rng.uniform(-1, 1, xs)
    K = rng.uniform(-1, 1, ks)
    b = rng.uniform(-1, 1, [cout])

    def f(x, K, b):
        y = jax.lax.conv_general_dilated(
            x, K,
            window_strides=case.get("strides", [1] * nsp),
            padding=padding_arg(case),
            rhs_dilation=case.get("dilations", [1] * nsp),
            dimension_numbers=dn,
            feature_group_count=g,
            precision=jax.lax.Precision.HIGHEST,
        )
        shape = [1] * y.ndim
        shape[1 if first else -1] = cout
        return y + b.reshape(shape)

    y = f(x, K, b)
    c = rng.uniform(-1, 1, y.shape)
    dx, dK, db = jax.grad(lambda x, K, b: jnp.sum(f(x, K, b) * c), argnums=(0, 1, 2))(x, K, b)
    return dict(case, x=flat(x), K=flat(K), b=flat(b), c=flat(c), y=flat(y), y_shape=list(y.shape),
                dx=flat(dx), dK=flat(dK), db=flat(db))


def pool_case(rng, case):
    first = case["format"] == "first"
    xs = [case["batch"], case["channels"]] + case["spatial"] if first else [case["batch"]] + case["spatial"] + [case["channels"]]
    x = rng.uniform(-1, 1, xs)
    win = case["window"]
    st = case.get("strides", [1, 1])
    if first:
        dims, strides = (1, 1) + tuple(win), (1, 1) + tuple(st)
    else:
        dims, strides = (1,) + tuple(win) + (1,), (1,) + tuple(st) + (1,)
    pad = padding_arg(case)
    if not isinstance(pad, str):
        pad = [(0, 0)] + pad + [(0, 0)] if not first else [(0, 0), (0, 0)] + pad
    else:
        pad = jax.lax.padtype_to_pads(xs, dims, strides, pad)

    def f(x):
        if case["kind"] == "max":
            return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, dims, strides, pad)
        s = jax.lax.reduce_window(x, 0.0, jax.lax.add, dims, strides, pad)
        if case.get("count_include_pad"):
            return s / float(np.prod(win))
        n = jax.lax.reduce_window(jnp.ones_like(x), 0.0, jax.lax.add, dims, strides, pad)
        return s / n

    y = f(x)
    c = rng.uniform(-1, 1, y.shape)
    dx = jax.grad(lambda x: jnp.sum(f(x) * c))(x)
    return dict(case, x=flat(x), c=flat(c), y=flat(y), y_shape=list(y.shape), dx=flat(dx))


CONVS = [
    dict(name="nhwc-valid", format="last", batch=2, spatial=[5, 6], **{"in": 3}, out=4, kernel=[3, 3], padding="valid"),
    dict(name="nhwc-same-odd", format="last", batch=1, spatial=[7, 5], **{"in": 2}, out=3, kernel=[3, 3], padding="same"),
    dict(name="nhwc-same-stride2", format="last", batch=2, spatial=[7, 6], **{"in": 2}, out=2, kernel=[3, 2], strides=[2, 2], padding="same"),
    dict(name="nhwc-same-even-kernel", format="last", batch=1, spatial=[6, 6], **{"in": 2}, out=2, kernel=[4, 2], padding="same"),
    dict(name="nhwc-explicit-stride-dilation", format="last", batch=1, spatial=[9, 8], **{"in": 2}, out=3, kernel=[3, 2],
         strides=[2, 3], dilations=[2, 2], padding="explicit", pads=[1, 2, 0, 1]),
    dict(name="nhwc-same-dilation", format="last", batch=2, spatial=[7, 7], **{"in": 1}, out=2, kernel=[3, 3], dilations=[2, 1], padding="same"),
    dict(name="nhwc-groups", format="last", batch=2, spatial=[5, 5], **{"in": 4}, out=6, kernel=[2, 3], strides=[1, 2], groups=2, padding="same"),
    dict(name="nhwc-depthwise", format="last", batch=1, spatial=[6, 5], **{"in": 3}, out=6, kernel=[3, 3], groups=3, padding="same"),
    dict(name="nchw-valid-stride", format="first", batch=2, spatial=[7, 6], **{"in": 3}, out=2, kernel=[3, 3], strides=[2, 1], padding="valid"),
    dict(name="nchw-explicit-groups", format="first", batch=1, spatial=[6, 7], **{"in": 4}, out=4, kernel=[3, 2], groups=2,
         dilations=[1, 2], padding="explicit", pads=[2, 1, 1, 1]),
    dict(name="nchw-depthwise-same", format="first", batch=2, spatial=[5, 5], **{"in": 2}, out=2, kernel=[3, 3], groups=2, padding="same"),
    dict(name="nwc-1d", format="last", batch=2, spatial=[9], **{"in": 2}, out=3, kernel=[3], strides=[2], dilations=[2], padding="explicit", pads=[2, 1]),
    dict(name="ncw-1d-same", format="first", batch=1, spatial=[8], **{"in": 3}, out=2, kernel=[4], padding="same"),
]

POOLS = [
    dict(name="max-valid-2x2", kind="max", format="last", batch=2, channels=3, spatial=[6, 4], window=[2, 2], strides=[2, 2], padding="valid"),
    dict(name="max-same-3x3-s2", kind="max", format="last", batch=1, channels=2, spatial=[7, 6], window=[3, 3], strides=[2, 2], padding="same"),
    dict(name="max-explicit-overlap-nchw", kind="max", format="first", batch=2, channels=2, spatial=[5, 5], window=[3, 2], strides=[1, 2],
         padding="explicit", pads=[1, 1, 1, 0]),
    dict(name="avg-valid-3x2", kind="avg", format="last", batch=2, channels=2, spatial=[7, 5], window=[3, 2], strides=[2, 1], padding="valid"),
    dict(name="avg-same-exclude-pad", kind="avg", format="last", batch=1, channels=2, spatial=[5, 6], window=[3, 3], strides=[2, 2], padding="same"),
    dict(name="avg-explicit-include-pad-nchw", kind="avg", format="first", batch=1, channels=3, spatial=[5, 4], window=[3, 3], strides=[2, 1],
         padding="explicit", pads=[1, 1, 1, 1], count_include_pad=True),
    dict(name="avg-explicit-exclude-pad-nchw", kind="avg", format="first", batch=2, channels=1, spatial=[4, 5], window=[2, 3], strides=[1, 2],
         padding="explicit", pads=[1, 0, 1, 1]),
]


def main():
    rng = np.random.default_rng(20261123)
    out = {
        "generator": "layers/testdata/make_conv_fixtures.py",
        "jax": jax.__version__,
        "convs": [conv_case(rng, c) for c in CONVS],
        "pools": [pool_case(rng, c) for c in POOLS],
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
