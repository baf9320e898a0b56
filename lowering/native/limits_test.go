package native_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// parseWhole parses the program src and cuts it as one kernel
// (fusion.Whole), failing tb on an error.
func parseWhole(tb testing.TB, src string) (*graph.Program, *fusion.Graph) {
	tb.Helper()
	prog, err := graph.Parse(src)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := fusion.Whole(prog.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return prog, g
}

func planOf(t *testing.T, src string, opts native.Options) (*native.Plan, error) {
	t.Helper()
	_, g := parseWhole(t, src)
	return native.New(opts).Plan(g)
}

// checkedDescribe checks g on the native back end with par goroutines
// against graph.Eval of term (lowertest.Check) and returns the
// description of its plan.
func checkedDescribe(t *testing.T, par int, g *fusion.Graph, term graph.Node, in map[string]graph.Value) string {
	t.Helper()
	b := native.New(native.Options{Parallelism: par})
	lowertest.Check(t, b, g, term, in, 0)
	p, err := b.Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	return p.Describe()
}

// Plan computes its arena before allocating it and refuses past
// Options.MaxMemory; nothing here allocates more than a few kilobytes.
func TestPlanMemoryLimit(t *testing.T) {
	// The private copy of the input A alone is 4e11 bytes.
	_, err := planOf(t, "A : f32[100000000000]; reduce (+) A", native.Options{Parallelism: 1})
	want := "native: input A needs 400000000000 bytes, past the memory limit of 4294967296 bytes; raise native.Options.MaxMemory"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got: %v\nwant: %s", err, want)
	}
	var me *graph.MemoryError
	if !errors.As(err, &me) || me.Limit != graph.DefaultMemoryLimit {
		t.Errorf("%v is not a *graph.MemoryError with the default limit", err)
	}

	// An outer product of two 65536-vectors: the inputs' copies are 256
	// KiB each and the result 2^32 floats, 2^34 + 2^19 bytes in all.
	_, err = planOf(t, `u : f32[65536]; v : f32[65536]; map (\a -> map (\b -> a * b) v) u`, native.Options{Parallelism: 1})
	want = "native: kernel k1_kernel with the buffers before it needs 17180393472 bytes, past the memory limit of 4294967296 bytes; raise native.Options.MaxMemory"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got: %v\nwant: %s", err, want)
	}

	// A plan exactly at its limit compiles and runs; one byte less is
	// refused, naming the limit given.
	src := `u : f64[1000]; map (\x -> x * 2) u`
	_, err = planOf(t, src, native.Options{Parallelism: 1, MaxMemory: 1})
	if !errors.As(err, &me) {
		t.Fatalf("got %v, want a *graph.MemoryError", err)
	}
	if me.What != "native: input u" || me.Bytes != 8000 {
		t.Errorf("got %q needing %d bytes, want input u needing 8000 (its private copy)", me.What, me.Bytes)
	}
	_, err = planOf(t, src, native.Options{Parallelism: 1, MaxMemory: 8000})
	if !errors.As(err, &me) {
		t.Fatalf("got %v, want a *graph.MemoryError", err)
	}
	need := me.Bytes
	if need < 16000 {
		t.Fatalf("kernel needs %d bytes, want at least the copy of u and the result, 16000", need)
	}
	want = "native: kernel k1_kernel with the buffers before it needs " + strconv.FormatInt(need, 10) + " bytes, past the memory limit of " + strconv.FormatInt(need-1, 10) + " bytes; raise native.Options.MaxMemory"
	if _, err = planOf(t, src, native.Options{Parallelism: 1, MaxMemory: need - 1}); err == nil || err.Error() != want {
		t.Errorf("error\n got: %v\nwant: %s", err, want)
	}
	p, err := planOf(t, src, native.Options{Parallelism: 1, MaxMemory: need})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(i)
	}
	u, err := graph.FromFloat64(x, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(map[string]graph.Value{"u": u})
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*graph.Array).Float64s()
	if got[0] != 0 || got[999] != 1998 || got[500] != 1000 {
		t.Errorf("got %v … %v, want 0 … 1998", got[0], got[999])
	}
}

// A chain of additions as deep as a term may be fuses, compiles and runs.
// Compiling it asked for the free variables of every subterm afresh, which
// took minutes at this depth.
func TestPlanDeepChain(t *testing.T) {
	adds := graph.MaxDepth - 3
	src := `u : f64[3]; map (\x -> x` + strings.Repeat(" + x", adds) + ") u"
	prog, err := graph.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fusion.Fuse(prog.Body, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := native.New(native.Options{Parallelism: 1}).Plan(res.Graph)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u, err := graph.FromFloat64([]float64{1, 2, 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(map[string]graph.Value{"u": u})
	if err != nil {
		t.Fatal(err)
	}
	k := float64(adds + 1)
	if got := out.(*graph.Array).Float64s(); got[0] != k || got[1] != 2*k || got[2] != 3*k {
		t.Errorf("got %v, want [%v %v %v]", got, k, 2*k, 3*k)
	}
}
