package nd_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

// ref is a tensor the tests compute with directly: extents and row-major
// values.
type ref struct {
	ext  []int
	vals []float64
}

func (r ref) at(idx []int) float64 {
	off := 0
	for i, e := range r.ext {
		off = off*e + idx[i]
	}
	return r.vals[off]
}

// each calls f with every index of ext in row-major order.
func each(ext []int, f func(idx []int)) {
	idx := make([]int, len(ext))
	n := 1
	for _, e := range ext {
		n *= e
	}
	for range n {
		f(idx)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < ext[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// randomOperand returns an input of extents ext holding r's values, and a
// term of r's values that is, at random, the input itself or a transpose
// of a transposed input (so that its strides are not row-major).
func randomOperand(t *testing.T, rng *rand.Rand, name string, r ref, bind map[string]graph.Value) graph.Node {
	t.Helper()
	rank := len(r.ext)
	if rank < 2 || rng.IntN(2) == 0 {
		in, v := tensorOf(t, name, r.ext, r.vals)
		bind[name] = v
		return in
	}
	perm := rng.Perm(rank)
	inv := make([]int, rank)
	for i, p := range perm {
		inv[p] = i
	}
	// stored[j] holds axis perm[j] of r.
	stored := make([]int, rank)
	for j, p := range perm {
		stored[j] = r.ext[p]
	}
	vals := make([]float64, 0, len(r.vals))
	each(stored, func(idx []int) {
		orig := make([]int, rank)
		for j, p := range perm {
			orig[p] = idx[j]
		}
		vals = append(vals, r.at(orig))
	})
	in, v := tensorOf(t, name, stored, vals)
	bind[name] = v
	y, err := nd.Transpose(in, inv)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

func tensorOf(t *testing.T, name string, ext []int, vals []float64) (graph.Node, graph.Value) {
	t.Helper()
	data := make([]any, len(vals))
	for i, v := range vals {
		data[i] = v
	}
	return tensor{DType: "f64", Shape: ext, Data: data}.input(t, name)
}

func randomRef(rng *rand.Rand, ext []int) ref {
	n := 1
	for _, e := range ext {
		n *= e
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(rng.IntN(19) - 9)
	}
	return ref{ext: ext, vals: vals}
}

// TestRandomBroadcast checks Binary on random shapes of rank 0 to 4 with
// extents of 1 stretched at random, on row-major and transposed operands,
// against broadcasting computed index by index (every fifth case on the
// native back end too).
func TestRandomBroadcast(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for iter := range 300 {
		rank := rng.IntN(5)
		out := make([]int, rank)
		for i := range out {
			out[i] = 1 + rng.IntN(3)
		}
		shapeOf := func() []int {
			r := rng.IntN(rank + 1)
			s := slices.Clone(out[rank-r:])
			for i := range s {
				if rng.IntN(3) == 0 {
					s[i] = 1
				}
			}
			return s
		}
		xa, ya := randomRef(rng, shapeOf()), randomRef(rng, shapeOf())
		bind := map[string]graph.Value{}
		x := randomOperand(t, rng, "x", xa, bind)
		y := randomOperand(t, rng, "y", ya, bind)
		z, err := nd.Binary(graph.Sub, x, y)
		if err != nil {
			t.Fatalf("%d: %v %v: %v", iter, xa.ext, ya.ext, err)
		}
		// The broadcast shape, and the expected values.
		r := max(len(xa.ext), len(ya.ext))
		want := make([]int, r)
		for k := range want {
			want[k] = 1
			for _, s := range [][]int{xa.ext, ya.ext} {
				if j := k - (r - len(s)); j >= 0 && s[j] != 1 {
					want[k] = s[j]
				}
			}
		}
		pick := func(a ref, idx []int) float64 {
			sub := make([]int, len(a.ext))
			for j := range sub {
				if a.ext[j] != 1 {
					sub[j] = idx[r-len(a.ext)+j]
				}
			}
			return a.at(sub)
		}
		var vals []float64
		each(want, func(idx []int) { vals = append(vals, pick(xa, idx)-pick(ya, idx)) })
		checkAgainst(t, z, bind, want, vals, iter, graph.Print(z))
		if iter%5 == 0 {
			runNative(t, z, bind)
		}
	}
}

// TestRandomReduce checks Reduce(Sum) and ArgMax on random shapes, axes
// and keepDims, over row-major and transposed operands, against sums and
// positions computed index by index.
func TestRandomReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for iter := range 200 {
		rank := 1 + rng.IntN(4)
		ext := make([]int, rank)
		for i := range ext {
			ext[i] = 1 + rng.IntN(4)
		}
		xa := randomRef(rng, ext)
		var axes []int
		for d := range rank {
			if rng.IntN(2) == 0 {
				axes = append(axes, d-rank*rng.IntN(2)) // some negative
			}
		}
		if len(axes) == 0 {
			axes = []int{rng.IntN(rank)}
		}
		keep := rng.IntN(2) == 0
		bind := map[string]graph.Value{}
		x := randomOperand(t, rng, "x", xa, bind)
		reduced := make([]bool, rank)
		for _, a := range axes {
			reduced[(a+rank)%rank] = true
		}
		var outExt []int
		for d, e := range ext {
			switch {
			case !reduced[d]:
				outExt = append(outExt, e)
			case keep:
				outExt = append(outExt, 1)
			}
		}
		sums := map[string]float64{}
		var order []string
		key := func(idx []int) string {
			k := make([]byte, 0, rank)
			for d, i := range idx {
				if !reduced[d] {
					k = append(k, byte(i))
				}
			}
			return string(k)
		}
		each(ext, func(idx []int) {
			k := key(idx)
			if _, ok := sums[k]; !ok {
				order = append(order, k)
			}
			sums[k] += xa.at(idx)
		})
		want := make([]float64, len(order))
		for i, k := range order {
			want[i] = sums[k]
		}
		y, err := nd.Reduce(nd.Sum, x, axes, keep)
		if err != nil {
			t.Fatalf("%d: %v axes %v: %v", iter, ext, axes, err)
		}
		checkAgainst(t, y, bind, outExt, want, iter, graph.Print(y))

		// ArgMax along one axis: the first position of the largest.
		axis := rng.IntN(rank)
		var argExt []int
		for d, e := range ext {
			if d != axis {
				argExt = append(argExt, e)
			} else if keep {
				argExt = append(argExt, 1)
			}
		}
		var args []float64
		rest := slices.Clone(ext)
		rest[axis] = 1
		each(rest, func(idx []int) {
			best, at := 0.0, -1
			j := slices.Clone(idx)
			for i := range ext[axis] {
				j[axis] = i
				if v := xa.at(j); at < 0 || v > best {
					best, at = v, i
				}
			}
			args = append(args, float64(at))
		})
		am, err := nd.ArgMax(x, axis, keep, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := nd.BindIndexes(am, bind); err != nil {
			t.Fatal(err)
		}
		checkAgainst(t, am, bind, argExt, args, iter, graph.Print(am))
		if iter%5 == 0 {
			runNative(t, am, bind)
		}
	}
}

func checkAgainst(t *testing.T, y graph.Node, bind map[string]graph.Value, ext []int, want []float64, iter int, term string) {
	t.Helper()
	_, got, err := nd.Shape(y)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, ext) {
		t.Fatalf("%d: shape %v, want %v: %s", iter, got, ext, term)
	}
	v, err := graph.Eval(y, bind)
	if err != nil {
		t.Fatalf("%d: %v: %s", iter, err, term)
	}
	var vals []float64
	switch v := v.(type) {
	case *graph.Array:
		vals = v.Values()
	case graph.ScalarValue:
		vals = []float64{v.V}
	}
	if !slices.Equal(vals, want) {
		t.Fatalf("%d: got %v, want %v: %s", iter, vals, want, term)
	}
}
