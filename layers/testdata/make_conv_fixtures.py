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
OIHW kernel), odd sizes, one- and three-dimensional convolutions, and max
and average pooling (padding excluded from the average's count, or
included; dilated; ceil mode; one to three spatial axes).

Conventions (what hofuse's layers/conv.go and pool.go document):
  - "same" pads max((out-1)*stride + span - in, 0) in total, the odd element
    after (TensorFlow's SAME); JAX's padding="SAME" does the same.
  - explicit pads are [before, after] per spatial axis.
  - groups: lax's feature_group_count; input channel group g feeds output
    channel group g.
  - max pooling pads with -inf; average pooling divides by the number of
    window elements inside the input unless count_include_pad.
  - ceil mode (ONNX's and PyTorch's ceil_mode=1) has
    ceil((in + pads - span)/stride) + 1 positions, less one when the last
    would start in the padding after the input; the partial last window is
    padded after with the fill, and an average divides by its elements
    inside the input (inside the explicitly padded input with
    count_include_pad).
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
    sp = {1: "H", 2: "HW", 3: "DHW"}[nsp]
    if first:
        xs = [case["batch"], cin] + case["spatial"]
        ks = [cout, cin // g] + k
        lhs = "NC" + sp
        rhs = "OI" + sp
        dn = (lhs, rhs, lhs)
    else:
        xs = [case["batch"]] + case["spatial"] + [cin]
        ks = k + [cin // g, cout]
        lhs = "N" + sp + "C"
        rhs = sp + "IO"
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
    nsp = len(win)
    st = case.get("strides", [1] * nsp)
    dil = case.get("dilations", [1] * nsp)
    if first:
        dims, strides, wdil = (1, 1) + tuple(win), (1, 1) + tuple(st), (1, 1) + tuple(dil)
    else:
        dims, strides, wdil = (1,) + tuple(win) + (1,), (1,) + tuple(st) + (1,), (1,) + tuple(dil) + (1,)
    pad = padding_arg(case)
    if not isinstance(pad, str):
        pad = [(0, 0)] + pad + [(0, 0)] if not first else [(0, 0), (0, 0)] + pad
    else:
        pad = jax.lax.padtype_to_pads(xs, dims, strides, pad)
    pad = [tuple(p) for p in pad]
    # The padding the windows read: ceil mode adds, after each axis, what
    # its partial last window needs.
    wpad = list(pad)
    if case.get("ceil_mode"):
        for a in range(len(xs)):
            e, (lo, hi) = xs[a], pad[a]
            span = (dims[a] - 1) * wdil[a] + 1
            out = -(-(e + lo + hi - span) // strides[a]) + 1
            if (out - 1) * strides[a] >= e + lo:
                out -= 1
            wpad[a] = (lo, hi + max((out - 1) * strides[a] + span - (e + lo + hi), 0))

    def window_sum(v, init, op, p):
        return jax.lax.reduce_window(v, init, op, dims, strides, p, window_dilation=wdil)

    def strided_max(x):
        # max over the window's elements, each a strided slice of the
        # padded input: JAX has no gradient of a dilated reduce_window max.
        xp = jnp.pad(x, wpad, constant_values=-jnp.inf)
        outs = [(xp.shape[a] - ((dims[a] - 1) * wdil[a] + 1)) // strides[a] + 1 for a in range(x.ndim)]
        parts = []
        for off in np.ndindex(*dims):
            start = [o * d for o, d in zip(off, wdil)]
            limit = [st + (n - 1) * sd + 1 for st, n, sd in zip(start, outs, strides)]
            parts.append(jax.lax.slice(xp, start, limit, strides))
        return jnp.max(jnp.stack(parts), axis=0)

    def f(x):
        if case["kind"] == "max":
            if any(d != 1 for d in dil):
                return strided_max(x)
            return window_sum(x, -jnp.inf, jax.lax.max, wpad)
        s = window_sum(x, 0.0, jax.lax.add, wpad)
        if case.get("count_include_pad"):
            # Elements inside the explicitly padded input: ones padded with
            # ones, then as far as the partial windows need with zeros.
            ones = jnp.pad(jnp.ones_like(x), pad, constant_values=1.0)
            extra = [(0, w[1] - p[1]) for w, p in zip(wpad, pad)]
            return s / window_sum(ones, 0.0, jax.lax.add, extra)
        n = window_sum(jnp.ones_like(x), 0.0, jax.lax.add, wpad)
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


# Drawn after the cases above, so that adding them left those unchanged.
CONVS_3D = [
    dict(name="ndhwc-same-stride", format="last", batch=1, spatial=[4, 5, 3], **{"in": 2}, out=3, kernel=[2, 3, 2],
         strides=[1, 2, 1], padding="same"),
    dict(name="ncdhw-explicit-dilation-groups", format="first", batch=2, spatial=[5, 4, 4], **{"in": 2}, out=2, kernel=[2, 2, 2],
         dilations=[2, 1, 1], groups=2, padding="explicit", pads=[1, 0, 0, 1, 1, 1]),
]

POOLS_MORE = [
    dict(name="max-dilated-nchw", kind="max", format="first", batch=1, channels=2, spatial=[6, 7], window=[2, 3], strides=[1, 2],
         dilations=[2, 2], padding="valid"),
    dict(name="avg-dilated-explicit", kind="avg", format="last", batch=2, channels=2, spatial=[6, 6], window=[2, 2], strides=[2, 1],
         dilations=[3, 2], padding="explicit", pads=[1, 1, 0, 1]),
    dict(name="max-ceil", kind="max", format="first", batch=1, channels=2, spatial=[6, 7], window=[3, 3], strides=[2, 2],
         padding="valid", ceil_mode=True),
    dict(name="avg-ceil-exclude-pad", kind="avg", format="first", batch=2, channels=1, spatial=[5, 8], window=[2, 3], strides=[2, 3],
         padding="explicit", pads=[1, 0, 0, 1], ceil_mode=True),
    dict(name="avg-ceil-include-pad", kind="avg", format="last", batch=1, channels=2, spatial=[7, 5], window=[3, 2], strides=[3, 2],
         padding="explicit", pads=[1, 1, 1, 0], count_include_pad=True, ceil_mode=True),
    dict(name="max-ceil-last-starts-on-pad", kind="max", format="first", batch=1, channels=1, spatial=[5, 5], window=[3, 3],
         strides=[3, 3], padding="explicit", pads=[1, 1, 1, 1], ceil_mode=True),
    dict(name="max-3d", kind="max", format="first", batch=1, channels=2, spatial=[4, 5, 4], window=[2, 2, 3], strides=[2, 1, 1],
         dilations=[1, 2, 1], padding="explicit", pads=[0, 1, 1, 1, 1, 0]),
    dict(name="avg-3d-same", kind="avg", format="last", batch=2, channels=1, spatial=[3, 4, 5], window=[2, 3, 3], strides=[1, 2, 2],
         padding="same"),
    dict(name="max-1d-ceil-dilated", kind="max", format="last", batch=2, channels=2, spatial=[9], window=[3], strides=[2],
         dilations=[2], padding="valid", ceil_mode=True),
]


def main():
    rng = np.random.default_rng(20261123)
    convs = [conv_case(rng, c) for c in CONVS]
    pools = [pool_case(rng, c) for c in POOLS]
    convs += [conv_case(rng, c) for c in CONVS_3D]
    pools += [pool_case(rng, c) for c in POOLS_MORE]
    out = {
        "generator": "layers/testdata/make_conv_fixtures.py",
        "jax": jax.__version__,
        "convs": convs,
        "pools": pools,
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
