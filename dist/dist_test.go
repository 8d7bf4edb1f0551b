package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-dev/allot/proc"
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
	for _, s := range []string{"", "const", "const:", "const:-1", "const:1.5", "uniform:5:2", "uniform:1", "exp:0", "exp:abc", "normal:3", "seq:", "seq:1,,2", "seq:-1"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestSeq: a scripted distribution draws its values in turn, then its last
// one for ever, and prints as it parses.
func TestSeq(t *testing.T) {
	d, err := Parse("seq:3,1,4")
	if err != nil {
		t.Fatal(err)
	}
	var got []proc.Time
	for range 5 {
		got = append(got, d.Draw(nil))
	}
	if want := []proc.Time{3, 1, 4, 4, 4}; !slices.Equal(got, want) {
		t.Fatalf("draws %v, want %v", got, want)
	}
	if d.String() != "seq:3,1,4" || d.Min() != 1 || d.Mean() != 8.0/3 {
		t.Fatalf("%s: min %d mean %v", d, d.Min(), d.Mean())
	}
}

func TestSeqIsFreshForEachRun(t *testing.T) {
	d, err := Parse("seq:3,4,5")
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 2; run++ {
		f := d.Fresh()
		var got []int64
		for i := 0; i < 4; i++ {
			got = append(got, int64(f.Draw(nil)))
		}
		if want := []int64{3, 4, 5, 5}; !slices.Equal(got, want) {
			t.Errorf("run %d drew %v, want %v", run, got, want)
		}
	}
}

func TestMax(t *testing.T) {
	for _, c := range []struct {
		spec string
		max  proc.Time
		ok   bool
	}{{"const:4", 4, true}, {"uniform:2:9", 9, true}, {"seq:3,7,1", 7, true}, {"exp:5", 0, false}} {
		d, err := Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := d.Max(); m != c.max || ok != c.ok {
			t.Errorf("%s: max %d, %v; want %d, %v", c.spec, m, ok, c.max, c.ok)
		}
	}
}
