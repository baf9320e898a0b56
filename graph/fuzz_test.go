package graph_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// fuzzMaxElements bounds the elements of each input the fuzz targets
// evaluate a program on, and fuzzMaxNodes the size of its term, so that
// one input stays fast (the interpreter is slow on purpose).
const (
	fuzzMaxElements = 256
	fuzzMaxNodes    = 300
)

// FuzzCheck reads bytes as program text: Parse and Check must never
// panic, and for a program that checks, Eval on random inputs (NaN and
// infinities among them) must not panic and must return a value of the
// checked type, or an error. The seed corpus is testdata/fuzz/FuzzCheck
// and the programs added below.
func FuzzCheck(f *testing.F) {
	for _, src := range []string{
		`A : f64[7,9]; B : f64[7,9]; u : f64[9]; v : f64[9]; zip (\ra rb -> rnz (+) (\x y p q -> (x + y) * (p + q)) ra rb v u) A B`,
		`A : f32[5,6]; B : f32[6,7]; g : f32[6]; map (\r -> map (\c -> rnz (+) (\a b q -> a * b * q) r c g) (flip 0 B)) A`,
		`a : f64[3]; Y : f64[3,1,1]; Z : f64[3,3]; zip (\x p -> reduce (+) (snd p)) a (Y, Z)`,
		`b : f32[6]; c : f32[6]; x : f32[8]; let t = zip (+) (map (*2) b) (map (*2) c) in map (\v -> snd (t, v)) x`,
		`x : f64[5,3]; y : f64[5,3]; rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q))) (\a b -> (a, b)) x y`,
		`s : f32; x : f32[4]; map (\v -> v < (\y -> 1.5) s) x`,
		`u : f64[12]; flatten 0 (map (\b -> map (\x -> x + 1) b) (subdiv 0 4 u))`,
		`u : f64[4]; map (\x -> max x nan + min x inf - (-inf)) u`,
		`k : i32[4]; map (\x -> x / 0 + x * 2147483647) k`,
		`A : f64<(3,1),(4,3)>; reduce (zip max) A`,
		`u : f64[3]; rnz (\a b -> a * 0.5 + b) id u`,
		`u : f64[2]; (`,
		`u : f64[0]; reduce (+) u`,
	} {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := graph.Parse(src)
		if err != nil {
			return
		}
		checkAndEval(t, prog.Body, 0)
	})
}

// FuzzCheckGenerated draws a program from graphtest with a configuration
// and seed the fuzzer chooses: it must check (the generator promises
// well-typed programs), its printed form must parse and check to the same
// type and print the same, and it must evaluate, with or without special values, to a value of its type.
func FuzzCheckGenerated(f *testing.F) {
	for i, s := range []uint64{0, 1, 2, 3, 17, 1 << 40} {
		f.Add(s, uint8(i), uint8(3*i), uint32(0), uint8(i%2))
	}
	f.Fuzz(func(t *testing.T, seed uint64, depth, extent uint8, disable uint32, special uint8) {
		cfg := graphtest.Config{
			MaxDepth:    1 + int(depth%3),
			MaxExtent:   1 + int(extent%9),
			Disable:     graphtest.Kind(disable) & graphtest.AllKinds,
			MixedTuples: float64(special%4) / 8,
		}
		if seed%2 == 1 {
			cfg.DType = graph.Float32
		}
		gens := graphtest.Generators()
		gen := gens[int(seed%uint64(len(gens)))]
		term, ins := gen.Gen(graphtest.Rand(seed), cfg)
		info, err := graph.Check(term)
		if err != nil {
			t.Fatalf("%s seed %d: generated program does not check: %v\n%s", gen.Name, seed, err, graph.Print(term))
		}
		// Its printed form reads back to a term of the same type that
		// prints the same.
		src := graph.Print(term)
		back, err := graph.ParseTerm(src, ins...)
		if err != nil {
			t.Fatalf("%s seed %d: the printed program does not parse: %v\n%s", gen.Name, seed, err, src)
		}
		binfo, err := graph.Check(back)
		if err != nil {
			t.Fatalf("%s seed %d: the printed program does not check: %v\n%s", gen.Name, seed, err, src)
		}
		if got, want := binfo.TypeOf(back), info.TypeOf(term); got.String() != want.String() {
			t.Fatalf("%s seed %d: the printed program has type %v, the program %v\n%s", gen.Name, seed, got, want, src)
		}
		if again := graph.Print(back); again != src {
			t.Fatalf("%s seed %d: the printed program prints differently after parsing:\n%s\n%s", gen.Name, seed, src, again)
		}
		checkAndEval(t, term, float64(special%3)/10)
	})
}

// checkAndEval checks n and, when it checks and is small, evaluates it on
// random inputs with the given rate of special values: Eval must return
// an error or a value of n's type.
func checkAndEval(t *testing.T, n graph.Node, special float64) {
	t.Helper()
	info, err := graph.Check(n)
	if err != nil {
		return
	}
	nodes := 0
	for range graph.All(n) {
		nodes++
	}
	if nodes > fuzzMaxNodes {
		return
	}
	for _, in := range info.Inputs {
		if elements(in.Type) > fuzzMaxElements {
			return
		}
	}
	want := info.TypeOf(n)
	inputs := graphtest.Config{Special: special}.Inputs(graphtest.Rand(uint64(nodes)), info.Inputs)
	v, err := graph.Eval(n, inputs)
	if err != nil {
		return
	}
	if err := hasType(v, want); err != nil {
		t.Fatalf("Eval returned %v for a term of type %v: %v\n%s", v, want, err, graph.Print(n))
	}
}

// elements counts the elements of a value of type t.
func elements(t graph.Type) int {
	switch t := t.(type) {
	case *graph.ArrayType:
		n := 1
		for _, e := range t.Layout.Extents() {
			n *= e
			if n > fuzzMaxElements {
				return n
			}
		}
		return n
	case *graph.TupleType:
		n := 0
		for _, e := range t.Elems {
			n += elements(e)
		}
		return n
	}
	return 1
}

// hasType says how v fails to be a value of type t (element type and
// extents; strides may differ), or nil.
func hasType(v graph.Value, t graph.Type) error {
	switch t := t.(type) {
	case *graph.ArrayType:
		a, ok := v.(*graph.Array)
		if !ok || a == nil {
			return fmt.Errorf("want an array, got %T", v)
		}
		if a.DType() != t.DType || !slices.Equal(a.Extents(), t.Layout.Extents()) {
			return fmt.Errorf("want %v%v, got %v%v", t.DType, t.Layout.Extents(), a.DType(), a.Extents())
		}
	case *graph.ScalarType:
		s, ok := v.(graph.ScalarValue)
		if !ok || s.DType != t.DType {
			return fmt.Errorf("want a scalar %v, got %v", t.DType, v)
		}
	case *graph.TupleType:
		tv, ok := v.(graph.TupleValue)
		if !ok || len(tv) != len(t.Elems) {
			return fmt.Errorf("want a %d-tuple, got %T", len(t.Elems), v)
		}
		for i := range tv {
			if err := hasType(tv[i], t.Elems[i]); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
	default:
		return fmt.Errorf("type %v is not a value type", t)
	}
	return nil
}

// TestHasType pins the fuzz targets' type check, which must be able to
// fail.
func TestHasType(t *testing.T) {
	a, _ := graph.Zeros(graph.Float32, 2, 3)
	s := graph.ScalarValue{DType: graph.Float64, V: 1}
	if err := hasType(a, graph.ArrayOf(graph.Float32, 2, 3)); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		v    graph.Value
		t    graph.Type
		want string
	}{
		{a, graph.ArrayOf(graph.Float32, 3, 2), "want f32[3 2], got f32[2 3]"},
		{a, graph.ArrayOf(graph.Float64, 2, 3), "want f64[2 3], got f32[2 3]"},
		{s, graph.Scalar(graph.Float32), "want a scalar f32, got f64(1)"},
		{graph.TupleValue{s, a}, &graph.TupleType{Elems: []graph.Type{graph.Scalar(graph.Float64), graph.ArrayOf(graph.Float32, 2)}}, "element 1: want f32[2], got f32[2 3]"},
		{s, graph.ArrayOf(graph.Float64, 1), "want an array, got graph.ScalarValue"},
	} {
		if err := hasType(tc.v, tc.t); err == nil || err.Error() != tc.want {
			t.Errorf("hasType(%v, %v) = %v, want %q", tc.v, tc.t, err, tc.want)
		}
	}
}
