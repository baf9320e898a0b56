"""Writes the per-operator TensorFlow fixtures the tf importer's tests read.

Each case is a small graph built with TensorFlow's graph-mode API, written
as a GraphDef (CASE.pb, constants inline as a frozen graph has them), run by
TensorFlow itself on fixed inputs; cases.json records, for every case, the
inputs and TensorFlow's outputs (values as JSON numbers, which carry a
float32 exactly), the batch size the Placeholders' -1 takes, and the output
node names.

Run by hand from the repository root when a case changes:

    python3 -m venv /tmp/venv-tf && /tmp/venv-tf/bin/pip install tensorflow-cpu numpy
    /tmp/venv-tf/bin/python imports/tf/testdata/ops/gen.py

It needs nothing else, writes only into its own folder, and is deterministic
(the inputs come from a seeded generator).
"""

import json
import os

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261123)


def rand(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


CASES = []


def case(name):
    def register(fn):
        CASES.append((name, fn))
        return fn
    return register


def ph(shape, name="x", dtype=tf.float32):
    return tf1.placeholder(dtype, shape, name=name)


# Each builder returns (feeds {placeholder name: array}, [output tensors]).


@case("matmul")
def _():
    x = ph([None, 3])
    w = tf.constant(rand(3, 4), name="w")
    y = tf.matmul(x, w, name="y")
    return {"x": rand(2, 3)}, [y]


@case("matmul_transpose_b")
def _():
    x = ph([None, 3])
    w = tf.constant(rand(5, 3), name="w")
    y = tf.matmul(x, w, transpose_b=True, name="y")
    return {"x": rand(2, 3)}, [y]


@case("matmul_transpose_a")
def _():
    x = ph([3, None])
    w = tf.constant(rand(3, 4), name="w")
    y = tf.matmul(x, w, transpose_a=True, name="y")
    return {"x": rand(3, 2)}, [y]


@case("matmul_transpose_ab")
def _():
    x = ph([3, 2], name="a")
    w = ph([4, 3], name="b")
    y = tf.matmul(x, w, transpose_a=True, transpose_b=True, name="y")
    return {"a": rand(3, 2), "b": rand(4, 3)}, [y]


@case("dense_bias_relu")
def _():
    x = ph([None, 3])
    w = tf.constant(rand(3, 4), name="w")
    b = tf.constant(rand(4), name="b")
    h = tf.nn.bias_add(tf.matmul(x, w, name="mm"), b, name="bias")
    y = tf.nn.relu(h, name="y")
    return {"x": rand(5, 3)}, [y]


@case("bias_add_nhwc")
def _():
    x = ph([None, 2, 3, 4])
    b = tf.constant(rand(4), name="b")
    y = tf.nn.bias_add(x, b, data_format="NHWC", name="y")
    return {"x": rand(2, 2, 3, 4)}, [y]


@case("binary_broadcast")
def _():
    x = ph([None, 3, 4])
    v = tf.constant(rand(4), name="v")
    c = tf.constant(rand(3, 1), name="c")
    s = tf.constant(np.float32(1.5), name="s")
    a = tf.raw_ops.Add(x=x, y=v, name="add")
    b = tf.raw_ops.AddV2(x=a, y=c, name="addv2")
    d = tf.raw_ops.Sub(x=s, y=b, name="sub")
    e = tf.raw_ops.Mul(x=d, y=x, name="mul")
    y = tf.raw_ops.RealDiv(x=e, y=tf.constant(rand(3, 4, lo=0.5, hi=2.0), name="den"), name="y")
    return {"x": rand(2, 3, 4)}, [y]


def unary(name, op, lo=-3.0, hi=3.0):
    @case(name)
    def _():
        x = ph([None, 5])
        y = op(x, name="y")
        return {"x": rand(3, 5, lo=lo, hi=hi)}, [y]


unary("relu", tf.nn.relu)
unary("relu6", tf.nn.relu6, lo=-4.0, hi=9.0)
unary("elu", tf.nn.elu)
unary("selu", tf.nn.selu)
unary("sigmoid", tf.math.sigmoid, lo=-8.0, hi=8.0)
unary("tanh", tf.math.tanh)
unary("rsqrt", tf.math.rsqrt, lo=0.1, hi=9.0)
unary("sqrt", tf.math.sqrt, lo=0.0, hi=9.0)
unary("square", tf.math.square)
unary("erf", tf.math.erf)
unary("identity", tf.identity)
unary("neg", tf.math.negative)
unary("abs", tf.math.abs)
unary("exp", tf.math.exp)
unary("log", tf.math.log, lo=0.05, hi=9.0)
unary("erfc", tf.math.erfc)
unary("leaky_relu", tf.nn.leaky_relu)
unary("leaky_relu_03", lambda x, name: tf.nn.leaky_relu(x, alpha=0.3, name=name))
unary("stop_gradient", tf.stop_gradient)


@case("squared_difference")
def _():
    x = ph([None, 3, 4])
    m = tf.constant(rand(3, 1), name="m")
    y = tf.math.squared_difference(x, m, name="y")
    return {"x": rand(2, 3, 4)}, [y]


@case("maximum_minimum")
def _():
    x = ph([None, 4])
    a = tf.math.maximum(x, tf.constant(rand(4), name="lo"), name="a")
    y = tf.math.minimum(a, tf.constant(np.float32(0.5), name="hi"), name="y")
    return {"x": rand(3, 4)}, [y]


@case("shape_pack_fold")
def _():
    # Keras's Flatten with an unknown batch: Shape, StridedSlice, Pack.
    x = ph([None, 3, 4])
    s = tf.shape(x, name="shape")
    b = tf.strided_slice(s, [0], [1], [1], shrink_axis_mask=1, name="batch")
    new = tf.stack([b, tf.constant(-1, name="rest")], name="new_shape")
    y = tf.reshape(x, new, name="y")
    return {"x": rand(2, 3, 4)}, [y]


@case("shape_concat_fold")
def _():
    x = ph([None, 3, 4])
    s = tf.shape(x, out_type=tf.int64, name="shape")
    head = tf.strided_slice(s, [0], [-2], [1], name="head")
    tail = tf.strided_slice(s, [-1], [-2], [-1], name="tail")
    new = tf.concat([head, tail, tf.constant([3], dtype=tf.int64, name="three")], 0, name="new_shape")
    y = tf.reshape(x, new, name="y")
    return {"x": rand(2, 3, 4)}, [y]


@case("softmax")
def _():
    x = ph([None, 3, 5])
    y = tf.nn.softmax(x, name="y")
    return {"x": rand(2, 3, 5, lo=-5, hi=5)}, [y]


@case("log_softmax")
def _():
    x = ph([None, 6])
    y = tf.nn.log_softmax(x, name="y")
    return {"x": rand(3, 6, lo=-5, hi=5)}, [y]


@case("fused_batch_norm")
def _():
    x = ph([None, 2, 3, 4])
    scale = tf.constant(rand(4), name="scale")
    offset = tf.constant(rand(4), name="offset")
    mean = tf.constant(rand(4), name="mean")
    var = tf.constant(rand(4, lo=0.2, hi=3.0), name="var")
    y, _, _ = tf1.nn.fused_batch_norm(x, scale, offset, mean=mean, variance=var,
                                      epsilon=0.001, is_training=False, name="y")
    return {"x": rand(2, 2, 3, 4)}, [y]


def fused_batch_norm_raw(name, op):
    @case(name)
    def _():
        x = ph([None, 1, 1, 3])
        consts = [tf.constant(rand(3, lo=0.2, hi=2.0), name=n) for n in ("scale", "offset", "mean", "var")]
        y = op(x=x, scale=consts[0], offset=consts[1], mean=consts[2], variance=consts[3],
               epsilon=0.01, is_training=False, name="y")[0]
        return {"x": rand(2, 1, 1, 3)}, [y]


fused_batch_norm_raw("fused_batch_norm_v1", tf.raw_ops.FusedBatchNorm)
fused_batch_norm_raw("fused_batch_norm_v2", tf.raw_ops.FusedBatchNormV2)


def reduction(name, fn, axis, keepdims):
    @case(name)
    def _():
        x = ph([None, 3, 4])
        y = fn(x, axis=axis, keepdims=keepdims, name="y")
        return {"x": rand(2, 3, 4)}, [y]


reduction("mean_last", tf.math.reduce_mean, -1, False)
reduction("mean_keep", tf.math.reduce_mean, [1], True)
reduction("sum_two_axes", tf.math.reduce_sum, [0, 2], False)
reduction("sum_keep_two", tf.math.reduce_sum, [2, 1], True)
reduction("max_axis1", tf.math.reduce_max, 1, False)
reduction("max_keep_neg", tf.math.reduce_max, -2, True)


@case("reshape")
def _():
    x = ph([None, 3, 4])
    y = tf.reshape(x, tf.constant([-1, 6, 2], dtype=tf.int32, name="shape"), name="y")
    return {"x": rand(2, 3, 4)}, [y]


@case("reshape_int64")
def _():
    x = ph([None, 3, 4])
    y = tf.reshape(x, tf.constant([2, 12], dtype=tf.int64, name="shape"), name="y")
    return {"x": rand(2, 3, 4)}, [y]


@case("squeeze")
def _():
    x = ph([None, 1, 3, 1])
    y = tf.squeeze(x, axis=[1], name="y")
    return {"x": rand(2, 1, 3, 1)}, [y]


@case("squeeze_all")
def _():
    x = ph([1, 3, 1])
    y = tf.squeeze(x, name="y")
    return {"x": rand(1, 3, 1)}, [y]


@case("expand_dims")
def _():
    x = ph([None, 3])
    a = tf.expand_dims(x, tf.constant(1, name="axis"), name="a")
    y = tf.expand_dims(a, tf.constant(-1, name="axis2"), name="y")
    return {"x": rand(2, 3)}, [y]


@case("two_outputs")
def _():
    x = ph([None, 4])
    h = tf.math.tanh(x, name="h")
    y = tf.math.sigmoid(h, name="y")
    z = tf.math.square(h, name="z")
    return {"x": rand(2, 4)}, [y, z]


@case("double")
def _():
    x = ph([None, 3], dtype=tf.float64)
    w = tf.constant(rand(3, 2, dtype=np.float64), name="w")
    y = tf.math.tanh(tf.matmul(x, w, name="mm"), name="y")
    return {"x": rand(2, 3, dtype=np.float64)}, [y]


@case("concat_features")
def _():
    x = ph([None, 3])
    h = tf.math.tanh(x, name="h")
    a = tf.concat([x, h, tf.math.square(x, name="sq")], axis=1, name="a")
    y = tf.concat([a, tf.constant(rand(1, 9), name="row")], axis=-2, name="y")
    return {"x": rand(2, 3)}, [y]


# The cases below draw from their own generator, so that adding them left
# the inputs of the cases above (and of keras_case) as they were.
rng2 = np.random.default_rng(20261124)


def rand2(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return rng2.uniform(lo, hi, size=shape).astype(dtype)


@case("pad_nhwc")
def _():
    x = ph([None, 3, 4, 2])
    y = tf.pad(tf.nn.relu(x), [[0, 0], [1, 2], [2, 0], [0, 1]], name="y")
    return {"x": rand2(2, 3, 4, 2)}, [y]


@case("padv2_constant")
def _():
    x = ph([None, 5])
    y = tf.raw_ops.PadV2(input=x, paddings=tf.constant([[1, 0], [0, 3]]),
                         constant_values=tf.constant(1.5), name="y")
    return {"x": rand2(3, 5)}, [y]


@case("padv2_neg_inf")
def _():
    x = ph([None, 4])
    y = tf.raw_ops.PadV2(input=x, paddings=tf.constant([[0, 0], [2, 1]], dtype=tf.int64),
                         constant_values=tf.constant(-np.inf, dtype=tf.float32), name="p")
    z = tf.reduce_max(y, axis=1, name="y")
    return {"x": rand2(3, 4)}, [z]  # JSON has no -inf: the max reads the fill


@case("transpose")
def _():
    x = ph([None, 3, 4])
    t = tf.transpose(tf.nn.relu(x), [0, 2, 1], name="t")
    y = tf.matmul(tf.reshape(t, [-1, 3]), tf.constant(rand2(3, 2), name="w"), name="y")
    return {"x": rand2(2, 3, 4)}, [tf.identity(t, name="t_out"), y]


@case("cast_double")
def _():
    x = ph([None, 3])
    y = tf.add(tf.cast(x, tf.float64), tf.constant(rand2(3).astype(np.float64), name="b"), name="y")
    return {"x": rand2(2, 3)}, [y]


@case("cast_shape_fold")
def _():
    x = ph([None, 2, 6])
    s = tf.cast(tf.constant([-1, 12], dtype=tf.int32), tf.int64, name="s")
    y = tf.reshape(x, s, name="y")
    return {"x": rand2(2, 2, 6)}, [y]


# The transposed convolutions draw from a third generator, so that adding
# them left every input above (and the Keras cases') as it was.
rng3 = np.random.default_rng(20261128)


def rand3(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return rng3.uniform(lo, hi, size=shape).astype(dtype)


@case("conv2d_transpose_same_s2")
def _():
    # input_sizes computed from the batch (Shape, StridedSlice, Pack), as
    # Keras writes it.
    x = ph([None, 3, 4, 5])
    f = tf.constant(rand3(3, 3, 2, 5), name="f")
    size = tf.stack([tf.shape(x)[0], 6, 8, 2], name="size")
    y = tf.nn.conv2d_transpose(x, f, size, strides=2, padding="SAME", name="y")
    return {"x": rand3(2, 3, 4, 5)}, [y]


@case("conv2d_transpose_valid_odd")
def _():
    # Output extents past what the last window covers (7 = 2·3+1 along
    # height, 10 = 3·2+2+2 along width): the rows beyond get no products.
    x = ph([None, 3, 3, 4])
    f = tf.constant(rand3(2, 3, 3, 4), name="f")
    y = tf.nn.conv2d_transpose(x, f, tf.constant([2, 7, 10, 3]), strides=[1, 2, 3, 1], padding="VALID", name="y")
    return {"x": rand3(2, 3, 3, 4)}, [y]


@case("conv2d_transpose_dilated_relu")
def _():
    x = ph([None, 5, 5, 3])
    f = tf.constant(rand3(3, 3, 4, 3), name="f")
    t = tf.nn.conv2d_transpose(x, f, tf.constant([2, 5, 5, 4]), strides=1, padding="SAME", dilations=2, name="t")
    y = tf.nn.relu(t, name="y")
    return {"x": rand3(2, 5, 5, 3)}, [y]


@case("conv2d_transpose_explicit")
def _():
    x = ph([None, 4, 4, 2])
    f = tf.constant(rand3(3, 3, 3, 2), name="f")
    y = tf.nn.conv2d_transpose(x, f, tf.constant([2, 8, 9, 3]), strides=2,
                               padding=[[0, 0], [1, 0], [0, 1], [0, 0]], name="y")
    return {"x": rand3(2, 4, 4, 2)}, [y]


# The resizes draw from a fourth, for the same reason.
rng4 = np.random.default_rng(20261129)


def rand4(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return rng4.uniform(lo, hi, size=shape).astype(dtype)


@case("resize_nearest_2x3")
def _():
    x = ph([None, 2, 3, 2])
    y = tf.raw_ops.ResizeNearestNeighbor(images=tf.nn.relu(x), size=tf.constant([4, 9]),
                                         half_pixel_centers=True, name="y")
    return {"x": rand4(2, 2, 3, 2)}, [y]


@case("resize_nearest_legacy")
def _():
    x = ph([None, 3, 2, 1])
    y = tf.raw_ops.ResizeNearestNeighbor(images=x, size=tf.constant([6, 6]), name="y")
    return {"x": rand4(2, 3, 2, 1)}, [y]


@case("tile_repeat")
def _():
    # tf.tile of the whole tensor, and each pixel repeated as Keras's
    # UpSampling2D does it (ExpandDims, Tile, Reshape).
    x = ph([None, 2, 3, 2])
    t = tf.tile(x, [1, 2, 1, 3], name="t")
    e = tf.expand_dims(tf.nn.relu(x), 2)
    r = tf.reshape(tf.tile(e, [1, 1, 2, 1, 1]), [-1, 4, 3, 2], name="y")
    return {"x": rand4(2, 2, 3, 2)}, [tf.identity(t, name="t_out"), r]



# The ops Keras 3 exports write beyond those above (IdentityN, Pow, the
# comparisons and SelectV2, GatherV2 and Prod of shapes, BatchMatMul,
# SpaceToBatchND and BatchToSpaceND) draw from a fifth generator, so
# that adding them left every input above as it was.
rng5 = np.random.default_rng(20261130)


def rand5(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return rng5.uniform(lo, hi, size=shape).astype(dtype)


@case("identity_n")
def _():
    x = ph([None, 3, 2])
    a, b = tf.raw_ops.IdentityN(input=[tf.nn.relu(x), tf.math.tanh(x)], name="idn")
    y = tf.math.multiply(a, b, name="y")
    return {"x": rand5(2, 3, 2)}, [y, tf.identity(b, name="b_out")]


@case("pow_broadcast")
def _():
    x = ph([None, 3, 4])
    p = tf.math.pow(x, tf.constant(rand5(4), name="e"), name="p")
    c = tf.math.pow(tf.constant(rand5(3, 1, lo=0.5, hi=2.0), name="base"), p, name="c")
    y = tf.math.pow(tf.math.subtract(c, 1.5), tf.constant(3.0), name="y")
    return {"x": rand5(2, 3, 4, lo=0.1, hi=3.0)}, [y]


@case("compare_select")
def _():
    # Float comparisons picking from a broadcast then and else.
    x = ph([None, 3, 4])
    v = tf.constant(rand5(4), name="v")
    outs = []
    for op in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"):
        cond = getattr(tf.raw_ops, op)(x=x, y=v, name=op.lower())
        outs.append(tf.raw_ops.SelectV2(condition=cond, t=x, e=tf.constant(rand5(3, 1), name=op.lower() + "_e"),
                                        name=op.lower() + "_y"))
    # Ties: x equal to v where x was rounded to it.
    tie = tf.raw_ops.SelectV2(condition=tf.math.less(x, 0.0), t=v, e=x, name="tie")
    eq = tf.raw_ops.Equal(x=tie, y=v, name="eq_tie")
    le = tf.raw_ops.LessEqual(x=tie, y=v, name="le_tie")
    outs.append(tf.raw_ops.SelectV2(condition=tf.math.logical_and(eq, le, name="and"), t=1.0, e=-1.0, name="tie_y"))
    return {"x": rand5(2, 3, 4)}, outs


@case("compare_int_logical")
def _():
    # int32 comparisons (ties are common), the logical ops, and a
    # condition broadcast against both branches.
    x = ph([None, 5], dtype=tf.int32)
    k = tf.constant(rng5.integers(-2, 3, size=(5,)).astype(np.int32), name="k")
    eq = tf.math.equal(x, k, name="eq")
    ne = tf.math.not_equal(x, 0, name="ne")
    both = tf.math.logical_or(tf.math.logical_not(eq, name="not"), tf.math.logical_and(ne, eq, name="and"), name="or")
    y = tf.raw_ops.SelectV2(condition=both, t=x, e=tf.constant(rng5.integers(-9, 9, size=(4, 1)).astype(np.int32), name="e"), name="y")
    g = tf.raw_ops.SelectV2(condition=tf.math.greater_equal(tf.math.reduce_max(x, axis=1, keepdims=True), 1, name="ge"), t=tf.constant(1), e=x, name="g")
    return {"x": rng5.integers(-2, 3, size=(4, 5)).astype(np.int32)}, [y, g]


@case("gather_prod_fold")
def _():
    # Keras's Tensordot: extents gathered from a Shape and multiplied
    # (Prod), folded; and a gather of a constant matrix along a negative
    # axis with rank-2 indices, read as data.
    x = ph([None, 3, 4])
    s = tf.shape(x, name="shape")
    free = tf.gather(s, tf.constant([0, 1], name="free"), axis=0, name="free_dims")
    rows = tf.math.reduce_prod(free, name="rows")
    last = tf.gather(s, tf.constant(2, name="two"), name="last")
    flat = tf.reshape(x, tf.stack([rows, last]), name="flat")
    w = tf.constant(rand5(1, 3), name="w")
    picked = tf.gather(w, tf.constant([[2, 0], [1, 1]], name="idx"), axis=-1, name="picked")  # [1, 2, 2]
    big = tf.reshape(picked, [1, 4])
    y = tf.math.add(flat, big, name="y")
    kp = tf.math.reduce_prod(tf.cast(s, tf.int64), axis=[0], keepdims=True, name="count")
    z = tf.reshape(x, kp, name="z")
    return {"x": rand5(2, 3, 4)}, [y, z]


@case("prod_data")
def _():
    x = ph([None, 3, 4])
    a = tf.math.reduce_prod(x, axis=[1], keepdims=True, name="a")
    y = tf.math.reduce_prod(tf.math.add(a, x), axis=-1, name="y")
    return {"x": rand5(2, 3, 4, lo=0.5, hi=1.5)}, [y]


@case("batch_matmul_broadcast")
def _():
    # A stack times one matrix, and a broadcast batch with both adjoints.
    x = ph([None, 2, 3, 4])
    y = tf.raw_ops.BatchMatMulV2(x=x, y=tf.constant(rand5(4, 5), name="w"), name="y")
    a = ph([None, 1, 4, 3], name="a")
    z = tf.raw_ops.BatchMatMulV2(x=a, y=tf.constant(rand5(3, 5, 4), name="v"), adj_x=True, adj_y=True, name="z")
    return {"x": rand5(2, 2, 3, 4), "a": rand5(2, 1, 4, 3)}, [y, z]


@case("batch_matmul_v1_v3")
def _():
    x = ph([None, 3, 2])
    w = tf.constant(rand5(2, 3, 4), name="w")
    y = tf.raw_ops.BatchMatMul(x=x, y=w, adj_x=True, name="y")
    z = tf.raw_ops.BatchMatMulV3(x=y, y=tf.constant(rand5(1, 5, 4), name="v"), Tout=tf.float32, adj_y=True, name="z")
    return {"x": rand5(2, 3, 2)}, [tf.identity(y, name="y_out"), z]


@case("space_to_batch")
def _():
    x = ph([None, 5, 4, 3])
    y = tf.raw_ops.SpaceToBatchND(input=x, block_shape=tf.constant([2, 3]),
                                  paddings=tf.constant([[1, 0], [0, 2]]), name="y")
    u = ph([None, 5, 3, 2], name="u")
    z = tf.raw_ops.SpaceToBatchND(input=u, block_shape=tf.constant([4], dtype=tf.int64),
                                  paddings=tf.constant([[1, 2]], dtype=tf.int64), name="z")
    return {"x": rand5(2, 5, 4, 3), "u": rand5(2, 5, 3, 2)}, [y, z]


@case("batch_to_space")
def _():
    x = ph([None, 2, 3, 2])
    y = tf.raw_ops.BatchToSpaceND(input=x, block_shape=tf.constant([2, 3]),
                                  crops=tf.constant([[1, 0], [0, 2]]), name="y")
    u = ph([None, 3, 2], name="u")
    z = tf.raw_ops.BatchToSpaceND(input=u, block_shape=tf.constant([3]), crops=tf.constant([[0, 0]]), name="z")
    return {"x": rand5(6, 2, 3, 2), "u": rand5(6, 3, 2)}, [y, z]


@case("space_batch_roundtrip")
def _():
    # The dilated convolution TensorFlow writes: SpaceToBatchND, Conv2D,
    # BatchToSpaceND.
    x = ph([None, 7, 6, 2])
    f = tf.constant(rand5(3, 3, 2, 3), name="f")
    y = tf.nn.atrous_conv2d(x, f, rate=2, padding="SAME", name="y")
    return {"x": rand5(2, 7, 6, 2)}, [y]


# Einsum: drawn from a generator of its own, so that the cases above keep
# their inputs.
rng6 = np.random.default_rng(20261201)


def rand6(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return rng6.uniform(lo, hi, size=shape).astype(dtype)


@case("einsum")
def _():
    # A batched product, MultiHeadAttention's two einsums, EinsumDense's,
    # a sum over one operand's own label, and an ellipsis.
    x = ph([None, 3, 4])
    w = tf.constant(rand6(4, 2, 5), name="w")
    y = tf.einsum("abc,cde->abde", x, w, name="y")
    q = ph([None, 5, 2, 4], name="q")
    k = ph([None, 3, 2, 4], name="k")
    s = tf.einsum("aecd,abcd->acbe", k, q, name="s")
    p = ph([None, 2, 3, 5], name="p")
    z = tf.einsum("acbe,aecd->abcd", p, q, name="z")
    v = tf.einsum("...ij,jk->...ik", x, tf.constant(rand6(4, 2), name="m"), name="v")
    r = tf.einsum("abc,b->a", x, tf.constant(rand6(3), name="u"), name="r")
    return {"x": rand6(2, 3, 4), "q": rand6(2, 5, 2, 4), "k": rand6(2, 3, 2, 4), "p": rand6(2, 2, 3, 5)}, [y, s, z, v, r]


# Softplus and Softsign, from a generator of their own: values across
# Softplus's thresholds (±13.94 for float32, ±34.04 for float64) and past
# where exp overflows.
rng7 = np.random.default_rng(20261202)


@case("softplus_softsign")
def _():
    x = ph([None, 8])
    d = ph([None, 8], name="d", dtype=tf.float64)
    ends = [-100.0, -40.0, -14.0, -13.9, 13.9, 14.0, 40.0, 100.0]
    xv = np.concatenate([[ends], rng7.uniform(-20, 20, size=(2, 8))]).astype(np.float32)
    dv = np.concatenate([[[-100.0, -34.1, -34.0, -20.0, 20.0, 34.0, 34.1, 800.0]], rng7.uniform(-40, 40, size=(2, 8))])
    return {"x": xv, "d": dv}, [tf.math.softplus(x, name="y"), tf.math.softplus(d, name="z"), tf.nn.softsign(x, name="w")]


@case("strided_slice_data")
def _():
    # Slices of a tensor the graph computes: ranges and steps, negative
    # indices, a shrunk axis, an ellipsis, a new axis, a negative stride
    # that keeps one element.
    x = ph([None, 6, 5])
    h = tf.nn.relu(x)
    a = tf.identity(h[:, 1:5:2, -3:], name="a")
    b = tf.identity(h[..., 0], name="b")
    c = tf.identity(h[:, tf.newaxis, 2, ::3], name="c")
    d = tf.identity(h[1:, -1, 3:2:-1], name="d")
    return {"x": rand7(3, 6, 5)}, [a, b, c, d]


@case("pack_data")
def _():
    # Stacks of tensors the graph computes, along each axis.
    x = ph([None, 3])
    h = tf.nn.relu(x)
    e = tf.math.exp(x)
    y0 = tf.stack([h, e, h], axis=0, name="y0")
    y1 = tf.stack([h, e], axis=1, name="y1")
    y2 = tf.stack([e, h], axis=-1, name="y2")
    return {"x": rand7(2, 3)}, [y0, y1, y2]


def rand7(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return rng7.uniform(lo, hi, size=shape).astype(dtype)


def freeze(m, x):
    """Freezes the Keras model m in inference (its input x, batch
    unknown) as convert_variables_to_constants_v2 does, and runs the
    frozen GraphDef on x in TensorFlow: (graph, feeds, [(output, value)],
    batch)."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    f = tf.function(lambda x: m(x, training=False)).get_concrete_function(
        tf.TensorSpec([None, *x.shape[1:]], tf.float32, name="x"))
    frozen = convert_variables_to_constants_v2(f)
    gd = frozen.graph.as_graph_def()
    (out,) = [t.op.name for t in frozen.outputs]
    g = tf.Graph()
    with g.as_default():
        tf.graph_util.import_graph_def(gd, name="")
        with tf1.Session(graph=g) as sess:
            y = sess.run(out + ":0", {"x:0": x})
    return gd, {"x": x}, [(out, y)], x.shape[0]


def keras_case():
    """A Keras Sequential model with Flatten, an exact GELU, Dropout and
    LayerNormalization, frozen as Keras models are: its GraphDef holds
    Shape, StridedSlice and Pack (Flatten), Erfc (GELU), StopGradient and
    SquaredDifference (LayerNormalization), and a control input."""
    tf.keras.utils.set_random_seed(7)
    m = tf.keras.Sequential([
        tf.keras.Input((4, 4)), tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(8, activation="gelu"), tf.keras.layers.Dropout(0.5),
        tf.keras.layers.LayerNormalization(), tf.keras.layers.Dense(3, activation="softmax")])
    x = rand(3, 4, 4)
    return freeze(m, x)


def keras_cnn_case():
    """A small Keras CNN: ZeroPadding2D (Pad), Conv2D, BatchNormalization,
    ReLU, MaxPooling2D, GlobalAveragePooling2D, Dropout and a softmax
    Dense, frozen the same way."""
    tf.keras.utils.set_random_seed(11)
    m = tf.keras.Sequential([
        tf.keras.Input((6, 6, 2)), tf.keras.layers.ZeroPadding2D(((1, 0), (0, 1))),
        tf.keras.layers.Conv2D(4, 3), tf.keras.layers.BatchNormalization(),
        tf.keras.layers.ReLU(), tf.keras.layers.MaxPooling2D(2),
        tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dropout(0.25),
        tf.keras.layers.Dense(3, activation="softmax")])
    # Moving statistics away from 0 and 1, so that inference BatchNorm
    # does something.
    bn = m.layers[2]
    bn.set_weights([rand2(4, lo=0.5, hi=1.5), rand2(4, lo=-0.5, hi=0.5),
                    rand2(4, lo=-0.5, hi=0.5), rand2(4, lo=0.5, hi=2.0)])
    x = rand2(3, 6, 6, 2)
    return freeze(m, x)


def keras_conv_transpose_case():
    """A Keras decoder: Dense, Reshape and two Conv2DTranspose (stride 2,
    "same"; stride 1, "valid") with ReLU, frozen the same way; its
    Conv2DBackpropInput nodes take input_sizes computed from the batch."""
    tf.keras.utils.set_random_seed(13)
    m = tf.keras.Sequential([
        tf.keras.Input((6,)), tf.keras.layers.Dense(3 * 3 * 4, activation="relu"),
        tf.keras.layers.Reshape((3, 3, 4)),
        tf.keras.layers.Conv2DTranspose(3, 3, strides=2, padding="same", activation="relu"),
        tf.keras.layers.Conv2DTranspose(2, (2, 3), padding="valid")])
    x = rand3(3, 6)
    return freeze(m, x)


def keras_upsampling_case():
    """A Keras decoder with UpSampling2D (nearest): Conv2D, UpSampling2D
    by 2, Conv2D, frozen the same way. Keras 3 repeats the pixels with
    ExpandDims, Tile and Reshape, the repeat count reshaped to a scalar
    by an empty shape Const."""
    tf.keras.utils.set_random_seed(17)
    m = tf.keras.Sequential([
        tf.keras.Input((4, 4, 2)), tf.keras.layers.Conv2D(3, 3, padding="same", activation="relu"),
        tf.keras.layers.UpSampling2D(2), tf.keras.layers.Conv2D(2, 3, padding="same")])
    x = rand4(3, 4, 4, 2)
    return freeze(m, x)


def keras_conv1d_dilated_case():
    """A Keras Conv1D with dilation_rate 2 and causal padding, then one
    with dilation_rate 3 and "same" padding, frozen the same way:
    TensorFlow writes each as Pad, SpaceToBatchND, Conv2D and
    BatchToSpaceND around ExpandDims and Squeeze."""
    tf.keras.utils.set_random_seed(19)
    m = tf.keras.Sequential([
        tf.keras.Input((11, 3)), tf.keras.layers.Conv1D(4, 3, dilation_rate=2, padding="causal", activation="relu"),
        tf.keras.layers.Conv1D(2, 2, dilation_rate=3, padding="same")])
    x = rand5(3, 11, 3)
    return freeze(m, x)


def keras_separable_swish_case():
    """A Keras SeparableConv2D and a Dense with the swish activation,
    which Keras 3 writes through tf.custom_gradient: IdentityN around
    x·sigmoid(x)."""
    tf.keras.utils.set_random_seed(23)
    m = tf.keras.Sequential([
        tf.keras.Input((5, 5, 3)), tf.keras.layers.SeparableConv2D(4, 3, padding="same", activation="swish"),
        tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(3, activation="swish")])
    x = rand5(2, 5, 5, 3)
    return freeze(m, x)


def keras_dense_rank3_case():
    """A Keras Dense on a rank-3 input [batch, time, features] with the
    tanh-approximate GELU, frozen the same way: Keras writes Tensordot
    (Shape, GatherV2, Prod, Pack, Reshape, MatMul, ConcatV2, Reshape) and
    the GELU's cube with Pow; then a Dense on the features of a
    Permute."""
    tf.keras.utils.set_random_seed(29)
    m = tf.keras.Sequential([
        tf.keras.Input((4, 6)),
        tf.keras.layers.Dense(5, activation=lambda v: tf.keras.activations.gelu(v, approximate=True)),
        tf.keras.layers.Permute((2, 1)), tf.keras.layers.Dense(2)])
    x = rand5(3, 4, 6)
    return freeze(m, x)


def keras_attention_case():
    """A Keras transformer block on [batch, time, features]:
    MultiHeadAttention (EinsumDense projections and the attention
    einsums: BatchMatMulV2 and Einsum in the frozen graph), a residual add,
    LayerNormalization and a Dense with the tanh GELU."""
    tf.keras.utils.set_random_seed(31)
    x = tf.keras.Input((5, 8))
    a = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
    h = tf.keras.layers.LayerNormalization()(tf.keras.layers.Add()([x, a]))
    h = tf.keras.layers.Dense(6, activation=lambda v: tf.keras.activations.gelu(v, approximate=True))(h)
    m = tf.keras.Model(x, h)
    return freeze(m, rand6(2, 5, 8))


def keras_cropping_case():
    """Keras's Cropping2D and TimeDistributed, which freeze to
    StridedSlice of the data."""
    tf.keras.utils.set_random_seed(37)
    x = tf.keras.Input((6, 5, 2))
    h = tf.keras.layers.Cropping2D(((1, 2), (0, 1)))(x)
    h = tf.keras.layers.Reshape((3, 8))(h)
    h = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(3))(h)
    m = tf.keras.Model(x, h)
    return freeze(m, rand7(2, 6, 5, 2))


def main():
    cases = []
    for name, build in CASES:
        g = tf.Graph()
        with g.as_default():
            feeds, outs = build()
            gd = g.as_graph_def()
            with tf1.Session(graph=g) as sess:
                vals = sess.run(outs, {g.get_tensor_by_name(k + ":0"): v for k, v in feeds.items()})
        with open(os.path.join(HERE, name + ".pb"), "wb") as f:
            f.write(gd.SerializeToString(deterministic=True))
        # The extent every unknown (-1) dimension of a placeholder takes.
        batches = set()
        for k, v in feeds.items():
            dims = g.get_tensor_by_name(k + ":0").shape.as_list()
            batches |= {v.shape[i] for i, d in enumerate(dims) if d is None}
        assert len(batches) <= 1, (name, batches)
        cases.append({
            "name": name,
            "batch": int(batches.pop()) if batches else 0,
            "inputs": {k: {"dtype": str(v.dtype), "shape": list(v.shape), "data": v.ravel().tolist()}
                       for k, v in feeds.items()},
            "outputs": [{"name": t.op.name, "dtype": str(v.dtype), "shape": list(v.shape),
                         "data": v.ravel().tolist()} for t, v in zip(outs, vals)],
        })
    for name, build in [("keras_flatten_gelu_layernorm", keras_case), ("keras_cnn_zero_padding", keras_cnn_case),
                        ("keras_conv_transpose", keras_conv_transpose_case), ("keras_upsampling", keras_upsampling_case),
                        ("keras_conv1d_dilated", keras_conv1d_dilated_case),
                        ("keras_separable_swish", keras_separable_swish_case),
                        ("keras_dense_rank3", keras_dense_rank3_case),
                        ("keras_attention", keras_attention_case),
                        ("keras_cropping", keras_cropping_case)]:
        gd, feeds, outs, batch = build()
        with open(os.path.join(HERE, name + ".pb"), "wb") as f:
            f.write(gd.SerializeToString(deterministic=True))
        cases.append({
            "name": name,
            "batch": batch,
            "inputs": {k: {"dtype": str(v.dtype), "shape": list(v.shape), "data": v.ravel().tolist()}
                       for k, v in feeds.items()},
            "outputs": [{"name": name, "dtype": str(v.dtype), "shape": list(v.shape),
                         "data": v.ravel().tolist()} for name, v in outs],
        })
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
