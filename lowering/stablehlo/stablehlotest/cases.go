// Package stablehlotest is the table of terms the StableHLO lowering is
// tested on: the paper's examples, the matrix–vector arrangements, layers,
// elementwise chains, reductions of every kind, layout views, and the
// helpers to build them for an element type and to draw their inputs. The
// text tests of package stablehlo (golden files, no plugin needed) and the
// PJRT tests of package xlarun both range over it, so that what is checked
// as text is also checked to compile and compute what graph.Eval computes.
//
// The table does not depend on StableHLO: it can serve as the shared
// correctness suite of any back end.
package stablehlotest

import (
	"fmt"
	"math/rand/v2"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// Case is one term of the table.
type Case struct {
	Name string
	// Golden marks the cases whose StableHLO text is kept in
	// testdata/<name>_<dtype>.mlir (fused: one module for fusion.Whole).
	Golden bool
	// GoldenUnfused also keeps the module of fusion.Unfused, in
	// testdata/<name>_unfused_<dtype>.mlir.
	GoldenUnfused bool
	// Src is the program in the notation, with %[1]s standing for the
	// element type; or
	Src string
	// Build makes the term for element type dt (for the layers).
	Build func(dt graph.DType) (graph.Node, error)
}

// Term returns the case's term for element type dt.
func (c Case) Term(dt graph.DType) (graph.Node, error) {
	if c.Build != nil {
		return c.Build(dt)
	}
	prog, err := graph.Parse(fmt.Sprintf(c.Src, dt))
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	return prog.Body, nil
}

// DTypes are the element types every case is tested in.
var DTypes = []graph.DType{graph.Float32, graph.Float64}

// Tol is the tolerance results are compared with graph.Eval's in
// (graph.Diff: |want - got| <= tol * (1 + |want|)) for inputs in
// [-1, 1). The back end may reassociate sums (dot_general, reduce) and use
// its own exp, tanh, logistic and erf; the interpreter rounds every f32
// operation from float64.
func Tol(dt graph.DType) float64 {
	if dt == graph.Float32 {
		return 1e-5
	}
	return 1e-12
}

// Inputs returns random values for the inputs term reads, drawn from r.
func Inputs(r *rand.Rand, term graph.Node) (map[string]graph.Value, error) {
	info, err := graph.Check(term)
	if err != nil {
		return nil, err
	}
	return graphtest.Inputs(r, info.Inputs), nil
}

// Cases returns the table.
func Cases() []Case {
	return []Case{
		// The paper's eq. 1: w_i = Σ_j (A_ij + B_ij)(v_j + u_j).
		{Name: "eq1", Golden: true, Src: `A : %[1]s[5,7]; B : %[1]s[5,7]; v : %[1]s[7]; u : %[1]s[7];
			@eq1 (zip (\a b -> rnz (+) (\x y p q -> (x + y) * (p + q)) a b v u) A B)`},
		// The paper's eq. 2: C_ik = Σ_j A_ij B_jk g_j.
		{Name: "eq2", Golden: true, Src: `A : %[1]s[4,6]; B : %[1]s[6,5]; g : %[1]s[6];
			@eq2 (map (\a -> map (\b -> rnz (+) (\x y z -> x * y * z) a b g) (flip 0 B)) A)`},
		// Matrix–vector products, in the arrangements the exchange and
		// subdivision rules produce.
		{Name: "matvec_row", Golden: true, Src: `A : %[1]s[5,6]; u : %[1]s[6];
			map (\r -> rnz (+) (*) r u) A`},
		{Name: "matvec_col", Golden: true, Src: `A : %[1]s[5,6]; u : %[1]s[6];
			rnz (zip (+)) (\c q -> map (*q) c) (flip 0 A) u`},
		{Name: "matvec_row_subdiv", Golden: true, Src: `A : %[1]s[5,6]; u : %[1]s[6];
			map (\r -> rnz (+) (\b c -> rnz (+) (*) b c) r (subdiv 0 3 u)) (subdiv 1 3 A)`},
		{Name: "matvec_col_subdiv", Golden: true, Src: `A : %[1]s[6,5]; u : %[1]s[5];
			flatten 0 (map (\Ab -> rnz (zip (+)) (\c q -> map (*q) c) (flip 0 Ab) u) (subdiv 0 2 A))`},
		{Name: "matvec_both_subdiv", Src: `A : %[1]s[6,6]; u : %[1]s[6];
			flatten 0 (map (\Ab -> rnz (zip (+)) (\Cb ub -> map (\r -> rnz (+) (*) r ub) Cb) (flip 0 (subdiv 1 2 Ab)) (subdiv 0 2 u)) (subdiv 0 3 A))`},
		{Name: "matmul", Src: `A : %[1]s[4,6]; B : %[1]s[6,5];
			map (\a -> map (\b -> rnz (+) (*) a b) (flip 0 B)) A`},
		{Name: "matmul_col", Src: `A : %[1]s[4,6]; B : %[1]s[6,5];
			map (\a -> rnz (zip (+)) (\x b -> map (*x) b) a B) A`},
		{Name: "outer_product", Src: `u : %[1]s[4]; v : %[1]s[5];
			map (\a -> map (\b -> a * b) v) u`},
		{Name: "dot_scaled", Src: `u : %[1]s[7]; v : %[1]s[7]; s : %[1]s;
			rnz (+) (\x y -> 2 * x * s * y) u v`},

		// Layers, from package layers.
		{Name: "dense_bn_relu", Golden: true, GoldenUnfused: true, Build: denseBNReLU},
		{Name: "softmax", Golden: true, Build: softmax},
		{Name: "mlp_gelu_softmax", Build: mlp},
		{Name: "batchnorm_training", Build: bnTraining},
		{Name: "layernorm", Build: layerNorm},

		// Elementwise chains.
		{Name: "elementwise", Src: `A : %[1]s[4,5]; B : %[1]s[4,5];
			zip (\a b -> zip (\x y -> tanh (x * y + 1) - exp x / 2 + logistic (x - y) * erf y
				+ rsqrt (abs x + 1) + sqrt (y * y + 0.5) + log (abs x + 1) + pow (abs y + 1) 0.5
				+ max x y - min x (-y) + select (x > y) x (-y) - neg y) a b) A B`},
		{Name: "compare_logic", Src: `v : %[1]s[9]; w : %[1]s[9];
			zip (\x y -> select (and (x > 0) (not (y <= 0))) x (select (or (x == y) (x != 0)) (y * 2) 0)) v w`},
		{Name: "convert", Src: `v : %[1]s[8];
			map (\x -> f64 (i32 (x * 10)) + f64 x * 0.5) v`},
		{Name: "convert_f32", Src: `v : %[1]s[8];
			map (\x -> f32 x * 3) v`},
		{Name: "literals", Src: `v : %[1]s[5];
			map (\x -> x * (1 / 3) + (2 * 3 - 1)) v`},
		{Name: "literal_body", Src: `v : %[1]s[5];
			map (\x -> 1) v`},
		{Name: "scalar_input", Src: `alpha : %[1]s; v : %[1]s[6];
			map (\x -> x * alpha + 1) v`},
		{Name: "sections", Src: `v : %[1]s[6];
			map (\x -> max x 0) (map (2*) (map (/4) (map (+ 0.5) v)))`},

		// Reductions.
		{Name: "reduce_max_rows", Src: `A : %[1]s[4,7];
			map (\r -> reduce max r) A`},
		{Name: "reduce_min_expr", Src: `v : %[1]s[9];
			rnz min (\x -> x * x - x) v`},
		{Name: "reduce_col_max", Src: `A : %[1]s[4,7];
			reduce (zip max) A`},
		{Name: "reduce_prod", Src: `v : %[1]s[6];
			rnz (*) (\x -> x + 1.5) v`},
		{Name: "reduce_sum_all", Src: `A : %[1]s[3,4,5];
			reduce (+) (map (\m -> reduce (+) (map (\r -> reduce (+) r) m)) A)`},
		{Name: "reduce_lambda", Src: `A : %[1]s[4,5];
			rnz (\a b -> zip (\x y -> max x y) a b) (\r -> map (\x -> x * x) r) A`},
		{Name: "reduce_invariant_body", Src: `alpha : %[1]s; A : %[1]s[3,5];
			map (\r -> rnz (+) (\x -> alpha) r) A`},
		{Name: "reduce_int_max", Src: `v : %[1]s[9];
			reduce max (map (\x -> i32 (x * 10)) v)`},
		{Name: "reduce_bool_and", Src: `v : %[1]s[9];
			reduce and (map (\x -> x > -0.9) v)`},
		{Name: "tuple_sum_sumsq", Golden: true, Src: `v : %[1]s[9];
			rnz (\a b -> (fst a + fst b, snd a + snd b)) (\x -> (x, x * x)) v`},
		{Name: "tuple_rows", Src: `A : %[1]s[4,7];
			map (\r -> rnz (\a b -> (fst a + fst b, max (snd b) (snd a))) (\x -> (x, x * x)) r) A`},
		{Name: "tuple_mean_var", Src: `v : %[1]s[8];
			let s = rnz (\a b -> (fst a + fst b, snd a + snd b)) (\x -> (x, x * x)) v in
			let m = fst s / 8 in (m, snd s / 8 - m * m)`},

		// Layout views.
		{Name: "view_flip_subdiv", Src: `A : %[1]s[6,4];
			map (\r -> reduce (zip (+)) r) (flip 0 1 (subdiv 1 2 A))`},
		{Name: "view_flatten_map", Src: `A : %[1]s[6,4];
			flatten 0 (map (\c -> map (\x -> x * 2) c) (flip 0 A))`},
		{Name: "view_subdiv_flatten", Src: `v : %[1]s[12];
			flatten 0 (map (\b -> map (\x -> x + 1) b) (subdiv 0 4 v))`},
		{Name: "view_flatten_input", Src: `A : %[1]s[3,4];
			map (\x -> x * 3) (flatten 0 A)`},
		{Name: "view_flip_result", Src: `A : %[1]s[3,4];
			flip 0 (map (\r -> map (\x -> x - 1) r) A)`},
		{Name: "view_strided_input", Src: `A : %[1]s<(4,1),(3,4)>;
			map (\r -> reduce (+) r) A`},
		{Name: "view_flip3", Src: `A : %[1]s[2,3,4];
			flip 0 2 A`},

		// Softmax-like rows: max, exp, sum.
		{Name: "softmax_rows", Src: `A : %[1]s[3,7];
			map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) A`},
		{Name: "invariant_shared", Src: `A : %[1]s[3,5]; v : %[1]s[5];
			let s = reduce (+) v in map (\r -> zip (\x y -> x * s - y) r v) A`},
		{Name: "let_fn", Src: `A : %[1]s[3,5];
			let f = \x -> x * x + 1 in map (\r -> rnz (+) f r) A`},
	}
}

func denseBNReLU(dt graph.DType) (graph.Node, error) {
	x, err := graph.NewInput("x", graph.ArrayOf(dt, 4, 6), false)
	if err != nil {
		return nil, err
	}
	y, _, err := layers.Dense("dense1", x, 6, 5, dt)
	if err != nil {
		return nil, err
	}
	y, _, err = layers.BatchNorm("bn1", y, 5, dt, layers.BatchNormOptions{})
	if err != nil {
		return nil, err
	}
	return layers.ReLU("relu1", y)
}

func softmax(dt graph.DType) (graph.Node, error) {
	x, err := graph.NewInput("x", graph.ArrayOf(dt, 3, 7), false)
	if err != nil {
		return nil, err
	}
	return layers.Softmax("softmax1", x)
}

func mlp(dt graph.DType) (graph.Node, error) {
	x, err := graph.NewInput("x", graph.ArrayOf(dt, 4, 6), false)
	if err != nil {
		return nil, err
	}
	y, _, err := layers.Dense("dense1", x, 6, 8, dt)
	if err != nil {
		return nil, err
	}
	if y, err = layers.GELU("gelu1", y); err != nil {
		return nil, err
	}
	if y, _, err = layers.Dense("dense2", y, 8, 3, dt); err != nil {
		return nil, err
	}
	return layers.Softmax("softmax1", y)
}

func bnTraining(dt graph.DType) (graph.Node, error) {
	x, err := graph.NewInput("x", graph.ArrayOf(dt, 5, 4), false)
	if err != nil {
		return nil, err
	}
	y, _, err := layers.BatchNorm("bn1", x, 4, dt, layers.BatchNormOptions{Training: true})
	if err != nil {
		return nil, err
	}
	return layers.SiLU("silu1", y)
}

func layerNorm(dt graph.DType) (graph.Node, error) {
	x, err := graph.NewInput("x", graph.ArrayOf(dt, 3, 6), false)
	if err != nil {
		return nil, err
	}
	y, _, err := layers.LayerNorm("ln1", x, 6, dt, layers.LayerNormOptions{})
	if err != nil {
		return nil, err
	}
	return layers.Tanh("tanh1", y)
}

// Golden is one golden StableHLO file: a case, an element type and a mode.
type Golden struct {
	File    string // file name under testdata: <case>[_unfused]_<dtype>.mlir
	Case    Case
	DType   graph.DType
	Unfused bool // the module of fusion.Unfused rather than of fusion.Whole
}

// Goldens lists the golden files.
func Goldens() []Golden {
	var out []Golden
	for _, c := range Cases() {
		for _, dt := range DTypes {
			if c.Golden {
				out = append(out, Golden{File: fmt.Sprintf("%s_%v.mlir", c.Name, dt), Case: c, DType: dt})
			}
			if c.GoldenUnfused {
				out = append(out, Golden{File: fmt.Sprintf("%s_unfused_%v.mlir", c.Name, dt), Case: c, DType: dt, Unfused: true})
			}
		}
	}
	return out
}

// Graph returns the golden's term and kernel graph.
func (g Golden) Graph() (graph.Node, *fusion.Graph, error) {
	term, err := g.Case.Term(g.DType)
	if err != nil {
		return nil, nil, err
	}
	part := fusion.Whole
	if g.Unfused {
		part = fusion.Unfused
	}
	kg, err := part(term)
	return term, kg, err
}

// Lower returns the golden's lowered module.
func (g Golden) Lower() (graph.Node, *stablehlo.Lowered, error) {
	term, kg, err := g.Graph()
	if err != nil {
		return nil, nil, err
	}
	low, err := stablehlo.LowerGraph(kg)
	return term, low, err
}

// Module returns the golden's module text.
func (g Golden) Module() (string, error) {
	_, low, err := g.Lower()
	if err != nil {
		return "", err
	}
	return low.Text, nil
}
