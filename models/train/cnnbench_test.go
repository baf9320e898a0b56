package train

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// BenchmarkStepCNN times one Trainer.Step of the LeNet-like CNN (8×8×1,
// conv 8 and 16 with BatchNorm in training mode, ReLU, 2×2 max pooling,
// dense 10; softmax cross-entropy, Adam, f32) at batch 128, fused, on the
// native back end and on PJRT (skipped without a plugin). Its JAX jit peer
// is bench/peers/jax_cnn_train_step.py.
func BenchmarkStepCNN(b *testing.B) {
	const batch = 128
	m, err := models.CNN(models.CNNConfig{Height: 8, Width: 8, Channels: 1, Batch: batch, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	if err != nil {
		b.Fatal(err)
	}
	s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.001)})
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
	x := m.RandomInput(1)
	for _, be := range []string{"native", "pjrt"} {
		b.Run(fmt.Sprintf("batch=%d/backend=%s", batch, be), func(b *testing.B) {
			var back lowering.Backend = native.New(native.Options{})
			if be == "pjrt" {
				back = xla.New(pjrttest.Client(b), xla.Options{})
			}
			init, err := s.InitialValues(m.RandomParams(1))
			if err != nil {
				b.Fatal(err)
			}
			tr, err := New(s, back, Options{}, init)
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
