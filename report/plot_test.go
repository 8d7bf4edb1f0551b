package report

import (
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
