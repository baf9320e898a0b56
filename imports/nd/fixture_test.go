package nd_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/layers"
)

// tensor is a tensor of a fixture file: see testdata/make_fixtures.py.
type tensor struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  []any  `json:"data"`
}

type fixture struct {
	Name   string         `json:"name"`
	Op     string         `json:"op"`
	Attrs  map[string]any `json:"attrs"`
	Inputs []tensor       `json:"inputs"`
	Want   tensor         `json:"want"`
}

func loadFixtures(t *testing.T, file string) []fixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []fixture `json:"cases"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s: no cases", file)
	}
	return f.Cases
}

func (x tensor) values(t *testing.T) []float64 {
	t.Helper()
	out := make([]float64, len(x.Data))
	for i, d := range x.Data {
		switch d := d.(type) {
		case float64:
			out[i] = d
		case string:
			switch d {
			case "nan":
				out[i] = math.NaN()
			case "inf":
				out[i] = math.Inf(1)
			case "-inf":
				out[i] = math.Inf(-1)
			default:
				t.Fatalf("bad value %q", d)
			}
		default:
			t.Fatalf("bad value %v", d)
		}
	}
	return out
}

func (x tensor) dtype(t *testing.T) graph.DType {
	t.Helper()
	dt, err := graph.ParseDType(x.DType)
	if err != nil {
		t.Fatal(err)
	}
	return dt
}

// input declares x as an input named name and returns it with its value.
func (x tensor) input(t *testing.T, name string) (*graph.Input, graph.Value) {
	t.Helper()
	dt := x.dtype(t)
	vals := x.values(t)
	if len(x.Shape) == 0 {
		in, err := graph.NewInput(name, graph.Scalar(dt), false)
		if err != nil {
			t.Fatal(err)
		}
		return in, graph.ScalarValue{DType: dt, V: dt.Round(vals[0])}
	}
	in, err := graph.NewInput(name, graph.ArrayOf(dt, x.Shape...), false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := graph.Zeros(dt, x.Shape...)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(x.Shape))
	for _, v := range vals {
		a.Set(v, idx...)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < x.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return in, a
}

func attrInt(t *testing.T, c fixture, name string) int {
	t.Helper()
	v, ok := c.Attrs[name].(float64)
	if !ok {
		t.Fatalf("%s: attribute %s missing", c.Name, name)
	}
	return int(v)
}

func attrInts(t *testing.T, c fixture, name string) []int {
	t.Helper()
	v, ok := c.Attrs[name]
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%s: attribute %s is %T", c.Name, name, v)
	}
	out := make([]int, len(list))
	for i, e := range list {
		out[i] = int(e.(float64))
	}
	return out
}

func attrBool(c fixture, name string) bool {
	v, _ := c.Attrs[name].(bool)
	return v
}

func attrFloat(c fixture, name string) float64 {
	v, _ := c.Attrs[name].(float64)
	return v
}

var binaryOps = map[string]graph.Op{"add": graph.Add, "sub": graph.Sub, "mul": graph.Mul, "div": graph.Div,
	"max": graph.Max, "min": graph.Min, "lt": graph.Lt, "exp": graph.Exp, "neg": graph.Neg}

var reduceKinds = map[string]nd.ReduceKind{"sum": nd.Sum, "mean": nd.Mean, "max": nd.Max, "min": nd.Min, "prod": nd.Prod,
	"sumsquare": nd.SumSquare, "l1": nd.L1, "l2": nd.L2, "logsum": nd.LogSum, "logsumexp": nd.LogSumExp}

// build applies the fixture's operation to its inputs.
func build(t *testing.T, c fixture, xs []graph.Node) (graph.Node, error) {
	t.Helper()
	switch c.Op {
	case "binary":
		return nd.Binary(binaryOps[c.Attrs["fn"].(string)], xs[0], xs[1])
	case "unary":
		return nd.Unary(binaryOps[c.Attrs["fn"].(string)], xs[0])
	case "fma":
		return nd.ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
			return b.Add(b.Mul(vs[0], vs[1]), vs[2])
		}, xs...)
	case "matmul":
		return nd.MatMul(xs[0], xs[1])
	case "gemm":
		var cc graph.Node
		if len(xs) == 3 {
			cc = xs[2]
		}
		return nd.Gemm(xs[0], xs[1], cc, attrFloat(c, "alpha"), attrFloat(c, "beta"), attrBool(c, "transA"), attrBool(c, "transB"))
	case "transpose":
		return nd.Transpose(xs[0], attrInts(t, c, "perm"))
	case "reshape":
		return nd.Reshape(xs[0], attrInts(t, c, "shape"))
	case "reshape_of_transpose":
		y, err := nd.Transpose(xs[0], attrInts(t, c, "perm"))
		if err != nil {
			return nil, err
		}
		return nd.Reshape(y, attrInts(t, c, "shape"))
	case "flatten":
		return nd.Flatten(xs[0], attrInt(t, c, "axis"))
	case "squeeze":
		return nd.Squeeze(xs[0], attrInts(t, c, "axes"))
	case "squeeze_of_transpose":
		y, err := nd.Transpose(xs[0], attrInts(t, c, "perm"))
		if err != nil {
			return nil, err
		}
		return nd.Squeeze(y, attrInts(t, c, "axes"))
	case "unsqueeze":
		return nd.Unsqueeze(xs[0], attrInts(t, c, "axes"))
	case "reduce":
		return nd.Reduce(reduceKinds[c.Attrs["kind"].(string)], xs[0], attrInts(t, c, "axes"), attrBool(c, "keepDims"))
	case "softmax":
		return nd.Softmax(xs[0], attrInt(t, c, "axis"))
	case "softmax_flattened":
		return nd.SoftmaxFlattened(xs[0], attrInt(t, c, "axis"), attrBool(c, "log"))
	case "logsoftmax":
		return nd.LogSoftmax(xs[0], attrInt(t, c, "axis"))
	case "argmax":
		return nd.ArgMax(xs[0], attrInt(t, c, "axis"), attrBool(c, "keepDims"), attrBool(c, "selectLastIndex"))
	case "argmin":
		return nd.ArgMin(xs[0], attrInt(t, c, "axis"), attrBool(c, "keepDims"), attrBool(c, "selectLastIndex"))
	case "broadcast":
		return nd.Broadcast(xs[0], attrInts(t, c, "shape"))
	case "broadcast_like":
		return nd.BroadcastLike(xs[0], xs[1])
	case "concat":
		return nd.Concat(attrInt(t, c, "axis"), xs...)
	case "einsum":
		return nd.Einsum(c.Attrs["equation"].(string), xs...)
	case "cast":
		dt, err := graph.ParseDType(c.Attrs["to"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return nd.Cast(xs[0], dt)
	}
	t.Fatalf("%s: unknown op %s", c.Name, c.Op)
	return nil, nil
}

// runFixtures evaluates every case of file with graph.Eval and compares
// with numpy's result: f32 within 1e-5 relative (plus 1e-6 absolute, for
// results near zero), f64 within 1e-12, i32 and bool exactly, NaN where
// numpy has NaN, and a zero with numpy's sign.
func runFixtures(t *testing.T, file string) {
	for _, c := range loadFixtures(t, file) {
		t.Run(c.Name, func(t *testing.T) {
			xs := make([]graph.Node, len(c.Inputs))
			bind := map[string]graph.Value{}
			for i, in := range c.Inputs {
				name := fmt.Sprintf("x%d", i)
				n, v := in.input(t, name)
				xs[i], bind[name] = n, v
			}
			y, err := build(t, c, xs)
			if err != nil {
				t.Fatal(err)
			}
			dt, ext, err := nd.Shape(y)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.Want.dtype(t); dt != want || fmt.Sprint(ext) != fmt.Sprint(c.Want.Shape) {
				t.Fatalf("type %v%v, want %v%v", dt, ext, want, c.Want.Shape)
			}
			if err := nd.BindIndexes(y, bind); err != nil {
				t.Fatal(err)
			}
			got, err := graph.Eval(y, bind)
			if err != nil {
				t.Fatal(err)
			}
			compareValue(t, got, c.Want.values(t), dt)
			// The native back end, on the fused term, agrees with the
			// interpreter.
			runNative(t, y, bind)
		})
	}
}

func compareValue(t *testing.T, got graph.Value, want []float64, dt graph.DType) {
	t.Helper()
	var vals []float64
	switch g := got.(type) {
	case *graph.Array:
		vals = g.Values()
	case graph.ScalarValue:
		vals = []float64{g.V}
	default:
		t.Fatalf("result %T", got)
	}
	if len(vals) != len(want) {
		t.Fatalf("%d values, want %d", len(vals), len(want))
	}
	rtol, atol := 0.0, 0.0
	switch dt {
	case graph.Float32:
		rtol, atol = 1e-5, 1e-6
	case graph.Float64:
		rtol, atol = 1e-12, 1e-12
	}
	bad := 0
	for i, g := range vals {
		w := want[i]
		ok := g == w || (math.IsNaN(g) && math.IsNaN(w)) || math.Abs(g-w) <= atol+rtol*math.Abs(w)
		if g == 0 && w == 0 && math.Signbit(g) != math.Signbit(w) {
			ok = false // the sign of a zero is kept exactly
		}
		if !ok {
			if bad < 5 {
				t.Errorf("element %d: got %v, want %v", i, g, w)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d elements differ", bad, len(vals))
	}
}

// fixtureFiles are the fixture files, one per family of operations.
var fixtureFiles = []string{"elementwise.json", "matmul.json", "shape.json", "reduce.json", "softmax.json", "argmax.json", "cast.json", "concat.json", "broadcast.json", "einsum.json"}

func TestElementwiseFixtures(t *testing.T) { runFixtures(t, "elementwise.json") }
func TestMatMulFixtures(t *testing.T)      { runFixtures(t, "matmul.json") }
func TestShapeFixtures(t *testing.T)       { runFixtures(t, "shape.json") }
func TestReduceFixtures(t *testing.T)      { runFixtures(t, "reduce.json") }
func TestSoftmaxFixtures(t *testing.T)     { runFixtures(t, "softmax.json") }
func TestArgMaxFixtures(t *testing.T)      { runFixtures(t, "argmax.json") }
func TestCastFixtures(t *testing.T)        { runFixtures(t, "cast.json") }
func TestConcatFixtures(t *testing.T)      { runFixtures(t, "concat.json") }
func TestBroadcastFixtures(t *testing.T)   { runFixtures(t, "broadcast.json") }
func TestEinsumFixtures(t *testing.T)      { runFixtures(t, "einsum.json") }
