// Command gomlx is the GoMLX peer of "hofuse bench mlp|matmul|stack": it
// runs a bench case on GoMLX's pure-Go SimpleGo backend.
//
// It is a module of its own, so that the hofuse module's command does not
// depend on GoMLX through it. hofuse builds it once per run with
//
//	cd bench/peers/gomlx && go build -o TMP/gomlx-peer .
//
// (GOWORK=off; the first build downloads GoMLX through the Go module proxy
// unless the module cache has it) and runs TMP/gomlx-peer CASE.json for each
// case. ../infer_common.py describes the case file; like the Python peers,
// the command writes its result to the case's output (.npy, the case's
// dtype) and prints {"rows": [{"backend": "gomlx", "mode": "simplego", ...}]}
// on stdout.
//
// The computation is written with GoMLX's graph package in the order
// hofuse's layers write it: dense h = Dot(h, W) + b; BatchNorm in inference
// mode (h - mean) * Rsqrt(var + eps) * scale + shift; LayerNorm with the
// row's mean and biased variance; GELU 0.5 h (1 + erf(h / √2)). The graph
// is compiled once (compile_ms) and the weights are made tensors once;
// every timed run is one Exec call with the row input, whose result is
// finalized so that SimpleGo reuses its buffers.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/gomlx/gomlx/backends/simplego"
	g "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/sbinet/npyio"
)

// benchCase is the case file hofuse writes.
type benchCase struct {
	Workload struct {
		Kind           string  `json:"kind"`
		Sizes          []int   `json:"sizes"`
		Norm           string  `json:"norm"`
		Activation     string  `json:"activation"`
		Eps            float64 `json:"eps"`
		LeakyReLUAlpha float64 `json:"leaky_relu_alpha"`
	} `json:"workload"`
	DType    string            `json:"dtype"`
	Batch    int               `json:"batch"`
	Runs     int               `json:"runs"`
	BudgetS  float64           `json:"budget_s"` // the seconds of runs when Runs is 0 (0.5 when 0)
	RowInput string            `json:"row_input"`
	Inputs   map[string]string `json:"inputs"`
	Output   string            `json:"output"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "gomlx peer: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: gomlx-peer CASE.json (written by hofuse bench --peers)")
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	var c benchCase
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("%s: %w", os.Args[1], err)
	}
	// Arguments: the row input first, then the weights in name order.
	names := []string{c.RowInput}
	for name := range c.Inputs {
		if name != c.RowInput {
			names = append(names, name)
		}
	}
	slices.Sort(names[1:])
	index := map[string]int{}
	args := make([]any, len(names))
	for i, name := range names {
		index[name] = i
		if args[i], err = readTensor(c.Inputs[name], c.DType); err != nil {
			return err
		}
	}
	backend, err := simplego.New("")
	if err != nil {
		return err
	}
	defer backend.Finalize()
	fn := func(in []*g.Node) *g.Node { return build(&c, in, index) }
	exec, err := g.NewExec(backend, fn)
	if err != nil {
		return err
	}
	defer exec.Finalize()
	start := time.Now()
	if err := exec.PreCompile(args...); err != nil {
		return err
	}
	compileMs := float64(time.Since(start)) / 1e6

	call := func() (*tensors.Tensor, error) { return exec.Exec1(args...) }
	out, err := call() // warm-up, and the result written out
	if err != nil {
		return err
	}
	if err := writeTensor(c.Output, out, c.DType); err != nil {
		return err
	}
	_ = out.FinalizeAll()
	runs := c.Runs
	if runs <= 0 {
		t := time.Now()
		r, err := call()
		if err != nil {
			return err
		}
		_ = r.FinalizeAll()
		budget := 500 * time.Millisecond
		if c.BudgetS > 0 {
			budget = time.Duration(c.BudgetS * float64(time.Second))
		}
		runs = max(20, min(2000, int(budget/max(time.Since(t), time.Microsecond))))
	}
	times := make([]float64, runs)
	for i := range times {
		t := time.Now()
		r, err := call()
		if err != nil {
			return err
		}
		times[i] = float64(time.Since(t)) / 1e6
		_ = r.FinalizeAll()
	}
	slices.Sort(times)
	row := map[string]any{"backend": "gomlx", "mode": "simplego", "p50_ms": times[runs/2],
		"p99_ms": times[min(runs-1, runs*99/100)], "runs": runs, "compile_ms": compileMs, "version": "v0.26.0",
		"times_ms": times}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"rows": []any{row}})
}

// build writes the case's computation.
func build(c *benchCase, in []*g.Node, index map[string]int) *g.Node {
	w := c.Workload
	p := func(format string, a ...any) *g.Node {
		k, ok := index[fmt.Sprintf(format, a...)]
		if !ok {
			panic(fmt.Sprintf("gomlx peer: the case has no input %s", fmt.Sprintf(format, a...)))
		}
		return in[k]
	}
	row := func(v *g.Node) *g.Node { return g.InsertAxes(v, 0) } // [f] -> [1, f]
	x := in[0]
	layerNorm := func(h, scale, shift *g.Node) *g.Node {
		m := g.ReduceAndKeep(h, g.ReduceMean, -1)
		d := g.Sub(h, m)
		v := g.ReduceAndKeep(g.Mul(d, d), g.ReduceMean, -1)
		return g.Add(g.Mul(g.Mul(d, g.Rsqrt(g.AddScalar(v, w.Eps))), row(scale)), row(shift))
	}
	switch w.Kind {
	case "matmul":
		return g.Dot(x, p("B"))
	case "softmax":
		return g.Softmax(x, -1)
	case "layernorm_gelu_residual":
		return g.Add(x, activate(layerNorm(x, p("ln.scale"), p("ln.shift")), "gelu", 0))
	}
	layers := len(w.Sizes) - 1
	h := x
	for i := 1; i <= layers; i++ {
		h = g.Add(g.Dot(h, p("dense%d.W", i)), row(p("dense%d.b", i)))
		if i == layers {
			break
		}
		switch w.Norm {
		case "batchnorm":
			inv := g.Rsqrt(g.AddScalar(row(p("bn%d.var", i)), w.Eps))
			h = g.Add(g.Mul(g.Mul(g.Sub(h, row(p("bn%d.mean", i))), inv), row(p("bn%d.scale", i))), row(p("bn%d.shift", i)))
		case "layernorm":
			h = layerNorm(h, p("ln%d.scale", i), p("ln%d.shift", i))
		}
		h = activate(h, w.Activation, w.LeakyReLUAlpha)
	}
	return h
}

func activate(h *g.Node, act string, alpha float64) *g.Node {
	switch act {
	case "relu":
		return g.MaxScalar(h, 0.0)
	case "leaky_relu":
		return g.Max(h, g.MulScalar(h, alpha)) // alpha < 1
	case "sigmoid":
		return g.Sigmoid(h)
	case "tanh":
		return g.Tanh(h)
	case "gelu":
		return g.MulScalar(g.Mul(h, g.OnePlus(g.Erf(g.MulScalar(h, 1/math.Sqrt2)))), 0.5)
	case "gelu_tanh":
		inner := g.MulScalar(g.Add(h, g.MulScalar(g.Mul(g.Mul(h, h), h), 0.044715)), math.Sqrt(2/math.Pi))
		return g.MulScalar(g.Mul(h, g.OnePlus(g.Tanh(inner))), 0.5)
	case "silu":
		return g.Mul(h, g.Sigmoid(h))
	case "softmax":
		return g.Softmax(h, -1)
	case "none":
		return h
	}
	panic(fmt.Sprintf("gomlx peer: unknown activation %q", act))
}

// readTensor reads a .npy file of the case's dtype into a tensor.
func readTensor(path, dtype string) (*tensors.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := npyio.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	shape := r.Header.Descr.Shape
	switch dtype {
	case "float32":
		var v []float32
		if err := r.Read(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return tensors.FromFlatDataAndDimensions(v, shape...), nil
	case "float64":
		var v []float64
		if err := r.Read(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return tensors.FromFlatDataAndDimensions(v, shape...), nil
	}
	return nil, fmt.Errorf("dtype %q is not float32 or float64", dtype)
}

// writeTensor writes t as a .npy file (format 1.0, C order).
func writeTensor(path string, t *tensors.Tensor, dtype string) error {
	dims := t.Shape().Dimensions
	shape := ""
	for _, d := range dims {
		shape += fmt.Sprintf("%d, ", d)
	}
	var data bytes.Buffer
	descr := "<f4"
	switch dtype {
	case "float32":
		v, err := tensors.CopyFlatData[float32](t)
		if err != nil {
			return err
		}
		binary.Write(&data, binary.LittleEndian, v)
	case "float64":
		descr = "<f8"
		v, err := tensors.CopyFlatData[float64](t)
		if err != nil {
			return err
		}
		binary.Write(&data, binary.LittleEndian, v)
	default:
		return fmt.Errorf("dtype %q is not float32 or float64", dtype)
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
	header += string(bytes.Repeat([]byte{' '}, (64-(10+len(header)+1)%64)%64)) + "\n"
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	buf.Write(data.Bytes())
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
