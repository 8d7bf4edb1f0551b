// Package report holds results for people: the figures (line plots) the
// reproductions draw.
//
// A Figure is data: its series, labels and scales. Drawing it takes a
// renderer, which package report/svg installs when it is imported (for its
// side effect). The renderer is kept out of this package so that the
// programs that never draw a figure — `allot sim`, `allot serve`, the
// service's and the client's tests — do not compile the plotting stack
// (gonum/plot with its fonts, LaTeX and PDF packages): 8 of the 33
// modules a first build of allot downloads, 60 MB of their 205, and about
// a tenth of its compile.
package report

import (
	"errors"
	"sync"
)

// Series is one line of a plot. Err, when set, holds the half-width of an
// error bar (e.g. a 95 % confidence interval) at each point. Dashed draws
// the line dashed (a reference series). Points draws markers only, no
// line: for measurements whose x values repeat, where a line would zigzag.
type Series struct {
	Name   string
	X, Y   []float64
	Err    []float64
	Dashed bool
	Points bool
}

// Figure is one plot. Its y axis is logarithmic when LogY is set, or when
// every value is positive and they span two decades or more (so a series
// near the bottom is not flattened by one far above it). Its x axis is
// logarithmic when LogX is set (every x must be positive).
type Figure struct {
	Title, XLabel, YLabel string
	// Caption, when set, is printed under the plot (wrapped): what the
	// names in the legend stand for, what is dashed.
	Caption    string
	LogX, LogY bool
	Series     []Series
}

// Renderer draws a figure to the file at path.
type Renderer func(f Figure, path string) error

// ErrNoRenderer is what Write returns in a program that installed no
// renderer (imported no report/svg).
var ErrNoRenderer = errors.New("this program draws no figures (it imports no renderer, such as report/svg)")

var (
	mu       sync.Mutex
	renderer Renderer
)

// SetRenderer installs r as the way figures are drawn and returns the one
// it replaces (nil: none). Package report/svg calls it when imported.
func SetRenderer(r Renderer) Renderer {
	mu.Lock()
	defer mu.Unlock()
	old := renderer
	renderer = r
	return old
}

// CanDraw reports whether a renderer is installed: whether Write can draw.
func CanDraw() bool {
	mu.Lock()
	defer mu.Unlock()
	return renderer != nil
}

// LinePlot writes an SVG line plot with one line and marker per series.
func LinePlot(path, title, xlabel, ylabel string, series []Series) error {
	return Figure{Title: title, XLabel: xlabel, YLabel: ylabel, Series: series}.Write(path)
}

// Write draws the figure to path with the installed renderer, or returns
// ErrNoRenderer.
func (f Figure) Write(path string) error {
	mu.Lock()
	r := renderer
	mu.Unlock()
	if r == nil {
		return ErrNoRenderer
	}
	return r(f, path)
}
