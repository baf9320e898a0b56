package data

import (
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// tiny is 7 rows of 2 features, row i = (i, 10i), label i%3.
func tiny(t *testing.T) *Dataset {
	t.Helper()
	var x []float64
	var y []int32
	for i := range 7 {
		x = append(x, float64(i), float64(10*i))
		y = append(y, int32(i%3))
	}
	d, err := FromFloat64(x, 2, y, 3)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every row appears once per epoch, batches have the requested shapes and
// the last, smaller one comes last; each batch's arrays hold the rows its
// Rows name.
func TestBatchesCoverEpoch(t *testing.T) {
	d := tiny(t)
	seq, err := d.Batches(3, BatchOptions{Seed: 1, Epoch: 0})
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	var sizes []int
	for b := range seq {
		sizes = append(sizes, b.Size())
		if got, want := b.X.Extents(), []int{b.Size(), 2}; !slices.Equal(got, want) || b.X.DType() != graph.Float64 {
			t.Fatalf("X is %v%v, want f64%v", b.X.DType(), got, want)
		}
		if b.Labels.DType() != graph.Int32 || !slices.Equal(b.Labels.Extents(), []int{b.Size()}) || b.Targets != nil {
			t.Fatalf("labels %v, targets %v", b.Labels, b.Targets)
		}
		for k, i := range b.Rows {
			if b.X.At(k, 0) != float64(i) || b.X.At(k, 1) != float64(10*i) || b.Labels.At(k) != float64(i%3) {
				t.Fatalf("batch row %d holds %v, %v, label %v; want row %d", k, b.X.At(k, 0), b.X.At(k, 1), b.Labels.At(k), i)
			}
		}
		seen = append(seen, b.Rows...)
	}
	if !slices.Equal(sizes, []int{3, 3, 1}) {
		t.Errorf("batch sizes %v, want [3 3 1]", sizes)
	}
	if n := d.NumBatches(3, false); n != 3 {
		t.Errorf("NumBatches = %d, want 3", n)
	}
	slices.Sort(seen)
	if !slices.Equal(seen, []int{0, 1, 2, 3, 4, 5, 6}) {
		t.Errorf("rows seen %v, want each of 0..6 once", seen)
	}
}

// The order depends on (Seed, Epoch) alone: the same pair gives the same
// order, another epoch or seed another one; Ordered keeps the rows in
// place; DropLast leaves the small batch out.
func TestBatchesOrder(t *testing.T) {
	d := tiny(t)
	order := func(opts BatchOptions, size int) []int {
		seq, err := d.Batches(size, opts)
		if err != nil {
			t.Fatal(err)
		}
		var rows []int
		for b := range seq {
			rows = append(rows, b.Rows...)
		}
		return rows
	}
	a := order(BatchOptions{Seed: 7, Epoch: 2}, 2)
	if b := order(BatchOptions{Seed: 7, Epoch: 2}, 2); !slices.Equal(a, b) {
		t.Errorf("same seed and epoch gave %v and %v", a, b)
	}
	if b := order(BatchOptions{Seed: 7, Epoch: 3}, 2); slices.Equal(a, b) {
		t.Errorf("epochs 2 and 3 gave the same order %v", a)
	}
	if b := order(BatchOptions{Seed: 8, Epoch: 2}, 2); slices.Equal(a, b) {
		t.Errorf("seeds 7 and 8 gave the same order %v", a)
	}
	if b := order(BatchOptions{Ordered: true, Seed: 7}, 2); !slices.Equal(b, []int{0, 1, 2, 3, 4, 5, 6}) {
		t.Errorf("ordered gave %v", b)
	}
	if b := order(BatchOptions{Seed: 7, Epoch: 2, DropLast: true}, 2); !slices.Equal(b, a[:6]) {
		t.Errorf("DropLast gave %v, want %v", b, a[:6])
	}
	if n := d.NumBatches(2, true); n != 3 {
		t.Errorf("NumBatches(2, true) = %d, want 3", n)
	}
	// Stopping early stops the iterator.
	seq, _ := d.Batches(2, BatchOptions{})
	n := 0
	for range seq {
		n++
		break
	}
	if n != 1 {
		t.Errorf("break after the first batch saw %d", n)
	}
}

// With Reuse, full batches share one set of arrays and the last batch
// its own, and each holds the right rows when it is yielded.
func TestBatchesReuse(t *testing.T) {
	d := tiny(t)
	seq, err := d.Batches(3, BatchOptions{Seed: 5, Reuse: true})
	if err != nil {
		t.Fatal(err)
	}
	var xs []*graph.Array
	for b := range seq {
		for k, i := range b.Rows {
			if b.X.At(k, 1) != float64(10*i) || b.Labels.At(k) != float64(i%3) {
				t.Fatalf("batch row %d holds %v, label %v; want row %d", k, b.X.At(k, 1), b.Labels.At(k), i)
			}
		}
		xs = append(xs, b.X)
	}
	if len(xs) != 3 || xs[0] != xs[1] || xs[2] == xs[0] || xs[2].Extents()[0] != 1 {
		t.Errorf("reused arrays: %p %p %p", xs[0], xs[1], xs[2])
	}
}

func TestBatchErrors(t *testing.T) {
	d := tiny(t)
	for _, tc := range []struct {
		size int
		want string
	}{
		{8, "data.FromFloat64: batch size 8 is larger than the 7 rows of the set; use a batch of at most 7"},
		{0, "data.FromFloat64: batch size 0, want at least 1"},
	} {
		_, err := d.Batches(tc.size, BatchOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("Batches(%d): %v, want %q", tc.size, err, tc.want)
		}
	}
	if _, err := d.Batch([]int{0, 7}); err == nil || err.Error() != "data.FromFloat64: batch index 1 is row 7, want a row in [0, 7)" {
		t.Errorf("Batch out of range: %v", err)
	}
}

// Split's parts are disjoint, cover the set, have the sizes the fractions
// give, and come out the same for the same seed.
func TestSplit(t *testing.T) {
	var x []float32
	var y []int32
	for i := range 100 {
		x = append(x, float32(i))
		y = append(y, int32(i%10))
	}
	d, err := FromFloat32(x, 1, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Classes() != 10 {
		t.Errorf("classes counted from the labels = %d, want 10", d.Classes())
	}
	parts, err := d.Split(3, 0.7, 0.15, 0.15)
	if err != nil {
		t.Fatal(err)
	}
	var all []int
	for k, p := range parts {
		if want := []int{70, 15, 15}[k]; p.Rows() != want {
			t.Errorf("part %d has %d rows, want %d", k, p.Rows(), want)
		}
		for i := range p.Rows() {
			v := int(p.Row(i)[0])
			if p.Labels()[i] != int32(v%10) {
				t.Fatalf("part %d row %d: feature %d with label %d", k, i, v, p.Labels()[i])
			}
			all = append(all, v)
		}
	}
	slices.Sort(all)
	for i, v := range all {
		if v != i {
			t.Fatalf("the parts do not cover rows 0..99 once each: %v", all)
		}
	}
	again, _ := d.Split(3, 0.7, 0.15, 0.15)
	if !slices.Equal(again[1].Labels(), parts[1].Labels()) || again[1].Row(0)[0] != parts[1].Row(0)[0] {
		t.Error("the same seed split differently")
	}
	other, _ := d.Split(4, 0.7, 0.15, 0.15)
	if slices.Equal(other[0].Row(0), parts[0].Row(0)) && slices.Equal(other[0].Row(1), parts[0].Row(1)) && slices.Equal(other[0].Row(2), parts[0].Row(2)) {
		t.Error("seeds 3 and 4 split alike")
	}
	for _, tc := range []struct {
		f    []float64
		want string
	}{
		{[]float64{0.8, 0.3}, "data.FromFloat32: split: fractions [0.8 0.3] sum to 1.1, want 1"},
		{[]float64{1.2, -0.2}, "data.FromFloat32: split: fraction 1 is -0.2, want a positive number"},
		{[]float64{0.999, 0.001}, "data.FromFloat32: split: part 1 (fraction 0.001) of 100 rows has no row; give it a larger fraction"},
		{nil, "data.FromFloat32: split: no fractions; give at least one, as 0.8, 0.2"},
	} {
		if _, err := d.Split(1, tc.f...); err == nil || err.Error() != tc.want {
			t.Errorf("Split(%v): %v, want %q", tc.f, err, tc.want)
		}
	}
}

func TestConstructorErrors(t *testing.T) {
	for _, tc := range []struct {
		make func() error
		want string
	}{
		{func() error { _, err := FromFloat64([]float64{1, 2, 3}, 2, []int32{0, 1}, 2); return err },
			"data.FromFloat64: 3 feature values for 2 rows of 2 features, which need 4"},
		{func() error { _, err := FromFloat64([]float64{1, 2}, 1, []int32{0, 2}, 2); return err },
			"data.FromFloat64: row 1 has label 2, want a class in [0, 2)"},
		{func() error { _, err := FromFloat32(nil, 1, nil, 0); return err },
			"data.FromFloat32: no rows"},
		{func() error {
			_, err := RegressionFloat64([]float64{1, 2}, 1, []float64{1, 2, 3}, 2)
			return err
		}, "data.RegressionFloat64: 3 target values are not a whole number of rows of 2 outputs"},
	} {
		if err := tc.make(); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// A regression set yields targets shaped dtype[n, outputs], and AsType
// converts features and targets together.
func TestRegressionBatches(t *testing.T) {
	d, err := RegressionFloat64([]float64{0, 1, 2, 3, 4, 5}, 2, []float64{0.5, 1.5, 2.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d32, err := d.AsType(graph.Float32)
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := d32.Batches(2, BatchOptions{Ordered: true})
	var got []float64
	for b := range seq {
		if b.Labels != nil || b.Targets.DType() != graph.Float32 || b.X.DType() != graph.Float32 || b.Targets.Extents()[1] != 1 {
			t.Fatalf("batch %v %v %v", b.X, b.Labels, b.Targets)
		}
		got = append(got, b.Targets.Values()...)
	}
	if !slices.Equal(got, []float64{0.5, 1.5, 2.5}) {
		t.Errorf("targets %v", got)
	}
	if d32.Target(2)[0] != 2.5 || d32.Row(2)[1] != 5 {
		t.Errorf("row 2: %v %v", d32.Row(2), d32.Target(2))
	}
}
