"""Times the convolution block of hofuse's BenchmarkConv in ONNX Runtime and JAX.

How to run it
-------------
In a virtual environment with onnx, onnxruntime, JAX (CPU) and numpy:

    python3 -m venv /tmp/venv-conv
    /tmp/venv-conv/bin/pip install onnx onnxruntime jax numpy
    /tmp/venv-conv/bin/python bench/peers/conv_block.py [--runs N] [--warmup N]

and, in the same session, hofuse's figures for the same block:

    go test ./lowering/native -run NONE -bench BenchmarkConv

What is timed
-------------
The block lowering/native's BenchmarkConv builds: x of shape [32, 32, 32,
64] (batch, height, width, channels), a 3x3 convolution 64 -> 64, stride 1,
"same" padding, with a bias, then BatchNorm in inference mode (running
mean and variance, eps 1e-5, scale and shift) and ReLU, float32, with
seeded uniform weights (the values do not change the work).

- ort: an ONNX model (opset 17) Conv (with its bias) -> BatchNormalization
  -> Relu on the NCHW layout ONNX's Conv takes, the weights as
  initializers; a CPU InferenceSession with default options (all graph
  optimisations, which fold the BatchNormalization into the Conv and fuse
  the Relu; a thread per core). Each run is one session.run; the input is
  the NCHW copy of x, made once.
- jax: one jitted function of x and the weights, lax.conv_general_dilated
  on NHWC with HWIO weights, + bias, the BatchNorm and the ReLU; the
  weights and x placed on the device once; each run is one call waited
  for with block_until_ready.

It prints one JSON document to stdout: {"rows": [{"peer", "p50_ms",
"p99_ms", "runs"}...]}, p50 and p99 over the timed runs.
"""

import argparse
import json
import sys
import time

import numpy as np

N, H, W, C, K = 32, 32, 32, 64, 3
EPS = 1e-5


def weights(seed):
    rng = np.random.default_rng(seed)
    u = lambda lo, hi, *shape: rng.uniform(lo, hi, shape).astype(np.float32)
    bound = 1 / (K * K * C)
    return {
        "x": u(-1, 1, N, H, W, C),
        "K": u(-bound, bound, K, K, C, C),  # HWIO
        "b": u(-0.1, 0.1, C),
        "mean": u(-0.1, 0.1, C),
        "var": u(0.5, 1.5, C),
        "scale": u(0.75, 1.25, C),
        "shift": u(-0.1, 0.1, C),
    }


def time_runs(fn, warmup, runs):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return {"p50_ms": times[len(times) // 2], "p99_ms": times[min(len(times) - 1, len(times) * 99 // 100)], "runs": runs}


def ort_row(w, warmup, runs):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    init = [
        numpy_helper.from_array(np.ascontiguousarray(w["K"].transpose(3, 2, 0, 1)), "K"),  # OIHW
        numpy_helper.from_array(w["b"], "b"),
        numpy_helper.from_array(w["scale"], "scale"),
        numpy_helper.from_array(w["shift"], "shift"),
        numpy_helper.from_array(w["mean"], "mean"),
        numpy_helper.from_array(w["var"], "var"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "K", "b"], ["c"], kernel_shape=[K, K], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["n"], epsilon=EPS),
        helper.make_node("Relu", ["n"], ["y"]),
    ]
    g = helper.make_graph(nodes, "conv_block",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [N, C, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N, C, H, W])], init)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    # IR version 8 (opset 17's), which every onnxruntime that runs opset 17
    # reads; make_model would write the installed onnx's newest.
    model.ir_version = 8
    onnx.checker.check_model(model)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.ascontiguousarray(w["x"].transpose(0, 3, 1, 2))
    row = time_runs(lambda: sess.run(["y"], {"x": x}), warmup, runs)
    row["peer"] = f"onnxruntime {ort.__version__}"
    return row


def jax_row(w, warmup, runs):
    import jax
    import jax.numpy as jnp

    def block(x, k, b, mean, var, scale, shift):
        y = jax.lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = (y + b - mean) * jax.lax.rsqrt(var + EPS) * scale + shift
        return jnp.maximum(y, 0)

    args = [jnp.asarray(w[k]) for k in ["x", "K", "b", "mean", "var", "scale", "shift"]]
    f = jax.jit(block).lower(*args).compile()
    row = time_runs(lambda: f(*args).block_until_ready(), warmup, runs)
    row["peer"] = f"jax {jax.__version__} jit"
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    w = weights(args.seed)
    rows = []
    for name, fn in [("ort", ort_row), ("jax", jax_row)]:
        try:
            row = fn(w, args.warmup, args.runs)
        except ImportError as e:
            print(f"conv_block: {name} skipped: {e}", file=sys.stderr)
            continue
        print(f"{row['peer']}: p50 {row['p50_ms']:.3f} ms  p99 {row['p99_ms']:.3f} ms", file=sys.stderr)
        rows.append(row)
    json.dump({"block": f"conv {K}x{K} {C}->{C}, {H}x{W}, batch {N}, same, f32 + bias + BatchNorm + ReLU", "rows": rows},
              sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
