package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// A frame is the state one goroutine runs compiled code with: the offset
// and scalar registers and the buffer tables. Compiled code never allocates;
// it reads and writes the frame. The plan keeps one frame per worker, and
// the buffers every frame shares (inputs, kernel outputs) are the same
// slices in every frame's tables, while scratch that a parallel loop body
// uses is private to the frame.
type frame struct {
	ints []int     // offset registers; ints[0] is always 0
	flts []float64 // scalar registers
	f32  [][]float32
	f64  [][]float64
	bl   [][]bool
	i32  [][]int32
	v32  [][]float32 // vector registers of vector programs, chunk long
	v64  [][]float64
	w    int      // index of the frame in the plan
	rt   *runtime // the plan's runtime: pool, epilogue frames
	par  bool     // running inside a parallel region: loops stay sequential
	ws   wspace   // GEMM workspace of this frame
}

// Compiled code: a routine that runs on a frame.
type (
	code    func(fr *frame)
	sfn     func(fr *frame) float64     // a scalar value
	rangeFn func(fr *frame, lo, hi int) // iterations lo..hi-1 of a loop
)

func seq(cs ...code) code {
	var out []code
	for _, c := range cs {
		if c != nil {
			out = append(out, c)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	case 2:
		a, b := out[0], out[1]
		return func(fr *frame) { a(fr); b(fr) }
	}
	return func(fr *frame) {
		for _, c := range out {
			c(fr)
		}
	}
}

func run(c code, fr *frame) {
	if c != nil {
		c(fr)
	}
}

// cvKind says what a compile-time value is.
type cvKind uint8

const (
	cvView   cvKind = iota // an array, or one element, in a buffer
	cvScalar               // a scalar computed by fn (a literal, a register, an expression)
	cvVReg                 // a scalar held in a vector register of the program being built
	cvTuple                // a tuple of values
	cvFunc                 // a function term and the environment it closes over
	cvType                 // only a type: for typing and cost estimates
)

// String names the kind with its article, for error messages: "an
// array", "a tuple".
func (k cvKind) String() string {
	switch k {
	case cvView:
		return "an array"
	case cvScalar, cvVReg:
		return "a scalar"
	case cvTuple:
		return "a tuple"
	case cvFunc:
		return "a function"
	case cvType:
		return "a type"
	}
	return fmt.Sprintf("cvKind(%d)", uint8(k))
}

// A cval is what the compiler knows about a value: where it lives or how
// it is computed. Shapes and strides are static; only offsets are dynamic,
// held in registers that loops update.
type cval struct {
	kind cvKind

	// cvView, cvScalar, cvVReg: the element type (untyped for literals).
	dt graph.DType

	// cvView: buffer buf of dt's table, the view's layout (empty for one
	// element) and the register holding its offset.
	buf    int
	layout graph.Layout
	reg    int
	// acc, for a destination, is the op it accumulates with; OpInvalid
	// stores.
	acc graph.Op
	// stream, for a destination row that nothing reads back soon, asks a
	// vector loop that stores into it to stream its chunks to memory
	// (kernels.Stream: non-temporal stores).
	stream bool
	// vary, for an element of a vector loop, says which loop and where its
	// element k lies.
	vary *vsource
	// pad, for a view of a padded box padBox materialised, is the box:
	// its reader may narrow the copy of the interior (padSite).
	pad *padSite

	// cvScalar
	fn    sfn
	konst bool
	k     float64
	freg  int // the scalar register holding the value, or -1

	// cvVReg: register of the vector program vb, under construction. To
	// code outside vb (a per-element closure of it) the value is in freg.
	vreg int
	vb   *vbuilder

	// cvTuple
	elems []*cval

	// cvFunc
	node graph.Node
	env  *cenv

	// cvType
	typ graph.Type
}

// vsource places the elements of a vector loop: element k of the loop's
// current chunk lies at ints[base] + (i0+k)*stride, or, in a loop over the
// rows of a nest (rows set), element i0+k lies in row (i0+k)/rows.n at
// ints[base] + rows.offset(row) + ((i0+k) mod rows.n)*stride.
type vsource struct {
	loop   *vloop
	base   int
	stride int
	rows   *rowGeom
}

// typeOf returns the value's type.
func (v *cval) typeOf() (graph.Type, error) {
	switch v.kind {
	case cvView:
		if len(v.layout) == 0 {
			return graph.Scalar(v.dt), nil
		}
		return &graph.ArrayType{DType: v.dt, Layout: v.layout}, nil
	case cvScalar, cvVReg:
		return graph.Scalar(v.dt), nil
	case cvTuple:
		ts := make([]graph.Type, len(v.elems))
		for i, e := range v.elems {
			t, err := e.typeOf()
			if err != nil {
				return nil, err
			}
			ts[i] = t
		}
		return &graph.TupleType{Elems: ts}, nil
	case cvType:
		return v.typ, nil
	}
	return nil, fmt.Errorf("a function is used as a value")
}

// leaves returns the views of a view or tuple of views, depth first.
func (v *cval) leaves() []*cval {
	if v.kind == cvTuple {
		var out []*cval
		for _, e := range v.elems {
			out = append(out, e.leaves()...)
		}
		return out
	}
	return []*cval{v}
}

// withAcc returns dst with every leaf accumulating with op.
func (v *cval) withAcc(op graph.Op) *cval {
	if v.kind == cvTuple {
		out := &cval{kind: cvTuple, elems: make([]*cval, len(v.elems))}
		for i, e := range v.elems {
			out.elems[i] = e.withAcc(op)
		}
		return out
	}
	c := *v
	c.acc = op
	return &c
}

// withAccs returns dst with leaf i accumulating with ops[i] (tuples
// reduced componentwise).
func (v *cval) withAccs(ops []graph.Op) *cval {
	if len(ops) == 1 {
		return v.withAcc(ops[0])
	}
	out := &cval{kind: cvTuple, elems: make([]*cval, len(v.elems))}
	for i, e := range v.elems {
		out.elems[i] = e.withAcc(ops[i])
	}
	return out
}

// accs returns the accumulation op of every leaf.
func (v *cval) accs() []graph.Op {
	var out []graph.Op
	for _, l := range v.leaves() {
		out = append(out, l.acc)
	}
	return out
}

func allStore(v *cval) bool {
	for _, l := range v.leaves() {
		if l.acc != graph.OpInvalid {
			return false
		}
	}
	return true
}

// constVal returns a literal scalar.
func constVal(dt graph.DType, k float64) *cval {
	return &cval{kind: cvScalar, dt: dt, konst: true, k: k, freg: -1,
		fn: func(*frame) float64 { return k }}
}

// typeVal returns a value that only has a type.
func typeVal(t graph.Type) *cval { return &cval{kind: cvType, typ: t} }

// cenv binds variables to compile-time values: a persistent list, as the
// interpreter's environment is.
type cenv struct {
	v    *graph.Var
	val  *cval
	next *cenv
}

func (e *cenv) lookup(v *graph.Var) *cval {
	for ; e != nil; e = e.next {
		if e.v == v {
			return e.val
		}
	}
	return nil
}

func (e *cenv) bind(v *graph.Var, val *cval) *cenv { return &cenv{v: v, val: val, next: e} }
