package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

func testDepthwise[T float32 | float64](t *testing.T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 9))
	tol := tolOf[T]()
	asm := hasAVX2 // the path taken, for the messages
	for _, P := range []int{1, 3, 4, 5, 8, 11} {
		for _, C := range []int{1, 3, 4, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 56, 64, 95} {
			for _, taps := range []int{1, 2, 9} {
				for _, stride := range []int{1, 2} {
					// A row of positions stride·C apart with a spare
					// channel between rows of the tap grid; the output
					// rows one element apart more than C; the filters
					// one more than C apart.
					ps, ldo, ldf := stride*C, C+1, C+1
					offs := make([]int, taps)
					for i := range offs {
						offs[i] = (i/3)*(P*ps+C+1) + (i%3)*C
					}
					img := randSlice[T](rng, (P-1)*ps+offs[taps-1]+C)
					filt := randSlice[T](rng, (taps-1)*ldf+C)
					out := randSlice[T](rng, (P-1)*ldo+C+1)
					spare := append([]T(nil), out...)
					Depthwise(out[:len(out)-1], ldo, img, ps, offs, filt, ldf, P, C)
					for j := range P {
						for c := range ldo {
							i := j*ldo + c
							if i >= len(out) {
								break
							}
							if c >= C {
								if out[i] != spare[i] {
									t.Fatalf("asm %v P=%d C=%d taps=%d stride=%d: wrote out[%d] between rows", asm, P, C, taps, stride, i)
								}
								continue
							}
							want, abs := 0.0, 0.0
							for k, o := range offs {
								v := float64(img[j*ps+o+c]) * float64(filt[k*ldf+c])
								want, abs = want+v, abs+math.Abs(v)
							}
							if !near(float64(out[i]), want, abs, tol) {
								t.Fatalf("asm %v P=%d C=%d taps=%d stride=%d: out[%d,%d] = %v, want %v", asm, P, C, taps, stride, j, c, out[i], want)
							}
						}
					}
					if out[len(out)-1] != spare[len(out)-1] {
						t.Fatalf("asm %v P=%d C=%d taps=%d stride=%d: wrote past the last position", asm, P, C, taps, stride)
					}
				}
			}
		}
	}
}

// TestDepthwise checks Depthwise, the assembly kernels (AVX-512's and
// AVX2's, alone and AVX2's after AVX-512's: four positions and one, one
// vector and two of channels) and the scalar loops, against
// the sum of products in float64: positions at the stride of a run and of
// a strided convolution, channels that end in each kind of block and in a
// remainder, one tap, two and nine on a grid, and output rows with an
// element between them that must stay as it was.
func TestDepthwise(t *testing.T) {
	t.Run("f32", testDepthwise[float32])
	t.Run("f64", testDepthwise[float64])
	t.Run("avx2-f32", func(t *testing.T) { withoutAVX512(func() { testDepthwise[float32](t) }) })
	t.Run("avx2-f64", func(t *testing.T) { withoutAVX512(func() { testDepthwise[float64](t) }) })
	t.Run("scalar-f32", func(t *testing.T) { withoutAVX2(func() { testDepthwise[float32](t) }) })
	t.Run("scalar-f64", func(t *testing.T) { withoutAVX2(func() { testDepthwise[float64](t) }) })
}

// TestDepthwisePanics: operands too short for the positions asked are a
// bug of the caller, reported by a panic before anything is read.
func TestDepthwisePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"image": func() {
			Depthwise(make([]float32, 16), 8, make([]float32, 15), 8, []int{0}, make([]float32, 8), 8, 2, 8)
		},
		"output": func() {
			Depthwise(make([]float32, 15), 8, make([]float32, 16), 8, []int{0}, make([]float32, 8), 8, 2, 8)
		},
		"filters": func() {
			Depthwise(make([]float64, 8), 8, make([]float64, 16), 8, []int{0, 8}, make([]float64, 15), 8, 1, 8)
		},
		"offset": func() {
			Depthwise(make([]float64, 8), 8, make([]float64, 16), 8, []int{-1}, make([]float64, 8), 8, 1, 8)
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

func testGrouped[T float32 | float64](t *testing.T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(6, 10))
	tol := tolOf[T]()
	for _, g := range []int{2, 3, 4, 8, 16} {
		for _, P := range []int{1, 3, 4, 5, 9} {
			for _, C := range []int{g, 2 * g, 8, 16, 24, 40, 48, 88} {
				if C%g != 0 {
					continue
				}
				for _, taps := range []int{1, 9} {
					for _, stride := range []int{1, 2} {
						// As testDepthwise: rows with a spare channel
						// between them, output and filter rows one
						// element longer than C.
						ps, ldo, ldf := stride*C, C+1, C+1
						offs := make([]int, taps)
						for i := range offs {
							offs[i] = (i/3)*(P*ps+C+1) + (i%3)*C
						}
						img := randSlice[T](rng, (P-1)*ps+offs[taps-1]+C)
						filt := randSlice[T](rng, (taps*g-1)*ldf+C)
						out := randSlice[T](rng, (P-1)*ldo+C+1)
						spare := append([]T(nil), out...)
						Grouped(out[:len(out)-1], ldo, img, ps, offs, filt, ldf, P, C, g)
						for j := range P {
							for c := range ldo {
								i := j*ldo + c
								if i >= len(out) {
									break
								}
								if c >= C {
									if out[i] != spare[i] {
										t.Fatalf("g=%d P=%d C=%d taps=%d stride=%d: wrote out[%d] between rows", g, P, C, taps, stride, i)
									}
									continue
								}
								// Channel c's group starts at c - c mod g.
								want, abs := 0.0, 0.0
								for k, o := range offs {
									for ii := range g {
										v := float64(img[j*ps+o+c-c%g+ii]) * float64(filt[(k*g+ii)*ldf+c])
										want, abs = want+v, abs+math.Abs(v)
									}
								}
								if !near(float64(out[i]), want, abs, tol) {
									t.Fatalf("g=%d P=%d C=%d taps=%d stride=%d: out[%d,%d] = %v, want %v", g, P, C, taps, stride, j, c, out[i], want)
								}
							}
						}
						if out[len(out)-1] != spare[len(out)-1] {
							t.Fatalf("g=%d P=%d C=%d taps=%d stride=%d: wrote past the last position", g, P, C, taps, stride)
						}
					}
				}
			}
		}
	}
}

// TestGrouped checks Grouped, its assembly kernels (float32 groups of 2,
// 4 and 8 channels with AVX2, and 16 with AVX-512: four positions and
// one, one vector and two of channels, AVX-512's blocks followed by
// AVX2's, and a remainder of channels past them) and the scalar loops
// (float64, groups of 3, no AVX2), against the sum of products in
// float64, as TestDepthwise checks Depthwise.
func TestGrouped(t *testing.T) {
	if !GroupedVectors(4) && hasAVX2 {
		t.Error("GroupedVectors(4) is false with AVX2")
	}
	if GroupedVectors(16) != hasAVX512 || GroupedVectors(3) || GroupedVectors(1) {
		t.Errorf("GroupedVectors: 16 %v (AVX-512 %v), 3 %v, 1 %v", GroupedVectors(16), hasAVX512, GroupedVectors(3), GroupedVectors(1))
	}
	t.Run("f32", testGrouped[float32])
	t.Run("f64", testGrouped[float64])
	t.Run("avx2-f32", func(t *testing.T) { withoutAVX512(func() { testGrouped[float32](t) }) })
	t.Run("scalar-f32", func(t *testing.T) { withoutAVX2(func() { testGrouped[float32](t) }) })
}

// TestGroupedPanics: operands too short for the positions asked, or a
// group width that does not divide the channels, are a bug of the
// caller, reported by a panic before anything is read.
func TestGroupedPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"image": func() {
			Grouped(make([]float32, 16), 8, make([]float32, 15), 8, []int{0}, make([]float32, 16), 8, 2, 8, 2)
		},
		"output": func() {
			Grouped(make([]float32, 15), 8, make([]float32, 16), 8, []int{0}, make([]float32, 16), 8, 2, 8, 2)
		},
		"filters": func() {
			Grouped(make([]float32, 8), 8, make([]float32, 16), 8, []int{0, 8}, make([]float32, 31), 8, 1, 8, 2)
		},
		"groups": func() {
			Grouped(make([]float32, 8), 8, make([]float32, 16), 8, []int{0}, make([]float32, 24), 8, 1, 8, 3)
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}
