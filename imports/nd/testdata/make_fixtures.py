#!/usr/bin/env python3
"""Writes the numpy reference results the tests of package nd compare with.

Run it by hand after changing a case, from the repository root:

    python3 -m venv /tmp/venv-nd
    /tmp/venv-nd/bin/pip install numpy
    /tmp/venv-nd/bin/python imports/nd/testdata/make_fixtures.py

It writes one JSON file per family of operations next to itself
(elementwise.json, matmul.json, shape.json, reduce.json, softmax.json,
argmax.json, cast.json, concat.json, broadcast.json, einsum.json); commit
them. Every case holds the operation, its attributes, its inputs and
numpy's result, each tensor as {"dtype", "shape", "data"} with data flat
in row-major order and the non-finite values written as the strings
"nan", "inf" and "-inf". The inputs come from seeded generators, so
rerunning it rewrites the same files. It was last run with numpy 2.4.6.
"""

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261123)


def rand(shape, dtype="float32"):
    if dtype == "int32":
        return rng.integers(-5, 6, size=shape).astype(np.int32)
    return rng.uniform(-2, 2, size=shape).astype(dtype)


def enc(x):
    x = np.asarray(x)
    dt = {"float32": "f32", "float64": "f64", "int32": "i32", "bool": "bool"}[str(x.dtype)]
    data = []
    for v in x.reshape(-1).tolist():
        if isinstance(v, bool):
            data.append(1 if v else 0)
        elif isinstance(v, float) and np.isnan(v):
            data.append("nan")
        elif isinstance(v, float) and np.isinf(v):
            data.append("inf" if v > 0 else "-inf")
        else:
            data.append(v)
    return {"dtype": dt, "shape": list(x.shape), "data": data}


def case(name, op, inputs, want, **attrs):
    return {"name": name, "op": op, "attrs": attrs,
            "inputs": [enc(x) for x in inputs], "want": enc(want)}


def write(fname, cases):
    with open(os.path.join(HERE, fname), "w") as f:
        json.dump({"cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")


# ---------------------------------------------------------------- elementwise
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "max": np.maximum, "min": np.minimum, "lt": np.less}
elementwise = []
shapes = [
    ("same-2d", (3, 4), (3, 4)),
    ("row-vector", (3, 4), (4,)),
    ("column", (3, 4), (3, 1)),
    ("both-stretch", (3, 1), (1, 4)),
    ("scalar-right", (2, 3), ()),
    ("scalar-left", (), (5,)),
    ("scalars", (), ()),
    ("rank4-vs-rank2", (2, 1, 3, 4), (3, 1)),
    ("rank4-both", (2, 1, 1, 5), (1, 3, 4, 1)),
    ("ones-only", (1, 1), (1,)),
    ("one-vs-empty-rank", (1,), (3, 2)),
    ("rank3-middle", (2, 3, 4), (2, 1, 4)),
]
for name, sa, sb in shapes:
    for opname in ["add", "sub", "mul", "div", "max", "lt"]:
        x, y = rand(sa), rand(sb)
        elementwise.append(case(f"{opname}/{name}", "binary", [x, y], BINARY[opname](x, y), fn=opname))
x64, y64 = rand((2, 3), "float64"), rand((3,), "float64")
elementwise.append(case("add/f64", "binary", [x64, y64], x64 + y64, fn="add"))
xi, yi = rand((4,), "int32"), rand((3, 1), "int32")
elementwise.append(case("mul/i32", "binary", [xi, yi], xi * yi, fn="mul"))
nanx = np.array([np.nan, 1.0, -0.0, np.inf], dtype=np.float32)
nany = np.array([2.0, np.nan, 0.0, -np.inf], dtype=np.float32)
elementwise.append(case("max/nan", "binary", [nanx, nany], np.maximum(nanx, nany), fn="max"))
# graph's min is IEEE 754-2019 minimum, min(-0, +0) = -0, where numpy's
# minimum gives +0 (it picks its second operand when neither is less).
want_min = np.minimum(nanx, nany)
want_min[2] = -0.0
elementwise.append(case("min/nan", "binary", [nanx, nany], want_min, fn="min"))
for shape in [(), (5,), (2, 3), (2, 1, 3, 2)]:
    x = rand(shape)
    elementwise.append(case(f"exp/rank{len(shape)}", "unary", [x], np.exp(x), fn="exp"))
    elementwise.append(case(f"neg/rank{len(shape)}", "unary", [x], np.negative(x), fn="neg"))
# ZipWith of three operands: x * y + z
x, y, z = rand((2, 1, 3)), rand((4, 1)), rand(())
elementwise.append(case("fma/three-operands", "fma", [x, y, z], x * y + z))
write("elementwise.json", elementwise)

# --------------------------------------------------------------------- matmul
matmul = []
for name, sa, sb in [
    ("2x2", (5, 6), (6, 7)),
    ("vec-mat", (6,), (6, 3)),
    ("mat-vec", (4, 6), (6,)),
    ("vec-vec", (6,), (6,)),
    ("batched", (2, 3, 4), (2, 4, 5)),
    ("batch-broadcast", (2, 1, 3, 4), (3, 4, 2)),
    ("batch-vs-matrix", (3, 2, 4), (4, 5)),
    ("vec-batched", (4,), (3, 4, 2)),
    ("batched-vec", (3, 2, 4), (4,)),
    ("1x1", (1, 1), (1, 1)),
]:
    a, b = rand(sa), rand(sb)
    matmul.append(case(f"matmul/{name}", "matmul", [a, b], np.matmul(a, b)))
a, b = rand((3, 4), "float64"), rand((4, 2), "float64")
matmul.append(case("matmul/f64", "matmul", [a, b], a @ b))
ai = (np.arange(12, dtype=np.int32).reshape(3, 4) - 5)
bi = (np.arange(8, dtype=np.int32).reshape(4, 2) * 3 - 7)
matmul.append(case("matmul/i32", "matmul", [ai, bi], ai @ bi))


def gemm(a, b, c, alpha, beta, ta, tb):
    A = a.T if ta else a
    B = b.T if tb else b
    y = alpha * (A @ B)
    if c is not None:
        y = y + beta * c
    return y.astype(a.dtype)


M, K, N = 4, 5, 3
for name, cshape, alpha, beta, ta, tb in [
    ("plain", None, 1.0, 1.0, False, False),
    ("bias-row", (N,), 1.0, 1.0, False, False),
    ("bias-full", (M, N), 0.5, 2.0, False, False),
    ("bias-column", (M, 1), 1.0, -1.0, False, False),
    ("bias-1xN", (1, N), 1.0, 1.0, False, True),
    ("bias-scalar", (), 2.0, 0.25, True, False),
    ("bias-1", (1,), 1.0, 1.0, True, True),
    ("bias-1x1", (1, 1), 1.0, 3.0, False, False),
]:
    a = rand((K, M) if ta else (M, K))
    b = rand((N, K) if tb else (K, N))
    c = None if cshape is None else rand(cshape)
    ins = [a, b] if c is None else [a, b, c]
    matmul.append(case(f"gemm/{name}", "gemm", ins, gemm(a, b, c, alpha, beta, ta, tb),
                       alpha=alpha, beta=beta, transA=ta, transB=tb))
write("matmul.json", matmul)

# ---------------------------------------------------------------------- shape
shape = []
x = rand((2, 3, 4))
for perm in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1], [-1, 0, -2]]:
    shape.append(case(f"transpose/{perm}", "transpose", [x], np.transpose(x, perm), perm=perm))
shape.append(case("transpose/default", "transpose", [x], np.transpose(x)))
x4 = rand((2, 1, 3, 2))
shape.append(case("transpose/rank4", "transpose", [x4], np.transpose(x4, [3, 1, 0, 2]), perm=[3, 1, 0, 2]))
for s in [[6, 4], [24], [4, 3, 2], [1, 24], [2, 1, 12, 1]]:
    shape.append(case(f"reshape/{s}", "reshape", [x], x.reshape(s), shape=s))
# Reshape of a transposed operand: not row-major, so it is copied first.
shape.append(case("reshape/of-transpose", "reshape_of_transpose", [x],
                  np.transpose(x, [2, 0, 1]).reshape(4, 6), perm=[2, 0, 1], shape=[4, 6]))
one = rand((1, 1))
shape.append(case("reshape/to-scalar", "reshape", [one], one.reshape(()), shape=[]))
for axis in [0, 1, 2, 3, -1, -3]:
    ax = axis if axis >= 0 else axis + x.ndim
    shape.append(case(f"flatten/axis{axis}", "flatten", [x], x.reshape(int(np.prod(x.shape[:ax])), -1), axis=axis))
xs = rand((1, 3, 1, 2))
for axes in [[0], [2], [-2], [0, 2], None]:
    shape.append(case(f"squeeze/{axes}", "squeeze", [xs], np.squeeze(xs, axis=None if axes is None else tuple(axes)),
                      **({} if axes is None else {"axes": axes})))
shape.append(case("squeeze/to-scalar", "squeeze", [one], np.squeeze(one)))
t = rand((1, 3))
shape.append(case("squeeze/of-transpose", "squeeze_of_transpose", [t],
                  np.squeeze(np.transpose(t, [1, 0]), axis=1), perm=[1, 0], axes=[1]))
xu = rand((3, 2))
for axes in [[0], [2], [-1], [0, 3], [1, 2], [0, 1, 4]]:
    want = xu
    for a in sorted([a if a >= 0 else a + 2 + len(axes) for a in axes]):
        want = np.expand_dims(want, a)
    shape.append(case(f"unsqueeze/{axes}", "unsqueeze", [xu], want, axes=axes))
write("shape.json", shape)

# --------------------------------------------------------------------- reduce
reduce_ = []
REDUCE = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
          "sumsquare": lambda x, **kw: np.sum(x * x, **kw),
          "l1": lambda x, **kw: np.sum(np.abs(x), **kw),
          "l2": lambda x, **kw: np.sqrt(np.sum(x * x, **kw)),
          "logsum": lambda x, **kw: np.log(np.sum(x, **kw)),
          "logsumexp": lambda x, **kw: np.log(np.sum(np.exp(x.astype(np.float64)), **kw))}
x = rand((2, 3, 4))
for kind in REDUCE:
    xin = np.abs(x) + np.float32(0.1) if kind == "logsum" else x  # a positive sum for the log
    for axes in [[0], [1], [2], [-1], [0, 2], [2, 0], [0, 1, 2], [1, 2]]:
        for keep in [False, True]:
            reduce_.append(case(f"{kind}/{axes}/keep={keep}", "reduce", [xin],
                                REDUCE[kind](xin, axis=tuple(axes), keepdims=keep).astype(np.float32),
                                kind=kind, axes=axes, keepDims=keep))
big = np.array([[1000.0, 1001.0, 999.0], [-5.0, -5.0, -5.0]], dtype=np.float32)
m = np.max(big, axis=1)
reduce_.append(case("logsumexp/large", "reduce", [big],
                    (m + np.log(np.sum(np.exp(big - m[:, None]), axis=1))).astype(np.float32),
                    kind="logsumexp", axes=[1], keepDims=False))
x4 = rand((2, 1, 3, 2))
reduce_.append(case("sum/rank4", "reduce", [x4], np.sum(x4, axis=(1, 3), keepdims=True), kind="sum", axes=[1, 3], keepDims=True))
v = rand((5,))
reduce_.append(case("mean/rank1-keep", "reduce", [v], np.mean(v, keepdims=True).astype(np.float32), kind="mean", axes=[0], keepDims=True))
reduce_.append(case("max/rank1", "reduce", [v], np.max(v), kind="max", axes=[0], keepDims=False))
nanv = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
reduce_.append(case("max/nan", "reduce", [nanv], np.max(nanv, axis=1), kind="max", axes=[1], keepDims=False))
xi = rand((3, 4), "int32")
reduce_.append(case("sum/i32", "reduce", [xi], np.sum(xi, axis=0).astype(np.int32), kind="sum", axes=[0], keepDims=False))
write("reduce.json", reduce_)

# -------------------------------------------------------------------- softmax


def softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


soft = []
x = rand((2, 3, 4)) * 4
for axis in [0, 1, 2, -1, -2]:
    soft.append(case(f"softmax/axis{axis}", "softmax", [x], softmax(x, axis), axis=axis))
    soft.append(case(f"logsoftmax/axis{axis}", "logsoftmax", [x], log_softmax(x, axis), axis=axis))
big = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -1000.0]], dtype=np.float32)
soft.append(case("softmax/large", "softmax", [big], softmax(big, 1), axis=1))
soft.append(case("logsoftmax/large", "logsoftmax", [big], log_softmax(big, 1), axis=1))
for axis in [0, 1, 2, 3, -1]:
    ax = axis if axis >= 0 else axis + x.ndim
    flat = x.reshape(int(np.prod(x.shape[:ax])), -1)
    soft.append(case(f"softmax-flattened/axis{axis}", "softmax_flattened", [x],
                     softmax(flat, 1).reshape(x.shape), axis=axis, log=False))
    soft.append(case(f"logsoftmax-flattened/axis{axis}", "softmax_flattened", [x],
                     log_softmax(flat, 1).reshape(x.shape), axis=axis, log=True))
v = rand((7,), "float64")
soft.append(case("softmax/f64-rank1", "softmax", [v], softmax(v, 0), axis=0))
write("softmax.json", soft)

# --------------------------------------------------------------------- argmax
arg = []
x = rng.integers(0, 4, size=(3, 4, 5)).astype(np.float32)  # many ties
for fn in ["argmax", "argmin"]:
    for axis in [0, 1, 2, -1]:
        for keep in [False, True]:
            for last in [False, True]:
                f = np.argmax if fn == "argmax" else np.argmin
                if last:
                    flipped = np.flip(x, axis=axis)
                    w = x.shape[axis] - 1 - f(flipped, axis=axis)
                else:
                    w = f(x, axis=axis)
                if keep:
                    w = np.expand_dims(w, axis)
                arg.append(case(f"{fn}/axis{axis}/keep={keep}/last={last}", fn, [x], w.astype(np.int32),
                                axis=axis, keepDims=keep, selectLastIndex=last))
v = rand((6,))
arg.append(case("argmax/rank1", "argmax", [v], np.argmax(v).astype(np.int32), axis=0, keepDims=False, selectLastIndex=False))
arg.append(case("argmax/rank1-keep", "argmax", [v], np.array([np.argmax(v)], dtype=np.int32), axis=0, keepDims=True, selectLastIndex=False))
nanv = np.array([[1.0, np.nan, 3.0, np.nan], [4.0, 5.0, 6.0, 2.0]], dtype=np.float32)
arg.append(case("argmax/nan", "argmax", [nanv], np.argmax(nanv, axis=1).astype(np.int32), axis=1, keepDims=False, selectLastIndex=False))
arg.append(case("argmin/nan", "argmin", [nanv], np.argmin(nanv, axis=1).astype(np.int32), axis=1, keepDims=False, selectLastIndex=False))
write("argmax.json", arg)

# ----------------------------------------------------------------------- cast
cast = []
x = (rng.uniform(-3e9, 3e9, size=(2, 3))).astype(np.float64)
x[0, 0] = 1.0000000001
cast.append(case("f64-to-f32", "cast", [x], x.astype(np.float32), to="f32"))
y = rand((3, 2))
cast.append(case("f32-to-f64", "cast", [y], y.astype(np.float64), to="f64"))
z = np.array([1.5, -1.5, 2.9, -2.9, 0.0, 100.25], dtype=np.float32)
cast.append(case("f32-to-i32", "cast", [z], z.astype(np.int32), to="i32"))
w = rand((4,), "int32")
cast.append(case("i32-to-f32", "cast", [w], w.astype(np.float32), to="f32"))
cast.append(case("f32-to-f32", "cast", [y], y, to="f32"))
s = np.float64(2.5)
cast.append(case("scalar-f64-to-f32", "cast", [np.asarray(s)], np.asarray(s, dtype=np.float32), to="f32"))
nz = np.array([0.0, -0.0, 1.5, np.nan, -np.inf], dtype=np.float32)
cast.append(case("f32-to-bool", "cast", [nz], nz.astype(bool), to="bool"))
bools = np.array([[True, False], [False, True]])
cast.append(case("bool-to-f32", "cast", [bools], bools.astype(np.float32), to="f32"))
cast.append(case("bool-to-i32", "cast", [bools], bools.astype(np.int32), to="i32"))
write("cast.json", cast)

# --------------------------------------------------------------------- concat
concat = []
for name, shapes, axis in [
    ("feature-equal", [(3, 4), (3, 4)], 1),
    ("feature-unequal", [(2, 3), (2, 5)], -1),
    ("feature-gcd", [(2, 4), (2, 6), (2, 2)], 1),
    ("batch", [(2, 3), (4, 3)], 0),
    ("middle-rank3", [(2, 1, 3), (2, 3, 3)], 1),
    ("rank1", [(3,), (2,), (1,)], 0),
    ("rank4-last", [(1, 2, 2, 3), (1, 2, 2, 1)], 3),
    ("single", [(2, 3)], 0),
]:
    xs = [rand(s) for s in shapes]
    concat.append(case(f"concat/{name}", "concat", xs, np.concatenate(xs, axis=axis), axis=axis))
special = np.array([[-0.0, np.nan, np.inf], [-np.inf, 0.0, -0.0]], dtype=np.float32)
other = np.array([[1.0], [-0.0]], dtype=np.float32)
concat.append(case("concat/special-values", "concat", [special, other], np.concatenate([special, other], axis=1), axis=1))
xi = [rand((2, 2), "int32"), rand((2, 3), "int32")]
concat.append(case("concat/i32", "concat", xi, np.concatenate(xi, axis=1), axis=1))
write("concat.json", concat)

# ------------------------------------------------------------------ broadcast
bc = []
x = rand((3, 1))
like = rand((2, 3, 4))
bc.append(case("broadcast-like/stretch", "broadcast_like", [x, like], np.broadcast_to(x, (2, 3, 4)).copy()))
s0 = rand(())
bc.append(case("broadcast-like/scalar", "broadcast_like", [s0, like], np.broadcast_to(s0, (2, 3, 4)).copy()))
y = rand((2, 3, 4))
bc.append(case("broadcast-like/bigger-x", "broadcast_like", [y, rand((3, 1))], y))
m = rand((3, 4))
bc.append(case("broadcast/leading-ones", "broadcast", [m], np.broadcast_to(m, (1, 1, 3, 4)).copy(), shape=[1, 1, 3, 4]))
bc.append(case("broadcast/smaller-target", "broadcast", [m], m, shape=[4]))
bc.append(case("broadcast/ones-target", "broadcast", [m], m.reshape(1, 3, 4), shape=[1, 1, 1]))
write("broadcast.json", bc)

# --------------------------------------------------------------------- einsum
# Drawn from a generator of their own, so that the cases above keep their
# inputs.
rng_e = np.random.default_rng(20261128)


def rand_e(shape, dtype="float32"):
    return rng_e.uniform(-2, 2, size=shape).astype(dtype)


einsum = []
for name, eq, shapes in [
    ("batch-matmul", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("implicit-matmul", "ij,jk", [(3, 4), (4, 2)]),
    ("transpose", "ij->ji", [(3, 4)]),
    ("row-sums", "ij->i", [(3, 4)]),
    ("total", "ijk->", [(2, 3, 4)]),
    ("inner", "i,i", [(5,), (5,)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("row-dots", "bi,bi->b", [(4, 6), (4, 6)]),
    ("attention-scores", "aecd,abcd->acbe", [(2, 5, 2, 4), (2, 3, 2, 4)]),
    ("attention-combine", "acbe,aecd->abcd", [(2, 2, 3, 5), (2, 5, 2, 4)]),
    ("einsum-dense", "abc,cde->abde", [(2, 3, 4), (4, 2, 5)]),
    ("einsum-dense-out", "abcd,cde->abe", [(2, 3, 2, 4), (2, 4, 5)]),
    ("ellipsis-broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ellipsis-implicit", "...j,j", [(2, 3), (3,)]),
    ("broadcast-one", "ij,ij", [(1, 3), (2, 3)]),
    ("broadcast-contracted", "ij,jk", [(2, 1), (3, 4)]),
    ("chain", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("spaces", " b i j , b j k -> b k i ", [(2, 3, 4), (2, 4, 5)]),
    ("upper-case", "Ab,bC->CA", [(3, 4), (4, 2)]),
    ("sum-one-side", "ij,k->jk", [(3, 4), (2,)]),
]:
    xs = [rand_e(s) for s in shapes]
    einsum.append(case(f"einsum/{name}", "einsum", xs, np.einsum(eq, *xs), equation=eq))
s0 = np.array(1.5, dtype=np.float32)
v = rand_e((4,))
einsum.append(case("einsum/scalar-operand", "einsum", [v, s0], np.einsum("i,->i", v, s0), equation="i,->i"))
a, b = rand_e((3, 4), "float64"), rand_e((4, 5), "float64")
einsum.append(case("einsum/f64", "einsum", [a, b], np.einsum("ij,jk->ik", a, b), equation="ij,jk->ik"))
write("einsum.json", einsum)
