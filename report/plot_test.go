package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLinePlotWritesSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "fig.svg")
	err := LinePlot(path, "response", "users", "ticks", []Series{
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
	err := LinePlot(filepath.Join(t.TempDir(), "x.svg"), "", "", "", []Series{{Name: "bad", X: []float64{1}, Y: nil}})
	if err == nil {
		t.Fatal("ragged series accepted")
	}
}

func TestLinePlotDashesReferenceSeries(t *testing.T) {
	svg := func(dashed bool) string {
		path := filepath.Join(t.TempDir(), "fig.svg")
		if err := LinePlot(path, "", "", "", []Series{{Name: "ref", X: []float64{1, 2}, Y: []float64{1, 2}, Dashed: dashed}}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return string(b)
	}
	if n, d := strings.Count(svg(false), "stroke-dasharray:5"), strings.Count(svg(true), "stroke-dasharray:5"); n != 0 || d == 0 {
		t.Errorf("dash patterns: %d solid, %d dashed", n, d)
	}
}

// A figure reads the same in any viewer: its fonts travel with it, and its
// caption and a long title are inside it, wrapped.
func TestFigureEmbedsFontsAndWrapsText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fig.svg")
	long := strings.Repeat("a long title word ", 12)
	err := Figure{Title: long, Caption: "CM = hygienic, CS = doorway", XLabel: "x", YLabel: "y",
		Series: []Series{{Name: "CM", X: []float64{1, 2}, Y: []float64{1, 2}}}}.Write(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	svg := string(b)
	if !strings.Contains(svg, "@font-face") {
		t.Error("fonts not embedded")
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
		s    []Series
		want bool
	}{
		{[]Series{{Y: []float64{3, 1800}}}, true},
		{[]Series{{Y: []float64{3, 200}}}, false},
		{[]Series{{Y: []float64{0, 1800}}}, false},                                  // no log of 0
		{[]Series{{Y: []float64{3, 1800}, Err: []float64{4, 1}}}, false},            // a bar below 0
		{[]Series{{Y: []float64{5}}, {Y: []float64{600}, Err: []float64{1}}}, true}, // across series
		{[]Series{{Y: []float64{math.NaN(), 1800}}, {Y: []float64{3}}}, false},      // NaN is not positive
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
		if err := LinePlot(path, "", "", "", []Series{{Name: "m", X: []float64{8, 8, 9}, Y: []float64{1, 2, 3}, Points: points}}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return strings.Count(string(b), "stroke-width:1.5")
	}
	if l, p := paths(false), paths(true); l == 0 || p != l-2 {
		t.Errorf("line strokes: %d with a line, %d with points only", l, p)
	}
}
