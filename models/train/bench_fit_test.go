package train

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// digitsTargetConfig is what "hofuse train" trains by default: the MLP
// 64-128-128-10 with BatchNorm and ReLU, Adam at 0.001, batch 64, 20
// epochs, on the digits' fixed 80/20 split (data.Split with seed 1).
func digitsTargetConfig(seed uint64, be lowering.Backend) FitConfig {
	return FitConfig{
		Model:     models.MLPConfig{Sizes: []int{64, 128, 128, 10}, Norm: models.NormBatch},
		Optimizer: optim.NewAdam(0.001),
		Backend:   be,
		Epochs:    20,
		Batch:     64,
		Seed:      seed,
	}
}

// BenchmarkFitDigits trains the digits MLP of digitsTargetConfig with
// seeds 1 to 5 and reports the test accuracy (mean and lowest, in %) and
// the seconds Fit took per seed (mean; compiling and the per-epoch
// evaluation of the test rows included), on the native back end and on
// PJRT (skipped without a plugin). The targets: a mean of at least 97%
// in under 10 s on native, and PJRT within 0.5 points of native. Run with
// -benchtime=1x: one iteration trains the five seeds.
func BenchmarkFitDigits(b *testing.B) {
	d, err := data.Digits()
	if err != nil {
		b.Fatal(err)
	}
	parts, err := d.Split(1, 0.8, 0.2)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"native", "pjrt"} {
		b.Run("backend="+name, func(b *testing.B) {
			var be lowering.Backend = native.New(native.Options{})
			if name == "pjrt" {
				be = xla.New(pjrttest.Client(b), xla.Options{})
			}
			for b.Loop() {
				var accs, secs []float64
				for seed := uint64(1); seed <= 5; seed++ {
					start := time.Now()
					f, err := Fit(context.Background(), digitsTargetConfig(seed, be), parts[0], parts[1], Callbacks{})
					if err != nil {
						b.Fatal(err)
					}
					secs = append(secs, time.Since(start).Seconds())
					_, acc, err := f.Evaluate(parts[1])
					f.Close()
					if err != nil {
						b.Fatal(err)
					}
					accs = append(accs, 100*acc)
				}
				b.Logf("%s: test accuracy per seed %.2f %%, seconds %.2f", name, accs, secs)
				b.ReportMetric(mean(accs), "test_acc_%")
				b.ReportMetric(slices.Min(accs), "min_test_acc_%")
				b.ReportMetric(mean(secs), "fit_s/seed")
			}
		})
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// BenchmarkFitPipeline measures what Fit's data pipeline (the epoch's
// shuffle, gathering each batch's rows, the callbacks) adds to the
// training step: the MLP 784-512-512-10 of BenchmarkStepNative at batch
// 256 on 4,096 random rows, on the native back end. Fit's time per step
// (the median interval between two steps' callbacks, over three epochs
// of 16 steps: compiling and each executable's first run left out)
// against the bare Trainer.Step on one fixed batch (the median step),
// measured in turn five times in the same run; medians, robust to the
// other processes of a shared machine, since the pipeline's cost is paid
// at every step. The medians of the five and their ratio are reported,
// with the time
// to gather a batch alone (no step), which is the pipeline's cost without
// the noise of two step timings, and the bare step on the batches Fit
// takes (a loop over Batches calling Trainer.Step). The target: under 5%
// more.
func BenchmarkFitPipeline(b *testing.B) {
	const batch, rows, epochs = 256, 4096, 3
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, rows*784)
	for i := range x {
		x[i] = 2*r.Float32() - 1
	}
	labels := make([]int32, rows)
	for i := range labels {
		labels[i] = int32(r.IntN(10))
	}
	ds, err := data.FromFloat32(x, 784, labels, 10)
	if err != nil {
		b.Fatal(err)
	}
	s, init, bx, by := benchStep(b, batch)
	be := native.New(native.Options{})
	cfg := FitConfig{
		Model:     models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Norm: models.NormBatch},
		Optimizer: optim.NewAdam(0.001),
		Backend:   be,
		Epochs:    epochs,
		Batch:     batch,
		Seed:      1,
	}
	steps := epochs * rows / batch
	fitStep := func() float64 {
		var last time.Time
		var times []float64
		f, err := Fit(context.Background(), cfg, ds, nil, Callbacks{Step: func(m StepMetrics) {
			now := time.Now()
			if m.Step > 2 { // each of the trainer's two executables has run once
				times = append(times, now.Sub(last).Seconds())
			}
			last = now
		}})
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
		return median(times)
	}
	tr, err := New(s, be, Options{}, init)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	bareStep := func() float64 {
		var times []float64
		for i := range steps {
			start := time.Now()
			if _, err := tr.Step(bx, by); err != nil {
				b.Fatal(err)
			}
			if i >= 2 { // as Fit's first two steps, untimed
				times = append(times, time.Since(start).Seconds())
			}
		}
		return median(times)
	}
	// The bare step on the batches Fit takes, gathered the same way.
	loopStep := func() float64 {
		var times []float64
		last := time.Now()
		n := 0
		for e := range epochs {
			batches, err := ds.Batches(batch, data.BatchOptions{Seed: 1, Epoch: e, Reuse: true})
			if err != nil {
				b.Fatal(err)
			}
			for bt := range batches {
				if _, err := tr.Step(bt.X, bt.Labels); err != nil {
					b.Fatal(err)
				}
				now := time.Now()
				if n++; n > 2 {
					times = append(times, now.Sub(last).Seconds())
				}
				last = now
			}
		}
		return median(times)
	}
	// The pipeline alone: the epochs' batches gathered as Fit gathers
	// them, with no step.
	gather := func() float64 {
		start := time.Now()
		n := 0
		for e := range epochs {
			batches, err := ds.Batches(batch, data.BatchOptions{Seed: 1, Epoch: e, Reuse: true})
			if err != nil {
				b.Fatal(err)
			}
			for range batches {
				n++
			}
		}
		return time.Since(start).Seconds() / float64(n)
	}
	for b.Loop() {
		var fit, bare, pipe, loop []float64
		for range 5 {
			fit = append(fit, fitStep())
			bare = append(bare, bareStep())
			pipe = append(pipe, gather())
			loop = append(loop, loopStep())
		}
		b.Logf("ms per step, the bare step on Fit's batches: %.2f", scale(loop, 1e3))
		b.ReportMetric(1e3*median(loop), "loop_ms/step")
		b.Logf("ms per batch gathered alone: %.3f", scale(pipe, 1e3))
		b.ReportMetric(1e3*median(pipe), "gather_ms/batch")
		b.Logf("ms per step: Fit %.2f, bare %.2f", scale(fit, 1e3), scale(bare, 1e3))
		f, s := median(fit), median(bare)
		b.ReportMetric(1e3*f, "fit_ms/step")
		b.ReportMetric(1e3*s, "bare_ms/step")
		b.ReportMetric(100*(f/s-1), "pipeline_%")
	}
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}

func scale(x []float64, k float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = k * v
	}
	return y
}
