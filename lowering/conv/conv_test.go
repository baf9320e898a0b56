package conv_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/conv"
	"github.com/hofuse/hofuse/lowering/lowertest"
)

// found is one nzip of a term that Find matched, with its window chain.
type found struct {
	cv    *conv.Conv
	views []graph.View
}

// findAll runs Find on the nzips of one argument in term, outermost
// first: the nzips under one it matched are not tried (the inner levels
// of a convolution are convolutions of fewer positions).
func findAll(term graph.Node) []found {
	var out []found
	graph.Inspect(term, func(n graph.Node) bool {
		if nz, ok := n.(*graph.NZip); ok && len(nz.Args) == 1 {
			if cv, err := conv.Find(nz.Fn, nil); err == nil {
				views, _ := conv.ViewChain(nz.Args[0])
				out = append(out, found{cv, views})
				return false
			}
		}
		return true
	})
	return out
}

// TestFindLayers finds the convolution of every lowertest case, as
// layers writes it and as fusion leaves it, and checks what it reads off
// against the case: the positions and the window's depth, grouping, and
// each spatial axis's width, stride, dilation and padding.
func TestFindLayers(t *testing.T) {
	for _, c := range lowertest.ConvCases() {
		t.Run(c.Name, func(t *testing.T) {
			term, err := c.Build()
			if err != nil {
				t.Fatal(err)
			}
			res, err := fusion.Fuse(term, fusion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			spatial, widths := 2, []int{c.KH, c.KW}
			if c.W == 0 {
				spatial, widths = 1, []int{c.KH}
			}
			for _, stage := range []struct {
				name string
				term graph.Node
			}{{"layers", term}, {"fused", res.Term}} {
				fs := findAll(stage.term)
				if len(fs) != 1 {
					t.Fatalf("%s: Find matched %d nzips, want 1", stage.name, len(fs))
				}
				cv, views := fs[0].cv, fs[0].views
				if n := len(cv.Positions); cv.Levels != spatial || n == 0 || n > spatial || cv.Positions[n-1] != cv.Row {
					t.Errorf("%s: %d levels, positions %v, want %d levels and the window last", stage.name, cv.Levels, cv.Positions, spatial)
				}
				if cv.Depth != spatial+1 {
					t.Errorf("%s: contractions of depth %d, want %d", stage.name, cv.Depth, spatial+1)
				}
				if len(cv.Dots) == 0 || cv.PositionsRead {
					t.Errorf("%s: %d dots, positions read %v", stage.name, len(cv.Dots), cv.PositionsRead)
				}
				grouped := c.Opt.Groups > 1
				if (cv.Group != nil) != grouped {
					t.Fatalf("%s: grouping %v, want grouped %v", stage.name, cv.Group, grouped)
				}
				g, err := conv.WindowGeometry(views, spatial+1, graph.FillZero)
				if err != nil {
					t.Fatalf("%s: %v", stage.name, err)
				}
				if len(g.Positions) != spatial || len(g.Inner) != cv.Depth {
					t.Errorf("%s: geometry %d positions %d inner, want %d and %d", stage.name, len(g.Positions), len(g.Inner), spatial, cv.Depth)
				}
				// Channels first, layers windows the image transposed
				// to channels last.
				if g.Channel != spatial {
					t.Errorf("%s: channel axis %d, want %d", stage.name, g.Channel, spatial)
				}
				for i, p := range g.Positions {
					w := g.Windows[p.Base]
					stride, dil := 1, 1
					if c.Opt.Strides != nil {
						stride = c.Opt.Strides[i]
					}
					if c.Opt.Dilations != nil {
						dil = c.Opt.Dilations[i]
					}
					if w.Width != widths[i] || w.Stride != stride || w.Dilation != dil {
						t.Errorf("%s: axis %d window %+v, want width %d stride %d dilation %d", stage.name, i, w, widths[i], stride, dil)
					}
					if c.Opt.Padding == layers.PadExplicit {
						if want := [2]int{c.Opt.Pads[2*i], c.Opt.Pads[2*i+1]}; g.Pads[p.Base] != want {
							t.Errorf("%s: axis %d pads %v, want %v", stage.name, i, g.Pads[p.Base], want)
						}
					}
				}
				if grouped {
					x := []int{c.H, c.W, c.In}
					if c.W == 0 {
						x = []int{c.H, c.In}
					}
					cdims := []int{c.Out}
					for _, a := range g.Inner {
						e := g.Extent(a, x)
						if a.Kind == conv.Channel {
							e /= c.Opt.Groups
						}
						cdims = append(cdims, e)
					}
					groups, err := cv.Group.Check(g, x, cdims)
					if err != nil || groups != c.Opt.Groups {
						t.Errorf("%s: %d groups (%v), want %d", stage.name, groups, err, c.Opt.Groups)
					}
					cdims[0]++
					if _, err := cv.Group.Check(g, x, cdims); !errors.Is(err, conv.ErrNotConv) || !strings.Contains(err.Error(), "filters are not") {
						t.Errorf("%s: %d filters in %d groups: %v", stage.name, cdims[0], c.Opt.Groups, err)
					}
				}
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// dot is rnz (+) (*) a b.
func dot(a, b graph.Node) graph.Node {
	return must(graph.NewRNZ(must(graph.NewOpRef(graph.Add)), must(graph.NewOpRef(graph.Mul)), a, b))
}

func lambda(body func(ps ...*graph.Var) graph.Node, names ...string) *graph.Lambda {
	ps := make([]*graph.Var, len(names))
	for i, n := range names {
		ps[i] = graph.NewVar(n)
	}
	return must(graph.NewLambda(ps, body(ps...)))
}

// TestFindRefuses checks that terms that are not convolutions are
// refused with the reason.
func TestFindRefuses(t *testing.T) {
	filters := must(graph.NewInput("c", graph.ArrayOf(graph.Float32, 4, 3), false))
	// \r -> nzip (\c -> dot r c) C, the shape Find takes, for reference.
	good := lambda(func(r ...*graph.Var) graph.Node {
		return must(graph.NewNZip(lambda(func(c ...*graph.Var) graph.Node { return dot(r[0], c[0]) }, "c"), filters))
	}, "r")
	cv, err := conv.Find(good, nil)
	if err != nil || !cv.Fused || cv.Depth != 1 || cv.Levels != 1 || cv.Filter != 0 || cv.C != graph.Node(filters) {
		t.Fatalf("Find(%v) = %+v, %v; want a fused convolution of depth 1 over c", good, cv, err)
	}
	cases := []struct {
		name string
		fn   graph.Node
		want string
	}{
		{"two parameters", lambda(func(ps ...*graph.Var) graph.Node { return dot(ps[0], ps[1]) }, "a", "b"),
			"has 2 parameters"},
		{"no contraction", lambda(func(r ...*graph.Var) graph.Node {
			return must(graph.NewNZip(lambda(func(c ...*graph.Var) graph.Node {
				return must(graph.NewReduce(must(graph.NewOpRef(graph.Add)), c[0]))
			}, "c"), filters))
		}, "r"), "no nzip over filters contracts the window r"},
		{"window read outside", lambda(func(r ...*graph.Var) graph.Node {
			return must(graph.NewNZip(lambda(func(c ...*graph.Var) graph.Node {
				return must(graph.NewCall(graph.Add, dot(r[0], c[0]), must(graph.NewReduce(must(graph.NewOpRef(graph.Add)), r[0]))))
			}, "c"), filters))
		}, "r"), "no nzip over filters contracts"},
		{"not a product", lambda(func(r ...*graph.Var) graph.Node {
			return must(graph.NewNZip(lambda(func(c ...*graph.Var) graph.Node {
				return must(graph.NewRNZ(must(graph.NewOpRef(graph.Max)), must(graph.NewOpRef(graph.Mul)), r[0], c[0]))
			}, "c"), filters))
		}, "r"), "no nzip over filters contracts"},
		{"unfused window read outside", lambda(func(r ...*graph.Var) graph.Node {
			dots := must(graph.NewNZip(lambda(func(c ...*graph.Var) graph.Node { return dot(r[0], c[0]) }, "c"), filters))
			add := lambda(func(ab ...*graph.Var) graph.Node { return must(graph.NewCall(graph.Add, ab[0], ab[1])) }, "a", "b")
			return must(graph.NewNZip(add, dots, r[0]))
		}, "r"), "the window r is read outside the contractions"},
		{"filters from the window", lambda(func(r ...*graph.Var) graph.Node {
			fr := must(graph.NewView(graph.SubdivView{Axis: 0, Block: 1}, r[0]))
			return must(graph.NewNZip(lambda(func(c ...*graph.Var) graph.Node { return dot(r[0], c[0]) }, "c"), fr))
		}, "r"), "the filters depend on the window positions"},
		{"not a map", filters, "is a *graph.Input, not a map over the positions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cv, err := conv.Find(c.fn, nil)
			if !errors.Is(err, conv.ErrNotConv) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Find = %+v, %v; want an error wrapping ErrNotConv saying %q", cv, err, c.want)
			}
		})
	}
}

// TestWindowGeometry reads a padded, strided, dilated and flipped chain,
// and refuses chains that are not windows over all axes but the channels.
func TestWindowGeometry(t *testing.T) {
	// [H, W, C] padded on H and W, windowed (H: 3 stride 2; W: 2
	// dilation 3) to [Ph, kh, Pw, kw, C], then flipped to [Ph, Pw, kh, kw, C].
	views := []graph.View{
		graph.PadView{Axis: 0, Lo: 1, Hi: 2, Fill: graph.FillZero},
		graph.PadView{Axis: 1, Lo: 0, Hi: 1, Fill: graph.FillZero},
		graph.WindowView{Axis: 0, Width: 3, Stride: 2, Dilation: 1},
		graph.WindowView{Axis: 2, Width: 2, Stride: 1, Dilation: 3},
		graph.FlipView{A: 1, B: 2},
	}
	g, err := conv.WindowGeometry(views, 3, graph.FillZero)
	if err != nil {
		t.Fatal(err)
	}
	wantPos := []conv.Axis{{Kind: conv.Position, Base: 0}, {Kind: conv.Position, Base: 1}}
	wantIn := []conv.Axis{{Kind: conv.Element, Base: 0}, {Kind: conv.Element, Base: 1}, {Kind: conv.Channel, Base: 2}}
	if !equal(g.Positions, wantPos) || !equal(g.Inner, wantIn) || g.Channel != 2 {
		t.Errorf("geometry %+v, want positions %v inner %v channel 2", g, wantPos, wantIn)
	}
	if g.Pads[0] != [2]int{1, 2} || g.Pads[1] != [2]int{0, 1} || g.Windows[0].Stride != 2 || g.Windows[1].Dilation != 3 {
		t.Errorf("pads %v windows %v", g.Pads, g.Windows)
	}
	if e := g.Extent(g.Inner[1], []int{9, 8, 5}); e != 2 {
		t.Errorf("extent of the W elements %d, want 2", e)
	}
	if e := g.Extent(g.Inner[2], []int{9, 8, 5}); e != 5 {
		t.Errorf("extent of the channels %d, want 5", e)
	}
	refused := []struct {
		name  string
		views []graph.View
		fill  graph.Fill
		want  string
	}{
		{"max pad", views, graph.FillNegInf, "a pad of axis 0 with another fill"},
		{"one axis of three", views[2:3], graph.FillZero, "1 of the 3 axes windowed"},
		{"positions not leading", views[:4], graph.FillZero, "the window positions do not lead"},
		{"pad after window", []graph.View{views[2], views[3], graph.PadView{Axis: 0, Lo: 1, Fill: graph.FillZero}}, graph.FillZero,
			"a pad of axis 0, not an axis of the base array"},
		{"subdiv", append([]graph.View{graph.SubdivView{Axis: 2, Block: 1}}, views...), graph.FillZero, "a graph.SubdivView in the window chain"},
	}
	for _, c := range refused {
		if _, err := conv.WindowGeometry(c.views, 3, c.fill); !errors.Is(err, conv.ErrNotConv) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error wrapping ErrNotConv saying %q", c.name, err, c.want)
		}
	}
}

func equal(a, b []conv.Axis) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
