package native_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// poolForms are the LeNet-like CNN's first max pooling, 2×2 at stride 2
// over a batch of 128 images of 8×8 pixels and 8 channels, f32, written
// output stationary (a map over the window positions of a reduction over
// each window's elements: layers.MaxPool2D's term) and weight stationary
// (a reduction over the window's elements of [4, 4, 8] arrays: the
// window-flip exchange of the first).
var poolForms = []struct{ name, term string }{
	{"output-stationary", `map (\img -> map (map (\p -> rnz (zip max) (\r -> reduce (zip max) r) p)) (flip 1 (window 0 2 2 (window 1 2 2 img)))) x`},
	{"weight-stationary", `map (\img -> rnz (zip (zip (zip max))) (\ra -> reduce (zip (zip (zip max))) ra) (flip 1 3 (flip 0 2 (flip 1 (window 0 2 2 (window 1 2 2 img)))))) x`},
}

// BenchmarkPool times the pooling forms, fused, on all cores: the forward
// pass alone (pass=forward), and the forward pass with the gradient of
// sum(pool(x) · c) by x (pass=gradient), whose pooling gradient routes
// each window's cotangent to its maximum. shape=16x28x28x32 is the same
// pooling over wider images of 32 channels: the first pooling of the CNN
// hofuse bench imports, at batch 16.
func BenchmarkPool(b *testing.B) {
	for _, form := range poolForms {
		for _, pass := range []string{"forward", "gradient"} {
			for _, sh := range []struct{ n, hw, c int }{{128, 8, 8}, {16, 28, 32}} {
				name := "form=" + form.name + "/pass=" + pass
				if sh.n != 128 {
					name += fmt.Sprintf("/shape=%dx%dx%dx%d", sh.n, sh.hw, sh.hw, sh.c)
				}
				b.Run(name, func(b *testing.B) {
					benchPool(b, form.term, pass, sh.n, sh.hw, sh.c)
				})
			}
		}
	}
}

// benchPool times a pooling form over n images of hw×hw pixels and c
// channels.
func benchPool(b *testing.B, form, pass string, n, hw, c int) {
	x := fmt.Sprintf("x : f32[%d,%d,%d,%d]; ", n, hw, hw, c)
	src := x + form
	if pass == "gradient" {
		src = x + fmt.Sprintf("c : f32[%d,%d,%d,%d]; ", n, hw/2, hw/2, c) + `reduce (+) (map (\i -> reduce (+) (map (\r -> reduce (+) (map (\q -> reduce (+) q) r)) i)) (zip (zip (zip (zip (*)))) (` + form + `) c))`
	}
	prog, err := graph.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	term := prog.Body
	if pass == "gradient" {
		var x *graph.Input
		for _, in := range prog.Inputs {
			if in.Name == "x" {
				x = in
			}
		}
		if term, err = autodiff.Grad(prog.Body, []*graph.Input{x}); err != nil {
			b.Fatal(err)
		}
	}
	in, err := lowertest.Inputs(term, 3, 0, lowertest.Dense)
	if err != nil {
		b.Fatal(err)
	}
	res, err := fusion.Fuse(term, fusion.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := native.New(native.Options{}).Plan(res.Graph)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Run(in); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(4 * n * hw * hw * c))
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Run(in); err != nil {
			b.Fatal(err)
		}
	}
}
