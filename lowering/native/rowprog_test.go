package native_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/native/kernels"
	"github.com/hofuse/hofuse/models"
)

// rowStack builds the stacks of BenchmarkStack on rows×cols of dt:
// "softmax" (the exporter's five operators), "softmax_layer"
// (layers.Softmax) or "lngelu" (x + GELU(LayerNorm(x))). The rows of x
// are random but for special ones: in the softmaxes row 1 holds +Inf, row
// 2 a NaN, row 3 -Inf and huge values, and with five rows or more row 4
// is all -Inf (the max is -Inf, every exp(v - m) NaN).
func rowStack(t *testing.T, kind string, dt graph.DType, rows, cols int) (graph.Node, map[string]graph.Value) {
	t.Helper()
	x, err := graph.NewInput("x", graph.ArrayOf(dt, rows, cols), false)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(uint64(rows), uint64(cols)))
	in := map[string]graph.Value{}
	var out graph.Node
	switch kind {
	case "softmax":
		out, err = models.SoftmaxOperators(x)
	case "softmax_layer":
		out, err = layers.Softmax("softmax", x)
	case "lngelu":
		var p *layers.LayerNormParams
		out, p, err = models.LNGELUResidual(x, cols, dt)
		require.NoError(t, err)
		for _, i := range p.Params() {
			in[i.Name], err = graph.RandomArray(r, dt, cols)
			require.NoError(t, err)
		}
	}
	require.NoError(t, err)
	xv, err := graph.Zeros(dt, rows, cols)
	require.NoError(t, err)
	for i := range rows {
		for j := range cols {
			v := r.NormFloat64() * 4
			if strings.HasPrefix(kind, "softmax") {
				switch {
				case i == 1 && j == cols/2:
					v = math.Inf(1)
				case i == 2 && j == cols-1:
					v = math.NaN()
				case i == 3 && j == 0:
					v = math.Inf(-1)
				case i == 3 && j == cols/3:
					v = 1e30
				case i == 4:
					v = math.Inf(-1)
				}
			}
			xv.Set(v, i, j)
		}
	}
	in["x"] = xv
	return out, in
}

// TestRowStacks runs the memory-bound stacks fused, as Fuse makes them, and
// unfused against the interpreter: row lengths of 1, below, at and across
// a vector chunk (256) and AVX2's blocks, float32 and float64, and in the
// softmaxes rows with ±Inf and NaN, whose max decides the row.
func TestRowStacks(t *testing.T) {
	for _, kind := range []string{"softmax", "softmax_layer", "lngelu"} {
		for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
			for _, cols := range []int{1, 2, 7, 33, 255, 256, 257, 1000} {
				t.Run(fmt.Sprintf("%s/%v/%d", kind, dt, cols), func(t *testing.T) {
					term, in := rowStack(t, kind, dt, 6, cols)
					res, err := fusion.Fuse(term, fusion.Options{})
					require.NoError(t, err)
					lowertest.Check(t, native.New(native.Options{}), res.Graph, term, in, 0)
					unf, err := fusion.Unfused(term)
					require.NoError(t, err)
					lowertest.Check(t, native.New(native.Options{}), unf, term, in, 0)
				})
			}
		}
	}
}

// TestRowStackPlans checks what the stacks compile to: the exporter's
// softmax (five kernels unfused) is one kernel fused, whose row loop
// computes the row of exponentials once into its destination row (a
// let, not a temporary between kernels) and reads it back for the sum
// and the quotient, computed there in place; every map of the row loops writes its result straight into
// its destination.
func TestRowStackPlans(t *testing.T) {
	for _, kind := range []string{"softmax", "softmax_layer", "lngelu"} {
		term, _ := rowStack(t, kind, graph.Float32, 8, 4096)
		res, err := fusion.Fuse(term, fusion.Options{})
		require.NoError(t, err)
		require.Len(t, res.Graph.Kernels, 1, "%s: fused into one kernel", kind)
		p, err := native.New(native.Options{}).Plan(res.Graph)
		require.NoError(t, err)
		d := p.Describe()
		p.Close()
		maps := strings.Count(d, "vector loop [4096]")
		require.Positive(t, maps, d)
		require.Equal(t, maps, strings.Count(d, "result computed in place"), "%s: every map stores in place\n%s", kind, d)
		if kind != "lngelu" {
			require.Contains(t, d, "exp (x - c) in one pass", "%s: the shifted exponential is one instruction", kind)
		}
		if kind == "softmax" {
			unf, err := fusion.Unfused(term)
			require.NoError(t, err)
			require.Len(t, unf.Kernels, 5)
			require.Contains(t, d, "let computed into the destination", "the row of exponentials is computed into the destination")
			require.NotContains(t, d, "into scratch", "the row of exponentials needs no scratch")
		}
	}
}

// TestExpSubFusion checks fuseExpSub: exp (v - c), c invariant, is one
// instruction when the difference is read by the exp alone, and stays
// two where the difference is read again, or is not by an invariant; the
// results equal the interpreter's, on rows with ±Inf and NaN.
func TestExpSubFusion(t *testing.T) {
	const note = "exp (x - c) in one pass"
	A, err := graph.NewInput("A", graph.ArrayOf(graph.Float32, 4, 1030), false)
	require.NoError(t, err)
	av, err := graph.Zeros(graph.Float32, 4, 1030)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 4 {
		for j := range 1030 {
			av.Set(r.NormFloat64()*20, i, j)
		}
	}
	av.Set(math.Inf(1), 1, 3)
	av.Set(math.Inf(-1), 2, 1029)
	av.Set(math.NaN(), 3, 500)
	in := map[string]graph.Value{"A": av}
	for _, c := range []struct {
		src   string
		fused bool
	}{
		{`map (\r -> let m = reduce max r in map (\v -> exp (v - m)) r) A`, true},
		{`map (map (\v -> exp (v - 2.5))) A`, true},
		{`map (\r -> let m = reduce max r in map (\v -> exp (v - m) + (v - m)) r) A`, false}, // the difference read twice
		{`map (\r -> map (\v -> exp (v - v * 0.5)) r) A`, false},                             // not an invariant
		{`map (\r -> let m = reduce max r in map (\v -> exp (m - v)) r) A`, false},           // the invariant first
	} {
		term, g, d := wholeDescribe(t, c.src, A)
		require.Equal(t, c.fused, strings.Contains(d, note), "%s:\n%s", c.src, d)
		lowertest.Check(t, native.New(native.Options{}), g, term, in, 0)
	}
}

// TestExpSubAhead checks markAhead: the shifted exponentials of a row at
// least a page long prefetch the next row (kernels.ExpSubAheadF32), those
// of shorter rows, of strided rows and of a flat loop do not, and the
// results equal the interpreter's, the last row's prefetch (past the end
// of the array) left out.
func TestExpSubAhead(t *testing.T) {
	const note = "the next row prefetched"
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		rows, cols int
		src        string
		ahead      bool
	}{
		{5, 1030, `map (\r -> let m = reduce max r in map (\v -> exp (v - m)) r) A`, true},
		{3, 5000, `map (\r -> let m = reduce max r in map (\v -> exp (v - m)) r) A`, true}, // two whole chunks and part of one
		{8, 500, `map (\r -> let m = reduce max r in map (\v -> exp (v - m)) r) A`, false}, // shorter than a page
		{1030, 5, `map (\r -> let m = reduce max r in map (\v -> exp (v - m)) r) (flip 0 A)`, false},
		{1, 5000, `map (\v -> exp (v - 2.5)) (flatten 0 A)`, false},
	} {
		A, err := graph.NewInput("A", graph.ArrayOf(graph.Float32, c.rows, c.cols), false)
		require.NoError(t, err)
		av, err := graph.RandomArray(r, graph.Float32, c.rows, c.cols)
		require.NoError(t, err)
		term, g, d := wholeDescribe(t, c.src, A)
		require.Equal(t, c.ahead, strings.Contains(d, note), "%d×%d %s:\n%s", c.rows, c.cols, c.src, d)
		lowertest.Check(t, native.New(native.Options{}), g, term, map[string]graph.Value{"A": av}, 0)
	}
}

// TestErfAffineAhead checks markAhead on a GELU's erf (x · c) + d: in a
// row program whose rows are a page long or more, it prefetches the next
// row of the load its operand is computed from, and the program's result
// when a later pass writes it; the results equal the interpreter's.
func TestErfAffineAhead(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const (
		both    = "the next row and the result prefetched"
		rowOnly = "the next row prefetched"
		gelu    = `map (\r -> let m = reduce max r in map (\v -> (v - m) * (erf ((v - m) * f32 0.70710677) + 1)) r) A`
		last    = `map (\r -> let m = reduce max r in map (\v -> erf ((v - m) * f32 0.70710677) + 1) r) A`
	)
	for _, c := range []struct {
		rows, cols int
		src        string
		note       string // "": neither
	}{
		{5, 1030, gelu, both},
		{3, 5000, gelu, both}, // two whole chunks and part of one
		{5, 1030, last, rowOnly},
		{8, 500, gelu, ""}, // shorter than a page
		{1030, 5, `map (\r -> let m = reduce max r in map (\v -> v * (erf (v * m) + 1)) r) (flip 0 A)`, ""},
	} {
		A, err := graph.NewInput("A", graph.ArrayOf(graph.Float32, c.rows, c.cols), false)
		require.NoError(t, err)
		av, err := graph.RandomArray(r, graph.Float32, c.rows, c.cols)
		require.NoError(t, err)
		term, g, d := wholeDescribe(t, c.src, A)
		require.Contains(t, d, "erf (x · c) + d in one pass", "%d×%d %s:\n%s", c.rows, c.cols, c.src, d)
		for _, note := range []string{both, rowOnly} {
			require.Equal(t, note == c.note, strings.Contains(d, note), "%d×%d %s: %q\n%s", c.rows, c.cols, c.src, note, d)
		}
		lowertest.Check(t, native.New(native.Options{}), g, term, map[string]graph.Value{"A": av}, graph.Tolerance(graph.Float32))
	}
}

// wholeDescribe parses src over ins, makes it one kernel (fusion.Whole)
// and returns the term, the graph and the native plan's description.
func wholeDescribe(t *testing.T, src string, ins ...*graph.Input) (graph.Node, *fusion.Graph, string) {
	t.Helper()
	term, err := graph.ParseTerm(src, ins...)
	require.NoError(t, err)
	g, err := fusion.Whole(term)
	require.NoError(t, err)
	p, err := native.New(native.Options{}).Plan(g)
	require.NoError(t, err)
	defer p.Close()
	return term, g, p.Describe()
}

// specialRows returns a 3×1030 array of dt (rows that end in a partial
// block of the vector loops) of normal values times scale, with +Inf,
// -Inf, NaN and zero (+0 or -0) at fixed places.
func specialRows(t *testing.T, r *rand.Rand, dt graph.DType, scale, zero float64) *graph.Array {
	t.Helper()
	v, err := graph.Zeros(dt, 3, 1030)
	require.NoError(t, err)
	for i := range 3 {
		for j := range 1030 {
			v.Set(r.NormFloat64()*scale, i, j)
		}
	}
	v.Set(math.Inf(1), 1, 3)
	v.Set(math.Inf(-1), 2, 1029)
	v.Set(math.NaN(), 0, 500)
	v.Set(zero, 1, 700)
	return v
}

// TestChainFusion checks fuseChains: a run of + - × / and √, and max and
// min with an invariant (a ReLU6's bounds), each op reading the one
// before, is one instruction (kernels.Chain) when the values between are
// read nowhere else, swapped operands included, and
// the results are the interpreter's bit for bit, in float32 and float64,
// on values with ±Inf, NaN and zeros, over rows that end in a partial
// block.
func TestChainFusion(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		A, err := graph.NewInput("A", graph.ArrayOf(dt, 3, 1030), false)
		require.NoError(t, err)
		B, err := graph.NewInput("B", graph.ArrayOf(dt, 3, 1030), false)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(11, 12))
		in := map[string]graph.Value{}
		for _, name := range []string{"A", "B"} {
			in[name] = specialRows(t, r, dt, 4, 0)
		}
		for _, c := range []struct {
			src, want string // want: "" for no chain
		}{
			{`zip (zip (\a b -> b / (a - 1.5) - b)) A B`, "3 ops in a chain"},           // a swapped /
			{`zip (zip (\a b -> 2 - (a * b + a) / b)) A B`, "4 ops in a chain"},         // a swapped - last
			{`zip (zip (\a b -> let t = a * b in t * 2 + t)) A B`, "2 ops in a chain"},  // t read twice: not chained into
			{`zip (zip (\a b -> (a - b) * (a + b))) A B`, "2 ops in a chain"},           // two runs meet: one joins the other
			{`zip (zip (\a b -> exp a * b)) A B`, ""},                                   // one op
			{`zip (zip (\a b -> let t = a - b in t * t + b)) A B`, "3 ops in a chain"},  // a square
			{`zip (zip (\a b -> let t = a - b in t * t + t)) A B`, "2 ops in a chain"},  // t read three times: t·t + t
			{`zip (zip (\a b -> sqrt (a * b + 1) * b)) A B`, "4 ops in a chain"},        // a root between (Adam's)
			{`zip (zip (\a b -> sqrt a / b)) A B`, "2 ops in a chain"},                  // a root first
			{`zip (zip (\a b -> sqrt a)) A B`, ""},                                      // a root alone
			{`zip (zip (\a b -> min (max (a * 0.5 + b) 0) 6)) A B`, "4 ops in a chain"}, // a ReLU6 after a bias
			{`zip (zip (\a b -> max 0 (a - b))) A B`, "2 ops in a chain"},               // the bound first
			{`zip (zip (\a b -> max (a * b) (-0) - 1)) A B`, "3 ops in a chain"},        // -0, then a step after
			{`zip (zip (\a b -> max (a - b) (b * a))) A B`, ""},                         // the max of two arrays: not a step
		} {
			term, g, d := wholeDescribe(t, c.src, A, B)
			if c.want == "" {
				require.NotContains(t, d, " chain", "%s:\n%s", c.src, d)
			} else {
				require.Contains(t, d, c.want, "%s:\n%s", c.src, d)
			}
			lowertest.Check(t, native.New(native.Options{}), g, term, in, 0)
		}
	}
}

// TestErfAffineFusion checks fuseErfAffine: erf (x · s) + t, s and t
// invariant, is one instruction when the product and the erf are each
// read once, whichever side the invariants stand on, and so is erf (x /
// s) + t where the machine's erf allows it, and they stay three ops
// otherwise; the results are the separate ops' bits (the product and the
// sum correctly rounded, kernels.ErfF32 between), on rows with ±Inf, NaN
// and zeros, and within the f32 tolerance of the interpreter.
func TestErfAffineFusion(t *testing.T) {
	const note = "erf (x · c) + d in one pass"
	A, err := graph.NewInput("A", graph.ArrayOf(graph.Float32, 3, 1030), false)
	require.NoError(t, err)
	av := specialRows(t, rand.New(rand.NewPCG(13, 14)), graph.Float32, 3, math.Copysign(0, -1))
	in := map[string]graph.Value{"A": av}
	// GELU's form, bit for bit against the separate ops.
	gelu := func(v float32) float32 {
		e := []float32{v * 0.70710677}
		kernels.ErfF32(e, e)
		return 1 + e[0]
	}
	// The exporters' form, with a quotient.
	geluDiv := func(v float32) float32 {
		e := []float32{v / 1.4142135}
		kernels.ErfF32(e, e)
		return 1 + e[0]
	}
	const divNote = "erf (x / c) + d in one pass"
	for _, c := range []struct {
		src   string
		fused bool
		want  func(v float32) float32 // nil: the interpreter alone
	}{
		{`map (map (\v -> 1 + erf (v / f32 1.4142135))) A`, true, geluDiv},
		{`map (map (\v -> erf (v / f32 1.4142135) + 1)) A`, true, geluDiv},
		{`map (map (\v -> erf (f32 1.4142135 / v) + 1)) A`, false, nil}, // the invariant divides
		{`map (map (\v -> 1 + erf (v * f32 0.70710677))) A`, true, gelu},
		{`map (map (\v -> erf (f32 0.70710677 * v) + 1)) A`, true, gelu},
		{`map (\r -> let m = reduce max r in map (\v -> erf (v * m) + m) r) A`, true, nil},        // broadcast invariants
		{`map (map (\v -> let u = v * 0.5 in erf u + 1 + u)) A`, false, nil},                      // the product read twice
		{`map (map (\v -> let e = erf (v * 0.5) in (e + 1) * e)) A`, false, nil},                  // the erf read twice
		{`map (map (\v -> erf (v * v) + 1)) A`, false, nil},                                       // not an invariant
		{`map (\r -> let m = reduce max r in map (\v -> erf (v * 0.5) + v * m) r) A`, false, nil}, // the sum's other side varies
	} {
		term, err := graph.ParseTerm(c.src, A)
		require.NoError(t, err)
		g, err := fusion.Whole(term)
		require.NoError(t, err)
		p, err := native.New(native.Options{}).Plan(g)
		require.NoError(t, err)
		d := p.Describe()
		got, err := p.Run(in)
		require.NoError(t, err)
		require.Equal(t, c.fused, strings.Contains(d, note) || strings.Contains(d, divNote), "%s:\n%s", c.src, d)
		lowertest.Check(t, native.New(native.Options{}), g, term, in, graph.Tolerance(graph.Float32))
		if c.want != nil {
			ga := got.(*graph.Array)
			for i := range 3 {
				for j := range 1030 {
					w, g := c.want(float32(av.At(i, j))), float32(ga.At(i, j))
					if math.Float32bits(w) != math.Float32bits(g) && !(w != w && g != g) {
						t.Fatalf("%s at [%d %d] (%v): %v, want %v", c.src, i, j, av.At(i, j), g, w)
					}
				}
			}
		}
		p.Close()
	}
}

// TestPowInvariant: a power by an invariant exponent (a literal, or a
// row's maximum broadcast over the row) looks at the exponent once per
// chunk and, for whole exponents from 2 to 6 of float32 values,
// multiplies; the results are the interpreter's bits (math.Pow rounded to
// float32), on rows with ±Inf, NaN and zeros, in float32 and float64.
func TestPowInvariant(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		A, err := graph.NewInput("A", graph.ArrayOf(dt, 3, 1030), false)
		require.NoError(t, err)
		av := specialRows(t, rand.New(rand.NewPCG(15, 16)), dt, 3, math.Copysign(0, -1))
		in := map[string]graph.Value{"A": av}
		lit := "f32 "
		if dt == graph.Float64 {
			lit = ""
		}
		for _, src := range []string{
			`map (map (\v -> pow v (` + lit + `3))) A`,
			`map (map (\v -> pow v (` + lit + `2))) A`,
			`map (map (\v -> pow v (` + lit + `6) + 1)) A`,
			`map (map (\v -> pow v (` + lit + `7))) A`,
			`map (map (\v -> pow v (` + lit + `2.5))) A`,
			`map (\r -> let m = reduce max r in map (\v -> pow v (m * 0 + ` + lit + `3)) r) A`,
			`map (\r -> map (\v -> pow v v) r) A`,
		} {
			term, err := graph.ParseTerm(src, A)
			require.NoError(t, err, src)
			g, err := fusion.Whole(term)
			require.NoError(t, err)
			p, err := native.New(native.Options{}).Plan(g)
			require.NoError(t, err)
			got, err := p.Run(in)
			require.NoError(t, err)
			p.Close()
			want, err := graph.Eval(term, in)
			require.NoError(t, err)
			require.NoError(t, graph.Diff(want, got, 0), "%v %s", dt, src)
		}
	}
}
