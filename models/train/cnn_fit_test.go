package train

import (
	"context"
	"testing"

	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// TestFitCNNDigits trains the CNN on the digits (the split of the MLP's
// tests: seed 1, 80% for training) on the native back end, for five
// seeds, and requires a mean test accuracy of at least 98%. The CNN has
// one block of "valid" 3x3 convolutions (8x8 to 6x6, 16 channels),
// BatchNorm, ReLU and 2x2 max pooling, then a dense layer of 64 and the
// output layer. (BenchmarkFitCNNDigits trains the default, padded CNN.)
func TestFitCNNDigits(t *testing.T) {
	if testing.Short() {
		t.Skip("trains five networks; skipped with -short")
	}
	tr, te := digitsSplit(t)
	sum := 0.0
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := FitConfig{
			CNN:       &models.CNNConfig{Conv: []int{16}, Valid: true, Hidden: []int{64}, Norm: models.NormBatch},
			Optimizer: optim.NewAdam(0.005),
			Epochs:    15,
			Batch:     32,
			Seed:      seed,
		}
		f, err := Fit(context.Background(), cfg, tr, te, Callbacks{})
		if err != nil {
			t.Fatal(err)
		}
		_, acc, err := f.Evaluate(te)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: test accuracy %.4f", seed, acc)
		sum += acc
	}
	if mean := sum / 5; mean < 0.98 {
		t.Errorf("mean test accuracy over 5 seeds %.4f, want at least 0.98", mean)
	}
}

// TestFitCNNConfigErrors: a CNN that does not fit the data is refused
// before any work, naming the CNN's fields.
func TestFitCNNConfigErrors(t *testing.T) {
	tr, te := digitsSplit(t)
	_, err := Fit(context.Background(), FitConfig{CNN: &models.CNNConfig{Height: 4, Width: 4}, Optimizer: optim.NewAdam(0.01), Epochs: 1, Batch: 8}, tr, te, Callbacks{})
	want := "train: fit: data/testdata/digits.csv.gz has 64 features, the model's input takes 16; set CNN's Height*Width*Channels to 64"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	_, err = Fit(context.Background(), FitConfig{CNN: &models.CNNConfig{Conv: []int{0}}, Optimizer: optim.NewAdam(0.01), Epochs: 1, Batch: 8}, tr, te, Callbacks{})
	want = "train: fit: FitConfig.CNN: CNNConfig.Conv[0]: 0 channels, want 1 to 1099511627776"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
