package main

import (
	"errors"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// saveTrainPlot draws the curves of a training run to a PNG file: the
// loss (training, the mean over each epoch's steps, and validation) and
// the accuracy (training and validation, in inference mode after each
// epoch), against the epoch, in two panels side by side.
func saveTrainPlot(path string, rep trainReport) error {
	if len(rep.History) == 0 {
		return errors.New("no epoch to draw")
	}
	series := func(get func(trainEpoch) (float64, bool)) plotter.XYs {
		var xy plotter.XYs
		for _, e := range rep.History {
			if y, ok := get(e); ok {
				xy = append(xy, plotter.XY{X: float64(e.Epoch), Y: y})
			}
		}
		return xy
	}
	panel := func(title, ylabel string, top bool, train, val plotter.XYs) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "epoch"
		p.Y.Label.Text = ylabel
		p.Add(plotter.NewGrid())
		p.Legend.Top = top // away from the curves: loss falls, accuracy rises
		for i, s := range []struct {
			name string
			xy   plotter.XYs
		}{{"training", train}, {"validation", val}} {
			if len(s.xy) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(s.xy)
			if err != nil {
				return nil, err
			}
			l.Color, pts.Color = benchPalette[2*i], benchPalette[2*i]
			l.Width = vg.Points(1.5)
			pts.Shape = draw.CircleGlyph{}
			pts.Radius = vg.Points(2)
			p.Add(l, pts)
			p.Legend.Add(s.name, l, pts)
		}
		return p, nil
	}
	loss, err := panel("loss (cross-entropy)", "loss", true,
		series(func(e trainEpoch) (float64, bool) { return e.TrainLoss, true }),
		series(func(e trainEpoch) (float64, bool) {
			if e.ValLoss == nil {
				return 0, false
			}
			return *e.ValLoss, true
		}))
	if err != nil {
		return err
	}
	acc, err := panel("accuracy", "accuracy (%)", false,
		series(func(e trainEpoch) (float64, bool) { return 100 * e.TrainAccuracy, true }),
		series(func(e trainEpoch) (float64, bool) {
			if e.ValAccuracy == nil {
				return 0, false
			}
			return 100 * *e.ValAccuracy, true
		}))
	if err != nil {
		return err
	}
	plots := [][]*plot.Plot{{loss, acc}}
	img := vgimg.NewWith(vgimg.UseWH(11*vg.Inch, 4*vg.Inch), vgimg.UseDPI(96))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(6), PadX: vg.Points(18)}
	canvases := plot.Align(plots, tiles, dc)
	loss.Draw(canvases[0][0])
	acc.Draw(canvases[0][1])
	return writePNG(path, img)
}
