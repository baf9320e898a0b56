// Command traindigits trains an MLP on scikit-learn's handwritten digits,
// which ship with hofuse, and prints its metrics after every epoch.
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/models/train"
	"github.com/hofuse/hofuse/optim"
)

func main() {
	digits, err := data.Digits()
	if err != nil {
		log.Fatal(err)
	}
	sets, err := digits.Split(1, 0.8, 0.2) // training and test rows
	if err != nil {
		log.Fatal(err)
	}
	cfg := train.FitConfig{
		Model:     models.MLPConfig{Sizes: []int{64, 128, 128, 10}, Norm: models.NormBatch},
		Optimizer: optim.NewAdam(0.01),
		Epochs:    10,
		Batch:     64,
		Seed:      1,
	}
	start := time.Now()
	net, err := train.Fit(context.Background(), cfg, sets[0], sets[1], train.Callbacks{
		Epoch: func(m train.EpochMetrics) {
			fmt.Printf("epoch %2d: train loss %.4f  test loss %.4f  test accuracy %.2f%%  (%v)\n",
				m.Epoch+1, m.TrainLoss, m.ValLoss, 100*m.ValAccuracy, time.Since(start).Round(time.Millisecond))
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer net.Close()
	first, err := sets[1].Batch([]int{0})
	if err != nil {
		log.Fatal(err)
	}
	logits, err := net.Predict(first.X)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("first test image: logits %.2f, label %d\n", logits.Values(), sets[1].Labels()[0])
}
