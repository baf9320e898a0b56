package main

import (
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// benchPalette colours the bars of a panel in turn.
var benchPalette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xae, 0xc7, 0xe8, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0x98, 0xdf, 0x8a, 0xff},
	color.RGBA{0xff, 0x7f, 0x0e, 0xff}, color.RGBA{0x94, 0x67, 0xbd, 0xff},
	color.RGBA{0x8c, 0x56, 0x4b, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
}

// whiskers are the p99 whiskers of a panel: from p50 up to p99 at each
// bar's position.
type whiskers struct{ p50, p99 []float64 }

func (w whiskers) Len() int                        { return len(w.p50) }
func (w whiskers) XY(i int) (float64, float64)     { return float64(i), w.p50[i] }
func (w whiskers) YError(i int) (float64, float64) { return 0, w.p99[i] - w.p50[i] }

// saveBenchPlot draws one panel per workload and batch, stacked: a bar of
// p50 for each back end and mode and each peer, with a whisker up to p99.
func saveBenchPlot(path string, rep benchInferReport) error {
	type key struct {
		workload string
		batch    int
	}
	var keys []key
	panels := map[key][]benchInferRow{}
	for _, r := range rep.Rows {
		k := key{r.Workload, r.Batch}
		if _, ok := panels[k]; !ok {
			keys = append(keys, k)
		}
		panels[k] = append(panels[k], r)
	}
	if len(keys) == 0 {
		return fmt.Errorf("--plot %s: no rows to draw", path)
	}
	plots := make([][]*plot.Plot, len(keys))
	for i, k := range keys {
		rows := panels[k]
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s, batch %d: p50 (bars) and p99 (whiskers)", k.workload, k.batch)
		p.Y.Label.Text = "ms"
		p.Y.Min = 0
		p.Add(plotter.NewGrid())
		names := make([]string, len(rows))
		w := whiskers{make([]float64, len(rows)), make([]float64, len(rows))}
		for j, r := range rows {
			names[j] = r.Backend + " " + r.Mode
			if r.Peer != "" {
				names[j] = r.Peer + " " + r.Mode
			}
			w.p50[j], w.p99[j] = r.P50ms, r.P99ms
			bar, err := plotter.NewBarChart(plotter.Values{r.P50ms}, vg.Points(28))
			if err != nil {
				return err
			}
			bar.XMin = float64(j)
			bar.Color = benchPalette[j%len(benchPalette)]
			bar.LineStyle.Width = 0
			p.Add(bar)
		}
		eb, err := plotter.NewYErrorBars(w)
		if err != nil {
			return err
		}
		// p50 written above each bar: a slow peer flattens the others.
		lx := make([]plotter.XY, len(rows))
		ls := make([]string, len(rows))
		for j := range rows {
			lx[j] = plotter.XY{X: float64(j), Y: w.p50[j]}
			ls[j] = fmt.Sprintf("%.3g", w.p50[j])
		}
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: lx, Labels: ls})
		if err != nil {
			return err
		}
		for j := range labels.TextStyle {
			labels.TextStyle[j].XAlign = draw.XLeft
			labels.TextStyle[j].YAlign = draw.YBottom
		}
		labels.Offset = vg.Point{X: vg.Points(16)} // right of the bar's centre and its whisker
		p.Add(eb, labels)
		p.NominalX(names...)
		plots[i] = []*plot.Plot{p}
	}
	width, height := 9*vg.Inch, vg.Length(len(keys))*3*vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(keys), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadX: vg.Points(6), PadY: vg.Points(12)}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	return writePNG(path, img)
}

// writePNG writes the drawn image to path as PNG.
func writePNG(path string, img *vgimg.Canvas) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
