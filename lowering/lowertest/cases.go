package lowertest

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// Shapes of the suite: odd, so that no loop happens to divide evenly into
// a vector width, and composite where a subdivision needs a block.
const (
	matDecl = "A : f64[5,6]; B : f64[6,7];"   // C = A·B is 5×7, the reduction of length 6
	mvDecl  = "A : f64[6,9]; u : f64[9];"     // matrix-vector: 6×9 by 9
	vecDecl = "u : f64[13]; v : f64[13];"     // vectors
	elDecl  = "A : f64[7,11]; B : f64[7,11];" // elementwise
)

// both is the element types of a templated case.
var both = []graph.DType{graph.Float32, graph.Float64}

// Cases returns the suite's programs: the paper's examples, every loop
// order of the matrix product, the six arrangements of the matrix-vector
// product, layers, elementwise chains, reductions of every kind, views
// (flipped, subdivided, flattened, column-major), odd sizes, special
// values and tuples of mixed rank.
func Cases() []Case {
	var cs []Case
	add := func(name, decls, term string) {
		cs = append(cs, Case{Name: name, Src: src(decls, term)})
	}

	// The paper's motivating examples (section 2).
	add("paper/eq1-fused", "A : f64[7,9]; B : f64[7,9]; u : f64[9]; v : f64[9];",
		`zip (\ra rb -> rnz (+) (\x y p q -> (x + y) * (p + q)) ra rb v u) A B`)
	add("paper/eq1-unfused", "A : f64[7,9]; B : f64[7,9]; u : f64[9]; v : f64[9];",
		`map (\r -> rnz (+) (*) r (zip (+) v u)) (zip (zip (+)) A B)`)
	add("paper/eq2", "A : f64[5,6]; B : f64[6,7]; g : f64[6];",
		`map (\r -> map (\c -> rnz (+) (\a b q -> a * b * q) r c g) (flip 0 B)) A`)

	// Matrix-vector product, both forms (section 3).
	add("matvec/rows", mvDecl, `map (\r -> rnz (+) (*) r u) A`)
	add("matvec/columns", mvDecl, `rnz (zip (+)) (\c q -> map (\e -> e * q) c) (flip 0 A) u`)
	add("matvec/columns-section", mvDecl, `rnz (zip (+)) (\c q -> map (*q) c) (flip 0 A) u`)

	// The six subdivided arrangements of the matrix-vector product
	// (section 3, 1a-2c). The 2x forms subdivide the rows, so their result
	// is subdivided too and flatten gives back the vector.
	add("matvec/1a", mvDecl, `map (\r -> rnz (+) (\b c -> rnz (+) (*) b c) r (subdiv 0 3 u)) (subdiv 1 3 A)`)
	add("matvec/1b", mvDecl, `rnz (zip (+)) (\C c -> map (\r -> rnz (+) (*) r c) C) (flip 0 (subdiv 1 3 A)) (subdiv 0 3 u)`)
	add("matvec/1c", mvDecl, `rnz (zip (+)) (\C d -> rnz (zip (+)) (\c e -> map (*e) c) C d) (flip 1 (flip 0 (subdiv 1 3 A))) (subdiv 0 3 u)`)
	add("matvec/2a", mvDecl, `flatten 0 (rnz (zip (zip (+))) (\C e -> map (\b -> map (*e) b) C) (subdiv 1 2 (flip 0 A)) u)`)
	add("matvec/2b", mvDecl, `flatten 0 (map (\r -> rnz (zip (+)) (\b e -> map (*e) b) r u) (flip 1 (subdiv 0 2 A)))`)
	add("matvec/2c", mvDecl, `flatten 0 (map (\R -> map (\r -> rnz (+) (*) r u) R) (subdiv 0 2 A))`)

	// The matrix product in every loop order (section 4): MatmulOrders.
	for _, o := range MatmulOrders() {
		add("matmul/"+o.Name, matDecl, o.Term)
	}
	for _, o := range BlockedMatmulOrders(3) {
		add("matmul-blocked/"+o.Name, matDecl, o.Term)
	}
	add("matmul/f32-odd", "A : f32[9,13]; B : f32[13,11];", `map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`)
	add("matmul/column-major-inputs", "A : f64<(5,1),(6,5)>; B : f64<(6,1),(7,6)>;",
		`map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`)
	add("matmul/transposed-result", matDecl, `flip 0 (map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A)`)
	add("matmul/strided-A", "A : f64[6,5]; B : f64[6,7];",
		`map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) (flip 0 A)`)

	// The dense layer, unfused and fused with batch norm and ReLU: the
	// GEMM shapes.
	dense := "X : f32[9,13]; W : f32[13,11]; b : f32[11]; m : f32[11]; s : f32[11]; g : f32[11]; be : f32[11];"
	add("dense/unfused", dense, `map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 W)) b) X`)
	add("dense/fused-bn-relu", dense,
		`map (\r -> nzip (\c bb mm ss gg bt -> max ((((rnz (+) (*) r c) + bb) - mm) * rsqrt (abs ss + 0.1) * gg + bt) 0) (flip 0 W) b m s g be) X`)
	add("dense/fused-f64", "X : f64[4,7]; W : f64[7,5]; b : f64[5];",
		`map (\r -> nzip (\c bb -> tanh (rnz (+) (*) c r + bb)) (flip 0 W) b) X`)
	add("dense/batch1", "X : f32[1,13]; W : f32[13,11]; b : f32[11];",
		`map (\r -> nzip (\c bb -> max (rnz (+) (*) r c + bb) 0) (flip 0 W) b) X`)
	add("dense/row-dependent-epilogue", "X : f32[6,5]; W : f32[5,4]; Y : f32[6,4];",
		`zip (\r y -> nzip (\c q -> rnz (+) (*) r c * 2 + q) (flip 0 W) y) X Y`)
	add("dense/transB", "X : f64[6,5]; V : f64[4,5];", `map (\r -> map (\c -> rnz (+) (*) r c) V) X`)
	add("dense/bool-epilogue", "X : f32[6,5]; W : f32[5,4];",
		`map (\r -> map (\c -> rnz (+) (*) r c > 0) (flip 0 W)) X`)

	// Elementwise chains.
	add("elementwise/chain", elDecl, `zip (\ra rb -> zip (\x y -> max (x * y + 1) 0 - exp (x / 2)) ra rb) A B`)
	add("elementwise/nested-map", elDecl, `map (\r -> map (\x -> tanh x * 2) r) A`)
	add("elementwise/sections", vecDecl, `map (*2) (map (3-) (map (\x -> max x 0.25) u))`)
	add("elementwise/select", vecDecl, `zip (\x y -> select (x > y) x (y * 0.5)) u v`)
	add("elementwise/unary", vecDecl, `map (\x -> logistic x + sqrt (abs x) + log (abs x + 1) + erf x - neg x + pow (abs x) 1.5) u`)
	add("elementwise/let", vecDecl, `zip (\x y -> let d = x - y in d * d + d) u v`)
	add("elementwise/app", vecDecl, `zip (\x y -> (\a b -> a * b + a) (x + 1) y) u v`)
	add("elementwise/f32-long", "u : f32[37]; v : f32[37];", `zip (\x y -> max (x * y + 0.1) 0 / (1 + exp (neg x))) u v`)
	add("elementwise/mixed-types", "u : f32[9]; v : f64[9];", `zip (\x y -> f64 (x * 2) + y) u v`)
	add("elementwise/long", "u : f64[1000]; v : f64[1000];", `zip (\x y -> x * y - 2 * x) u v`)
	add("elementwise/bool-result", vecDecl, `zip (\x y -> x > y) u v`)
	add("elementwise/i32-result", vecDecl, `map (\x -> i32 (x * 10)) u`)
	add("elementwise/logic", vecDecl, `zip (\x y -> select (and (x > 0) (not (y > 0))) 1 0) u v`)
	add("elementwise/scalar-input", "u : f64[13]; s : f64;", `map (\x -> x * s + s) u`)
	add("elementwise/let-fn", vecDecl, `let f = \a -> a * a + 1 in zip (\x y -> f x - f y) u v`)
	add("elementwise/lifted", elDecl, `zip (zip (+)) A B`)
	add("elementwise/partial-nzip", elDecl, `map (map (*2)) A`)
	add("elementwise/id", elDecl, `map id A`)

	// Views: flipped, subdivided, flattened, column-major.
	add("views/flip", elDecl, `map (\r -> map (\x -> x * 2) r) (flip 0 A)`)
	add("views/subdiv", vecDecl, `map (\b -> reduce (+) b) (subdiv 0 13 u)`)
	add("views/subdiv-blocks", "u : f64[12];", `map (\b -> reduce max b) (subdiv 0 4 u)`)
	add("views/flatten-subdiv", "A : f64[6,4];", `map (\r -> map (\x -> x + 1) r) (flatten 1 (subdiv 1 2 (flip 0 A)))`)
	add("views/flip-copy", elDecl, `flip 0 A`)
	add("views/column-major", "A : f64<(7,1),(5,7)>;", `map (\r -> reduce (+) r) A`)
	add("views/flip-of-computed", elDecl, `flip 0 (zip (zip (+)) A B)`)
	add("views/subdiv-of-computed", "u : f64[12];", `subdiv 0 3 (map exp u)`)
	add("views/flatten-of-computed", "A : f64[4,6];", `flatten 0 (map (map exp) A)`)

	// Reductions.
	add("reduce/sum", vecDecl, `reduce (+) u`)
	add("reduce/max", vecDecl, `reduce max u`)
	add("reduce/min", vecDecl, `reduce min u`)
	add("reduce/mul", vecDecl, `rnz (*) (\x -> 1 + x * 0.1) u`)
	add("reduce/dot", vecDecl, `rnz (+) (*) u v`)
	add("reduce/dot-lambda", vecDecl, `rnz (+) (\a b -> b * a) u v`)
	add("reduce/long", "u : f64[1000];", `rnz (+) (\x -> x * x) u`)
	add("reduce/tuple", vecDecl, `rnz (\a b -> (fst a + fst b, max (snd a) (snd b))) (\x -> (x, x)) u`)
	add("reduce/tuple-arrays", elDecl, `rnz (\a b -> (zip (+) (fst a) (fst b), zip max (snd a) (snd b))) (\x y -> (x, y)) A B`)
	add("reduce/general", vecDecl, `rnz (\a b -> a * 0.5 + b) id u`)
	add("reduce/general-arrays", elDecl, `rnz (\a b -> zip (\x y -> x * 0.5 + y) a b) id A`)
	add("reduce/rows", elDecl, `map (\r -> reduce (+) r) A`)
	add("reduce/columns", elDecl, `reduce (zip (+)) A`)
	add("reduce/columns-max", elDecl, `reduce (zip max) A`)
	add("reduce/total", elDecl, `rnz (+) (\r -> reduce (+) r) A`)
	add("reduce/nested-blocks", "u : f64[12]; v : f64[12];", `rnz (+) (\b c -> rnz (+) (*) b c) (subdiv 0 3 u) (subdiv 0 3 v)`)
	add("reduce/inside-add", vecDecl, `map (\x -> x + reduce max u) v`)
	add("reduce/max-in-sum", elDecl, `rnz (+) (\r -> reduce max r) A`)
	add("reduce/sum-of-maxes-lifted", "A : f64[3,4,5];", `rnz (zip (+)) (\M -> reduce (zip max) M) A`)
	add("reduce/sum-of-maxes-lifted-long", "A : f64[5,6,5];", `rnz (zip (+)) (\M -> reduce (zip max) M) A`)
	add("reduce/large", "u : f64[40000];", `rnz (+) (\x -> x * x) u`)
	add("reduce/large-max", "u : f32[40000];", `reduce max (map (\x -> x * 3) u)`)
	add("reduce/large-rows", "A : f64[400,100];", `rnz (+) (\r -> reduce max r) A`)
	add("reduce/large-columns", "A : f64[400,100];", `reduce (zip (+)) A`)
	add("elementwise/large", "A : f32[300,200]; B : f32[300,200];", `zip (zip (\x y -> x * y + exp x)) A B`)
	add("reduce/f32", "u : f32[301];", `reduce (+) (map (\x -> x * x) u)`)
	add("reduce/and", vecDecl, `rnz and (\x -> x > -2) u`)
	add("reduce/element-dependent", vecDecl, `map (\x -> x * rnz (+) (\a -> a * x) v) u`)

	// Softmax over rows, layer norm, batch norm in training mode.
	add("softmax/rows", elDecl,
		`map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) A`)
	add("softmax/rows-f32", "A : f32[5,33];",
		`map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) A`)
	add("layernorm", "A : f64[5,8]; g : f64[8]; b : f64[8];",
		`map (\r -> let m = reduce (+) r / 8 in let k = rsqrt (rnz (+) (\v -> (v - m) * (v - m)) r / 8 + 0.00001) in nzip (\v gg bb -> (v - m) * k * gg + bb) r g b) A`)
	add("batchnorm-training", "X : f64[6,4]; g : f64[4]; b : f64[4];",
		`let mean = map (/6) (reduce (zip (+)) X) in let var = map (/6) (rnz (zip (+)) (\r -> zip (\v m -> (v - m) * (v - m)) r mean) X) in map (\r -> nzip (\v m s gg bb -> (v - m) * rsqrt (s + 0.00001) * gg + bb) r mean var g b) X`)

	// Tuples and lets.
	add("tuple/result", vecDecl, `(map exp u, reduce (+) v)`)
	add("tuple/nzip", vecDecl, `zip (\x y -> (x + y, x * y)) u v`)
	add("tuple/proj", vecDecl, `fst (zip (\x y -> (x + y, x * y)) u v)`)
	add("tuple/args", vecDecl, `map (\p -> fst p * snd p) (u, v)`)
	add("let/array", elDecl, `let C = zip (zip (+)) A B in map (\r -> reduce (+) r) C`)
	add("let/in-lambda", elDecl, `map (\r -> let e = map exp r in zip (+) e (map (*2) e)) A`)
	add("let/shared", vecDecl, `let w = map exp u in zip (+) w (map (\x -> x * reduce (+) w) v)`)
	add("hoist/closed-under-lambda", "A : f64[7,11]; u : f64[11];", `map (\r -> zip (+) r (map exp (fst (u, 0)))) A`)

	// A rank-3 program.
	add("rank3/batched-matmul", "A : f64[3,4,5]; B : f64[3,5,2];",
		`zip (\a b -> map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 b)) a) A B`)

	// Templated cases, in f32 and f64: %[1]s is the element type. (The
	// StableHLO goldens come from the ones marked Golden.)
	for _, c := range []Case{
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
		{Name: "layernorm_layer", Build: layerNorm},

		// Elementwise chains.
		{Name: "elementwise", Src: `A : %[1]s[4,5]; B : %[1]s[4,5];
			zip (\a b -> zip (\x y -> tanh (x * y + 1) - exp x / 2 + logistic (x - y) * erf y
				+ rsqrt (abs x + 1) + sqrt (y * y + 0.5) + log (abs x + 1) + pow (abs y + 1) 0.5
				+ max x y - min x (-y) + select (x > y) x (-y) - neg y) a b) A B`},
		{Name: "compare_logic", Src: `v : %[1]s[9]; w : %[1]s[9];
			zip (\x y -> select (and (x > 0) (not (y <= 0))) x (select (or (x == y) (x != 0)) (y * 2) 0)) v w`},
		// The first-element view (a row, a column, a row of a flipped or
		// nested array) and stopgrad, which is its operand.
		{Name: "first_view", Src: `A : %[1]s[5,7]; B : %[1]s[3,4,4];
			(zip (\a c -> stopgrad a * 2 + c) (first 0 A) (first 1 (flip 0 A)),
			 map (\m -> zip (+) (first 0 m) (first 1 m)) (flip 1 (subdiv 1 4 (flatten 1 B))),
			 map (\r -> zip (\v k -> v - stopgrad k) r (first 0 A)) A)`},
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
	} {
		if c.DTypes == nil {
			c.DTypes = both
		}
		cs = append(cs, c)
	}

	cs = append(cs, oddSizes()...)
	cs = append(cs, moreViews()...)
	cs = append(cs, specials()...)
	cs = append(cs, mixedRank()...)
	cs = append(cs, windowCases()...)
	return cs
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

// An Order is one loop order of the matrix product C = A·B.
type Order struct {
	Name string // the nesting of higher-order functions, outermost first: mapA_mapB_rnz
	Term string // over inputs A (m×k) and B (k×n)
}

// MatmulOrders returns the six loop orders of the naive matrix product
// (the paper's table 1). The three with B's map outside compute Cᵀ and
// flip it back.
func MatmulOrders() []Order {
	return []Order{
		{"mapA_mapB_rnz", `map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`},
		{"mapA_rnz_mapB", `map (\rA -> rnz (zip (+)) (\a rB -> map (\b -> a * b) rB) rA B) A`},
		{"rnz_mapA_mapB", `rnz (zip (zip (+))) (\cA rB -> map (\a -> map (\b -> a * b) rB) cA) (flip 0 A) B`},
		{"mapB_mapA_rnz", `flip 0 (map (\cB -> map (\rA -> rnz (+) (*) rA cB) A) (flip 0 B))`},
		{"mapB_rnz_mapA", `flip 0 (map (\cB -> rnz (zip (+)) (\b cA -> map (\a -> a * b) cA) cB (flip 0 A)) (flip 0 B))`},
		{"rnz_mapB_mapA", `flip 0 (rnz (zip (zip (+))) (\rB cA -> map (\b -> map (\a -> a * b) cA) rB) B (flip 0 A))`},
	}
}

// BlockedMatmulOrders returns the twelve loop orders of the matrix product
// with its reduction subdivided into blocks of bs (the paper's table 2):
// the outer rnz runs over blocks, the inner one within a block.
func BlockedMatmulOrders(bs int) []Order {
	r := func(s string) string { return fmt.Sprintf(s, bs, bs) }
	Ab := r("(flip 0 (subdiv 1 %d A)) (subdiv 0 %d B)") // blocks of A's columns and B's rows
	return []Order{
		{"rnz_mapA_mapB_rnz", `rnz (zip (zip (+))) (\Ab Bb -> map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 Bb)) Ab) ` + Ab},
		{"mapA_rnz_mapB_rnz", r(`map (\rA -> rnz (zip (+)) (\ab Bb -> map (\cB -> rnz (+) (*) ab cB) (flip 0 Bb)) (subdiv 0 %d rA) (subdiv 0 %d B)) A`)},
		{"rnz_mapA_rnz_mapB", `rnz (zip (zip (+))) (\Ab Bb -> map (\rA -> rnz (zip (+)) (\a rB -> map (\b -> a * b) rB) rA Bb) Ab) ` + Ab},
		{"mapA_rnz_rnz_mapB", r(`map (\rA -> rnz (zip (+)) (\ab Bb -> rnz (zip (+)) (\a rB -> map (\b -> a * b) rB) ab Bb) (subdiv 0 %d rA) (subdiv 0 %d B)) A`)},
		{"rnz_rnz_mapA_mapB", `rnz (zip (zip (+))) (\Ab Bb -> rnz (zip (zip (+))) (\cA rB -> map (\a -> map (\b -> a * b) rB) cA) (flip 0 Ab) Bb) ` + Ab},
		{"mapB_rnz_mapA_rnz", r(`flip 0 (map (\cB -> rnz (zip (+)) (\bb Ab -> map (\rA -> rnz (+) (*) rA bb) Ab) (subdiv 0 %d cB) (flip 0 (subdiv 1 %d A))) (flip 0 B))`)},
		{"rnz_mapB_mapA_rnz", `flip 0 (rnz (zip (zip (+))) (\Ab Bb -> map (\cB -> map (\rA -> rnz (+) (*) rA cB) Ab) (flip 0 Bb)) ` + Ab + ")"},
		{"mapA_mapB_rnz_rnz", r(`map (\rA -> map (\cB -> rnz (+) (\ab bb -> rnz (+) (*) ab bb) (subdiv 0 %d rA) (subdiv 0 %d cB)) (flip 0 B)) A`)},
		{"rnz_mapB_rnz_mapA", `flip 0 (rnz (zip (zip (+))) (\Ab Bb -> map (\cB -> rnz (zip (+)) (\b cA -> map (\a -> a * b) cA) cB (flip 0 Ab)) (flip 0 Bb)) ` + Ab + ")"},
		{"mapB_mapA_rnz_rnz", r(`flip 0 (map (\cB -> map (\rA -> rnz (+) (\ab bb -> rnz (+) (*) ab bb) (subdiv 0 %d rA) (subdiv 0 %d cB)) A) (flip 0 B))`)},
		{"mapB_rnz_rnz_mapA", r(`flip 0 (map (\cB -> rnz (zip (+)) (\bb Ab -> rnz (zip (+)) (\b cA -> map (\a -> a * b) cA) bb (flip 0 Ab)) (subdiv 0 %d cB) (flip 0 (subdiv 1 %d A))) (flip 0 B))`)},
		{"rnz_rnz_mapB_mapA", `flip 0 (rnz (zip (zip (+))) (\Ab Bb -> rnz (zip (zip (+))) (\rB cA -> map (\b -> map (\a -> a * b) cA) rB) Bb (flip 0 Ab)) ` + Ab + ")"},
	}
}

// oddSizes are the sizes that no vector width divides and that put a
// single element, or one more than a block, on every axis.
var oddSizes_ = []int{1, 3, 7, 17, 33}

// oddSizes returns the shapes of the common kernels at every odd size.
func oddSizes() []Case {
	var cs []Case
	for _, n := range oddSizes_ {
		t := func(name, src string) {
			cs = append(cs, Case{Name: fmt.Sprintf("odd/%s-%d", name, n), Src: fmt.Sprintf(src, "%[1]s", n), DTypes: both})
		}
		t("matmul", `A : %[1]s[%[2]d,%[2]d]; B : %[1]s[%[2]d,3]; map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`)
		t("matvec", `A : %[1]s[3,%[2]d]; u : %[1]s[%[2]d]; map (\r -> rnz (+) (*) r u) A`)
		t("matvec-columns", `A : %[1]s[%[2]d,3]; u : %[1]s[%[2]d]; rnz (zip (+)) (\r q -> map (*q) r) A u`)
		t("sum", `u : %[1]s[%[2]d]; reduce (+) u`)
		t("max", `u : %[1]s[%[2]d]; reduce max (map (\x -> x * 3) u)`)
		t("elementwise", `u : %[1]s[%[2]d]; v : %[1]s[%[2]d]; zip (\x y -> max (x * y + 1) 0 - exp (x / 2)) u v`)
		t("softmax", `A : %[1]s[2,%[2]d]; map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) A`)
		t("columns", `A : %[1]s[%[2]d,5]; reduce (zip (+)) A`)
		t("transpose", `A : %[1]s[%[2]d,2]; flip 0 (map (map (*2)) A)`)
	}
	return cs
}

// moreViews returns views of views: subdivisions of flipped arrays,
// flattened subdivisions of inner axes, flips of computed arrays.
func moreViews() []Case {
	return []Case{
		{Name: "views/flip-inner", DTypes: both, Src: `A : %[1]s[3,4,5];
			map (\m -> reduce (+) (map (\r -> reduce max r) m)) (flip 1 2 A)`},
		{Name: "views/flatten-subdiv-inner", DTypes: both, Src: `A : %[1]s[4,6];
			map (\r -> reduce (+) r) (flatten 1 (subdiv 1 3 A))`},
		{Name: "views/subdiv-of-flip", DTypes: both, Src: `A : %[1]s[6,4];
			map (\b -> reduce (zip (+)) b) (subdiv 0 2 (flip 0 A))`},
		{Name: "views/flip-of-subdiv-result", DTypes: both, Src: `u : %[1]s[12];
			flip 0 (subdiv 0 4 (map (*2) u))`},
		{Name: "views/flip-flip", DTypes: both, Src: `A : %[1]s[3,4];
			map (\r -> map (\x -> x + 1) r) (flip 0 (flip 0 A))`},
		{Name: "views/subdiv-outer-rows", DTypes: both, Src: `A : %[1]s[6,5]; u : %[1]s[5];
			flatten 0 (map (\B -> map (\r -> rnz (+) (*) r u) B) (subdiv 0 3 A))`},
		{Name: "views/column-major-rank3", DTypes: both, Src: `A : %[1]s<(2,1),(3,2),(4,6)>;
			map (\m -> map (\r -> reduce (+) r) m) A`},
	}
}

// specials returns programs whose inputs hold NaN, +Inf, -Inf and -0
// (Case.Special): every back end must agree with the interpreter on them,
// NaN for NaN, an infinity for the same infinity.
func specials() []Case {
	s := func(name, src string) Case {
		return Case{Name: "special/" + name, Src: src, DTypes: both, Special: 0.15}
	}
	const uv = `u : %[1]s[17]; v : %[1]s[17]; `
	return []Case{
		s("elementwise", uv+`zip (\x y -> x * y + 1 - exp x) u v`),
		s("divide", uv+`zip (\x y -> x / (y + 2)) u v`),
		s("sum", uv+`reduce (+) u`),
		s("max", uv+`reduce max u`),
		s("min", uv+`reduce min u`),
		s("relu", uv+`map (\x -> max x 0) u`),
		s("max-elementwise", uv+`zip max u v`),
		s("min-elementwise", uv+`zip min u v`),
		s("select", uv+`zip (\x y -> select (x > y) x y) u v`),
		s("dot", uv+`rnz (+) (*) u v`),
		s("matvec", `A : %[1]s[5,17]; u : %[1]s[17]; map (\r -> rnz (+) (*) r u) A`),
		s("columns-max", `A : %[1]s[9,5]; reduce (zip max) A`),
		s("softmax", `A : %[1]s[3,7]; map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) A`),
		s("unary", uv+`map (\x -> tanh x + logistic x + abs x + neg x) u`),
	}
}

// mixedRank returns traversals over tuples whose elements have different
// ranks: the row of each element is taken at the traversal's index.
func mixedRank() []Case {
	return []Case{
		// Issue 8, item 1: native took the reduction out of the loop.
		{Name: "tuple/mixed-rank", Src: `a : f64[3]; Y : f64[3,1,1]; Z : f64[3,3];
			zip (\x p -> reduce (+) (snd p)) a (Y, Z)`},
		{Name: "tuple/mixed-rank-both", DTypes: both, Src: `a : %[1]s[4]; Y : %[1]s[4,1,1]; Z : %[1]s[4,3];
			zip (\x p -> x * reduce (+) (snd p) + reduce (+) (map (\m -> reduce (+) m) (fst p))) a (Y, Z)`},
		{Name: "tuple/mixed-rank-rnz", DTypes: both, Src: `Y : %[1]s[5,2,3]; Z : %[1]s[5,3];
			rnz (zip (+)) (\p -> zip (+) (reduce (zip (+)) (fst p)) (snd p)) (Y, Z)`},
		{Name: "tuple/mixed-rank-map", DTypes: both, Src: `Y : %[1]s[5,1]; Z : %[1]s[5,4,2];
			map (\p -> map (\r -> reduce (+) r + reduce (+) (fst p)) (snd p)) (Y, Z)`},
	}
}
