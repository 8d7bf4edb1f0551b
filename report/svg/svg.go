// Package svg draws allot's figures (report.Figure) as SVG line plots with
// gonum/plot. Importing it, for its side effect, is what lets
// report.Figure.Write draw: the plotting stack (gonum/plot with its fonts,
// LaTeX and PDF packages) is compiled only into the programs that draw
// figures, not into every command of allot.
//
// A figure reads the same in any viewer and stays small: its text is plain
// SVG text in a serif face (Liberation Serif, or the viewer's serif), not an
// embedded font (half a megabyte a figure), and a margin keeps the text
// inside the canvas even where a viewer substitutes a wider font. The
// canvas is opaque white, so a figure reads on a dark page too. The x axis
// is ticked at the data points when the series share a few x values. The legend sits beside the plot, never over
// the data; a caption under it can say what abbreviations mean.
//
//	┌──────────── title ───────────┬─────────┐
//	│ y ┌────────────────────────┐ │ legend  │
//	│   │          data          │ │ ─●─ a   │
//	│   └────────────────────────┘ │ ─■─ b   │
//	│               x              │         │
//	├──────────── caption ─────────┴─────────┤
package svg

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/allot-dev/allot/report"
)

func init() { report.SetRenderer(Write) }

// palette is colour-blind safe (Okabe–Ito), its yellow left out: it does
// not show on white.
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255},
}

// glyphs tell the series apart without colour, too.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.RingGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
}

// Size of the plot proper; the legend widens the canvas, the caption
// heightens it.
const (
	plotW  = 6.5 * vg.Inch
	plotH  = 4.5 * vg.Inch
	margin = 8 // points of blank around everything
	// slack is how much wider than the embedded font a viewer's stand-in
	// may be (DejaVu for Liberation: about a fifth) and the text still
	// fit: lines are wrapped, and the legend measured, with it.
	slack = 1.25
)

// Write draws the figure to path as SVG.
func Write(f report.Figure, path string) error {
	p := plot.New()
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.X.Tick.Marker = readableTicks{}
	p.Y.Tick.Marker = readableTicks{}
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.ThumbnailWidth = vg.Points(24)
	legend.Padding = vg.Points(3)
	if f.LogY || spansDecades(f.Series) {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	if f.LogX {
		for _, s := range f.Series {
			for _, x := range s.X {
				if !(x > 0) {
					return fmt.Errorf("plot %s: series %q has x = %v on a log axis", path, s.Name, x)
				}
			}
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if xs := sharedX(f.Series); xs != nil {
		p.X.Tick.Marker = dataTicks{xs: xs, log: f.LogX}
	}
	for i, s := range f.Series {
		if len(s.X) != len(s.Y) || (s.Err != nil && len(s.Err) != len(s.Y)) {
			return fmt.Errorf("plot %s: series %q has %d x, %d y, %d err", path, s.Name, len(s.X), len(s.Y), len(s.Err))
		}
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j].X, pts[j].Y = s.X[j], s.Y[j]
		}
		c := palette[i%len(palette)]
		marks, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		marks.Color = c
		marks.Shape = glyphs[i%len(glyphs)]
		marks.Radius = vg.Points(3)
		thumbs := []plot.Thumbnailer{marks}
		if !s.Points {
			line, err := plotter.NewLine(pts)
			if err != nil {
				return fmt.Errorf("plot %s: %w", path, err)
			}
			line.Color = c
			line.Width = vg.Points(1.5)
			if s.Dashed {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			p.Add(line)
			thumbs = append([]plot.Thumbnailer{line}, thumbs...)
		}
		p.Add(marks)
		legend.Add(s.Name, thumbs...)
		if s.Err != nil {
			eb, err := plotter.NewYErrorBars(errBars{pts, s.Err})
			if err != nil {
				return fmt.Errorf("plot %s: %w", path, err)
			}
			eb.Color = c
			p.Add(eb)
		}
	}

	// The canvas: the plot, the legend to its right, the caption below.
	var legendW vg.Length
	if len(f.Series) > 0 {
		legendW = legend.Rectangle(draw.Canvas{}).Size().X*slack + vg.Points(12)
	}
	capStyle := legend.TextStyle
	capStyle.Font.Size = vg.Points(9)
	width := plotW + legendW + 2*margin
	caption := wrapText(capStyle, f.Caption, (width-2*margin)/slack)
	var captionH vg.Length
	if caption != "" {
		captionH = capStyle.Rectangle(caption).Size().Y + vg.Points(8)
	}
	height := plotH + captionH + 2*margin
	p.Title.Text = wrapText(p.Title.TextStyle, f.Title, (plotW-vg.Points(10))/slack)

	canvas := vgsvg.NewWith(vgsvg.UseWH(width, height))
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	dc = draw.Crop(dc, margin, -margin, margin, -margin)
	if caption != "" {
		capStyle.XAlign = draw.XLeft
		capStyle.YAlign = draw.YBottom
		dc.FillText(capStyle, vg.Point{X: dc.Min.X, Y: dc.Min.Y + capStyle.FontExtents().Descent}, caption)
		dc = draw.Crop(dc, 0, 0, captionH, 0)
	}
	pc := draw.Crop(dc, 0, -legendW, 0, 0)
	if p.Y.Label.Text != "" {
		// Drawn here, not by gonum: on a log axis it reserves room for
		// the label as if it sat at the arithmetic middle of the range.
		sty := p.Y.Label.TextStyle
		sty.Rotation += math.Pi / 2
		x := pc.Min.X + p.Y.Label.TextStyle.Height(p.Y.Label.Text)
		descent := p.Y.Label.TextStyle.FontExtents().Descent
		pc.FillText(sty, vg.Point{X: x - descent, Y: pc.Center().Y}, p.Y.Label.Text)
		pc = draw.Crop(pc, x-pc.Min.X+p.Y.Label.Padding, 0, 0, 0)
		p.Y.Label.Text = ""
	}
	p.Draw(pc)
	if legendW > 0 {
		legend.Top, legend.Left = true, true
		lc := draw.Crop(dc, dc.Size().X-legendW+vg.Points(12), 0, 0, 0)
		lc.Max.Y -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		legend.Draw(lc)
	}

	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var buf strings.Builder
	if _, err := canvas.WriteTo(&buf); err != nil {
		return err
	}
	// A viewer without Liberation Serif falls back to its own serif face.
	svg := strings.ReplaceAll(buf.String(), "font-family:Liberation Serif;", "font-family:'Liberation Serif',serif;")
	return os.WriteFile(path, []byte(svg), 0o644)
}

// maxDataTicks is the most distinct x values ticked one by one.
const maxDataTicks = 16

// sharedX is the sorted distinct x values of all series, or nil when there
// are more than maxDataTicks of them.
func sharedX(series []report.Series) []float64 {
	var xs []float64
	for _, s := range series {
		for _, x := range s.X {
			if !slices.Contains(xs, x) {
				if xs = append(xs, x); len(xs) > maxDataTicks {
					return nil
				}
			}
		}
	}
	slices.Sort(xs)
	return xs
}

// dataTicks tick the axis at the data points. A label closer to the
// previous one than minGap of the axis is left out (the tick stays), so
// that labels never overlap.
type dataTicks struct {
	xs  []float64
	log bool
}

const minGap = 0.06

func (d dataTicks) Ticks(lo, hi float64) []plot.Tick {
	pos := func(x float64) float64 {
		if d.log {
			return (math.Log(x) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
		}
		return (x - lo) / (hi - lo)
	}
	var ts []plot.Tick
	last := math.Inf(-1)
	for _, x := range d.xs {
		if x < lo || x > hi {
			continue
		}
		t := plot.Tick{Value: x}
		if p := pos(x); hi == lo || p-last >= minGap {
			t.Label, last = strconv.FormatFloat(x, 'g', 4, 64), p
		}
		ts = append(ts, t)
	}
	return ts
}

// spansDecades reports whether every value, error bars included, is
// positive and the largest is at least 100 times the smallest.
func spansDecades(series []report.Series) bool {
	lo, hi := math.Inf(1), 0.0
	for _, s := range series {
		for i, y := range s.Y {
			bottom, top := y, y
			if s.Err != nil {
				bottom, top = y-s.Err[i], y+s.Err[i]
			}
			if !(bottom > 0) {
				return false
			}
			lo, hi = min(lo, bottom), max(hi, top)
		}
	}
	return hi >= 100*lo
}

// wrapText breaks s at spaces so that no line is wider than w in style st.
func wrapText(st text.Style, s string, w vg.Length) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && st.Width(line+" "+word) > w {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// readableTicks are gonum's default ticks labelled without trailing
// zeros ("25000", not "25000.00").
type readableTicks struct{}

func (readableTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ts {
		if t.Label != "" {
			ts[i].Label = strconv.FormatFloat(t.Value, 'f', -1, 64)
			if len(ts[i].Label) > 8 {
				ts[i].Label = strconv.FormatFloat(t.Value, 'g', 4, 64)
			}
		}
	}
	return ts
}

// logTicks are gonum's log ticks within the axis' range only: a tick
// beyond it would take room from the plot.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(lo, hi) {
		if t.Value >= lo && t.Value <= hi {
			ts = append(ts, t)
		}
	}
	return ts
}

type errBars struct {
	plotter.XYs
	err []float64
}

func (e errBars) YError(i int) (float64, float64) { return e.err[i], e.err[i] }
