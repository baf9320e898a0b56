package train

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// cnnDigitsConfig is the LeNet-like CNN (8×8×1 images, conv 8 and 16 with
// BatchNorm and ReLU, 2×2 max pooling, 10 classes) trained with Adam.
func cnnDigitsConfig(epochs int, seed uint64) FitConfig {
	return FitConfig{
		CNN:       &models.CNNConfig{Height: 8, Width: 8, Channels: 1, Norm: models.NormBatch},
		Optimizer: optim.NewAdam(0.003),
		Epochs:    epochs,
		Batch:     32,
		Seed:      seed,
	}
}

// TestFitCNN trains the CNN on the digits' 80/20 split on the native
// back end for a few epochs: the loss falls and the test accuracy passes
// a floor (the full figure, over 5 seeds, is BenchmarkFitCNNDigits's).
func TestFitCNN(t *testing.T) {
	tr, te := digitsSplit(t)
	var losses []float64
	f, err := Fit(context.Background(), cnnDigitsConfig(3, 1), tr, te, Callbacks{
		Epoch: func(e EpochMetrics) {
			losses = append(losses, e.TrainLoss)
			t.Logf("epoch %d: train loss %.4f, test loss %.4f, test accuracy %.4f", e.Epoch, e.TrainLoss, e.ValLoss, e.ValAccuracy)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(losses) != 3 || !(losses[2] < losses[0]) {
		t.Errorf("train losses %v, want 3 falling", losses)
	}
	_, acc, err := f.Evaluate(te)
	if err != nil {
		t.Fatal(err)
	}
	if acc < 0.9 {
		t.Errorf("test accuracy %.4f after 3 epochs, want at least 0.9", acc)
	}
	// Its checkpoint loads back as the same CNN and predicts the same
	// accuracy.
	path := filepath.Join(t.TempDir(), "cnn.safetensors")
	if err := f.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Fitted(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, back, err := g.Evaluate(te); err != nil || back != acc {
		t.Errorf("the saved CNN loads back with test accuracy %.4f (%v), want %.4f", back, err, acc)
	}
}

// BenchmarkFitCNNDigits trains the CNN on the digits for 20 epochs with 5
// seeds on the native back end and reports the mean test accuracy
// (acc-mean), the lowest (acc-min), and the time per training run.
func BenchmarkFitCNNDigits(b *testing.B) {
	tr, te := digitsSplitTB(b)
	for b.Loop() {
		sum, lo := 0.0, 1.0
		for seed := uint64(1); seed <= 5; seed++ {
			f, err := Fit(context.Background(), cnnDigitsConfig(20, seed), tr, te, Callbacks{})
			if err != nil {
				b.Fatal(err)
			}
			_, acc, err := f.Evaluate(te)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("seed %d: test accuracy %.4f", seed, acc)
			sum += acc
			lo = min(lo, acc)
		}
		b.ReportMetric(sum/5, "acc-mean")
		b.ReportMetric(lo, "acc-min")
	}
}

// TestFitCNNPJRT trains the CNN for two epochs on PJRT (skipped without a
// plugin): the windows, pads and crops of the step and of the inference
// model lower to StableHLO, and the test accuracy passes a floor.
func TestFitCNNPJRT(t *testing.T) {
	client := pjrttest.Client(t)
	tr, te := digitsSplit(t)
	cfg := cnnDigitsConfig(2, 1)
	cfg.Backend = xla.New(client, xla.Options{})
	f, err := Fit(context.Background(), cfg, tr, te, Callbacks{
		Epoch: func(e EpochMetrics) {
			t.Logf("epoch %d: train loss %.4f, test loss %.4f, test accuracy %.4f", e.Epoch, e.TrainLoss, e.ValLoss, e.ValAccuracy)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, acc, err := f.Evaluate(te)
	if err != nil {
		t.Fatal(err)
	}
	if acc < 0.85 {
		t.Errorf("test accuracy %.4f after 2 epochs, want at least 0.85", acc)
	}
}
