package graph

import (
	"testing"
)

// mapEnv is an Env a back end might write: its own table of bindings.
type mapEnv map[*Var]Binding

func (e mapEnv) Lookup(v *Var) (Binding, bool) { b, ok := e[v]; return b, ok }

func TestTypeOfOpenTerms(t *testing.T) {
	prog, err := Parse(`A : f64[3,4]; s : f32; map (\r -> let f = \e -> e * 2 in zip (\x y -> f x + y) r (map f r)) A`)
	if err != nil {
		t.Fatal(err)
	}
	lam := prog.Body.(*NZip).Fn.(*Lambda)
	r := lam.Params[0]
	row := &ArrayType{DType: Float64, Layout: Layout{{Extent: 4, Stride: 1}}}
	var scope *Scope
	got, err := TypeOf(lam.Body, scope.Bind(r, row))
	if err != nil {
		t.Fatal(err)
	}
	if want := "f64[4]"; got.String() != want {
		t.Errorf("TypeOf(body) = %v, want %s", got, want)
	}
	// The same through an Env of the caller's own, the let's function
	// bound there too.
	let := lam.Body.(*Let)
	env := mapEnv{r: {Type: row}, let.Var: {Fn: let.Value}}
	got, err = TypeOf(let.Body, env)
	if err != nil {
		t.Fatal(err)
	}
	if want := "f64[4]"; got.String() != want {
		t.Errorf("TypeOf(let body) = %v, want %s", got, want)
	}
	// A scope that extends the caller's Env.
	inner := let.Body.(*NZip).Fn.(*Lambda)
	got, err = TypeOf(inner.Body, ScopeOf(env).Bind(inner.Params[0], Scalar(Float64)).Bind(inner.Params[1], Scalar(Float64)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "f64"; got.String() != want {
		t.Errorf("TypeOf(inner body) = %v, want %s", got, want)
	}
	// ApplyType: the function applied to argument types.
	got, err = ApplyType(lam, []Type{row}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "f64[4]"; got.String() != want {
		t.Errorf("ApplyType = %v, want %s", got, want)
	}
	// A literal alone stays untyped; Concrete gives it f64.
	got, err = TypeOf(NewConst(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.(*ScalarType).DType != Invalid || Concrete(got).String() != "f64" {
		t.Errorf("TypeOf(1) = %v, Concrete %v; want untyped, f64", got, Concrete(got))
	}
}

func TestTypeOfErrors(t *testing.T) {
	prog, err := Parse(`A : f64[3,4]; map (\r -> map (\e -> e * 2) r) A`)
	if err != nil {
		t.Fatal(err)
	}
	lam := prog.Body.(*NZip).Fn.(*Lambda)
	r := lam.Params[0]
	for _, c := range []struct {
		name string
		env  Env
		want string
	}{
		{"unbound", nil, "r: variable r is not bound here"},
		{"scalar", (*Scope)(nil).Bind(r, Scalar(Float64)), `map (\e -> e * 2) r: nzip argument 0: f64 has no outer axis to traverse`},
		{"function", mapEnv{r: {Fn: NewIdent()}}, "r: r is a function; apply it to arguments"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := TypeOf(lam.Body, c.env)
			if err == nil || err.Error() != c.want {
				t.Errorf("error\n got %v\nwant %s", err, c.want)
			}
		})
	}
}

// A Typer gives every closed subterm one type, whatever the environment,
// and keeps it.
func TestTyperRemembersClosedTerms(t *testing.T) {
	prog, err := Parse(`A : f64[3,4]; u : f64[4]; map (\r -> zip (+) r (map (*2) u)) A`)
	if err != nil {
		t.Fatal(err)
	}
	lam := prog.Body.(*NZip).Fn.(*Lambda)
	closed := lam.Body.(*NZip).Args[1]
	ty := NewTyper()
	row := ArrayOf(Float64, 4)
	for range 2 {
		got, err := ty.TypeOf(lam.Body, (*Scope)(nil).Bind(lam.Params[0], row))
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != "f64[4]" {
			t.Errorf("TypeOf = %v, want f64[4]", got)
		}
	}
	if !ty.c.done[closed] || ty.c.done[lam.Body] {
		t.Errorf("done: closed %v, open %v; want the closed subterm remembered, the open one not", ty.c.done[closed], ty.c.done[lam.Body])
	}
}
