package train

import (
	"context"
	"testing"

	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

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
