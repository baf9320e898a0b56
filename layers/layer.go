package layers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// Error is a problem with a layer's arguments: the layer it is about and
// what is wrong. Layers return it, wrapped around graph's error where there
// is one, instead of panicking on user input.
type Error struct {
	Kind  string // kind of layer: "Dense", "BatchNorm", "ReLU", …
	Layer string // the layer's name, "" when that is what is wrong
	Msg   string // what is wrong
	Err   error  // the underlying error, or nil
}

// Error writes "layer (Kind): message: underlying error".
func (e *Error) Error() string {
	s := e.Kind
	if e.Layer != "" {
		s = e.Layer + " (" + e.Kind + ")"
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// layer carries what every layer constructor needs: its kind and name, for
// errors, and a builder whose nodes carry the name.
type layer struct {
	kind, name string
	*Builder
}

func newLayer(kind, name string) *layer {
	return &layer{kind: kind, name: name, Builder: NewBuilder(name)}
}

func (l *layer) errorf(format string, args ...any) error {
	return &Error{Kind: l.kind, Layer: l.name, Msg: fmt.Sprintf(format, args...)}
}

func (l *layer) wrap(err error, format string, args ...any) error {
	return &Error{Kind: l.kind, Layer: l.name, Msg: fmt.Sprintf(format, args...), Err: err}
}

// validate checks what every layer needs: a name and a float element type.
func (l *layer) validate(dt graph.DType) error {
	if l.name == "" {
		return &Error{Kind: l.kind, Msg: "empty layer name"}
	}
	if !dt.IsFloat() {
		return l.errorf("element type %v is not f32 or f64", dt)
	}
	return nil
}

// positive checks that the size argument what is at least 1.
func (l *layer) positive(what string, n int) error {
	if n < 1 {
		return l.errorf("%s = %d, want at least 1", what, n)
	}
	if n > graph.MaxExtent {
		return l.errorf("%s = %d, past the cap of %d (graph.MaxExtent)", what, n, graph.MaxExtent)
	}
	return nil
}

// axis describes one axis a layer's input must have: its name in messages
// and its extent, or 0 when any extent will do.
type axis struct {
	name   string
	extent int
}

// input checks x, the layer's input, against the element type dt and the
// axes, and returns its type. With axes nil, any rank of at least 1 fits.
func (l *layer) input(x graph.Node, dt graph.DType, axes ...axis) (*graph.ArrayType, error) {
	if x == nil {
		return nil, l.errorf("x is nil")
	}
	info, err := graph.Check(x)
	if err != nil {
		return nil, l.wrap(err, "x is ill-typed")
	}
	t := info.TypeOf(x)
	want := wantString(dt, axes)
	at, ok := t.(*graph.ArrayType)
	if !ok {
		return nil, l.errorf("x has type %v, want an array %s", t, want)
	}
	if axes != nil && at.Rank() != len(axes) {
		return nil, l.errorf("x has type %v of rank %d, want rank %d: %s", t, at.Rank(), len(axes), want)
	}
	if at.DType != dt {
		return nil, l.errorf("x has type %v, want %s: element type %v is not the layer's %v", t, want, at.DType, dt)
	}
	for i, a := range axes {
		if got := at.Layout[i].Extent; a.extent > 0 && got != a.extent {
			return nil, l.errorf("x has type %v, want %s: axis %d (%s) has extent %d, not %d", t, want, i, a.name, got, a.extent)
		}
	}
	return at, nil
}

// wantString writes the expected type of an input, as f32[batch,5].
func wantString(dt graph.DType, axes []axis) string {
	if axes == nil {
		return dt.String() + "[...]"
	}
	parts := make([]string, len(axes))
	for i, a := range axes {
		if a.extent > 0 {
			parts[i] = strconv.Itoa(a.extent)
		} else {
			parts[i] = a.name
		}
	}
	return dt.String() + "[" + strings.Join(parts, ",") + "]"
}

// param makes the parameter "<layer>.<name>" of type dt[extents].
func (l *layer) param(name string, dt graph.DType, extents ...int) (*graph.Input, error) {
	in, err := graph.NewInput(l.name+"."+name, graph.ArrayOf(dt, extents...), true)
	if err != nil {
		return nil, l.wrap(err, "parameter %s", name)
	}
	return in, nil
}

// done checks the term the layer built and returns it. A construction or
// type error here is a bug in the layer, not the user's; it is still
// returned, not panicked, with the layer named.
func (l *layer) done(y graph.Node) (graph.Node, error) {
	y, err := l.Done(y)
	if err != nil {
		return nil, l.wrap(err, "internal error building the layer")
	}
	if _, err := graph.Check(y); err != nil {
		return nil, l.wrap(err, "internal error: the layer's term is ill-typed")
	}
	return y, nil
}
