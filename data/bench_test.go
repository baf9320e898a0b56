package data

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBatch784x256 gathers shuffled batches of 256 rows of 784 f32
// features (MNIST's shape, the MLP 784-512-512-10 of hofuse bench train)
// from a set of 10,000 rows: the data pipeline's cost per step, with new
// arrays per batch and with BatchOptions.Reuse.
func BenchmarkBatch784x256(b *testing.B) {
	for _, reuse := range []bool{false, true} {
		name := "new"
		if reuse {
			name = "reuse"
		}
		b.Run(name, func(b *testing.B) { benchBatch(b, reuse) })
	}
}

func benchBatch(b *testing.B, reuse bool) {
	const rows, features, size = 10000, 784, 256
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, rows*features)
	for i := range x {
		x[i] = r.Float32()
	}
	y := make([]int32, rows)
	for i := range y {
		y[i] = int32(r.IntN(10))
	}
	d, err := FromFloat32(x, features, y, 10)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(size * (features*4 + 4))
	epoch := 0
	for {
		seq, err := d.Batches(size, BatchOptions{Seed: 1, Epoch: epoch, Reuse: reuse, DropLast: true})
		if err != nil {
			b.Fatal(err)
		}
		for range seq {
			if !b.Loop() {
				return
			}
		}
		epoch++
	}
}

// BenchmarkEpochDigits is one shuffled epoch of the digits at batch 64.
func BenchmarkEpochDigits(b *testing.B) {
	d, err := Digits()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(d.Rows()) * int64(d.Features()*4+4))
	epoch := 0
	for b.Loop() {
		seq, err := d.Batches(64, BatchOptions{Seed: 1, Epoch: epoch})
		if err != nil {
			b.Fatal(err)
		}
		for range seq {
		}
		epoch++
	}
}
