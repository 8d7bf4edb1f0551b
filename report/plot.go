// Package report renders results for people: aligned text tables and SVG
// line plots.
package report

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a plot. Err, when set, holds the half-width of an
// error bar (e.g. a 95 % confidence interval) at each point. Dashed draws
// the line dashed (a reference series).
type Series struct {
	Name   string
	X, Y   []float64
	Err    []float64
	Dashed bool
}

// palette is colour-blind safe (Okabe–Ito).
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255}, {240, 228, 66, 255},
}

// LinePlot writes an SVG line plot with one line and marker per series.
func LinePlot(path, title, xlabel, ylabel string, series []Series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	for i, s := range series {
		if len(s.X) != len(s.Y) || (s.Err != nil && len(s.Err) != len(s.Y)) {
			return fmt.Errorf("plot %s: series %q has %d x, %d y, %d err", path, s.Name, len(s.X), len(s.Y), len(s.Err))
		}
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j].X, pts[j].Y = s.X[j], s.Y[j]
		}
		line, marks, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		c := palette[i%len(palette)]
		line.Color = c
		line.Width = vg.Points(1.5)
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		marks.Color = c
		marks.Shape = draw.CircleGlyph{}
		p.Add(line, marks)
		p.Legend.Add(s.Name, line, marks)
		if s.Err != nil {
			bars := errBars{pts, s.Err}
			eb, err := plotter.NewYErrorBars(bars)
			if err != nil {
				return fmt.Errorf("plot %s: %w", path, err)
			}
			eb.Color = c
			p.Add(eb)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	canvas := vgsvg.New(7*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.New(canvas))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := canvas.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type errBars struct {
	plotter.XYs
	err []float64
}

func (e errBars) YError(i int) (float64, float64) { return e.err[i], e.err[i] }
