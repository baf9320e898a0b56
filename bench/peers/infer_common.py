"""What the inference peers of `hofuse bench mlp|matmul|stack` share.

`hofuse bench ... --peers NAME=PYTHON` writes a case file (JSON) and the
workload's inputs and weights (.npy) to a temporary folder, then runs

    PYTHON bench/peers/NAME_infer.py CASE.json

from the repository's root. The case file says:

    workload   {"kind": "mlp", "sizes": [784, 512, 512, 10], "norm":
               "batchnorm" | "layernorm" | "none", "activation": "relu" | ...,
               "eps": 1e-5, "leaky_relu_alpha": 0.01}
               {"kind": "matmul"}: A @ B
               {"kind": "layernorm_gelu_residual", "eps": 1e-5}:
               x + GELU(LayerNorm(x)) with ln.scale, ln.shift
               {"kind": "softmax"}: softmax over the last axis of x
               {"kind": "onnx_file", "path": "/abs/model.onnx", "inputs":
               ["input"], "output_name": "probabilities"}: the model file
               itself, fed its data inputs (ort only)
    dtype      the output's: "float32" or "float64" (a model file's also
               "int32" or "bool")
    batch      rows of the row input
    runs       timed runs (0: about budget_s of runs, at least 20, at
               most 2000, as hofuse times its own)
    budget_s   the seconds of runs when runs is 0 (0.5 when absent): hofuse
               runs a peer once per turn (bench --rounds) with its share
    row_input  the input fed at every run ("x", or "A" for matmul); the
               others are weights, placed once
    inputs     {name: path of its .npy}
    output     where the script writes its result (.npy, the case's dtype)

The MLP is models.MLP: dense layers y = x @ W + b (W of shape [in, out],
named dense1.W, dense1.b, ...), after each dense layer but the last the
normalisation (BatchNorm in inference mode with bnI.mean, bnI.var,
bnI.scale, bnI.shift; or LayerNorm with lnI.scale, lnI.shift) and then the
activation.

A script prints one JSON document to stdout: {"rows": [{"backend", "mode",
"p50_ms", "p99_ms", "runs", "compile_ms", "times_ms"}]} (times_ms: every timed
run, which hofuse merges over the turns) and nothing to stderr unless it fails. When
its package is not installed it prints one line saying so to stderr and
exits with status 3, which hofuse reports as the peer being skipped.
"""

import json
import sys
import time

MISSING = 3  # exit status: the peer's package is not installed


def missing(package, err):
    print(f"{package} is not installed in {sys.executable} ({err}); "
          f"pip install it in that environment (hofuse bench --peers help)", file=sys.stderr)
    sys.exit(MISSING)


def load_case():
    import numpy as np
    if len(sys.argv) != 2:
        raise SystemExit(f"usage: {sys.argv[0]} CASE.json (written by hofuse bench --peers)")
    with open(sys.argv[1]) as f:
        case = json.load(f)
    arrays = {name: np.load(path) for name, path in case["inputs"].items()}
    return case, arrays


def time_runs(run, case):
    """Times run() after one warm-up call, case["runs"] times (0: about
    case["budget_s"] seconds of runs); returns sorted times in ms and the
    last result."""
    runs, budget_s = case["runs"], case.get("budget_s") or 0.5
    out = run()
    if runs <= 0:
        t0 = time.perf_counter()
        out = run()
        dt = max(time.perf_counter() - t0, 1e-6)
        runs = max(20, min(2000, int(budget_s / dt)))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = run()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times, out


def report(case, backend, mode, times, compile_ms, out, version):
    import numpy as np
    np.save(case["output"], np.ascontiguousarray(np.asarray(out, dtype=case["dtype"])))
    n = len(times)
    row = {
        "backend": backend,
        "mode": mode,
        "p50_ms": times[n // 2],
        "p99_ms": times[min(n - 1, n * 99 // 100)],
        "runs": n,
        "compile_ms": compile_ms,
        "version": version,
        "times_ms": times,
    }
    json.dump({"rows": [row]}, sys.stdout)
    print()
