package sweep

import "math"

// LineFit is the least-squares line y = a + b·x through the points and its
// coefficient of determination R². The claims fit growth on it (a slope
// against kv, an exponent on logarithms).
func LineFit(x, y []float64) (a, b, r2 float64) {
	n := float64(len(x))
	var sx, sy, sxx, sxy, syy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
		syy += y[i] * y[i]
	}
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	a = (sy - b*sx) / n
	ssTot := syy - sy*sy/n
	var ssRes float64
	for i := range x {
		d := y[i] - (a + b*x[i])
		ssRes += d * d
	}
	return a, b, 1 - ssRes/ssTot
}

// SlopeCI is the least-squares slope of y on x and the half-width of its
// 95 % t interval (n − 2 degrees of freedom). Fewer than three points give
// no interval: NaN and +Inf.
func SlopeCI(x, y []float64) (b, half float64) {
	if len(x) < 3 {
		return math.NaN(), math.Inf(1)
	}
	a, b, _ := LineFit(x, y)
	var mx, sxx, res float64
	for i := range x {
		mx += x[i] / float64(len(x))
	}
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		r := y[i] - a - b*x[i]
		res += r * r
	}
	return b, T95(len(x)-2) * math.Sqrt(res/float64(len(x)-2)/sxx)
}

// Exponent fits y ∝ x^e on logarithms and returns e with the half-width
// of its 95 % interval: how growth laws are judged, rather than by the R²
// of a line, which a quadratic series passes as well as a straight one
// over a short range.
func Exponent(x, y []float64) (e, half float64) {
	lx, ly := make([]float64, len(x)), make([]float64, len(y))
	for i := range x {
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
	}
	return SlopeCI(lx, ly)
}

// LinearMax is the largest exponent a series judged "linear" may reach
// beyond doubt: halfway from linear (1) to quadratic (2). A line with a
// positive intercept fits an exponent below 1.
const LinearMax = 1.5

// Growth is a fitted exponent, its 95 % half-width, and the verdict of a
// growth rule on it.
type Growth struct {
	E, Half float64
	Pass    bool
}

// Linear judges "y grows linearly in x": the fitted exponent's 95 %
// interval lies above 0 (it grows) and below LinearMax (beyond doubt
// slower than halfway to quadratic). A quadratic series on the same x is
// rejected (exponent 2), as is one that does not grow.
func Linear(x, y []float64) Growth {
	e, h := Exponent(x, y)
	return Growth{E: e, Half: h, Pass: e-h > 0 && e+h < LinearMax}
}
