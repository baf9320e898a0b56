package nativetest

import "fmt"

// Shapes of the suite: odd, so that no loop happens to divide evenly into
// a vector width, and composite where a subdivision needs a block.
const (
	matDecl = "A : f64[5,6]; B : f64[6,7];"   // C = A·B is 5×7, the reduction of length 6
	mvDecl  = "A : f64[6,9]; u : f64[9];"     // matrix-vector: 6×9 by 9
	vecDecl = "u : f64[13]; v : f64[13];"     // vectors
	elDecl  = "A : f64[7,11]; B : f64[7,11];" // elementwise
)

// Cases returns the suite's programs.
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
	add("matmul/f32", "A : f32[9,13]; B : f32[13,11];", `map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`)
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
	add("elementwise/f32", "u : f32[37]; v : f32[37];", `zip (\x y -> max (x * y + 0.1) 0 / (1 + exp (neg x))) u v`)
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
	add("softmax/f32", "A : f32[5,33];",
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
	return cs
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
