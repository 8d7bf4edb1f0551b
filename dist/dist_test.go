package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestParse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		spec     string
		mean     float64
		min, max int64
	}{
		{"const:7", 7, 7, 7},
		{"uniform:2:6", 4, 2, 6},
		{"exp:20", 20, 1, math.MaxInt64},
	} {
		d, err := Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if d.String() != c.spec {
			t.Errorf("%s prints as %s", c.spec, d)
		}
		var sum float64
		const n = 20000
		for i := 0; i < n; i++ {
			x := int64(d.Draw(r))
			if x < c.min || x > c.max {
				t.Fatalf("%s drew %d", c.spec, x)
			}
			sum += float64(x)
		}
		if got := sum / n; math.Abs(got-c.mean) > 0.03*c.mean {
			t.Errorf("%s: sample mean %.2f, want about %.2f", c.spec, got, c.mean)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "const", "const:", "const:-1", "const:1.5", "uniform:5:2", "uniform:1", "exp:0", "exp:abc", "normal:3"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
