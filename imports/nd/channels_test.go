package nd_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/layers"
)

// checkChannelsLast requires z to be flips over a traversal with no flip
// in it, of extents [N, C, H, W], whose every element is want's, on the
// interpreter and (fused and unfused) the native back end.
func checkChannelsLast(t *testing.T, z graph.Node, bind map[string]graph.Value, N, C, H, W int, want func(n, c, h, w int) float32) {
	t.Helper()
	base, flips := stripFlips(z)
	if flips == 0 || strings.Contains(graph.Print(base), "flip") {
		t.Errorf("%d flips on top, and under them %s; want flips over a traversal with none", flips, graph.Print(base))
	}
	got, err := graph.Eval(z, bind)
	if err != nil {
		t.Fatal(err)
	}
	a := got.(*graph.Array)
	if ext := a.Extents(); len(ext) != 4 || ext[0] != N || ext[1] != C || ext[2] != H || ext[3] != W {
		t.Fatalf("extents %v, want [%d %d %d %d]", ext, N, C, H, W)
	}
	for n := range N {
		for c := range C {
			for h := range H {
				for w := range W {
					want := want(n, c, h, w)
					if g := float32(a.At(n, c, h, w)); math.Abs(float64(g-want)) > 1e-6*math.Abs(float64(want)) {
						t.Fatalf("[%d,%d,%d,%d] = %v, want %v", n, c, h, w, g, want)
					}
				}
			}
		}
	}
	runNative(t, z, bind)
}

// stripFlips returns the operand under the flips at the top of n and how
// many there were.
func stripFlips(n graph.Node) (graph.Node, int) {
	k := 0
	for {
		f, ok := n.(*graph.Flip)
		if !ok {
			return n, k
		}
		n, k = f.X, k+1
	}
}

// TestZipChannelsLast: an elementwise operation of a channels-first view
// of a channels-last array (a convolution's result, y [N, H, W, C] seen
// as [N, C, H, W]) with per-channel operands ([C, 1, 1], [1, C, 1, 1], a
// scalar) is computed over y itself with the channels last and permuted
// back: the term is flips over a traversal that reads y with no flip
// left. So are a Map of it, an activation layer applied through
// ChannelsLast, and the sum of those two (a residual add). Every element
// equals the one written out here, on the interpreter and the native back
// end. Operands of other forms keep the channels-first traversal: an
// image stored channels first (nothing to cancel), and an operand that
// varies along the batch axis too. ChannelsLast refuses a function that
// does not keep the shape.
func TestZipChannelsLast(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 7))
	const N, C, H, W = 2, 3, 4, 5
	bind := map[string]graph.Value{}
	y := randInput(t, r, bind, "y", graph.Float32, N, H, W, C)
	s := randInput(t, r, bind, "s", graph.Float32, C, 1, 1)
	b := randInput(t, r, bind, "b", graph.Float32, 1, C, 1, 1)
	k := randInput(t, r, bind, "k", graph.Float32)
	x, err := nd.Transpose(y, []int{0, 3, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	z, err := nd.ZipWith(func(bd *layers.Builder, vs ...graph.Node) graph.Node {
		return bd.Add(bd.Mul(bd.Mul(vs[0], vs[1]), vs[3]), vs[2])
	}, x, s, b, k)
	if err != nil {
		t.Fatal(err)
	}
	yv, sv, bv := bind["y"].(*graph.Array).Float32s(), bind["s"].(*graph.Array).Float32s(), bind["b"].(*graph.Array).Float32s()
	kv := float32(bind["k"].(graph.ScalarValue).V)
	Y := func(n, c, h, w int) float32 { return yv[((n*H+h)*W+w)*C+c] }
	checkChannelsLast(t, z, bind, N, C, H, W, func(n, c, h, w int) float32 { return Y(n, c, h, w)*sv[c]*kv + bv[c] })

	// A map (an ONNX unary operator), an activation layer through
	// ChannelsLast, and the residual add of two such results.
	yb := map[string]graph.Value{"y": bind["y"]}
	m, err := nd.Map(x, func(bd *layers.Builder, v graph.Node) graph.Node { return bd.Mul(v, v) })
	if err != nil {
		t.Fatal(err)
	}
	checkChannelsLast(t, m, yb, N, C, H, W, func(n, c, h, w int) float32 { return Y(n, c, h, w) * Y(n, c, h, w) })
	relu, err := nd.ChannelsLast(x, func(x graph.Node) (graph.Node, error) { return layers.ReLU("relu", x) })
	if err != nil {
		t.Fatal(err)
	}
	checkChannelsLast(t, relu, yb, N, C, H, W, func(n, c, h, w int) float32 { return max(Y(n, c, h, w), 0) })
	sum, err := nd.Binary(graph.Add, relu, m)
	if err != nil {
		t.Fatal(err)
	}
	checkChannelsLast(t, sum, yb, N, C, H, W, func(n, c, h, w int) float32 {
		return max(Y(n, c, h, w), 0) + Y(n, c, h, w)*Y(n, c, h, w)
	})
	if _, err := nd.ChannelsLast(x, func(x graph.Node) (graph.Node, error) { return nd.Reduce(nd.Sum, x, []int{3}, false) }); err == nil ||
		!strings.Contains(err.Error(), "want an elementwise function") {
		t.Errorf("ChannelsLast of a reduction: %v, want an error saying f must be elementwise", err)
	}

	// Stored channels first: nothing to cancel, the traversal stays.
	x2 := randInput(t, r, map[string]graph.Value{}, "x2", graph.Float32, N, C, H, W)
	z2, err := nd.Binary(graph.Mul, x2, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, flips := stripFlips(z2); flips != 0 {
		t.Errorf("x2 · s: %s, want no flips", graph.Print(z2))
	}
	// An operand varying along the batch axis as well as the channels.
	bind3 := map[string]graph.Value{"y": bind["y"]}
	se := randInput(t, r, bind3, "se", graph.Float32, N, C, 1, 1)
	z3, err := nd.Binary(graph.Mul, x, se)
	if err != nil {
		t.Fatal(err)
	}
	if base, _ := stripFlips(z3); !strings.Contains(graph.Print(base), "flip") {
		t.Errorf("x · se: %s, want the channels-first traversal of flipped y", graph.Print(z3))
	}
	runNative(t, z3, bind3)
}

// TestZipChannelsLastAnyPermutation: for images of rank 3 to 5 seen
// through any permutation (Transpose), an elementwise operation with a
// per-channel operand, one of the full shape, or an activation through
// ChannelsLast gives, element for element, what the same operation gives
// on the permuted image stored row-major (which takes the channels-first
// form): the channels-last form computes the same function whether or
// not it applies, for every flip chain the permutations make; and on a
// convolution's result (the channels-last array seen channels first) the
// per-channel operation and the activation are computed channels last,
// the difference with an array stored channels first is not.
func TestZipChannelsLastAnyPermutation(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 3))
	for trial := range 60 {
		rank := 3 + trial%3
		ext := make([]int, rank) // the extents seen (channels first)
		for i := range ext {
			ext[i] = 1 + r.IntN(3)
		}
		ext[1] = 2 + r.IntN(3)
		perm := r.Perm(rank)     // axis i of the view is axis perm[i] of the stored array
		clSeenFirst := trial < 3 // the first of each rank: a convolution's result
		if clSeenFirst {
			perm = append([]int{0, rank - 1}, perm[:0]...)
			for i := 1; i < rank-1; i++ {
				perm = append(perm, i)
			}
		}
		stored := make([]int, rank)
		for i, p := range perm {
			stored[p] = ext[i]
		}
		bind := map[string]graph.Value{}
		y := randInput(t, r, bind, "y", graph.Float32, stored...)
		x, err := nd.Transpose(y, perm)
		if err != nil {
			t.Fatal(err)
		}
		xv, err := graph.Eval(x, map[string]graph.Value{"y": bind["y"]})
		if err != nil {
			t.Fatal(err)
		}
		flat, err := xv.(*graph.Array).CopyTo(graph.RowMajor(ext...))
		if err != nil {
			t.Fatal(err)
		}
		bind["x"] = flat
		xs, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, ext...), false)
		if err != nil {
			t.Fatal(err)
		}
		chShape := make([]int, rank-1) // [C, 1, ...]
		for i := range chShape {
			chShape[i] = 1
		}
		chShape[0] = ext[1]
		c := randInput(t, r, bind, "c", graph.Float32, chShape...)
		full := randInput(t, r, bind, "f", graph.Float32, ext...)
		for _, tc := range []struct {
			name string
			op   func(x graph.Node) (graph.Node, error)
			cl   bool // channels last on a convolution's result
		}{
			{"per-channel", func(x graph.Node) (graph.Node, error) { return nd.Binary(graph.Mul, x, c) }, true},
			// An operand stored channels first would need the flips
			// the other sheds: the channels-first form stays.
			{"full", func(x graph.Node) (graph.Node, error) { return nd.Binary(graph.Sub, full, x) }, false},
			{"activation", func(x graph.Node) (graph.Node, error) {
				return nd.ChannelsLast(x, func(x graph.Node) (graph.Node, error) { return layers.ReLU("relu", x) })
			}, true},
		} {
			got, err := tc.op(x)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tc.op(xs)
			if err != nil {
				t.Fatal(err)
			}
			gv, err := graph.Eval(got, pick(t, got, bind))
			if err != nil {
				t.Fatalf("%s, perm %v: %v\n%s", tc.name, perm, err, graph.Print(got))
			}
			wv, err := graph.Eval(want, pick(t, want, bind))
			if err != nil {
				t.Fatal(err)
			}
			if diff := graph.Diff(wv, gv, 0); diff != nil {
				t.Fatalf("%s, extents %v, perm %v: %v\n%s", tc.name, ext, perm, diff, graph.Print(got))
			}
			if base, flips := stripFlips(got); clSeenFirst && (flips > 0 && !strings.Contains(graph.Print(base), "flip")) != tc.cl {
				t.Errorf("%s, perm %v: computed channels last %v, want %v:\n%s", tc.name, perm, !tc.cl, tc.cl, graph.Print(got))
			}
		}
	}
}

// pick returns the bindings of the inputs term reads.
func pick(t *testing.T, term graph.Node, bind map[string]graph.Value) map[string]graph.Value {
	t.Helper()
	info, err := graph.Check(term)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]graph.Value{}
	for _, in := range info.Inputs {
		out[in.Name] = bind[in.Name]
	}
	return out
}
