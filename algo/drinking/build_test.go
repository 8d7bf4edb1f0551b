package drinking

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

func TestBuildRejects(t *testing.T) {
	sets := [][]proc.ResID{{0}, {0}, {1}}
	line, err := graph.New(3, [][2]proc.ID{{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	pool := algo.Algorithm{Name: "pool", Kind: algo.Pool}
	for _, c := range []struct {
		name string
		sub  algo.Algorithm
		pb   *algo.Problem
		want string
	}{
		{"pool subroutine", pool, &algo.Problem{Kind: algo.Exclusive, Users: 2, Resources: 1}, "not exclusive"},
		{"pool problem", hygienic.Algorithm, &algo.Problem{Kind: algo.Pool, Users: 2, Units: 1}, "not pool"},
		{"no users", hygienic.Algorithm, &algo.Problem{Kind: algo.Exclusive}, "at least one user"},
		{"sets", hygienic.Algorithm, &algo.Problem{Kind: algo.Exclusive, Users: 2, Resources: 1, MaxSets: sets}, "3 maximum sets for 2 users"},
		{"resource", hygienic.Algorithm, &algo.Problem{Kind: algo.Exclusive, Users: 3, Resources: 1, MaxSets: sets}, "outside"},
		{"graph misses a sharing pair", hygienic.Algorithm, &algo.Problem{Kind: algo.Exclusive, Users: 3, Resources: 2, MaxSets: sets, Conflict: line}, "share resource 0"},
	} {
		_, err := For(c.sub).Build(c.pb)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "drinking-") {
			t.Errorf("%s: got %v, want an error about %q", c.name, err, c.want)
		}
	}
}
