package native_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestVectorRefusals: each body the vector program builder refuses (its
// errNotVectorisable) compiles to the general loop, says so in the plan's
// description, computes what graph.Eval computes, and keeps nothing the
// refused program had compiled. Every other error of
// the builder fails the plan (see TestVectorErrorsSurface).
func TestVectorRefusals(t *testing.T) {
	for _, c := range []struct {
		name, src, why string
	}{
		{"nested tuple built",
			`A : f64[5]; map (\x -> (x, (x * 2, x + 1))) A`,
			"the loop body builds a tuple of 2 elements, not a flat tuple of 3 scalars"},
		{"nested tuple passed on",
			`A : f32[7]; B : f32[7]; C : f32[7]; map (\p -> p) (A, (B, C))`,
			"the loop body returns a tuple of 2 elements, not a flat tuple of 3 scalars"},
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
			prog, err := graph.Parse(c.src)
			if err != nil {
				t.Fatal(err)
			}
			g, err := fusion.Whole(prog.Body)
			if err != nil {
				t.Fatal(err)
			}
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
			// What the refused program had hoisted out of the loops (exp y
			// + 1 above) is taken back: the general loop does not read it.
			if strings.Contains(d, "hoisted") {
				t.Errorf("plan keeps a hoisted vector of the refused program:\n%s", d)
			}
			in := graphtest.Inputs(graphtest.Rand(3), g.Inputs)
			for _, m := range modes {
				lowertest.Check(t, native.New(m.opts), g, prog.Body, in, 0)
			}
		})
	}
}
