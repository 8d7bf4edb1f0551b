package modular

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// runRandom runs a with users drawing 1..k resources out of res on each
// request and returns the finished net.
func runRandom(t *testing.T, a algo.Algorithm, users, res, k int, seed uint64, tweak func(*tnet)) (*tnet, error) {
	t.Helper()
	n, err := newNet(a, dynamicProblem(users, res), seed)
	if err != nil {
		t.Fatal(err)
	}
	n.next = randomSets(res, 1, k)
	if tweak != nil {
		tweak(n)
	}
	err = n.run()
	if err == nil && n.served < n.requests {
		err = fmt.Errorf("served %d of %d requests; starved: %v", n.served, n.requests, n.starved())
	}
	return n, err
}

func TestRandomRuns(t *testing.T) {
	a := For(lockAlg)
	for seed := uint64(1); seed <= 60; seed++ {
		users, res := 2+int(seed%9), 1+int(seed%7)
		k := 1 + int(seed%3)
		if k > res {
			k = res
		}
		if _, err := runRandom(t, a, users, res, k, seed, nil); err != nil {
			t.Fatalf("seed %d (%d users, %d resources, k %d): %v", seed, users, res, k, err)
		}
	}
}

func TestName(t *testing.T) {
	a := For(lockAlg)
	if a.Name != "modular-testlock" || a.Kind != algo.Exclusive {
		t.Fatalf("got %q %v", a.Name, a.Kind)
	}
}

func TestBuildErrors(t *testing.T) {
	pool := algo.Algorithm{Name: "p", Kind: algo.Pool}
	for _, tc := range []struct {
		a    algo.Algorithm
		pb   *algo.Problem
		want string
	}{
		{For(pool), dynamicProblem(2, 2), "not exclusive"},
		{For(lockAlg), &algo.Problem{Kind: algo.Pool, Users: 2}, "exclusive problems"},
		{For(lockAlg), dynamicProblem(2, 0), "at least one"},
		{For(lockAlg), &algo.Problem{Kind: algo.Exclusive, Users: 2, Resources: 2, MaxSets: [][]proc.ResID{{0}}}, "maximum sets"},
	} {
		_, err := tc.a.Build(tc.pb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.a.Name, err, tc.want)
		}
	}
}
