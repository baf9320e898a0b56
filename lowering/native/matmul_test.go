package native_test

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// matmulPlan compiles one loop order of C = A·B for n×n float64
// matrices.
func matmulPlan(tb testing.TB, n int, term string, opts native.Options) (*native.Plan, map[string]graph.Value, graph.Node) {
	tb.Helper()
	prog, g := parseWhole(tb, fmt.Sprintf("A : f64[%d,%d]; B : f64[%d,%d];\n%s", n, n, n, n, term))
	p, err := native.New(opts).Plan(g)
	if err != nil {
		tb.Fatal(err)
	}
	return p, graphtest.Inputs(graphtest.Rand(42), prog.Inputs), prog.Body
}

// TestMatmulOrdersLarge runs every loop order, literal (NoGEMM) and with
// the GEMM pattern, on 48×48 matrices against the interpreter: large
// enough for the parallel splits to engage.
func TestMatmulOrdersLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("the interpreter takes a while")
	}
	const n = 48
	orders := append(lowertest.MatmulOrders(), lowertest.BlockedMatmulOrders(16)...)
	for _, o := range orders {
		for _, nogemm := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/nogemm=%v", o.Name, nogemm), func(t *testing.T) {
				p, in, term := matmulPlan(t, n, o.Term, native.Options{NoGEMM: nogemm})
				defer p.Close()
				want, err := graph.Eval(term, in)
				if err != nil {
					t.Fatal(err)
				}
				got, err := p.Run(in)
				if err != nil {
					t.Fatal(err)
				}
				graphtest.Compare(t, want, got, 1e-12)
			})
		}
	}
}

// BenchmarkMatmul times the paper's loop orders of the 1024×1024 float64
// product (section 4), each compiled literally (NoGEMM: the loop nest the
// term describes, with dot and axpy kernels innermost), against the same
// product through the GEMM pattern (order=gemm: the naive term, compiled
// normally) and gonum's Dgemm on the same data. The naive order takes
// seconds.
func BenchmarkMatmul(b *testing.B) {
	type order struct{ name, term string }
	var orders []order
	for _, o := range lowertest.MatmulOrders() {
		orders = append(orders, order{o.Name, o.Term})
	}
	for _, o := range lowertest.BlockedMatmulOrders(16) {
		orders = append(orders, order{o.Name + "_b16", o.Term})
	}
	for _, n := range []int{256, 1024} {
		for _, o := range orders {
			b.Run(fmt.Sprintf("order=%s/n=%d", o.name, n), func(b *testing.B) {
				benchPlan(b, n, o.term, native.Options{NoGEMM: true})
			})
		}
		b.Run(fmt.Sprintf("order=gemm/n=%d", n), func(b *testing.B) {
			benchPlan(b, n, lowertest.MatmulOrders()[0].Term, native.Options{})
		})
		b.Run(fmt.Sprintf("order=gonum/n=%d", n), func(b *testing.B) {
			_, in, _ := matmulPlan(b, n, lowertest.MatmulOrders()[0].Term, native.Options{})
			A := blas64.General{Rows: n, Cols: n, Stride: n, Data: in["A"].(*graph.Array).Float64s()}
			B := blas64.General{Rows: n, Cols: n, Stride: n, Data: in["B"].(*graph.Array).Float64s()}
			C := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
			b.ReportAllocs()
			b.SetBytes(int64(8 * n * n))
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, A, B, 0, C)
			}
		})
	}
}

func benchPlan(b *testing.B, n int, term string, opts native.Options) {
	p, in, _ := matmulPlan(b, n, term, opts)
	defer p.Close()
	if _, err := p.Run(in); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(8 * n * n))
	for b.Loop() {
		if _, err := p.Run(in); err != nil {
			b.Fatal(err)
		}
	}
}
