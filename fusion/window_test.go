package fusion

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/layers"
)

// windowed draws gen's programs with window, pad and crop views among
// their layout operations (graphtest.Config.Windows).
func windowed(gen graphtest.Generator) graphtest.Generator {
	return func(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
		cfg.Windows = true
		return gen(r, cfg)
	}
}

// aroundWindows rewrites every window view W of term (found by a walk, at
// most 8) into wrap(W, its operand's type), an equal term that holds a
// redex of the rule under test.
func aroundWindows(wrap func(n graph.Node, w graph.WindowView, xt *graph.ArrayType) (graph.Node, bool)) func(graph.Node) (graph.Node, error) {
	return func(term graph.Node) (graph.Node, error) {
		info, err := graph.Check(term)
		if err != nil {
			return nil, err
		}
		repl := map[graph.Node]graph.Node{}
		for n := range graph.All(term) {
			v, x, ok := graph.AsView(n)
			if !ok || len(repl) >= 8 {
				continue
			}
			w, ok := v.(graph.WindowView)
			xt, isArr := info.TypeOf(x).(*graph.ArrayType)
			if !ok || !isArr {
				continue
			}
			if out, ok := wrap(n, w, xt); ok {
				repl[n] = out
			}
		}
		if len(repl) == 0 {
			return term, nil
		}
		return replace(term, repl)
	}
}

// flipWindows writes every window W as flip d (flip d W), whose inner flip
// is a redex of window-flip.
var flipWindows = aroundWindows(func(n graph.Node, w graph.WindowView, _ *graph.ArrayType) (graph.Node, bool) {
	in, err := graph.NewFlip(w.Axis, w.Axis+1, n)
	if err != nil {
		return nil, false
	}
	out, err := graph.NewFlip(w.Axis, w.Axis+1, in)
	return out, err == nil
})

// subdivWindows writes every window W whose positions P have a divisor
// 1 < b < P as flatten d (subdiv d b W), whose subdiv is a redex of
// window-subdiv.
var subdivWindows = aroundWindows(func(n graph.Node, w graph.WindowView, xt *graph.ArrayType) (graph.Node, bool) {
	p := w.Positions(xt.Layout[w.Axis].Extent)
	for b := 2; b < p; b++ {
		if p%b == 0 {
			sd, err := graph.NewSubdiv(w.Axis, b, n)
			if err != nil {
				return nil, false
			}
			out, err := graph.NewFlatten(w.Axis, sd)
			return out, err == nil
		}
	}
	return nil, false
})

func FuzzWindowFlipLaw(f *testing.F) {
	fuzzLaw(f, WindowFlip{}, windowed(graphtest.Program), flipWindows, exactTol)
}

func FuzzWindowSubdivLaw(f *testing.F) {
	fuzzLaw(f, WindowSubdiv{}, windowed(graphtest.Program), subdivWindows, exactTol)
}

// TestWindowFlipLaw: flip d (window d w s dl x) = window d P dl s x on
// random programs with windows, each window W written flip d (flip d W) so
// that the inner flip is a redex; the rule keeps every scalar operation,
// so the values are bit-identical, and it refuses where the exchanged
// window would gain positions.
func TestWindowFlipLaw(t *testing.T) {
	st := checkLaw(t, WindowFlip{}, windowed(graphtest.Program), flipWindows, exactTol)
	st.add(checkLaw(t, WindowFlip{}, windowed(graphtest.MapOfRNZ), flipWindows, exactTol))
	t.Logf("applied %d, refused %v", st.applied, st.refused)
	requireApplied(t, st, 30)
	require.NotEmpty(t, st.refused, "no window was refused")
}

// TestWindowSubdivLaw: subdiv d b (window d w s dl x) = window (d+1) w s
// dl (window d H (b*s) 1 x) on random programs with windows, each window W
// whose positions P have a divisor 1 < b < P written flatten d (subdiv d b
// W).
func TestWindowSubdivLaw(t *testing.T) {
	st := checkLaw(t, WindowSubdiv{}, windowed(graphtest.Program), subdivWindows, exactTol)
	st.add(checkLaw(t, WindowSubdiv{}, windowed(graphtest.MapOfMap), subdivWindows, exactTol))
	t.Logf("applied %d, refused %v", st.applied, st.refused)
	requireApplied(t, st, 20)
}

// TestWindowRuleRefusals: the side conditions, with the numbers.
func TestWindowRuleRefusals(t *testing.T) {
	// 10 = 1 + 2*4 + 1: one element past the last window of width 3 at
	// stride 2 (span 3), which the exchanged window of width 4 at stride 1,
	// dilation 2, would start.
	checkRefusal(t, WindowFlip{}, parse(t, `x : f64[10]; flip 0 (window 0 3 2 x)`),
		"the exchanged window window 0 4 1 2 would have 4 positions on extent 10, not the 3 elements of window 0 3 2: the 1 element(s) past the last window would start one")
	// Window 5 at stride 1: tiles of 2 positions step 2 but share a halo
	// of 4.
	checkRefusal(t, WindowSubdiv{}, parse(t, `x : f64[10]; subdiv 0 2 (window 0 5 x)`),
		"tiles of 2 positions of window 0 5 step 2 elements but share a halo of 4: each would re-read more than it adds")
	// A pad's fill added to itself by a sum.
	checkRefusal(t, HoistView{}, parse(t, `A : f64[3,4]; rnz (zip (+)) (\r -> padninf 0 1 1 (map (\v -> v * 2) r)) A`),
		"adds the fill to itself")
}

// TestWindowRulesByHand pins what the rules write.
func TestWindowRulesByHand(t *testing.T) {
	for _, tc := range []struct {
		rule      Rule
		src, want string
	}{
		{WindowFlip{}, `x : f64[11]; flip 0 (window 0 3 2 x)`, `window 0 5 1 2 x`},
		{WindowFlip{}, `A : f64[2,9]; flip 1 2 (window 1 2 3 2 A)`, `window 1 3 2 3 A`},
		{WindowSubdiv{}, `x : f64[10]; subdiv 0 4 (window 0 3 x)`, `window 1 3 (window 0 6 4 x)`},
		{WindowSubdiv{}, `x : f64[15]; subdiv 0 2 (window 0 3 2 2 x)`, `window 1 3 2 2 (window 0 7 4 x)`},
	} {
		n := parse(t, tc.src)
		c, err := newContext(n)
		require.NoError(t, err)
		out, err := tc.rule.Rewrite(c, n)
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, graph.Print(out), tc.src)
	}
}

// TestVerticalFusionLawsWithWindows: the vertical fusion rules (nzip into
// nzip, nzip into rnz), which fuse a convolution with what follows it, on
// random programs with windows, pads and crops.
func TestVerticalFusionLawsWithWindows(t *testing.T) {
	st := checkLaw(t, NZipNZip{}, windowed(graphtest.NZipOfNZip), nil, exactTol)
	st.add(checkLaw(t, NZipNZip{}, windowed(graphtest.Program), nil, exactTol))
	requireApplied(t, st, lawCases/2)
	st = checkLaw(t, RNZNZip{}, windowed(graphtest.RNZOfNZip), nil, exactTol)
	requireApplied(t, st, lawCases/2)
	st = checkLaw(t, HoistView{}, windowed(graphtest.Program), nil, regrouped)
	t.Logf("hoist-view with windows: applied %d, refused %v", st.applied, st.refused)
}

// TestConvEpilogueOneKernel: a convolution followed by its bias,
// BatchNorm (inference) and ReLU is one kernel after Fuse, and the fused
// graph computes what the layers do.
func TestConvEpilogueOneKernel(t *testing.T) {
	dt := graph.Float64
	x, err := graph.NewInput("x", graph.ArrayOf(dt, 2, 7, 6, 3), false)
	require.NoError(t, err)
	y, _, err := layers.Conv2D("conv1", x, 3, 4, [2]int{3, 3}, dt, layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 1}})
	require.NoError(t, err)
	y, _, err = layers.BatchNorm("bn1", y, 4, dt, layers.BatchNormOptions{})
	require.NoError(t, err)
	y, err = layers.ReLU("relu1", y)
	require.NoError(t, err)
	res, err := Fuse(y, Options{})
	require.NoError(t, err)
	require.Len(t, res.Graph.Kernels, 1, "kernels: %v", res.Report.Kernels)
	require.ElementsMatch(t, []string{"conv1", "bn1", "relu1"}, res.Graph.Kernels[0].Sources)
	info, err := graph.Check(y)
	require.NoError(t, err)
	in := graphtest.Config{DType: dt}.Inputs(graphtest.Rand(5), info.Inputs)
	// Positive variances for rsqrt.
	v := in["bn1.var"].(*graph.Array)
	for i := range 4 {
		v.Set(0.5+float64(i), i)
	}
	want, err := graph.Eval(y, in)
	require.NoError(t, err)
	got, err := graph.Eval(res.Graph.Kernels[0].Body, in)
	require.NoError(t, err)
	require.NoError(t, graph.Diff(want, got, 0))
}

// TestMoreLawsWithWindows: the product, exchange, view-moving and
// subdivision rules on random programs with window, pad and crop views:
// products of traversals of windows (a convolution and a pooling of one
// input side by side), exchanges of a map over window positions with a
// reduction over window elements (output against weight stationary),
// views sunk into and hoisted out of traversals, subdivided traversals of
// windows.
func TestMoreLawsWithWindows(t *testing.T) {
	for _, tc := range []struct {
		rule    Rule
		gen     graphtest.Generator
		prepare func(graph.Node) (graph.Node, error)
		tol     func(graph.DType) float64
		min     int
	}{
		{Product{}, graphtest.ProductPair, nil, exactTol, lawCases / 4},
		{FanOut{}, graphtest.ProductPair, applyOnce(Product{}), exactTol, lawCases / 4},
		{MapRNZ{}, graphtest.MapOfRNZ, nil, exactTol, lawCases / 4},
		{MapMap{}, graphtest.MapOfMap, nil, exactTol, lawCases / 4},
		{RNZRNZ{}, graphtest.RNZOfRNZ, nil, regrouped, lawCases / 8},
		{SinkView{}, graphtest.MapOfRNZ, applyOnce(MapRNZ{}), exactTol, lawCases / 20},
		{SubdivMap{Block: 2}, graphtest.Program, nil, exactTol, lawCases / 8},
	} {
		t.Run(tc.rule.Name(), func(t *testing.T) {
			st := checkLaw(t, tc.rule, windowed(tc.gen), tc.prepare, tc.tol)
			requireApplied(t, st, tc.min)
		})
	}
}

// TestConvStackKernels: a stack of convolution, ReLU and max pooling
// blocks fuses each activation into its convolution's kernel and keeps
// every convolution and pooling a kernel of its own, channels last as the
// layers write it and channels first as an imported network does (where
// the flips between the layers cancel, flip-nzip). Fused into the pooling
// that reads it through windows, a convolution would be computed inside
// the loops over the windows, the whole stack inside the last pooling.
// The fused graph computes what the layers do.
func TestConvStackKernels(t *testing.T) {
	for _, format := range []layers.DataFormat{layers.ChannelsLast, layers.ChannelsFirst} {
		t.Run(format.String(), func(t *testing.T) {
			dt := graph.Float64
			shape := []int{2, 8, 6, 3}
			if format == layers.ChannelsFirst {
				shape = []int{2, 3, 8, 6}
			}
			x, err := graph.NewInput("x", graph.ArrayOf(dt, shape...), false)
			require.NoError(t, err)
			y := graph.Node(x)
			opt := layers.ConvOptions{Format: format, Padding: layers.PadSame}
			in := 3
			for i, out := range []int{4, 5} {
				name := func(s string) string { return fmt.Sprintf("%s%d", s, i+1) }
				y, _, err = layers.Conv2D(name("conv"), y, in, out, [2]int{3, 3}, dt, opt)
				require.NoError(t, err)
				y, err = layers.ReLU(name("relu"), y)
				require.NoError(t, err)
				y, err = layers.MaxPool2D(name("pool"), y, [2]int{2, 2}, layers.ConvOptions{Format: format, Strides: []int{2, 2}})
				require.NoError(t, err)
				in = out
			}
			fuseKernels(t, y, dt, [][]string{{"conv1", "relu1"}, {"pool1"}, {"conv2", "relu2"}, {"pool2"}})
		})
	}
}

// TestResidualBlockKernels: in a residual block (convolution, ReLU,
// convolution, the block's input added, ReLU, global average pooling),
// the second convolution stays a kernel of its own: fused into the add it
// would be a nest over two images, which no back end runs as a
// convolution with an epilogue, and fused into the pooling's reduction it
// would run one dot product at a time. The add, the ReLU and the pooling
// are one kernel, and the fused graph computes what the layers do.
func TestResidualBlockKernels(t *testing.T) {
	dt := graph.Float64
	x, err := graph.NewInput("x", graph.ArrayOf(dt, 2, 6, 5, 4), false)
	require.NoError(t, err)
	opt := layers.ConvOptions{Padding: layers.PadSame}
	y, _, err := layers.Conv2D("conv1", x, 4, 4, [2]int{3, 3}, dt, opt)
	require.NoError(t, err)
	y, err = layers.ReLU("relu1", y)
	require.NoError(t, err)
	y, _, err = layers.Conv2D("conv2", y, 4, 4, [2]int{3, 3}, dt, opt)
	require.NoError(t, err)
	var add graph.Node = must(graph.NewOpRef(graph.Add))
	for range 3 {
		add = must(graph.NewNZip(add))
	}
	y = graph.WithSource(must(graph.NewNZip(add, y, x)), "add")
	y, err = layers.ReLU("relu2", y)
	require.NoError(t, err)
	y, err = layers.GlobalAveragePool("gap", y, layers.ChannelsLast)
	require.NoError(t, err)
	g := fuseKernels(t, y, dt, [][]string{{"conv1", "relu1"}, {"conv2"}, {"gap", "relu2"}})
	// The add (no layer's, so no source of its own) is in the last
	// kernel, which reads the second convolution's result and x.
	var reads []string
	for _, in := range g.Kernels[2].Inputs {
		reads = append(reads, in.Name)
	}
	require.ElementsMatch(t, []string{g.Kernels[1].Output.Name, "x"}, reads)
}

// fuseKernels fuses y, requires its kernels to hold the sources of want
// (each sorted), in order, and the fused graph to compute y's value (to
// 1e-12: a fused pooling may sum in another order), and returns the
// graph.
func fuseKernels(t *testing.T, y graph.Node, dt graph.DType, want [][]string) *Graph {
	t.Helper()
	res, err := Fuse(y, Options{})
	require.NoError(t, err)
	var sources [][]string
	for _, k := range res.Graph.Kernels {
		s := slices.Clone(k.Sources)
		slices.Sort(s)
		sources = append(sources, s)
	}
	require.Equal(t, want, sources, "kernels: %v", res.Report.Kernels)
	info, err := graph.Check(y)
	require.NoError(t, err)
	vals := graphtest.Config{DType: dt}.Inputs(graphtest.Rand(7), info.Inputs)
	wantV, err := graph.Eval(y, vals)
	require.NoError(t, err)
	got, err := res.Graph.Eval(vals)
	require.NoError(t, err)
	require.NoError(t, graph.Diff(wantV, got, 1e-12))
	return res.Graph
}
