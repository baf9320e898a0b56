package nd

import (
	"github.com/hofuse/hofuse/graph"
)

// Param declares a constant tensor (an ONNX initializer or Constant, a
// TensorFlow Const) of element type dt and the extents (none for a scalar)
// as the parameter input name: graph.NewInput(name, type, true), row-major.
// Its value is bound by name wherever the term runs: in the inputs map of
// graph.Eval, of a back end's Run, of graph.BindInputs. Two constants of
// one program need two names.
func Param(name string, dt graph.DType, extents []int) (*graph.Input, error) {
	p := Ops{}.begin("Param")
	var t graph.Type = graph.Scalar(dt)
	if len(extents) > 0 {
		t = graph.ArrayOf(dt, extents...)
	}
	in, err := graph.NewInput(name, t, true)
	if err != nil {
		return nil, p.wrap(err, "constant %s of shape %s", name, shapeString(extents))
	}
	return in, nil
}

// Literal returns the scalar v as a typed literal of dt (f32, f64 or i32):
// f32 v, f64 v or i32 v in the notation, v rounded as the conversion does.
// A scalar constant needs no binding this way; an untyped literal
// (graph.NewConst) takes the type of the operand it meets instead.
func Literal(dt graph.DType, v float64) (graph.Node, error) {
	p := Ops{}.begin("Literal")
	var conv graph.Op
	switch dt {
	case graph.Float32:
		conv = graph.ToF32
	case graph.Float64:
		conv = graph.ToF64
	case graph.Int32:
		conv = graph.ToI32
	default:
		return nil, p.errorf("element type %v has no literal (want f32, f64 or i32)", dt)
	}
	n, err := graph.NewCall(conv, graph.NewConst(v))
	if err != nil {
		return nil, p.wrap(err, "literal %v", v)
	}
	return n, nil
}
