package native_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// A loop body that builds or passes on a nested tuple of scalars is one
// vector program: its results are the tuple's leaves, depth first, as the
// destination's (the merged Adam updates and running statistics of a
// training step build such a tuple), and they are graph.Eval's.
func TestNestedTupleVectorised(t *testing.T) {
	for _, src := range []string{
		`A : f64[5]; map (\x -> (x, (x * 2, x + 1))) A`,
		`A : f32[7]; B : f32[7]; C : f32[7]; map (\p -> p) (A, (B, C))`,
		`A : f32[9]; B : f32[9]; nzip (\a b -> ((a + b, a * b), b - a, (exp a, (a / b, 2 * b)))) A B`,
	} {
		prog, g := parseWhole(t, src)
		p, err := native.New(native.Options{Parallelism: 1}).Plan(g)
		if err != nil {
			t.Fatal(err)
		}
		d := p.Describe()
		p.Close()
		if strings.Contains(d, "not vectorisable") || !strings.Contains(d, "vector loop [") {
			t.Errorf("%s: not one vector loop:\n%s", src, d)
		}
		in := graphtest.Inputs(graphtest.Rand(3), g.Inputs)
		for _, m := range modes {
			lowertest.Check(t, native.New(m.opts), g, prog.Body, in, 0)
		}
	}
}

// TestVectorRefusals: each body the vector program builder refuses (its
// errNotVectorisable) compiles to the general loop, says so in the plan's
// description, computes what graph.Eval computes, and keeps nothing the
// refused program had compiled. Every other error of
// the builder fails the plan (see TestVectorErrorsSurface).
func TestVectorRefusals(t *testing.T) {
	for _, c := range []struct {
		name, src, why string
	}{
		{"let of a varying array",
			`a : f64[5]; B : f64[4]; map (\x -> let v = map (*x) B in (reduce (+) v, x)) a`,
			"let v binds a tuple or array that depends on the element"},
		{"let of a varying tuple",
			`A : f64[5]; map (\x -> let t = (x, x * 2) in (snd t, fst t)) A`,
			"let t binds a tuple or array that depends on the element"},
		{"varying array argument",
			`A : f64[5]; B : f64[3]; map (\p -> let f = \v -> (reduce (+) v, reduce max v) in f (map (*p) B)) A`,
			"f (map (*p) B) has a tuple or array argument that depends on the element"},
		{"let of a varying array after a hoisted value",
			`A : f64[6,5]; c : f64[5]; B : f64[3]; map (\r -> zip (\x y -> let s = exp y + 1 in let w = map (*s) B in (reduce (+) w + x, s)) r c) A`,
			"let w binds a tuple or array that depends on the element"},
		{"projection of a tuple of tuples",
			`A : f64[5]; B : f64[5]; C : f64[5]; map (\p -> fst (snd p, fst p)) ((A, B), (B, C))`,
			"fst (snd p, fst p) does not build a flat tuple of 2 scalars element by element"},
		{"tuple reduction",
			`A : f64[5]; B : f64[4]; map (\x -> reduce (\a b -> (fst a + fst b, snd a * snd b)) (map (\y -> (y * x, y)) B)) A`,
			`rnz (\a b -> (fst a + fst b, snd a * snd… does not build a flat tuple of 2 scalars element by element`},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog, g := parseWhole(t, c.src)
			p, err := native.New(native.Options{Parallelism: 1}).Plan(g)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			d := p.Describe()
			// The refusal, then the general loop in its place.
			want := "not vectorisable: " + c.why + "; a general loop instead"
			lines := strings.Split(d, "\n")
			i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == want })
			if i < 0 || i+1 == len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "loop nzip [") {
				t.Errorf("plan does not fall back with %q:\n%s", want, d)
			}
			// What the refused program had hoisted out of its loops is
			// taken back: the general loop does not read it. (Rule 9 of
			// normalisation hoists exp y + 1 above before either, as a
			// buffer the general loop reads.)
			if strings.Contains(d, "hoisted per-element vector") {
				t.Errorf("plan keeps a hoisted vector of the refused program:\n%s", d)
			}
			in := graphtest.Inputs(graphtest.Rand(3), g.Inputs)
			for _, m := range modes {
				lowertest.Check(t, native.New(m.opts), g, prog.Body, in, 0)
			}
		})
	}
}
