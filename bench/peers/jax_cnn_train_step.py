"""Times one JAX training step of the CNN that `hofuse bench train --model cnn` times.

How to run it
-------------
In a virtual environment with JAX (CPU) and numpy:

    python3 -m venv /tmp/venv-conv
    /tmp/venv-conv/bin/pip install jax numpy
    /tmp/venv-conv/bin/python bench/peers/jax_cnn_train_step.py [--batches 128] [--steps N] [--warmup N] [--lr 0.001]

or let hofuse run it after its own figures for the same step, in one run:

    hofuse bench train --model cnn --batches 128 --backend all --peers jax=/tmp/venv-conv/bin/python

which passes its --batches, --steps, --warmup and --lr.

It prints one JSON document to stdout, {"model": ..., "rows": [...]}, rows
shaped as jax_train_step.py's ("backend": "jax", "mode": "jit", "batch",
"p50_ms", "p99_ms", "steps", "compile_ms", "first_loss", "last_loss").

What is timed
-------------
The step of models.CNN with `hofuse bench train`'s defaults: 8x8x1 images
(x of shape [batch, 64], seen as NHWC), two blocks of a 3x3 "same"
convolution without bias (8 then 16 channels), BatchNorm in training mode
over batch, height and width (eps 1e-5, running statistics updated with
momentum 0.1, the variance unbiased), ReLU and 2x2 max pooling at stride
2; then a dense layer 64 -> 10 with bias; the softmax cross-entropy with
integer labels, mean over the batch; its gradient by jax.value_and_grad;
Adam (lr --lr, betas 0.9/0.999, eps 1e-8, bias-corrected) on every
parameter. One jitted function takes the parameters, Adam's moments, the
running statistics, the batch, its labels and the step number and returns
the loss and their next values, the carried arrays donated; each timed
step is one call on one fixed batch held on the host (copied in by each
call, as hofuse's step copies its batch), its loss read back to the host,
after the warm-up steps; --steps 0 times about 3 s of steps, 5 to 200, the
count set by the last warm-up step, as `hofuse bench train` does.
"""

import argparse
import functools
import json
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

CONV = [8, 16]
EPS, MOMENTUM = 1e-5, 0.1
B1, B2, ADAM_EPS = 0.9, 0.999, 1e-8
BUDGET_S = 3.0  # --steps 0: about this long of timed steps, 5 to 200


def init(rng, batch):
    params, stats = {}, {}
    cin = 1
    for i, cout in enumerate(CONV, 1):
        bound = 1 / np.sqrt(9 * cin)
        params[f"conv{i}.K"] = rng.uniform(-bound, bound, (3, 3, cin, cout)).astype(np.float32)
        params[f"bn{i}.scale"] = rng.uniform(0.75, 1.25, (cout,)).astype(np.float32)
        params[f"bn{i}.shift"] = rng.uniform(-0.1, 0.1, (cout,)).astype(np.float32)
        stats[f"bn{i}.mean"] = np.zeros((cout,), np.float32)
        stats[f"bn{i}.var"] = np.ones((cout,), np.float32)
        cin = cout
    bound = 1 / np.sqrt(64)
    params["dense.W"] = rng.uniform(-bound, bound, (64, 10)).astype(np.float32)
    params["dense.b"] = rng.uniform(-bound, bound, (10,)).astype(np.float32)
    x = rng.uniform(-1, 1, (batch, 64)).astype(np.float32)
    y = rng.integers(0, 10, (batch,)).astype(np.int32)
    return params, stats, x, y


def forward(params, x):
    h = x.reshape(x.shape[0], 8, 8, 1)
    batch_stats = {}
    for i in range(1, len(CONV) + 1):
        h = jax.lax.conv_general_dilated(h, params[f"conv{i}.K"], (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        m = jnp.mean(h, axis=(0, 1, 2))
        v = jnp.mean((h - m) ** 2, axis=(0, 1, 2))
        batch_stats[f"bn{i}"] = (m, v, h.shape[0] * h.shape[1] * h.shape[2])
        h = (h - m) * jax.lax.rsqrt(v + EPS) * params[f"bn{i}.scale"] + params[f"bn{i}.shift"]
        h = jnp.maximum(h, 0)
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = h.reshape(h.shape[0], -1)
    return h @ params["dense.W"] + params["dense.b"], batch_stats


def loss_fn(params, x, y):
    logits, batch_stats = forward(params, x)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1)), batch_stats


def step(lr, params, m, v, stats, x, y, t):
    (loss, batch_stats), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
    b1t, b2t = 1 - B1 ** t, 1 - B2 ** t
    new_p, new_m, new_v = {}, {}, {}
    for k, g in grads.items():
        mk = B1 * m[k] + (1 - B1) * g
        vk = B2 * v[k] + (1 - B2) * g * g
        new_p[k] = params[k] - lr * (mk / b1t) / (jnp.sqrt(vk / b2t) + ADAM_EPS)
        new_m[k], new_v[k] = mk, vk
    new_stats = {}
    for name, (bm, bv, n) in batch_stats.items():
        new_stats[f"{name}.mean"] = (1 - MOMENTUM) * stats[f"{name}.mean"] + MOMENTUM * bm
        new_stats[f"{name}.var"] = (1 - MOMENTUM) * stats[f"{name}.var"] + MOMENTUM * bv * (n / (n - 1))
    return loss, new_p, new_m, new_v, new_stats


def bench(batch, warmup, steps, seed, lr):
    rng = np.random.default_rng(seed)
    params, stats, x, y = init(rng, batch)
    put = lambda d: {k: jnp.asarray(a) for k, a in d.items()}
    params, stats = put(params), put(stats)
    m = {k: jnp.zeros_like(a) for k, a in params.items()}
    v = {k: jnp.zeros_like(a) for k, a in params.items()}
    # The batch stays on the host: each step copies it in, as hofuse's step does.
    start = time.perf_counter()
    jitted = jax.jit(functools.partial(step, lr), donate_argnums=(0, 1, 2, 3))
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
            raise SystemExit(f"jax_cnn_train_step: batch {batch}, step {i+1}: the loss went non-finite: {loss}")
        first = loss if first is None else first
        last = loss
        if i >= warmup:
            times.append(dt)
        elif steps == 0 and i == warmup - 1:
            # The last warm-up step sets the count, as in hofuse bench train.
            steps = min(200, max(5, int(BUDGET_S * 1e3 / max(dt, 1e-3))))
        i += 1
    times.sort()
    return {"backend": "jax", "mode": "jit", "batch": batch, "p50_ms": times[len(times) // 2],
            "p99_ms": times[min(len(times) - 1, len(times) * 99 // 100)], "steps": len(times),
            "compile_ms": compile_ms, "first_loss": first, "last_loss": last}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batches", default="128", help="comma-separated batch sizes, each at least 2")
    ap.add_argument("--steps", type=int, default=50,
                    help="timed steps per batch (0: about 3 s of steps after the warm-up, 5 to 200)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps before the timed ones")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate")
    args = ap.parse_args()
    try:
        batches = [int(b) for b in args.batches.split(",")]
    except ValueError:
        ap.error(f"--batches {args.batches!r}: want comma-separated integers")
    if any(b < 2 for b in batches):
        ap.error(f"--batches {args.batches!r}: BatchNorm in training mode needs at least 2 rows")
    if args.steps < 0 or args.warmup < 0:
        ap.error("--steps and --warmup must be at least 0")
    if args.steps == 0 and args.warmup == 0:
        ap.error("--steps 0 needs --warmup 1 or more: the last warm-up step sets the count")
    if not args.lr > 0:
        ap.error(f"--lr {args.lr}: a learning rate must be positive")
    rows = []
    for b in batches:
        row = bench(b, args.warmup, args.steps, args.seed, args.lr)
        print(f"jax jit batch {b}: p50 {row['p50_ms']:.3f} ms  p99 {row['p99_ms']:.3f} ms "
              f"(compiled in {row['compile_ms']:.0f} ms)", file=sys.stderr)
        rows.append(row)
    json.dump({"model": "CNN 8x8x1, conv 8,16 (3x3 same, BatchNorm training, ReLU, pool 2), dense 10; "
               f"softmax cross-entropy, Adam (lr {args.lr:g})", "jax": jax.__version__,
               "device": str(jax.devices()[0]), "rows": rows}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
