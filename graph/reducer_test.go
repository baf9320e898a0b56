package graph

import (
	"fmt"
	"testing"
)

func TestReducer(t *testing.T) {
	// Each reduction operator stands in an rnz over arguments whose
	// elements have the accumulator's type, so that the parser accepts it.
	const decls = "x : f64[4]; A : f64[4,3]; B : f64[4,3,2]; M : f64[4,2,3]; "
	cases := []struct {
		name string
		src  string // a program whose body is an rnz; its Red is recognised
		ops  string // "" when not recognised
		alg  string // Associative Commutative HasIdentity, as "acl" letters
	}{
		{"op", `reduce (+) x`, "[add]/[0]", "aci"},
		{"max", `reduce max x`, "[max]/[0]", "aci"},
		{"lifted", `reduce (zip (+)) A`, "[add]/[1]", "aci"},
		{"lifted twice", `reduce (zip (zip max)) B`, "[max]/[2]", "aci"},
		{"lambda", `reduce (\a b -> a * b) x`, "[mul]/[0]", "aci"},
		{"lambda swapped commutative", `reduce (\a b -> b + a) x`, "[add]/[0]", "aci"},
		{"lambda app", `reduce (\a b -> (+) a b) x`, "[add]/[0]", "aci"},
		{"lambda zip", `reduce (\a b -> zip max a b) A`, "[max]/[1]", "aci"},
		{"lambda zip lambda", `reduce (\a b -> zip (\u v -> u + v) a b) A`, "[add]/[1]", "aci"},
		{"lifted lambda", `reduce (zip (\u v -> min u v)) A`, "[min]/[1]", "aci"},
		{"tuple", `rnz (\p q -> (fst p + fst q, max (snd p) (snd q))) (\v -> (v, v)) x`, "[add max]/[0 0]", "aci"},
		{"tuple lifted", `rnz (\p q -> (zip (+) (fst p) (fst q), snd p * snd q)) (\r -> (r, 1)) A`, "[add mul]/[1 0]", "aci"},
		{"tuple nested", `rnz (\p q -> (fst p + fst q, (max (fst (snd p)) (fst (snd q)), zip (+) (snd (snd q)) (snd (snd p))))) (\r -> (1, (2, r))) A`,
			"[add max add]/[0 0 1]", "aci"},
		{"non-associative op", `reduce (-) x`, "[sub]/[0]", ""},
		{"non-associative lambda", `reduce (\a b -> a / b) x`, "[div]/[0]", ""},
		{"tuple with a non-associative leaf", `rnz (\p q -> (fst p + fst q, snd p - snd q)) (\v -> (v, v)) x`, "[add sub]/[0 0]", ""},
		{"swapped non-commutative", `reduce (\a b -> b - a) x`, "", ""},
		{"opaque lambda", `reduce (\a b -> a + b * 2) x`, "", ""},
		{"same parameter twice", `reduce (\a b -> a + a) x`, "", ""},
		{"constant", `reduce (\a b -> a) x`, "", ""},
		{"tuple mixed parts", `rnz (\p q -> (fst p + snd q, snd p + fst q)) (\v -> (v, v)) x`, "", ""},
		{"tuple opaque leaf", `rnz (\p q -> (fst p + fst q, exp (snd p))) (\v -> (v, v)) x`, "", ""},
		{"lifted opaque", `reduce (zip (\u v -> u * v + 1)) A`, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog, err := Parse(decls + c.src)
			if err != nil {
				t.Fatal(err)
			}
			red := prog.Body.(*RNZ).Red
			r, ok := Reducer(red, nil)
			if c.ops == "" {
				if ok {
					t.Fatalf("Reducer(%s) = %v, want not recognised", Print(red), r)
				}
				return
			}
			if !ok {
				t.Fatalf("Reducer(%s) not recognised, want %s", Print(red), c.ops)
			}
			if got := fmt.Sprintf("%v/%v", r.Ops, r.Lifts); got != c.ops {
				t.Errorf("Reducer(%s) = %s, want %s", Print(red), got, c.ops)
			}
			alg := r.Algebra()
			got := ""
			if alg.Associative {
				got += "a"
			}
			if alg.Commutative {
				got += "c"
			}
			if alg.HasIdentity {
				got += "i"
			}
			if got != c.alg {
				t.Errorf("Algebra(%s) = %+v, want %q", Print(red), alg, c.alg)
			}
		})
	}
}

// A variable bound to a reduction operator is recognised through the
// environment.
func TestReducerThroughEnv(t *testing.T) {
	prog, err := Parse(`A : f64[4,3]; let f = zip max in reduce f A`)
	if err != nil {
		t.Fatal(err)
	}
	let := prog.Body.(*Let)
	red := let.Body.(*RNZ).Red
	if _, ok := Reducer(red, nil); ok {
		t.Errorf("a free variable without an environment is recognised")
	}
	r, ok := Reducer(red, (*Scope)(nil).BindFunc(let.Var, let.Value, nil))
	if !ok || fmt.Sprint(r.Ops, r.Lifts) != "[max] [1]" {
		t.Errorf("Reducer(f) = %v, %v; want [max] [1]", r, ok)
	}
	if id := r.Algebra().Identity; id > -1e308 {
		t.Errorf("identity of max = %v, want -Inf", id)
	}
}
