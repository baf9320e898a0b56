package native_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestUnrollShortReductions checks normalisation's rules 5 to 8: a max,
// min or + reduction over at most four rows is unrolled into one zip, and
// the views of a map's parameters are lifted out of it, so that a pooling
// over a batch runs as one vector loop (no rnz loop, no loop per image);
// a reduction over five rows, or over several arrays, keeps its loop. Max
// pooling's gradient computes its per-window values for all positions at
// once and its short maps over the window outside the positions. The
// results equal the interpreter's bit for bit (the unrolled fold is rnz's
// left fold), f32 and f64, with NaN, ±Inf and ±0 among the inputs, ties
// in the gradient's windows, and a map that builds tuples.
func TestUnrollShortReductions(t *testing.T) {
	windows := func(ws, st int) string {
		return "(flip 1 (window 0 " + itoa(ws) + " " + itoa(st) + " (window 1 " + itoa(ws) + " " + itoa(st) + " img)))"
	}
	cases := []planCase{
		{"max-pool", `x : T[3,6,6,5]; map (\img -> map (map (\p -> rnz (zip max) (\r -> reduce (zip max) r) p)) ` + windows(2, 2) + `) x`,
			[]string{"vector loop [", "4 loads, 3 ops"}, "loop rnz"},
		{"min-pool-3x3", `x : T[2,7,7,4]; map (\img -> map (map (\p -> rnz (zip min) (\r -> reduce (zip min) r) p)) ` + windows(3, 1) + `) x`,
			[]string{"9 loads, 8 ops"}, "loop rnz"},
		{"sum-pool", `x : T[2,6,6,5]; map (\img -> map (map (\p -> map (\v -> v * 0.25) (rnz (zip (+)) (\r -> reduce (zip (+)) r) p))) ` + windows(2, 2) + `) x`,
			[]string{"4 loads"}, "loop rnz"},
		{"sum-pool-3x3", `x : T[2,9,9,5]; map (\img -> map (map (\p -> rnz (zip (+)) (\r -> reduce (zip (+)) r) p)) ` + windows(3, 3) + `) x`,
			[]string{"9 loads, 8 ops"}, "loop rnz"},
		{"five-rows-kept", `x : T[2,10,10,4]; map (\img -> map (map (\p -> rnz (zip max) (\r -> reduce (zip max) r) p)) ` + windows(5, 5) + `) x`,
			[]string{"loop rnz [5]"}, ""},
		{"products-kept", `X : T[6,3,4]; K : T[3,4]; map (\w -> rnz (zip (+)) (zip (*)) w K) X`,
			[]string{"kernels.Dot"}, ""},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		runPlanCases(t, dt, cases)
		t.Run("max-pool-gradient-"+dt.String(), func(t *testing.T) {
			src := `x : T[2,6,6,5]; c : T[2,3,3,5]; reduce (+) (map (\i -> reduce (+) (map (\r -> reduce (+) (map (\q -> reduce (+) q) r)) i)) (zip (zip (zip (zip (*)))) (map (\img -> map (map (\p -> rnz (zip max) (\r -> reduce (zip max) r) p)) ` + windows(2, 2) + `) x) c))`
			prog, err := graph.Parse(strings.ReplaceAll(src, "T[", dt.String()+"["))
			require.NoError(t, err)
			g, err := autodiff.Grad(prog.Body, []*graph.Input{prog.Inputs[0]})
			require.NoError(t, err)
			in, err := lowertest.Inputs(g, 7, 0, lowertest.Dense)
			require.NoError(t, err)
			// Ties: equal values in some windows, so that the cotangent
			// is split.
			x := in["x"].(*graph.Array)
			for i := 0; i < 6; i += 2 {
				x.Set(x.At(0, i, 0, 1), 0, i, 1, 1)
			}
			d := checkExact(t, g, in, 1)
			// No loop over the window's rows, and none over the 3×3
			// positions: the ties and maxima are counted for all the
			// positions at once (rule 7), and the short maps over the
			// window's rows and columns are outside (rule 8).
			require.NotContains(t, d, "loop rnz [2]")
			require.NotContains(t, d, "loop nzip [3]")
			require.Contains(t, d, "loop nzip [2]")
		})
		// Rule 8's result is strided: read by a flatten, which needs its
		// axes row major, it is copied (normalisation's second try).
		t.Run("exchanged-then-flattened-"+dt.String(), func(t *testing.T) {
			prog, err := graph.Parse(strings.ReplaceAll(`X : T[8,3,5]; Y : T[8]; flatten 0 (nzip (\r y -> map (\x -> map (\v -> v * y) x) r) X Y)`, "T[", dt.String()+"["))
			require.NoError(t, err)
			in, err := lowertest.Inputs(prog.Body, 7, 0, lowertest.Dense)
			require.NoError(t, err)
			d := checkExact(t, prog.Body, in, -1)
			require.Contains(t, d, "loop nzip [3]")
		})
		// Rule 8 leaves a map whose function builds a tuple (flips see
		// arrays alone) where it is.
		t.Run("tuple-map-"+dt.String(), func(t *testing.T) {
			prog, err := graph.Parse(strings.ReplaceAll(`s : T[8,3]; map (\r -> (map id r, map (\x -> r) r)) s`, "T[", dt.String()+"["))
			require.NoError(t, err)
			in, err := lowertest.Inputs(prog.Body, 7, 0, lowertest.Dense)
			require.NoError(t, err)
			checkExact(t, prog.Body, in, -1)
		})
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// A planCase is a program, T standing for its element type, whose native
// plan must contain every string of want and not lack (when not empty).
// TestPoolOfConvOnce checks that a max pooling fused with the
// convolution it reads, inside the map over images (a Conv, Relu and
// MaxPool as the ONNX importer writes them), computes the convolution
// once per image: rule 6 lifts the pooling window's four views out of
// their map, and their common operand, the convolution, is bound by a let
// instead of being copied into each view (which ran it four times, and
// made the fused CNN slower than the unfused one). The results match the
// interpreter within tolerance (the convolution sums in its own order).
func TestPoolOfConvOnce(t *testing.T) {
	const conv = `(map (map (\p -> map (\f -> max (rnz (+) (\a k -> rnz (+) (\a1 k1 -> rnz (+) (*) a1 k1) a k) p f) 0) w)) (flip 1 (window 0 3 1 (window 1 3 1 (pad 1 1 1 (pad 0 1 1 img))))))`
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		src := `x : ` + dt.String() + `[2,6,6,3]; w : ` + dt.String() + `[4,3,3,3]; ` +
			`map (\img -> map (map (\p -> rnz (zip max) (\r -> reduce (zip max) r) p)) (flip 1 (window 0 2 2 (window 1 2 2 ` + conv + `)))) x`
		prog, err := graph.Parse(src)
		require.NoError(t, err)
		in, err := lowertest.Inputs(prog.Body, 7, 0, lowertest.Dense)
		require.NoError(t, err)
		want, err := graph.Eval(prog.Body, in)
		require.NoError(t, err)
		res, err := fusion.Fuse(prog.Body, fusion.Options{})
		require.NoError(t, err)
		require.Len(t, res.Graph.Kernels, 1, "the pooling fuses with the convolution")
		for _, par := range []int{1, 0} {
			p, err := native.New(native.Options{Parallelism: par}).Plan(res.Graph)
			require.NoError(t, err)
			d := p.Describe()
			require.Equal(t, 1, strings.Count(d, "conv as gemm"), "%v: the convolution runs once per image\n%s", dt, d)
			require.Contains(t, d, "4 loads, 3 ops", "%v: the window's four views load side by side\n%s", dt, d)
			got, err := p.Run(in)
			require.NoError(t, err)
			require.NoError(t, graph.Diff(want, got, graph.ToleranceOf(want)), "%v\n%s", dt, d)
			p.Close()
		}
	}
}

type planCase struct {
	name, src string
	want      []string
	lack      string
}

// runPlanCases runs each case in dt, with NaN, ±Inf and ±0 among its
// inputs, and checks its plan and its results (checkExact).
func runPlanCases(t *testing.T, dt graph.DType, cases []planCase) {
	for _, tc := range cases {
		t.Run(tc.name+"-"+dt.String(), func(t *testing.T) {
			prog, err := graph.Parse(strings.ReplaceAll(tc.src, "T[", dt.String()+"["))
			require.NoError(t, err)
			in, err := lowertest.Inputs(prog.Body, 7, 0, lowertest.Dense)
			require.NoError(t, err)
			withSpecials(t, in)
			d := checkExact(t, prog.Body, in, -1)
			for _, w := range tc.want {
				require.Contains(t, d, w)
			}
			if tc.lack != "" {
				require.NotContains(t, d, tc.lack)
			}
		})
	}
}

// withSpecials sets a few elements of every float input to NaN, ±Inf and
// ±0.
func withSpecials(t *testing.T, in map[string]graph.Value) {
	t.Helper()
	for _, v := range in {
		a, ok := v.(*graph.Array)
		if !ok {
			continue
		}
		idx := make([]int, a.Rank())
		for k, s := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)} {
			for d := range idx {
				idx[d] = (k * 3) % a.Extents()[d]
			}
			a.Set(s, idx...)
			idx[len(idx)-1] = (k*5 + 1) % a.Extents()[len(idx)-1]
			a.Set(s, idx...)
		}
	}
}

// checkExact fuses term, runs it on the native back end sequentially and
// in parallel, requires the result (element only of a tuple, when only is
// not -1) to equal graph.Eval's bit for bit (a NaN for a NaN), and the
// rest within graph's tolerance, and returns the plan's description.
func checkExact(t *testing.T, term graph.Node, in map[string]graph.Value, only int) string {
	t.Helper()
	want, err := graph.Eval(term, in)
	require.NoError(t, err)
	res, err := fusion.Fuse(term, fusion.Options{})
	require.NoError(t, err)
	var desc string
	for _, par := range []int{1, 0} {
		p, err := native.New(native.Options{Parallelism: par}).Plan(res.Graph)
		require.NoError(t, err)
		got, err := p.Run(in)
		require.NoError(t, err)
		desc = p.Describe()
		p.Close()
		if only < 0 {
			requireSameBits(t, want, got, desc)
			continue
		}
		require.NoError(t, graph.Diff(want, got, graph.ToleranceOf(want)))
		requireSameBits(t, want.(graph.TupleValue)[only], got.(graph.TupleValue)[only], desc)
	}
	return desc
}

func requireSameBits(t *testing.T, want, got graph.Value, desc string) {
	t.Helper()
	switch w := want.(type) {
	case graph.TupleValue:
		g, ok := got.(graph.TupleValue)
		require.True(t, ok, "got %T, want a tuple", got)
		require.Len(t, g, len(w))
		for i := range w {
			requireSameBits(t, w[i], g[i], desc)
		}
	case *graph.Array:
		g, ok := got.(*graph.Array)
		require.True(t, ok, "got %T, want an array", got)
		wv, gv := w.Values(), g.Values()
		require.Len(t, gv, len(wv))
		for i := range wv {
			if math.Float64bits(wv[i]) != math.Float64bits(gv[i]) && !(wv[i] != wv[i] && gv[i] != gv[i]) {
				t.Fatalf("element %d: got %v, want %v\n%s", i, gv[i], wv[i], desc)
			}
		}
	case graph.ScalarValue:
		g, ok := got.(graph.ScalarValue)
		require.True(t, ok, "got %T, want a scalar", got)
		if math.Float64bits(w.V) != math.Float64bits(g.V) && !(w.V != w.V && g.V != g.V) {
			t.Fatalf("got %v, want %v\n%s", g.V, w.V, desc)
		}
	default:
		t.Fatalf("unexpected result %T", want)
	}
}
