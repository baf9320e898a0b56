"""ONNX Runtime peer of `hofuse bench mlp|matmul|stack`.

How to run it
-------------
In a virtual environment with onnx and onnxruntime:

    python3 -m venv /tmp/venv-bench
    /tmp/venv-bench/bin/pip install onnx onnxruntime numpy
    hofuse bench mlp --peers ort=/tmp/venv-bench/bin/python

hofuse writes the case file and runs `PYTHON bench/peers/ort_infer.py
CASE.json` from the repository's root; infer_common.py describes the case
file and the JSON row printed on stdout. The script builds the ONNX model
itself with onnx's helper API (opset 17), the weights as initializers:
MatMul and Add for a dense layer, BatchNormalization (inference) or
LayerNormalization, the activation (GELU written with Erf, as
0.5 * x * (1 + erf(x / sqrt 2))), Softmax on the last axis. compile_ms is
the creation of the InferenceSession (CPU provider, default options: all
graph optimisations, a thread per core); each timed run is one
session.run with the row input.

With `hofuse bench FILE.onnx` (workload kind "onnx_file") the script builds
nothing: it opens the file itself and feeds it the data inputs hofuse drew,
by the model's input names, fetching the one output hofuse timed.
"""

import math
import time

from infer_common import load_case, missing, report, time_runs

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    missing("onnxruntime and onnx", e)


class Graph:
    """A list of nodes and initializers, with fresh names."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, hint):
        self.n += 1
        return f"{hint}_{self.n}"

    def const(self, hint, value):
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=self.dtype), name))
        return name

    def weight(self, name, array):
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type, *inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def activate(self, h, act, alpha):
        if act == "relu":
            return self.op("Relu", h)
        if act == "leaky_relu":
            return self.op("LeakyRelu", h, alpha=alpha)
        if act == "sigmoid":
            return self.op("Sigmoid", h)
        if act == "tanh":
            return self.op("Tanh", h)
        if act == "gelu":
            e = self.op("Erf", self.op("Mul", h, self.const("rsqrt2", 1 / math.sqrt(2))))
            return self.op("Mul", self.op("Mul", h, self.const("half", 0.5)), self.op("Add", e, self.const("one", 1)))
        if act == "gelu_tanh":
            h3 = self.op("Mul", self.op("Mul", h, h), h)
            inner = self.op("Mul", self.const("c", math.sqrt(2 / math.pi)),
                            self.op("Add", h, self.op("Mul", self.const("k", 0.044715), h3)))
            t = self.op("Tanh", inner)
            return self.op("Mul", self.op("Mul", h, self.const("half", 0.5)), self.op("Add", t, self.const("one", 1)))
        if act == "silu":
            return self.op("Mul", h, self.op("Sigmoid", h))
        if act == "softmax":
            return self.op("Softmax", h, axis=-1)
        if act == "none":
            return h
        raise SystemExit(f"ort_infer: unknown activation {act!r}")


def build(wl, w, x_name, dtype):
    g = Graph(dtype)
    kind = wl["kind"]
    if kind == "matmul":
        return g, g.op("MatMul", x_name, g.weight("B", w["B"]))
    if kind == "softmax":
        return g, g.op("Softmax", x_name, axis=-1)
    if kind == "layernorm_gelu_residual":
        ln = g.op("LayerNormalization", x_name, g.weight("ln.scale", w["ln.scale"]), g.weight("ln.shift", w["ln.shift"]),
                  axis=-1, epsilon=wl["eps"])
        return g, g.op("Add", x_name, g.activate(ln, "gelu", 0))
    layers = len(wl["sizes"]) - 1
    h = x_name
    for i in range(1, layers + 1):
        h = g.op("Add", g.op("MatMul", h, g.weight(f"dense{i}.W", w[f"dense{i}.W"])), g.weight(f"dense{i}.b", w[f"dense{i}.b"]))
        if i == layers:
            break
        if wl["norm"] == "batchnorm":
            p = [g.weight(f"bn{i}.{k}", w[f"bn{i}.{k}"]) for k in ("scale", "shift", "mean", "var")]
            h = g.op("BatchNormalization", h, *p, epsilon=wl["eps"])
        elif wl["norm"] == "layernorm":
            h = g.op("LayerNormalization", h, g.weight(f"ln{i}.scale", w[f"ln{i}.scale"]), g.weight(f"ln{i}.shift", w[f"ln{i}.shift"]),
                     axis=-1, epsilon=wl["eps"])
        h = g.activate(h, wl["activation"], wl["leaky_relu_alpha"])
    return g, h


def run_file(case, arrays):
    """Times the model file the case names: its data inputs are the arrays,
    fed by the model's own input names; its parameters are the file's."""
    wl = case["workload"]
    start = time.perf_counter()
    sess = ort.InferenceSession(wl["path"], providers=["CPUExecutionProvider"])
    compile_ms = (time.perf_counter() - start) * 1e3
    feed = {name: arrays[name] for name in wl["inputs"]}
    out = wl["output_name"]
    times, res = time_runs(lambda: sess.run([out], feed)[0], case)
    report(case, "onnxruntime", "session", times, compile_ms, res, ort.__version__)


def main():
    case, arrays = load_case()
    if case["workload"]["kind"] == "onnx_file":
        run_file(case, arrays)
        return
    dtype = np.dtype(case["dtype"])
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    x_name = case["row_input"]
    x = arrays.pop(x_name)
    g, out = build(case["workload"], arrays, x_name, dtype)
    graph = helper.make_graph(g.nodes, "hofuse_bench", [helper.make_tensor_value_info(x_name, elem, list(x.shape))],
                              [helper.make_tensor_value_info(out, elem, ["rows", "columns"])], initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    start = time.perf_counter()
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    compile_ms = (time.perf_counter() - start) * 1e3
    feed = {x_name: x}
    times, res = time_runs(lambda: sess.run([out], feed)[0], case)
    report(case, "onnxruntime", "session", times, compile_ms, res, ort.__version__)


if __name__ == "__main__":
    main()
