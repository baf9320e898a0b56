"""Writes five ONNX models for `hofuse bench FILE.onnx`: a small CNN, a
transformer MLP block, a ResNeXt block, a MobileNetV2 block and a
transformer self-attention block.

How to run it
-------------
In a virtual environment with onnx and numpy:

    python3 -m venv /tmp/venv-bench
    /tmp/venv-bench/bin/pip install onnx onnxruntime numpy
    /tmp/venv-bench/bin/python bench/peers/make_bench_models.py /tmp/bench-models
    hofuse bench /tmp/bench-models/cnn.onnx --batches 1,16 --peers ort=/tmp/venv-bench/bin/python
    hofuse bench /tmp/bench-models/mlpblock.onnx --batches 1,16 --peers ort=/tmp/venv-bench/bin/python
    hofuse bench /tmp/bench-models/resnext.onnx --batches 1,8 --peers ort=/tmp/venv-bench/bin/python
    hofuse bench /tmp/bench-models/mobilenet.onnx --batches 1,8 --peers ort=/tmp/venv-bench/bin/python
    hofuse bench /tmp/bench-models/attention.onnx --batches 1,8 --peers ort=/tmp/venv-bench/bin/python

The models are not kept in the repository (the block's weights are 18 MiB);
the script writes the same bytes on every run (seeded weights).

The models
----------
- cnn.onnx (opset 13), input x of shape [N, 1, 28, 28]: two blocks of a
  3x3 Conv with bias ("same" padding; 32, then 64 channels),
  BatchNormalization (inference), Relu and a 2x2 MaxPool of stride 2; then
  Reshape to [N, 3136], Gemm to 128, Relu, Gemm to 10. A convolution fused
  with the pooling after it is what this model exercises.
- mlpblock.onnx (opset 17), input x of shape [N, 768]: LayerNormalization,
  MatMul 768 -> 3072 and Add, the exact GELU as PyTorch's exporter writes
  it (x * (erf(x / sqrt 2) + 1) * 0.5), MatMul 3072 -> 768 and Add, and the
  residual add of x. Products of few rows by large fixed weights are what
  this model exercises.
- resnext.onnx (opset 13), input x of shape [N, 64, 28, 28]: a ResNeXt
  bottleneck: 1x1 Conv to 128 channels, a 3x3 Conv in 32 groups of 4
  channels, a 1x1 Conv back to 64, each without bias and followed by
  BatchNormalization (inference), the first two by Relu; then the residual
  add of x and a Relu. A grouped convolution of narrow groups is what this
  model exercises.
- mobilenet.onnx (opset 13), input x of shape [N, 32, 56, 56]: a
  MobileNetV2 inverted residual block: 1x1 Conv to 192 channels, a 3x3
  depthwise Conv (group 192), a 1x1 Conv back to 32, each without bias and
  followed by BatchNormalization (inference), the first two by Clip(0, 6);
  then the residual add of x. A depthwise convolution between pointwise
  ones on a channels-first image is what this model exercises.
- attention.onnx (opset 17), input x of shape [N, 128, 256]: the
  self-attention half of a pre-norm transformer encoder layer as
  PyTorch's exporter writes it: LayerNormalization; query, key and value
  projections (MatMul 256 -> 256 and Add); heads split by Reshape to
  [N, 128, 4, 64] and Transpose; scores by MatMul, scaled by Mul;
  Softmax over the keys; the context by MatMul, heads merged by
  Transpose and Reshape; the output projection and the residual add of
  x. Batched products of small matrices and softmaxes of short rows are
  what this model exercises.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tensor(name, values, dtype=np.float32):
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def cnn(rng):
    inits, nodes = [], []
    x, cin = "x", 1
    for i, cout in enumerate([32, 64]):
        fan_in = 9 * cin
        inits += [
            tensor(f"w{i}", rng.standard_normal((cout, cin, 3, 3)) * np.sqrt(2 / fan_in)),
            tensor(f"b{i}", rng.standard_normal(cout) * 0.05),
            tensor(f"scale{i}", 1 + 0.1 * rng.standard_normal(cout)),
            tensor(f"shift{i}", 0.1 * rng.standard_normal(cout)),
            tensor(f"mean{i}", 0.1 * rng.standard_normal(cout)),
            tensor(f"var{i}", 1 + 0.1 * rng.random(cout)),
        ]
        nodes += [
            helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"conv{i}"], pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization",
                             [f"conv{i}", f"scale{i}", f"shift{i}", f"mean{i}", f"var{i}"], [f"norm{i}"]),
            helper.make_node("Relu", [f"norm{i}"], [f"relu{i}"]),
            helper.make_node("MaxPool", [f"relu{i}"], [f"pool{i}"], kernel_shape=[2, 2], strides=[2, 2]),
        ]
        x, cin = f"pool{i}", cout
    inits += [
        tensor("shape", [-1, 64 * 7 * 7], np.int64),
        tensor("W1", rng.standard_normal((64 * 7 * 7, 128)) * 0.02),
        tensor("B1", np.zeros(128)),
        tensor("W2", rng.standard_normal((128, 10)) * 0.1),
        tensor("B2", np.zeros(10)),
    ]
    nodes += [
        helper.make_node("Reshape", [x, "shape"], ["flat"]),
        helper.make_node("Gemm", ["flat", "W1", "B1"], ["hidden"]),
        helper.make_node("Relu", ["hidden"], ["hidden_relu"]),
        helper.make_node("Gemm", ["hidden_relu", "W2", "B2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 28, 28])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def mlp_block(rng):
    d, h = 768, 3072
    inits = [
        tensor("gamma", 1 + 0.1 * rng.standard_normal(d)),
        tensor("beta", 0.1 * rng.standard_normal(d)),
        tensor("W1", rng.standard_normal((d, h)) * 0.03),
        tensor("b1", rng.standard_normal(h) * 0.02),
        tensor("W2", rng.standard_normal((h, d)) * 0.02),
        tensor("b2", rng.standard_normal(d) * 0.02),
        tensor("sqrt2", 1.4142135),
        tensor("one", 1.0),
        tensor("half", 0.5),
    ]
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["ln"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["ln", "W1"], ["up"]),
        helper.make_node("Add", ["up", "b1"], ["h"]),
        helper.make_node("Div", ["h", "sqrt2"], ["h_scaled"]),
        helper.make_node("Erf", ["h_scaled"], ["erf"]),
        helper.make_node("Add", ["erf", "one"], ["erf1"]),
        helper.make_node("Mul", ["h", "erf1"], ["h_erf"]),
        helper.make_node("Mul", ["h_erf", "half"], ["gelu"]),
        helper.make_node("MatMul", ["gelu", "W2"], ["down"]),
        helper.make_node("Add", ["down", "b2"], ["out"]),
        helper.make_node("Add", ["out", "x"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "mlpblock",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", d])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", d])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def conv_bn(rng, inits, nodes, i, x, cin, cout, k, g, act):
    """Appends a Conv without bias (k x k, "same" padding, group g) and a
    BatchNormalization after it to nodes, their weights to inits, then act:
    "Relu", "Clip" (to [0, 6], with initializers lo and hi) or None.
    Returns the output's name."""
    fan_in = k * k * cin // g
    inits.extend([
        tensor(f"w{i}", rng.standard_normal((cout, cin // g, k, k)) * np.sqrt(2 / fan_in)),
        tensor(f"scale{i}", 1 + 0.1 * rng.standard_normal(cout)),
        tensor(f"shift{i}", 0.1 * rng.standard_normal(cout)),
        tensor(f"mean{i}", 0.1 * rng.standard_normal(cout)),
        tensor(f"var{i}", 1 + 0.1 * rng.random(cout)),
    ])
    pad = (k - 1) // 2
    nodes.extend([
        helper.make_node("Conv", [x, f"w{i}"], [f"conv{i}"], pads=[pad] * 4, group=g),
        helper.make_node("BatchNormalization",
                         [f"conv{i}", f"scale{i}", f"shift{i}", f"mean{i}", f"var{i}"], [f"norm{i}"]),
    ])
    if act is None:
        return f"norm{i}"
    ins = [f"norm{i}"] + (["lo", "hi"] if act == "Clip" else [])
    nodes.append(helper.make_node(act, ins, [f"act{i}"]))
    return f"act{i}"


def resnext_block(rng):
    inits, nodes = [], []
    h = conv_bn(rng, inits, nodes, 0, "x", 64, 128, 1, 1, "Relu")
    h = conv_bn(rng, inits, nodes, 1, h, 128, 128, 3, 32, "Relu")
    h = conv_bn(rng, inits, nodes, 2, h, 128, 64, 1, 1, None)
    nodes += [
        helper.make_node("Add", [h, "x"], ["sum"]),
        helper.make_node("Relu", ["sum"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "resnext",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 64, 28, 28])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 64, 28, 28])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def mobilenet_block(rng):
    # ReLU6 is Clip(0, 6).
    inits, nodes = [tensor("lo", 0.0), tensor("hi", 6.0)], []
    h = conv_bn(rng, inits, nodes, 0, "x", 32, 192, 1, 1, "Clip")
    h = conv_bn(rng, inits, nodes, 1, h, 192, 192, 3, 192, "Clip")
    h = conv_bn(rng, inits, nodes, 2, h, 192, 32, 1, 1, None)
    nodes.append(helper.make_node("Add", [h, "x"], ["y"]))
    graph = helper.make_graph(
        nodes, "mobilenet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 32, 56, 56])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 32, 56, 56])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def attention_block(rng):
    # The self-attention half of a transformer encoder layer, pre-norm, as
    # PyTorch's exporter writes it: projections by MatMul and Add, heads
    # split by Reshape and Transpose, scaled scores, Softmax, and the heads
    # merged back.
    s, d, heads = 128, 256, 4
    dh = d // heads
    inits = [
        tensor("gamma", 1 + 0.1 * rng.standard_normal(d)),
        tensor("beta", 0.1 * rng.standard_normal(d)),
        tensor("scale", 1 / np.sqrt(dh)),
        tensor("split_heads", [0, s, heads, dh], np.int64),
        tensor("merge_heads", [0, s, d], np.int64),
    ]
    nodes = [helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["ln"], axis=-1, epsilon=1e-5)]
    for p in "qkvo":
        inits += [tensor("W" + p, rng.standard_normal((d, d)) / np.sqrt(d)),
                  tensor("b" + p, 0.02 * rng.standard_normal(d))]
    for p, perm in [("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])]:
        nodes += [
            helper.make_node("MatMul", ["ln", "W" + p], [p + "_mm"]),
            helper.make_node("Add", [p + "_mm", "b" + p], [p + "_proj"]),
            helper.make_node("Reshape", [p + "_proj", "split_heads"], [p + "_split"]),
            helper.make_node("Transpose", [p + "_split"], [p + "_heads"], perm=perm),
        ]
    nodes += [
        helper.make_node("MatMul", ["q_heads", "k_heads"], ["scores"]),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "v_heads"], ["ctx_heads"]),
        helper.make_node("Transpose", ["ctx_heads"], ["ctx_split"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ctx_split", "merge_heads"], ["ctx"]),
        helper.make_node("MatMul", ["ctx", "Wo"], ["o_mm"]),
        helper.make_node("Add", ["o_mm", "bo"], ["o"]),
        helper.make_node("Add", ["o", "x"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "attention",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", s, d])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", s, d])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_bench_models.py DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, build, seed in [("cnn", cnn, 1), ("mlpblock", mlp_block, 0), ("resnext", resnext_block, 2),
                              ("mobilenet", mobilenet_block, 3), ("attention", attention_block, 4)]:
        model = build(np.random.default_rng(seed))
        onnx.checker.check_model(model)
        path = os.path.join(out, name + ".onnx")
        onnx.save(model, path)
        print("wrote", path)


if __name__ == "__main__":
    main()
