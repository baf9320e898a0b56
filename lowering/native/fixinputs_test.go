package native_test

import (
	"maps"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
)

// TestFixInputs runs an MLP with its parameters fixed (Plan.FixInputs):
// its products then keep their weights packed from run to run. Every run
// must give the bits of a plan without fixed inputs on the same bindings:
// the first, the next with the same arrays (no packing), one with new
// arrays for the parameters (every weight packed again), and one after
// the caller wrote into them and called FixInputs again (packed again). A
// run that reuses the packed weights allocates nothing. The models are an
// MLP and a CNN, whose dense layer packs its weights while its
// convolutions, one image at a time in parallel loops, read their kernels
// in place as before.
func TestFixInputs(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		m, err := models.MLP(models.MLPConfig{Sizes: []int{37, 29, 23, 11}, Batch: 9, DType: dt, Norm: models.NormBatch})
		if err != nil {
			t.Fatal(err)
		}
		testFixInputs(t, "mlp/"+dt.String(), m)
	}
	// A CNN: its convolutions' products run inside parallel loops, which
	// keep nothing.
	m, err := models.CNN(models.CNNConfig{Batch: 5, Conv: []int{8, 16}, DType: graph.Float32})
	if err != nil {
		t.Fatal(err)
	}
	testFixInputs(t, "cnn", m)
}

func testFixInputs(t *testing.T, name string, m *models.Model) {
	{
		var params []string
		for _, p := range m.Params {
			params = append(params, p.Name)
		}
		for sname, g := range splits(t, m.Output) {
			for bname, opts := range backends {
				t.Run(name+"/"+sname+"/"+bname, func(t *testing.T) {
					packs := native.CountRepackB(t)
					free, fixed := planPair(t, opts, g)
					if err := fixed.FixInputs(params...); err != nil {
						t.Fatal(err)
					}
					in := m.Bindings(3)
					same := func(step string) {
						t.Helper()
						sameBits(t, free, fixed, in, step)
					}
					same("first run")
					first := *packs
					t.Logf("%d products pack a fixed weight", first)
					if first == 0 && sname != "whole" {
						t.Fatalf("no product kept a packed weight")
					}
					same("same arrays")
					if *packs != first {
						t.Fatalf("the same arrays were packed again: %d packs, then %d", first, *packs)
					}
					if allocs := testing.AllocsPerRun(5, func() { fixed.Run(in) }); allocs != 0 {
						t.Errorf("a run that reuses the packed weights allocates %v times", allocs)
					}
					// A new array for every parameter: each product packs its
					// weight again.
					var news []*graph.Array
					for _, p := range m.Params {
						a := in[p.Name].(*graph.Array).Copy()
						remap(a, func(v float64) float64 { return v*-0.5 + 0.25 })
						in[p.Name] = a
						news = append(news, a)
					}
					same("new weight arrays")
					if *packs != 2*first {
						t.Fatalf("new weight arrays: %d packs, then %d, want every product to pack again", first, *packs)
					}
					// Written in place, then fixed again.
					for _, a := range news {
						remap(a, func(v float64) float64 { return v + 1 })
					}
					if err := fixed.FixInputs(params...); err != nil {
						t.Fatal(err)
					}
					same("weights written in place, then FixInputs")
					if *packs != 3*first {
						t.Fatalf("weights written in place, then FixInputs: %d packs, then %d, want every product to pack again", 2*first, *packs)
					}
					if err := fixed.FixInputs("no such input"); err == nil || !strings.Contains(err.Error(), `"no such input"`) {
						t.Errorf("FixInputs of an unknown input: %v", err)
					}
				})
			}
		}
	}
}

// sameBits runs free and fixed on in and fails unless they give the same
// bits.
// planPair plans g twice with opts, the plans closed when the test ends:
// one to run with every input free, one to fix inputs of.
func planPair(t *testing.T, opts native.Options, g *fusion.Graph) (free, fixed *native.Plan) {
	t.Helper()
	var err error
	if free, err = native.New(opts).Plan(g); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { free.Close() })
	if fixed, err = native.New(opts).Plan(g); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fixed.Close() })
	return free, fixed
}

func sameBits(t *testing.T, free, fixed *native.Plan, in map[string]graph.Value, step string) {
	t.Helper()
	want, err := free.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	want = graph.CopyValue(want)
	got, err := fixed.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	w, gt := want.(*graph.Array).Values(), got.(*graph.Array).Values()
	for i := range w {
		if math.Float64bits(w[i]) != math.Float64bits(gt[i]) {
			t.Fatalf("%s: element %d is %v with fixed inputs, %v without", step, i, gt[i], w[i])
		}
	}
}

// remap applies f to every element of a, in place.
func remap(a *graph.Array, f func(float64) float64) {
	for i, v := range a.Float32s() {
		a.Float32s()[i] = float32(f(float64(v)))
	}
	for i, v := range a.Float64s() {
		a.Float64s()[i] = f(v)
	}
}

// TestBind checks Plan.Bind (lowering.Binder) on an MLP: runs of the bound
// plan take the data input alone and give the bits of the plan run with
// every input, before and after SetParams (a new weight array, then the
// same array rewritten); a bound input passed to Run, or an unknown one to
// SetParams, is an error; after Close the plan runs with every input again.
func TestBind(t *testing.T) {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{37, 29, 23, 11}, Batch: 9, DType: graph.Float32, Norm: models.NormBatch})
	if err != nil {
		t.Fatal(err)
	}
	res, err := fusion.Fuse(m.Output, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	free, err := native.New(native.Options{}).Plan(res.Graph)
	if err != nil {
		t.Fatal(err)
	}
	defer free.Close()
	p, err := native.New(native.Options{}).Plan(res.Graph)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	in := m.Bindings(4)
	params := maps.Clone(in)
	delete(params, m.Input.Name)
	b, err := p.Bind(params)
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]graph.Value{m.Input.Name: in[m.Input.Name]}
	same := func(step string, got graph.Value, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		got = graph.CopyValue(got)
		want, err := free.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		w, g := want.(*graph.Array).Values(), got.(*graph.Array).Values()
		for i := range w {
			if math.Float64bits(w[i]) != math.Float64bits(g[i]) {
				t.Fatalf("%s: element %d is %v bound, %v with every input", step, i, g[i], w[i])
			}
		}
	}
	out, err := b.Run(data)
	same("bound", out, err)
	out, err = b.Run(data)
	same("bound, again", out, err)
	w0 := m.Params[0].Name
	a := in[w0].(*graph.Array).Copy()
	remap(a, func(v float64) float64 { return v * 0.5 })
	in[w0] = a
	if err := b.SetParams(map[string]graph.Value{w0: a}); err != nil {
		t.Fatal(err)
	}
	out, err = b.Run(data)
	same("a new weight array", out, err)
	remap(a, func(v float64) float64 { return v - 0.125 })
	if err := b.SetParams(map[string]graph.Value{w0: a}); err != nil {
		t.Fatal(err)
	}
	out, err = b.Run(data)
	same("the weight rewritten, then SetParams", out, err)
	if _, err := b.Run(map[string]graph.Value{m.Input.Name: in[m.Input.Name], w0: a}); err == nil || !strings.Contains(err.Error(), w0) {
		t.Errorf("Run with a bound input: %v", err)
	}
	if err := b.SetParams(map[string]graph.Value{m.Input.Name: in[m.Input.Name]}); err == nil || !strings.Contains(err.Error(), "not bound") {
		t.Errorf("SetParams of an input not bound: %v", err)
	}
	if _, err := p.Bind(map[string]graph.Value{"nope": a}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Bind of an unknown input: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	out, err = p.Run(in)
	same("after Close, every input", out, err)
}

// TestFixInputsGatheredFilters: a channels-first convolution gathers its
// OIHW filters into scratch before each product, and a depthwise one
// gathers its filters tap-major. With the filters fixed
// (Plan.FixInputs) it gathers them once per binding — once per frame
// where each frame of a parallel loop has its own scratch — and every run
// gives the bits of a plan without fixed inputs: the first, the next with
// the same arrays (nothing gathered), one with a new filter array
// (gathered again), and one after the caller wrote into it and called
// FixInputs again.
func TestFixInputsGatheredFilters(t *testing.T) {
	for _, c := range []struct {
		name     string
		in, out  int
		groups   int
		describe string
	}{
		{"conv", 5, 12, 1, "filters gathered into scratch"},
		{"depthwise", 6, 6, 6, "depthwise conv"},
	} {
		x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 3, c.in, 9, 8), false)
		if err != nil {
			t.Fatal(err)
		}
		y, cp, err := layers.Conv2D("conv", x, c.in, c.out, [2]int{3, 3}, graph.Float32,
			layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst, Groups: c.groups})
		if err != nil {
			t.Fatal(err)
		}
		testFixGathered(t, c.name, c.describe, y, cp)
	}
}

func testFixGathered(t *testing.T, name, describe string, y graph.Node, cp *layers.ConvParams) {
	for sname, g := range splits(t, y) {
		for bname, opts := range backends {
			t.Run(name+"/"+sname+"/"+bname, func(t *testing.T) {
				gathers := native.CountGatherFilters(t)
				free, fixed := planPair(t, opts, g)
				if !strings.Contains(fixed.Describe(), describe) {
					t.Fatalf("no %q in the plan:\n%s", describe, fixed.Describe())
				}
				if err := fixed.FixInputs(cp.K.Name, cp.B.Name); err != nil {
					t.Fatal(err)
				}
				in, err := lowertest.Inputs(y, 5, 0, lowertest.Dense)
				if err != nil {
					t.Fatal(err)
				}
				same := func(step string) {
					t.Helper()
					sameBits(t, free, fixed, in, step)
				}
				same("first run")
				first := *gathers
				if first == 0 {
					t.Fatal("no convolution kept its gathered filters")
				}
				// The frames of a parallel loop over the images keep a
				// copy each: a frame that ran no image before gathers once.
				for range 10 {
					same("same arrays")
				}
				frames := opts.Parallelism
				if frames == 0 {
					frames = runtime.GOMAXPROCS(0)
				}
				if extra := *gathers - first; extra > frames-1 {
					t.Fatalf("the same filters were gathered again: %d gathers, then %d more in 10 runs", first, extra)
				}
				k := in[cp.K.Name].(*graph.Array).Copy()
				remap(k, func(v float64) float64 { return v*-0.5 + 0.25 })
				in[cp.K.Name] = k
				same("a new filter array")
				if *gathers <= first {
					t.Fatalf("a new filter array was not gathered: %d gathers, then %d", first, *gathers)
				}
				n := *gathers
				remap(k, func(v float64) float64 { return v + 1 })
				if err := fixed.FixInputs(cp.K.Name, cp.B.Name); err != nil {
					t.Fatal(err)
				}
				same("filters written in place, then FixInputs")
				if *gathers <= n {
					t.Fatalf("filters written in place, then FixInputs: not gathered again")
				}
			})
		}
	}
}
