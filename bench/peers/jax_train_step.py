"""Times one JAX training step of the MLP that `hofuse bench train` times.

How to run it
-------------
In a virtual environment with JAX 0.10.2 (CPU):

    python3 -m venv /tmp/hofuse-jax
    /tmp/hofuse-jax/bin/pip install jax==0.10.2 numpy
    /tmp/hofuse-jax/bin/python bench/peers/jax_train_step.py [--batches 32,256] [--steps N] [--warmup N] [--lr 0.001]

It prints one JSON document to stdout, {"model": ..., "rows": [...]}, whose
rows have the shape of `hofuse bench train --json`'s: "backend": "jax",
"mode": "jit", "batch", "p50_ms", "p99_ms", "steps", "compile_ms" (tracing
and XLA compilation of the step, from jax.jit(...).lower(...).compile()),
"first_loss", "last_loss". Progress lines go to stderr.

What is timed
-------------
The step `hofuse bench train` builds with its defaults (models.MLP and
Model.TrainStep): the MLP 784-512-512-10, float32,

    dense1 bn1 relu1 dense2 bn2 relu2 dense3

dense y = x @ W + b (W of shape [in, out]); BatchNorm in training mode
(batch mean, biased batch variance, eps 1e-5, scale and shift; the running
mean and the running unbiased variance updated with momentum 0.1, as
layers.BatchNormRunningStats does); the softmax cross-entropy with integer
labels, mean over the batch; its gradient by jax.value_and_grad; and Adam
(lr 1e-3 or --lr, betas 0.9/0.999, eps 1e-8, PyTorch's bias correction) on every
parameter. One jitted function takes the parameters, Adam's moments, the
running statistics, the batch, its labels and the step number, and returns
the loss and all their next values; the carried arrays are donated, so XLA
may update them in place (hofuse's trainer likewise reuses two sets of
buffers). Each timed step is one call on one fixed batch held on the host
(copied in by each call, as hofuse's step copies its batch), its loss read
back to the host and the carried arrays waited for with block_until_ready,
after the warm-up steps; p50 and p99 are over the timed steps, as in
hofuse's report, and --steps 0 (the default) times about 3 s of steps, 5 to
200, as `hofuse bench train` does.

`hofuse bench train --peers jax=/tmp/hofuse-jax/bin/python`, run from the
repository's root, runs this script after its own timings with its
--batches, --steps, --warmup and --lr, and reports its rows with its own.
"""

import argparse
import json
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

SIZES = [784, 512, 512, 10]
EPS = 1e-5
MOMENTUM = 0.1
B1, B2, ADAM_EPS = 0.9, 0.999, 1e-8
LR = 1e-3  # --lr
BUDGET_S = 3.0  # --steps 0: about this long of timed steps, 5 to 200


def init(rng, batch):
    params, stats = {}, {}
    for i in range(len(SIZES) - 1):
        n_in, n_out = SIZES[i], SIZES[i + 1]
        bound = 1.0 / np.sqrt(n_in)
        params[f"dense{i+1}.W"] = rng.uniform(-bound, bound, (n_in, n_out)).astype(np.float32)
        params[f"dense{i+1}.b"] = rng.uniform(-bound, bound, (n_out,)).astype(np.float32)
        if i < len(SIZES) - 2:
            params[f"bn{i+1}.scale"] = np.ones((n_out,), np.float32)
            params[f"bn{i+1}.shift"] = np.zeros((n_out,), np.float32)
            stats[f"bn{i+1}.mean"] = np.zeros((n_out,), np.float32)
            stats[f"bn{i+1}.var"] = np.ones((n_out,), np.float32)
    x = rng.uniform(-1, 1, (batch, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], (batch,)).astype(np.int32)
    return params, stats, x, y


def forward(params, x):
    """The logits and the batch statistics of each BatchNorm layer."""
    h, batch_stats = x, {}
    layers = len(SIZES) - 1
    for i in range(1, layers + 1):
        h = h @ params[f"dense{i}.W"] + params[f"dense{i}.b"]
        if i < layers:
            m = jnp.mean(h, axis=0)
            v = jnp.mean((h - m) ** 2, axis=0)
            batch_stats[f"bn{i}"] = (m, v)
            h = (h - m) * jax.lax.rsqrt(v + EPS) * params[f"bn{i}.scale"] + params[f"bn{i}.shift"]
            h = jnp.maximum(h, 0)
    return h, batch_stats


def loss_fn(params, x, y):
    logits, batch_stats = forward(params, x)
    logp = jax.nn.log_softmax(logits, axis=-1)
    loss = -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))
    return loss, batch_stats


def step(params, m, v, stats, x, y, t):
    (loss, batch_stats), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
    b1t = 1 - B1 ** t
    b2t = 1 - B2 ** t
    new_p, new_m, new_v = {}, {}, {}
    for k, g in grads.items():
        mk = B1 * m[k] + (1 - B1) * g
        vk = B2 * v[k] + (1 - B2) * g * g
        new_p[k] = params[k] - LR * (mk / b1t) / (jnp.sqrt(vk / b2t) + ADAM_EPS)
        new_m[k], new_v[k] = mk, vk
    n = x.shape[0]
    new_stats = {}
    for name, (bm, bv) in batch_stats.items():
        new_stats[f"{name}.mean"] = (1 - MOMENTUM) * stats[f"{name}.mean"] + MOMENTUM * bm
        new_stats[f"{name}.var"] = (1 - MOMENTUM) * stats[f"{name}.var"] + MOMENTUM * bv * (n / (n - 1))
    return loss, new_p, new_m, new_v, new_stats


def bench(batch, warmup, steps, seed):
    rng = np.random.default_rng(seed)
    params, stats, x, y = init(rng, batch)
    put = lambda d: {k: jnp.asarray(a) for k, a in d.items()}
    params, stats = put(params), put(stats)
    m = {k: jnp.zeros_like(a) for k, a in params.items()}
    v = {k: jnp.zeros_like(a) for k, a in params.items()}
    # The batch stays on the host: each step copies it in, as hofuse's step does.
    jitted = jax.jit(step, donate_argnums=(0, 1, 2, 3))
    start = time.perf_counter()
    compiled = jitted.lower(params, m, v, stats, x, y, jnp.float32(1)).compile()
    compile_ms = (time.perf_counter() - start) * 1e3
    times, first, last = [], None, None
    i = 0
    while i < warmup + steps or (steps == 0 and i == warmup):
        t0 = time.perf_counter()
        loss, params, m, v, stats = compiled(params, m, v, stats, x, y, jnp.float32(i + 1))
        loss = float(loss)  # read back, as hofuse's step reads its loss
        jax.block_until_ready((params, m, v, stats))
        dt = (time.perf_counter() - t0) * 1e3
        if not np.isfinite(loss):
            raise SystemExit(f"jax_train_step: batch {batch}, step {i+1}: the loss went non-finite: {loss}")
        if first is None:
            first = loss
        last = loss
        if i >= warmup:
            times.append(dt)
        elif steps == 0 and i == warmup - 1:
            # The last warm-up step sets the count, as in hofuse bench train.
            steps = min(200, max(5, int(BUDGET_S * 1e3 / max(dt, 1e-3))))
        i += 1
    steps = len(times)
    times.sort()
    return {
        "backend": "jax",
        "mode": "jit",
        "batch": batch,
        "p50_ms": times[steps // 2],
        "p99_ms": times[min(steps - 1, steps * 99 // 100)],
        "steps": steps,
        "compile_ms": compile_ms,
        "first_loss": first,
        "last_loss": last,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batches", default="32,256", help="comma-separated batch sizes")
    ap.add_argument("--steps", type=int, default=0,
                    help="timed steps per batch (0: about 3 s of steps after the warm-up, 5 to 200)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps before the timed ones")
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    try:
        batches = [int(b) for b in args.batches.split(",")]
    except ValueError:
        ap.error(f"--batches {args.batches!r}: want comma-separated integers")
    if any(b < 2 for b in batches):
        ap.error(f"--batches {args.batches!r}: BatchNorm in training mode needs at least 2 rows")
    if args.steps < 0 or args.warmup < 0 or (args.steps == 0 and args.warmup == 0):
        ap.error("--steps and --warmup must be at least 0, and --warmup at least 1 when --steps is 0")
    if not args.lr > 0:
        ap.error(f"--lr {args.lr}: a learning rate must be positive")
    global LR
    LR = args.lr
    rows = []
    for b in batches:
        row = bench(b, args.warmup, args.steps, args.seed)
        print(f"jax jit batch {b}: p50 {row['p50_ms']:.3f} ms  p99 {row['p99_ms']:.3f} ms "
              f"(compiled in {row['compile_ms']:.0f} ms)", file=sys.stderr)
        rows.append(row)
    doc = {
        "model": f"MLP 784-512-512-10, f32, batchnorm, training, relu; softmax cross-entropy, Adam (lr {LR:g})",
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
        "rows": rows,
    }
    json.dump(doc, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
