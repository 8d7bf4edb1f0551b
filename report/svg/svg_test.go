package svg

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-dev/allot/report"
)

func TestLinePlotWritesSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "fig.svg")
	err := report.LinePlot(path, "response", "users", "ticks", []report.Series{
		{Name: "a", X: []float64{1, 2, 3}, Y: []float64{2, 4, 6}},
		{Name: "b", X: []float64{1, 2, 3}, Y: []float64{1, 2, 3}, Err: []float64{0.1, 0.2, 0.1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "response") {
		t.Fatalf("not an SVG with the title: %.200s", b)
	}
}

func TestLinePlotRejectsRaggedSeries(t *testing.T) {
	err := report.LinePlot(filepath.Join(t.TempDir(), "x.svg"), "", "", "", []report.Series{{Name: "bad", X: []float64{1}, Y: nil}})
	if err == nil {
		t.Fatal("ragged series accepted")
	}
}

func TestLinePlotDashesReferenceSeries(t *testing.T) {
	svg := func(dashed bool) string {
		path := filepath.Join(t.TempDir(), "fig.svg")
		if err := report.LinePlot(path, "", "", "", []report.Series{{Name: "ref", X: []float64{1, 2}, Y: []float64{1, 2}, Dashed: dashed}}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return string(b)
	}
	if n, d := strings.Count(svg(false), "stroke-dasharray:5"), strings.Count(svg(true), "stroke-dasharray:5"); n != 0 || d == 0 {
		t.Errorf("dash patterns: %d solid, %d dashed", n, d)
	}
}

// A figure is small and reads in any viewer: plain text with a serif
// fallback, no embedded font, an opaque white canvas drawn first, and its
// caption and a long title inside it, wrapped.
func TestFigureTextAndBackground(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fig.svg")
	long := strings.Repeat("a long title word ", 12)
	err := report.Figure{Title: long, Caption: "CM = hygienic, CS = doorway", XLabel: "x", YLabel: "y",
		Series: []report.Series{{Name: "CM", X: []float64{1, 2}, Y: []float64{1, 2}}}}.Write(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	svg := string(b)
	if strings.Contains(svg, "@font-face") || len(svg) > 50000 {
		t.Errorf("a font is embedded (%d bytes)", len(svg))
	}
	if !strings.Contains(svg, "font-family:'Liberation Serif',serif;") {
		t.Error("no serif fallback")
	}
	// The first thing drawn covers the whole canvas in opaque white.
	first := svg[strings.Index(svg, "<path"):]
	first = first[:strings.Index(first, "/>")]
	if !strings.Contains(first, "M0,0L") || !strings.Contains(first, "fill:#FFFFFF") || strings.Contains(first, "opacity") {
		t.Errorf("first drawn element is not an opaque white canvas: %s", first)
	}
	if !strings.Contains(svg, "CM = hygienic, CS = doorway") {
		t.Error("no caption")
	}
	if strings.Contains(svg, strings.TrimSpace(long)) {
		t.Error("a title wider than the plot is not wrapped")
	}
}

func TestSpansDecades(t *testing.T) {
	for _, c := range []struct {
		s    []report.Series
		want bool
	}{
		{[]report.Series{{Y: []float64{3, 1800}}}, true},
		{[]report.Series{{Y: []float64{3, 200}}}, false},
		{[]report.Series{{Y: []float64{0, 1800}}}, false},                                  // no log of 0
		{[]report.Series{{Y: []float64{3, 1800}, Err: []float64{4, 1}}}, false},            // a bar below 0
		{[]report.Series{{Y: []float64{5}}, {Y: []float64{600}, Err: []float64{1}}}, true}, // across series
		{[]report.Series{{Y: []float64{math.NaN(), 1800}}, {Y: []float64{3}}}, false},      // NaN is not positive
	} {
		if got := spansDecades(c.s); got != c.want {
			t.Errorf("spansDecades(%v) = %v", c.s, got)
		}
	}
}

// Points draws markers only: no line joins measurements whose x repeat.
func TestPointsSeriesHasNoLine(t *testing.T) {
	paths := func(points bool) int {
		path := filepath.Join(t.TempDir(), "fig.svg")
		if err := report.LinePlot(path, "", "", "", []report.Series{{Name: "m", X: []float64{8, 8, 9}, Y: []float64{1, 2, 3}, Points: points}}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return strings.Count(string(b), "stroke-width:1.5")
	}
	if l, p := paths(false), paths(true); l == 0 || p != l-2 {
		t.Errorf("line strokes: %d with a line, %d with points only", l, p)
	}
}

// The x axis is ticked at the data points, on a log axis too, and labels
// that would overlap are left out while their ticks stay.
func TestDataTicks(t *testing.T) {
	for _, c := range []struct {
		d      dataTicks
		lo, hi float64
		labels []string
	}{
		{dataTicks{xs: []float64{1, 2, 3}}, 1, 3, []string{"1", "2", "3"}},
		{dataTicks{xs: []float64{0.2, 0.9, 0.99, 1.5, 6}, log: true}, 0.2, 6, []string{"0.2", "0.9", "", "1.5", "6"}},
		{dataTicks{xs: []float64{0.2, 0.9, 0.99, 1.5, 6}}, 0.2, 6, []string{"0.2", "0.9", "", "1.5", "6"}},
		{dataTicks{xs: []float64{1, 5, 10}}, 2, 10, []string{"5", "10"}}, // outside the range: no tick
	} {
		var got []string
		for _, tk := range c.d.Ticks(c.lo, c.hi) {
			got = append(got, tk.Label)
		}
		if strings.Join(got, "|") != strings.Join(c.labels, "|") {
			t.Errorf("%+v on [%v, %v]: labels %q, want %q", c.d, c.lo, c.hi, got, c.labels)
		}
	}
	if sharedX([]report.Series{{X: make([]float64, 3)}, {X: []float64{0, 1}}}) == nil {
		t.Error("two distinct x values not shared")
	}
	many := make([]float64, maxDataTicks+1)
	for i := range many {
		many[i] = float64(i)
	}
	if sharedX([]report.Series{{X: many}}) != nil {
		t.Error("too many x values ticked one by one")
	}
	if err := (report.Figure{LogX: true, Series: []report.Series{{X: []float64{0, 1}, Y: []float64{1, 2}}}}).Write(filepath.Join(t.TempDir(), "x.svg")); err == nil {
		t.Error("x = 0 accepted on a log axis")
	}
}
