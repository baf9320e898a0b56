package fusion

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// countRNZ is the number of distinct rnz nodes of term.
func countRNZ(term graph.Node) int {
	n := 0
	for m := range graph.All(term) {
		if _, ok := m.(*graph.RNZ); ok {
			n++
		}
	}
	return n
}

// The law of mergeSiblings on random programs: the merged term has the
// value of the original bit for bit (each reduction keeps its order), on
// programs of every generator, and on tuples of reductions and maps
// (ProductPair) wrapped so that the reductions are not elements of one
// tuple, where it must merge.
func TestMergeSiblingsLaw(t *testing.T) {
	merged := 0
	check := func(name string, seed uint64, term graph.Node, ins []*graph.Input, cfg graphtest.Config) {
		t.Helper()
		in := cfg.Inputs(rand.New(rand.NewPCG(seed, 99)), ins)
		want, err := graph.Eval(term, usedInputs(term, in))
		require.NoError(t, err, "%s seed %d", name, seed)
		out, err := mergeSiblings(term)
		require.NoError(t, err, "%s seed %d: %s", name, seed, graph.Print(term))
		got, err := graph.Eval(out, usedInputs(out, in))
		if err != nil {
			t.Fatalf("%s seed %d: mergeSiblings made an ill-typed term\nbefore: %s\nafter:  %s\n%v", name, seed, graph.Print(term), graph.Print(out), err)
		}
		if d := graph.Diff(want, got, exact); d != nil {
			t.Fatalf("%s seed %d: mergeSiblings changed the value\nbefore: %s\nafter:  %s\n%v", name, seed, graph.Print(term), graph.Print(out), d)
		}
		if countRNZ(out) < countRNZ(term) {
			merged++
		}
	}
	for _, g := range graphtest.Generators() {
		for seed := range uint64(100) {
			dt := graph.Float64
			if seed%2 == 1 {
				dt = graph.Float32
			}
			cfg := graphtest.Config{DType: dt}
			term, ins := g.Gen(graphtest.Rand(seed), cfg)
			check(g.Name, seed, term, ins, cfg)
			// Every element of a tuple in a tuple of its own, next to a
			// literal: the reductions are siblings but no tuple holds two.
			if tup, ok := term.(*graph.Tuple); ok {
				elems := make([]graph.Node, len(tup.Elems))
				for i, e := range tup.Elems {
					elems[i] = must(graph.NewTuple(e, graph.NewConst(float64(i))))
				}
				check(g.Name+"/wrapped", seed, must(graph.NewTuple(elems...)), ins, cfg)
			}
		}
	}
	require.GreaterOrEqual(t, merged, 40, "mergeSiblings merged reductions in %d programs", merged)
}

// Which reductions merge: two sums over the same array that sit in
// different places become one traversal with a pair of results; a
// reduction that reads another's result does not merge with it; nor do
// reductions over different arrays, or ones that read a lambda's
// parameter.
func TestMergeSiblingsCases(t *testing.T) {
	for _, c := range []struct {
		src  string
		rnzs int // distinct rnz nodes after
	}{
		// db and dW of a dense layer: two sums over the batch of x and g.
		{`x : f64[4,3]; g : f64[4,2]; (map (\v -> v * 2) (rnz (zip (+)) (\r ct -> ct) x g), 1, rnz (zip (zip (+))) (\r ct -> map (\a -> map (\b -> a * b) ct) r) x g)`, 1},
		// The second reads the first: it runs after it.
		{`x : f64[4]; (1, let s = reduce (+) x in (s, rnz (+) (\v -> v * s) x))`, 2},
		// Different arrays.
		{`x : f64[4]; y : f64[4]; (reduce (+) x, 1, reduce (+) y)`, 2},
		// Not closed: the inner sums read r.
		{`x : f64[4,3]; map (\r -> reduce (+) r * rnz (+) (\v -> v * v) r) x`, 2},
	} {
		prog, err := graph.Parse(c.src)
		require.NoError(t, err, c.src)
		out, err := mergeSiblings(prog.Body)
		require.NoError(t, err, c.src)
		assert.Equal(t, c.rnzs, countRNZ(out), "%s\nbecame %s", c.src, graph.Print(out))
		in := graphtest.Inputs(rand.New(rand.NewPCG(3, 3)), prog.Inputs)
		want := must(graph.Eval(prog.Body, in))
		got := must(graph.Eval(out, in))
		require.NoError(t, graph.Diff(want, got, exact), c.src)
	}
}

// Two groups that would each depend on the other if merged together (A
// before C, D before B: groups {A, B} over x and {C, D} over y) are merged
// one at a time: the result is still a term, with its value.
func TestMergeSiblingsNoCycle(t *testing.T) {
	src := `x : f64[4]; y : f64[4]; ` +
		`let a = reduce (+) x in let d = reduce (+) y in ` +
		`(rnz (+) (\v -> v * d) x, a, rnz (+) (\v -> v * a) y, d)`
	prog, err := graph.Parse(src)
	require.NoError(t, err)
	out, err := mergeSiblings(prog.Body)
	require.NoError(t, err)
	_, err = graph.Check(out)
	require.NoError(t, err, graph.Print(out))
	assert.Equal(t, 3, countRNZ(out), graph.Print(out))
	in := graphtest.Inputs(rand.New(rand.NewPCG(3, 3)), prog.Inputs)
	require.NoError(t, graph.Diff(must(graph.Eval(prog.Body, in)), must(graph.Eval(out, in)), exact))
}

// A dense layer's weight gradient, written by reverse mode as a sum of
// outer products over the batch, becomes a matrix product (Xᵀ·dY: dot
// products over the columns of x and g, read through flip views) with the
// weight's update as its epilogue, written in the weight's layout with no
// transposing copy; the bias gradient is one sum over the batch. (Merged
// with the bias gradient into one traversal before contract, the weight
// gradient would stay a sum of outer products: contract runs first.) The
// values are graph.Eval's (fuseProgram).
func TestFuseDenseGradients(t *testing.T) {
	res := fuseProgram(t, `x : f64[4,3]; g : f64[4,2]; W : f64[3,2]; b : f64[2]; `+
		`(zip (zip (\w d -> w - d)) W (flip 0 (rnz (zip (zip (+))) (\r ct -> map (\c -> map (\a -> a * c) r) ct) x g)), `+
		`zip (\p d -> p - d) b (rnz (zip (+)) (\r ct -> ct) x g))`)
	require.Equal(t, 2, res.Report.KernelsAfter, "kernels:\n%s", res.Graph)
	for _, k := range res.Graph.Kernels {
		_, isView := k.Body.(graph.ViewNode)
		assert.False(t, isView, "kernel %s only copies a view: %s", k.Name, graph.Print(k.Body))
	}
	assert.Equal(t, `reduce (zip (+)) g`, res.Report.Kernels[0].Term)
	w := res.Report.Kernels[1].Term
	assert.Contains(t, w, "(flip 0 g)", "the weight gradient reads dY's columns: %s", w)
	assert.Contains(t, w, "(flip 0 x)", "the weight gradient reads x's columns: %s", w)
	assert.NotContains(t, w, "rnz (zip", "the weight gradient is no sum of outer products: %s", w)
}

// η for products: a tuple of all the projections of one tuple, in order,
// is that tuple; a partial or reordered one is not.
func TestEtaTuple(t *testing.T) {
	for src, want := range map[string]string{
		`x : f64[3]; let p = (x, x) in (fst p, snd p)`:            `let p = (x, x) in p`,
		`x : f64[3]; let p = (x, x, x) in (fst p, snd p)`:         `let p = (x, x, x) in (fst p, snd p)`,
		`x : f64[3]; let p = (x, reduce (+) x) in (snd p, fst p)`: `let p = (x, reduce (+) x) in (snd p, fst p)`,
	} {
		e := newEngine([]Rule{Eta{}})
		out, err := e.run(parse(t, src))
		require.NoError(t, err)
		assert.Equal(t, want, graph.Print(out), src)
	}
}

// A producer the policy refuses (a shared sum of rows, first) does not
// hide a fusable one after it (a cheap map): nzip-nzip and rnz-nzip fuse
// the second, and say why not the first when none can be fused.
func TestVerticalFusesPastARefusedProducer(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`a : f64[4,3]; b : f64[4]; let s = map (\r -> reduce (+) r) a in (zip (\x y -> x * y) s (map (\v -> v + 1) b), map (\v -> v * 2) s)`,
			`zip (\x v -> x * (v + 1)) (map (\r -> reduce (+) r) a) b`},
		{`a : f64[4,3]; b : f64[4]; let s = map (\r -> reduce (+) r) a in (rnz (+) (\x y -> x * y) s (map (\v -> v + 1) b), map (\v -> v * 2) s)`,
			`rnz (+) (\x v -> x * (v + 1)) (map (\r -> reduce (+) r) a) b`},
	} {
		term, err := letsToDAG(parse(t, c.src))
		require.NoError(t, err)
		ctx, err := newContext(term)
		require.NoError(t, err)
		consumer := term.(*graph.Tuple).Elems[0]
		var rule Rule = NZipNZip{}
		if _, ok := consumer.(*graph.RNZ); ok {
			rule = RNZNZip{}
		}
		out, err := rule.Rewrite(ctx, consumer)
		require.NoError(t, err, c.src)
		assert.Equal(t, c.want, graph.Print(out), c.src)
		after, err := replace(term, map[graph.Node]graph.Node{consumer: out})
		require.NoError(t, err)
		in := graphtest.Inputs(rand.New(rand.NewPCG(4, 4)), must(graph.Check(term)).Inputs)
		require.NoError(t, graph.Diff(must(graph.Eval(term, in)), must(graph.Eval(after, in)), exact))
	}
	checkRefusal(t, NZipNZip{}, must(letsToDAG(parse(t, `a : f64[4,3]; let s = map (\r -> reduce (+) r) a in (zip (\x y -> x * y) s s, map (\v -> v * 2) s)`))),
		"consumers")
}

// Maps of vectors of one extent merge into one loop, whatever arrays they
// read (two parameter updates); a map of rows (a matrix update) does not,
// nor does a map that reads the other's result.
func TestMergeSiblingMaps(t *testing.T) {
	for _, c := range []struct {
		src   string
		nzips int // distinct applied nzip nodes after
	}{
		{`p : f64[4]; g : f64[4]; q : f64[4]; h : f64[4]; (1, zip (\a b -> a - b) p g, zip (\a b -> a - 2 * b) q h)`, 1},
		{`p : f64[4]; g : f64[4]; W : f64[4,3]; G : f64[4,3]; (1, zip (\a b -> a - b) p g, zip (zip (\a b -> a - b)) W G)`, 2},
		{`p : f64[4]; g : f64[4]; (1, let u = zip (\a b -> a - b) p g in (u, map (\a -> a * 2) u))`, 2},
	} {
		prog, err := graph.Parse(c.src)
		require.NoError(t, err, c.src)
		out, err := mergeSiblings(prog.Body)
		require.NoError(t, err, c.src)
		n := 0
		for m := range graph.All(out) {
			if z, ok := m.(*graph.NZip); ok && !graph.IsFunc(z) {
				n++
			}
		}
		assert.Equal(t, c.nzips, n, "%s\nbecame %s", c.src, graph.Print(out))
		in := graphtest.Inputs(rand.New(rand.NewPCG(3, 3)), prog.Inputs)
		require.NoError(t, graph.Diff(must(graph.Eval(prog.Body, in)), must(graph.Eval(out, in)), exact), c.src)
	}
}
