package train

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// benchStep builds the training step the benchmarks time: the MLP
// 784-512-512-10 (BatchNorm training, ReLU, softmax cross-entropy, Adam,
// f32) at the given batch, with its initial values, a random batch and
// labels cycling through the ten classes.
func benchStep(b *testing.B, batch int) (*models.Step, map[string]graph.Value, graph.Value, graph.Value) {
	b.Helper()
	m, err := models.MLP(models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: batch, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	if err != nil {
		b.Fatal(err)
	}
	s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.001)})
	if err != nil {
		b.Fatal(err)
	}
	init, err := s.InitialValues(m.RandomParams(1))
	if err != nil {
		b.Fatal(err)
	}
	y, err := graph.Zeros(graph.Int32, batch)
	if err != nil {
		b.Fatal(err)
	}
	for i := range batch {
		y.Set(float64(i%10), i)
	}
	return s, init, m.RandomInput(1), y
}

// BenchmarkStepPJRT times one Trainer.Step of the MLP 784-512-512-10
// (BatchNorm training, ReLU, softmax cross-entropy, Adam, f32) on PJRT,
// fused, at batch 32 and 256: "device" keeps the parameters and the
// optimizer state on the device (the default), "host" copies every carried
// value to the device and back on each step (Options.HostRoundTrip). The
// allocation report is the Go side's: the batch, labels and scalars sent,
// the loss and the finiteness flags read back.
func BenchmarkStepPJRT(b *testing.B) {
	c := pjrttest.Client(b)
	for _, batch := range []int{32, 256} {
		s, init, x, y := benchStep(b, batch)
		for _, mode := range []string{"device", "host"} {
			b.Run(fmt.Sprintf("batch=%d/mode=%s", batch, mode), func(b *testing.B) {
				tr, err := New(s, xla.New(c, xla.Options{}), Options{HostRoundTrip: mode == "host"}, init)
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				if _, err := tr.Step(x, y); err != nil { // warm up
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(4 * batch * 784))
				for b.Loop() {
					if _, err := tr.Step(x, y); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkStepNative times one Trainer.Step of the same MLP on the native
// back end, fused and unfused, at batch 32 and 256.
func BenchmarkStepNative(b *testing.B) {
	for _, batch := range []int{32, 256} {
		s, init, x, y := benchStep(b, batch)
		for _, mode := range []string{"fused", "unfused"} {
			b.Run(fmt.Sprintf("batch=%d/mode=%s", batch, mode), func(b *testing.B) {
				tr, err := New(s, native.New(native.Options{}), Options{Unfused: mode == "unfused"}, init)
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				for range 2 { // warm up both of the trainer's executables
					if _, err := tr.Step(x, y); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tr.Step(x, y); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSchedule times the MLP 784-512-512-10 (f32, BatchNorm, ReLU) on
// the native back end fused with the schedule pass (the default) and
// without it (fusion.ScheduleOptions.Off), side by side in one run: one
// inference at batch 1 and 256, and one training step (Adam) at batch
// 256.
func BenchmarkSchedule(b *testing.B) {
	for _, sched := range []string{"on", "off"} {
		fopt := fusion.Options{Schedule: fusion.ScheduleOptions{Off: sched == "off"}}
		for _, batch := range []int{1, 256} {
			b.Run(fmt.Sprintf("infer/batch=%d/schedule=%s", batch, sched), func(b *testing.B) {
				m, err := models.MLP(models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: batch, DType: graph.Float32, Norm: models.NormBatch})
				if err != nil {
					b.Fatal(err)
				}
				res, err := fusion.Fuse(m.Output, fopt)
				if err != nil {
					b.Fatal(err)
				}
				p, err := native.New(native.Options{}).Plan(res.Graph)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				in := m.Bindings(1)
				if _, err := p.Run(in); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Run(in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run("step/batch=256/schedule="+sched, func(b *testing.B) {
			s, init, x, y := benchStep(b, 256)
			tr, err := New(s, native.New(native.Options{}), Options{Fusion: fopt}, init)
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			for range 2 {
				if _, err := tr.Step(x, y); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tr.Step(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
