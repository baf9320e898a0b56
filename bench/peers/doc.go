// Package peers compares hofuse with other Go machine-learning runtimes on
// the same network, the same weights and the same input. It holds only
// tests and benchmarks; nothing imports it, so the library itself never
// depends on a peer.
//
// # What is compared
//
// The network is models.MLP with Sizes 784, 512, 512, 10, float32,
// BatchNorm in inference mode and ReLU:
//
//	dense1 bn1 relu1 dense2 bn2 relu2 dense3
//
// Its weights and input are models.Model.Bindings(seed); every
// implementation is fed exactly those values. BenchmarkMLP runs one
// inference per iteration, at batch 1 and batch 256, with
//
//   - impl=hofuse-fused: fusion.Fuse, then a native.Plan;
//   - impl=hofuse-unfused: fusion.Unfused (one kernel per layer
//     operation), then a native.Plan;
//   - impl=gomlx-simplego: the same computation written with GoMLX's
//     graph package (Dot, Add, Sub, Mul, Rsqrt, Max) and run on its
//     pure-Go SimpleGo backend, selected explicitly with simplego.New("")
//     rather than through GOMLX_BACKEND.
//
// Compilation (fusion, planning, GoMLX's graph building and JIT) happens
// before the timer starts; weights are placed once, as a long-running
// server would hold them. Each timed iteration of GoMLX releases its output
// buffer (Tensor.FinalizeAll) so its buffer pool is reused, as hofuse's
// plan reuses its arena.
//
// Compare runs with benchstat:
//
//	go test ./bench/peers/ -run XXX -bench MLP -count 10 -benchtime 20x | tee new.txt
//	benchstat -col /impl new.txt
//
// TestPeersAgree checks that the implementations compute the same thing
// before any of them is timed.
//
// # The peers of hofuse bench
//
// The folder also holds what "hofuse bench" runs with --peers, which is
// not part of this package: jax_train_step.py (bench train), and for bench
// mlp, matmul and stack ort_infer.py (ONNX Runtime, which builds its ONNX
// model with onnx's helper API), jax_infer.py and numpy_infer.py, which
// share infer_common.py, where the case file hofuse writes is described;
// and gomlx, a Go module of its own (GoMLX SimpleGo), which hofuse builds
// and runs on the same case files. make_bench_models.py writes five ONNX
// models for "hofuse bench FILE.onnx" (a small CNN, a transformer MLP
// block, a ResNeXt block, a MobileNetV2 block, a transformer
// self-attention block), whose ONNX Runtime rows run on the file itself.
// Each script's
// header says how to set up its virtual environment; "hofuse bench --peers
// help" says it too.
//
// # Build constraints
//
// SimpleGo is pure Go, so the package builds and runs with CGO_ENABLED=0.
package peers
