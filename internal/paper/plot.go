package paper

import (
	"fmt"
	"image/color"
	"io"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The plot's colours: ours and the paper's.
var (
	oursColor  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	paperColor = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
)

// SavePlot writes the plot of WritePlot to a PNG file.
func (r *MatmulReport) SavePlot(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := r.WritePlot(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WritePlot draws both tables as grouped horizontal bars, ours next to the
// paper's, each time divided by its own naive time (mapA mapB rnz), so that
// the shapes compare although the machines differ; a dashed line marks the
// naive time. It writes a PNG.
func (r *MatmulReport) WritePlot(w io.Writer) error {
	const (
		width  = 8 * vg.Inch
		height = 10 * vg.Inch
	)
	p1, err := r.barPlot(r.Table1, fmt.Sprintf("Table 1: the six orders of the naive product, %d×%d float64 (Spearman ρ = %.2f)",
		r.Size, r.Size, r.Spearman1))
	if err != nil {
		return err
	}
	p2, err := r.barPlot(r.Table2, fmt.Sprintf("Table 2: the twelve orders with the rnz subdivided by %d (Spearman ρ = %.2f)",
		r.Block, r.Spearman2))
	if err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96))
	dc := draw.New(img)
	// Table 1 gets a third of the height, Table 2 (twice the rows) the
	// rest, with a gap between them.
	split, gap := height*0.36, vg.Inch/5
	p1.Draw(draw.Crop(dc, 0, 0, height-split, 0))
	p2.Draw(draw.Crop(dc, 0, 0, 0, -split-gap))
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// barPlot draws one table: the paper's fastest order at the top.
func (r *MatmulReport) barPlot(rows []Row, title string) (*plot.Plot, error) {
	const barWidth = vg.Length(10)
	n := len(rows)
	ours := make(plotter.Values, n)
	paper := make(plotter.Values, n)
	names := make([]string, n)
	for i, row := range rows {
		y := n - 1 - i
		ours[y], paper[y], names[y] = row.OursPerNaive, row.PaperPerNaive, row.Order
	}
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = fmt.Sprintf("time / time of %s (ours %.3g s, paper %.3g s)", r.NaiveOrder, r.Naive, r.PaperNaive)
	p.X.Min = 0
	p.NominalY(names...)
	p.Add(plotter.NewGrid())

	bars := func(v plotter.Values, c color.Color, offset vg.Length) (*plotter.BarChart, error) {
		b, err := plotter.NewBarChart(v, barWidth)
		if err != nil {
			return nil, err
		}
		b.Horizontal = true
		b.Color = c
		b.LineStyle.Width = 0
		b.Offset = offset
		return b, nil
	}
	bo, err := bars(ours, oursColor, barWidth/2)
	if err != nil {
		return nil, err
	}
	bp, err := bars(paper, paperColor, -barWidth/2)
	if err != nil {
		return nil, err
	}
	p.Add(bo, bp)
	if err := addValueLabels(p, ours, barWidth/2); err != nil {
		return nil, err
	}
	if err := addValueLabels(p, paper, -barWidth/2); err != nil {
		return nil, err
	}

	naive, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
	if err != nil {
		return nil, err
	}
	naive.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	naive.LineStyle.Color = color.Gray{Y: 0x60}
	p.Add(naive)

	p.Legend.Add("ours", bo)
	p.Legend.Add("paper", bp)
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Y.Label.Text = "loop order, outermost first"
	// Leave room on the right for the longest bar's label.
	top := 0.0
	for i := range ours {
		top = max(top, ours[i], paper[i])
	}
	p.X.Max = top * 1.12
	return p, nil
}

// addValueLabels writes each bar's value at its end.
func addValueLabels(p *plot.Plot, v plotter.Values, offset vg.Length) error {
	xys := make(plotter.XYs, len(v))
	labels := make([]string, len(v))
	for i, x := range v {
		xys[i] = plotter.XY{X: x, Y: float64(i)}
		labels[i] = fmt.Sprintf("%.3g", x)
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(7)
		l.TextStyle[i].YAlign = draw.YCenter
	}
	l.Offset = vg.Point{X: vg.Points(2), Y: offset}
	p.Add(l)
	return nil
}
