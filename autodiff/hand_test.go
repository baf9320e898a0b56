package autodiff

import (
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// The gradient of a dot product x·y is y with respect to x and x with
// respect to y.
func TestGradDot(t *testing.T) {
	p := parse(t, "x : f64[3]; y : f64[3]; rnz (+) (*) x y")
	loss, g := gradOf(t, p, map[string]graph.Value{"x": arr(t, []float64{1, 2, 3}, 3), "y": arr(t, []float64{4, 5, 6}, 3)}, "x", "y")
	if loss != 32 {
		t.Errorf("loss = %v, want 32", loss)
	}
	checkVec(t, "dx", g[0], []float64{4, 5, 6}, 0)
	checkVec(t, "dy", g[1], []float64{1, 2, 3}, 0)
}

// The gradients of v·(A u) are v uᵀ for A, Aᵀ v for u and A u for v.
func TestGradMatVec(t *testing.T) {
	p := parse(t, `A : f64[2,3]; u : f64[3]; v : f64[2];
		rnz (+) (*) v (map (\r -> rnz (+) (*) r u) A)`)
	A := []float64{1, 2, 3, 4, 5, 6}
	u := []float64{0.5, -1, 2}
	v := []float64{3, -2}
	loss, g := gradOf(t, p, map[string]graph.Value{"A": arr(t, A, 2, 3), "u": arr(t, u, 3), "v": arr(t, v, 2)}, "A", "u", "v")
	// A u = (1*0.5 - 2 + 6, 4*0.5 - 5 + 12) = (4.5, 9); v·(A u) = 13.5 - 18.
	if loss != -4.5 {
		t.Errorf("loss = %v, want -4.5", loss)
	}
	checkVec(t, "dA", g[0], []float64{1.5, -3, 6, -1, 2, -4}, 0)
	checkVec(t, "du", g[1], []float64{3 - 8, 6 - 10, 9 - 12}, 0)
	checkVec(t, "dv", g[2], []float64{4.5, 9}, 0)
}

// A dense layer with bias and ReLU, summed: Y = relu(X W + b), loss = sum
// Y. With M the mask of positive pre-activations, dW = Xᵀ M, db = the
// column sums of M and dX = M Wᵀ; the reference below computes them with
// plain loops.
func TestGradDenseReLU(t *testing.T) {
	p := parse(t, `X : f64[4,3]; W : f64[3,2]; b : f64[2];
		rnz (+) (\y -> rnz (+) id y)
		  (map (\x -> zip (\c bj -> max (rnz (+) (*) x c + bj) 0) (flip 0 W) b) X)`)
	X := []float64{1, -2, 0.5, 0.3, 0.7, -1, -1.5, 2, 1, 0.2, 0.1, -0.4}
	W := []float64{0.5, -1, 1.5, 0.25, -0.75, 2}
	b := []float64{0.1, -0.2}
	loss, g := gradOf(t, p, map[string]graph.Value{"X": arr(t, X, 4, 3), "W": arr(t, W, 3, 2), "b": arr(t, b, 2)}, "X", "W", "b")
	var wantLoss float64
	dX, dW, db := make([]float64, 12), make([]float64, 6), make([]float64, 2)
	for i := range 4 {
		for j := range 2 {
			z := b[j]
			for k := range 3 {
				z += X[i*3+k] * W[k*2+j]
			}
			if z <= 0 {
				if z == 0 {
					t.Fatal("a pre-activation is exactly 0; change the data")
				}
				continue
			}
			wantLoss += z
			db[j]++
			for k := range 3 {
				dW[k*2+j] += X[i*3+k]
				dX[i*3+k] += W[k*2+j]
			}
		}
	}
	if !near(loss, wantLoss, 1e-12) {
		t.Errorf("loss = %v, want %v", loss, wantLoss)
	}
	checkVec(t, "dX", g[0], dX, 1e-12)
	checkVec(t, "dW", g[1], dW, 1e-12)
	checkVec(t, "db", g[2], db, 1e-12)
}

// Softmax cross-entropy, numerically stable through log-sum-exp with the
// row maximum m subtracted: loss = sum_i (log sum_j exp(z_ij - m_i) + m_i -
// sum_j y_ij z_ij). Its gradient is softmax(z) - y; the maximum's share
// cancels (its cotangent goes to the arg-max and adds up to zero).
func TestGradSoftmaxCrossEntropy(t *testing.T) {
	p := parse(t, `Z : f64[3,4]; Y : f64[3,4];
		rnz (+) (\z y -> let m = rnz max id z in
		    log (rnz (+) (\a -> exp (a - m)) z) + m - rnz (+) (*) y z) Z Y`)
	Z := []float64{1, 2, 3, 4, -1, 0.5, 0.5, 2, 10, -3, 1, 10}
	Y := []float64{0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1}
	loss, g := gradOf(t, p, map[string]graph.Value{"Z": arr(t, Z, 3, 4), "Y": arr(t, Y, 3, 4)}, "Z")
	var wantLoss float64
	want := make([]float64, 12)
	for i := range 3 {
		var s float64
		for j := range 4 {
			s += math.Exp(Z[i*4+j])
		}
		for j := range 4 {
			want[i*4+j] = math.Exp(Z[i*4+j])/s - Y[i*4+j]
			wantLoss -= Y[i*4+j] * math.Log(math.Exp(Z[i*4+j])/s)
		}
	}
	if !near(loss, wantLoss, 1e-12) {
		t.Errorf("loss = %v, want %v", loss, wantLoss)
	}
	checkVec(t, "dZ", g[0], want, 1e-12)
}

// The cotangent of a max or min reduction goes to the extreme elements,
// split equally among ties; of a scalar max x x, half to each operand.
func TestGradReduceMaxMinTies(t *testing.T) {
	for _, tc := range []struct {
		src  string
		x    []float64
		loss float64
		want []float64
	}{
		{"x : f64[4]; rnz max id x", []float64{1, 3, 2, 3}, 3, []float64{0, 0.5, 0, 0.5}},
		{"x : f64[4]; rnz min id x", []float64{2, 1, 1, 1}, 1, []float64{0, 1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"x : f64[4]; rnz max id x", []float64{1, 5, 2, 3}, 5, []float64{0, 1, 0, 0}},
		{"x : f64[4]; rnz max (\\a -> max a a * 2) x", []float64{4, 1, 4, 4}, 8, []float64{2.0 / 3, 0, 2.0 / 3, 2.0 / 3}},
		// A lifted max: the column maxima of a 3x2 matrix, summed.
		{"x : f64[3,2]; rnz (+) id (reduce (zip max) (map id x))", []float64{1, 7, 5, 7, 5, 2}, 12, []float64{0, 0.5, 0.5, 0.5, 0.5, 0}},
	} {
		p := parse(t, tc.src)
		in := map[string]graph.Value{"x": arr(t, tc.x, input(t, p, "x").Type.(*graph.ArrayType).Layout.Extents()...)}
		loss, g := gradOf(t, p, in, "x")
		if loss != tc.loss {
			t.Errorf("%s on %v: loss = %v, want %v", tc.src, tc.x, loss, tc.loss)
		}
		checkVec(t, tc.src, g[0], tc.want, 1e-15)
	}
}

// The cotangent of a product reduction is the product of the other
// factors, also where factors are zero.
func TestGradReduceMul(t *testing.T) {
	for _, tc := range []struct {
		x    []float64
		want []float64
	}{
		{[]float64{2, 4, 3}, []float64{12, 6, 8}},
		{[]float64{2, 0, 3}, []float64{0, 6, 0}},
		{[]float64{0, 0, 3}, []float64{0, 0, 0}},
	} {
		p := parse(t, "x : f64[3]; rnz (*) id x")
		_, g := gradOf(t, p, map[string]graph.Value{"x": arr(t, tc.x, 3)}, "x")
		checkVec(t, "d prod", g[0], tc.want, 0)
	}
}

// The cotangents of views of inputs are the inverse views of their
// cotangents.
func TestGradViews(t *testing.T) {
	// flatten: loss = sum_k (flatten 0 A)_k w_k, dA = w in A's shape.
	p := parse(t, "A : f64[2,3]; w : f64[6]; rnz (+) (*) (flatten 0 A) w")
	A := []float64{1, 2, 3, 4, 5, 6}
	w := []float64{6, 5, 4, 3, 2, 1}
	_, g := gradOf(t, p, map[string]graph.Value{"A": arr(t, A, 2, 3), "w": arr(t, w, 6)}, "A", "w")
	checkVec(t, "flatten dA", g[0], w, 0)
	checkVec(t, "flatten dw", g[1], A, 0)

	// flip: loss = sum_j sum_i A[i,j] v[i], dA[i,j] = v[i].
	p = parse(t, `A : f64[3,2]; v : f64[3]; rnz (+) (\r -> rnz (+) (*) r v) (flip 0 A)`)
	_, g = gradOf(t, p, map[string]graph.Value{"A": arr(t, A, 3, 2), "v": arr(t, []float64{1, 10, 100}, 3)}, "A", "v")
	checkVec(t, "flip dA", g[0], []float64{1, 1, 10, 10, 100, 100}, 0)
	checkVec(t, "flip dv", g[1], []float64{3, 7, 11}, 0)

	// subdiv: loss = sum_b sum_k x[2b+k] w[k]; dx[2b+k] = w[k], dw[k] =
	// sum_b x[2b+k].
	p = parse(t, `x : f64[6]; w : f64[2]; rnz (+) (\blk -> rnz (+) (*) blk w) (subdiv 0 2 x)`)
	_, g = gradOf(t, p, map[string]graph.Value{"x": arr(t, A, 6), "w": arr(t, []float64{-1, 2}, 2)}, "x", "w")
	checkVec(t, "subdiv dx", g[0], []float64{-1, 2, -1, 2, -1, 2}, 0)
	checkVec(t, "subdiv dw", g[1], []float64{9, 12}, 0)

	// flip of a subdiv: the inverse is a flatten of a flipped cotangent,
	// which needs a copy. loss = sum W3[p,j,q] A[2p+q, j], dA[2p+q,j] =
	// W3[p,j,q].
	p = parse(t, `A : f64[4,3]; W3 : f64[2,3,2];
		rnz (+) (\a w -> rnz (+) (\b v -> rnz (+) (*) b v) a w) (flip 1 2 (subdiv 0 2 A)) W3`)
	W3 := make([]float64, 12)
	for i := range W3 {
		W3[i] = float64(i + 1)
	}
	_, g = gradOf(t, p, map[string]graph.Value{"A": arr(t, make([]float64, 12), 4, 3), "W3": arr(t, W3, 2, 3, 2)}, "A")
	want := make([]float64, 12)
	for pp := range 2 {
		for j := range 3 {
			for q := range 2 {
				want[(2*pp+q)*3+j] = W3[pp*6+j*2+q]
			}
		}
	}
	checkVec(t, "flip-subdiv dA", g[0], want, 0)
}

// A let-bound value used twice gets the sum of both uses' cotangents:
// with s = x·x, loss = s*s + s has gradient (2s + 1) 2x.
func TestGradLetUsedTwice(t *testing.T) {
	p := parse(t, "x : f64[2]; let s = rnz (+) (*) x x in s * s + s")
	loss, g := gradOf(t, p, map[string]graph.Value{"x": arr(t, []float64{1, 2}, 2)}, "x")
	if loss != 30 {
		t.Errorf("loss = %v, want 30", loss)
	}
	checkVec(t, "dx", g[0], []float64{22, 44}, 0)
}

// Conversions carry the cotangent back to the operand's type: an f32
// input of an f64 loss gets an f32 gradient; an i32 operand gets none.
func TestGradConversions(t *testing.T) {
	p := parse(t, "x : f32[2]; n : i32[2]; rnz (+) (\\a k -> f64 a * f64 a * f64 k) x n")
	xa, err := graph.FromFloat32([]float32{1.5, -2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	na, err := graph.Zeros(graph.Int32, 2)
	if err != nil {
		t.Fatal(err)
	}
	na.Set(3, 0)
	na.Set(-1, 1)
	g, err := Grad(p.Body, []*graph.Input{input(t, p, "x")})
	if err != nil {
		t.Fatal(err)
	}
	v, err := graph.Eval(g, map[string]graph.Value{"x": xa, "n": na})
	if err != nil {
		t.Fatal(err)
	}
	dx := v.(graph.TupleValue)[1].(*graph.Array)
	if dx.DType() != graph.Float32 {
		t.Errorf("gradient of an f32 input has type %v, want f32", dx.DType())
	}
	// d/dx x*x*k = 2 x k.
	checkVec(t, "dx", flat(t, dx), []float64{9, 4}, 0)
}

// Select passes the cotangent to the branch it chose; abs has sign(0) = 0.
func TestGradSelectAbs(t *testing.T) {
	p := parse(t, "x : f64[4]; y : f64[4]; rnz (+) (\\a b -> select (a < b) (a * 3) (b * 5) + abs a) x y")
	_, g := gradOf(t, p, map[string]graph.Value{"x": arr(t, []float64{1, 2, 0, -1}, 4), "y": arr(t, []float64{2, 1, 1, -3}, 4)}, "x", "y")
	checkVec(t, "dx", g[0], []float64{3 + 1, 0 + 1, 3 + 0, 0 - 1}, 0)
	checkVec(t, "dy", g[1], []float64{0, 5, 0, 5}, 0)
}

// A loss that is an input has gradient 1 in it; an input the loss does not
// read has a zero gradient, and the gradient term still reads it, so the
// loss's bindings serve.
func TestGradTrivialAndUnused(t *testing.T) {
	a, err := graph.NewInput("a", graph.Scalar(graph.Float64), false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := graph.NewInput("b", graph.Scalar(graph.Float64), false)
	if err != nil {
		t.Fatal(err)
	}
	u, err := graph.NewInput("u", graph.ArrayOf(graph.Float64, 2), false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Grad(a, []*graph.Input{a, b, u})
	if err != nil {
		t.Fatal(err)
	}
	v, err := graph.Eval(g, map[string]graph.Value{
		"a": graph.ScalarValue{DType: graph.Float64, V: 2.5},
		"b": graph.ScalarValue{DType: graph.Float64, V: 7},
		"u": arr(t, []float64{1, 2}, 2),
	})
	if err != nil {
		t.Fatal(err)
	}
	tv := v.(graph.TupleValue)
	checkVec(t, "loss", flat(t, tv[0]), []float64{2.5}, 0)
	checkVec(t, "da", flat(t, tv[1]), []float64{1}, 0)
	checkVec(t, "db", flat(t, tv[2]), []float64{0}, 0)
	checkVec(t, "du", flat(t, tv[3]), []float64{0, 0}, 0)
}

// One lambda used by two traversals over arrays of different extents is
// differentiated in each context: here its flatten is undone with the
// block of each.
func TestGradSharedLambda(t *testing.T) {
	p := parse(t, `A : f64[2,2,3]; B : f64[2,3,2];
		let f = \m -> rnz (+) (\x -> x * x) (flatten 0 m) in
		rnz (+) f B + rnz (+) f A`)
	A := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	B := []float64{-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12}
	_, g := gradOf(t, p, map[string]graph.Value{"A": arr(t, A, 2, 2, 3), "B": arr(t, B, 2, 3, 2)}, "A", "B")
	wantA, wantB := make([]float64, 12), make([]float64, 12)
	for i := range 12 {
		wantA[i], wantB[i] = 2*A[i], 2*B[i]
	}
	checkVec(t, "dA", g[0], wantA, 0)
	checkVec(t, "dB", g[1], wantB, 0)
}

// A reduction without a derivative is refused only where a gradient flows
// through it: over data that is not differentiated it is just computed.
func TestGradUndifferentiatedReduction(t *testing.T) {
	p := parse(t, "x : f64[2]; c : f64[3]; rnz (+) (*) x x + rnz (-) id c")
	loss, g := gradOf(t, p, map[string]graph.Value{"x": arr(t, []float64{1, 2}, 2), "c": arr(t, []float64{10, 1, 2}, 3)}, "x")
	if loss != 12 {
		t.Errorf("loss = %v, want 12 (5 + 10 - 1 - 2)", loss)
	}
	checkVec(t, "dx", g[0], []float64{2, 4}, 0)
}

// TestGradMaxPoolTies: max pooling's gradient goes to the arg-max of each
// window, split equally on a tie as reduce max's is, and the windows that
// share an element add their parts (the overlapping scatter-add). x = 1 3
// 3 2, windows of 2 at stride 1: (1 3), (3 3), (3 2), each max 3: the
// first gives 1 to x[1], the second 1/2 to x[1] and x[2], the third 1 to
// x[2].
func TestGradMaxPoolTies(t *testing.T) {
	p := parse(t, `x : f64[4]; reduce (+) (map (\w -> reduce max w) (window 0 2 x))`)
	_, g := gradOf(t, p, map[string]graph.Value{"x": arr(t, []float64{1, 3, 3, 2}, 4)}, "x")
	checkVec(t, "d/dx", g[0], []float64{0, 1.5, 1.5, 0}, 0)

	// Padded with -Inf at stride 2: windows (-Inf 1) (3 3) (2 -Inf); the
	// fill is a constant and gets nothing.
	p = parse(t, `x : f64[4]; reduce (+) (map (\w -> reduce max w) (window 0 2 2 (padninf 0 1 1 x)))`)
	_, g = gradOf(t, p, map[string]graph.Value{"x": arr(t, []float64{1, 3, 3, 2}, 4)}, "x")
	checkVec(t, "d/dx padded", g[0], []float64{1, 0.5, 0.5, 1}, 0)
}

// TestGradConv1DByHand: y[p] = sum_k x[2p + 2k] * K[k] (stride 2,
// dilation 2, width 2) over x of 7 elements: positions 0..2; dL/dx[i] =
// sum over (p, k) with 2p + 2k = i of K[k] for L = sum y.
func TestGradConv1DByHand(t *testing.T) {
	p := parse(t, `x : f64[7]; K : f64[2]; reduce (+) (map (\w -> rnz (+) (*) w K) (window 0 2 2 2 x))`)
	in := map[string]graph.Value{"x": arr(t, []float64{1, 2, 3, 4, 5, 6, 7}, 7), "K": arr(t, []float64{10, 100}, 2)}
	_, g := gradOf(t, p, in, "x", "K")
	// i = 0: (0,0); 2: (1,0), (0,1); 4: (2,0), (1,1); 6: (2,1).
	checkVec(t, "d/dx", g[0], []float64{10, 0, 110, 0, 110, 0, 100}, 0)
	// dL/dK[k] = sum_p x[2p + 2k]: k = 0: 1+3+5, k = 1: 3+5+7.
	checkVec(t, "d/dK", g[1], []float64{9, 15}, 0)
}
