package modular

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/proc"
)

// The invariants of §5, checked on the processes' internal state after every
// step of random runs. Each check is also run against a deliberately broken
// variant that it must catch.

func managers(n *tnet) []*manager {
	out := make([]*manager, n.pb.Resources)
	for k := range out {
		out[k] = n.procs[n.pb.Users+k].(*manager)
	}
	return out
}

// stale reports whether u's entry at position 1 of m's queue belongs to a
// finished request: its release has reached the manager but waits in the
// buffer while rm_critical is true.
func stale(m *manager, u proc.ID) bool {
	if len(m.occ) < 2 || m.occ[1] != u {
		return false
	}
	for _, h := range m.held[m.heldHead:] {
		if _, ok := h.m.(Release); ok && h.from == u {
			return true
		}
	}
	return false
}

// positionsOf maps each user to its position in every queue it occupies for
// its current request. The runs use waitReleases, so the only entries of a
// finished request are those whose release is held in a manager's buffer.
func positionsOf(n *tnet) (map[proc.ID]map[int]int32, error) {
	pos := map[proc.ID]map[int]int32{}
	for k, m := range managers(n) {
		for p := int32(1); int(p) < len(m.occ); p++ {
			u := m.occ[p]
			if u == proc.None || p == 1 && stale(m, u) {
				continue
			}
			if pos[u] == nil {
				pos[u] = map[int]int32{}
			}
			if q, ok := pos[u][k]; ok {
				return nil, fmt.Errorf("user %d at positions %d and %d of q_%d", u, q, p, k)
			}
			pos[u][k] = p
		}
	}
	return pos, nil
}

// claim56 is Claim 5.6: |P_k(i) − P_k'(i)| ≤ 1 for all queues i is in.
func claim56(n *tnet) error {
	pos, err := positionsOf(n)
	if err != nil {
		return err
	}
	for u, ps := range pos {
		lo, hi := int32(1<<30), int32(0)
		for _, p := range ps {
			lo, hi = min(lo, p), max(hi, p)
		}
		if hi-lo > 1 {
			return fmt.Errorf("t=%d: Claim 5.6 violated: user %d at positions %v", n.now, u, ps)
		}
	}
	return nil
}

// lemma57 is Lemma 5.7's core: the wait-for order of two users is the same
// in every queue they share (if P_k(i) > P_k(j) then P_k'(i) > P_k'(j)), so
// the wait-for relation has no cycle.
func lemma57(n *tnet) error {
	pos, err := positionsOf(n)
	if err != nil {
		return err
	}
	for i, pi := range pos {
		for j, pj := range pos {
			if i >= j {
				continue
			}
			ahead := 0 // +1: i waits for j somewhere, -1: j waits for i
			for k, p := range pi {
				q, ok := pj[k]
				if !ok {
					continue
				}
				d := 1
				if p < q {
					d = -1
				}
				if ahead != 0 && ahead != d {
					return fmt.Errorf("t=%d: Lemma 5.7 violated: users %d and %d wait for each other (positions %v and %v)", n.now, i, j, pi, pj)
				}
				ahead = d
			}
		}
	}
	return nil
}

// initialBound checks, when user i sends its selects, p ≤ 3m+1 where m is
// the number of other users in the queues of R_i (counting i's own finished
// request as one when its release is still held) (§5, proof of Theorem
// 5.12: each occupies at most two adjacent positions, which with their
// predecessors mark at most three). With δ ≥ m+1 this is p ≤ 3δ−2 ≤ 3δ. The
// managers of R_i are all in rm_critical for i, so their queues are what
// the marked messages described.
type initialBound struct {
	maxP, maxM int32
	checked    int
}

func (b *initialBound) onSend(n *tnet, from, to proc.ID, m proc.Message) error {
	c, ok := m.(Select)
	if !ok {
		return nil
	}
	u := n.procs[from].(*user)
	if n.ids().rm(u.res[0]) != to {
		return nil // once per selection
	}
	others := map[proc.ID]bool{}
	ms := managers(n)
	old := int32(0) // the user's finished request, still in a queue
	for _, k := range u.res {
		for _, o := range ms[k].occ {
			if o != proc.None && o != from {
				others[o] = true
			}
		}
		if stale(ms[k], from) {
			old = 1
		}
	}
	mm := int32(len(others)) + old
	b.checked++
	b.maxP, b.maxM = max(b.maxP, c.P), max(b.maxM, mm)
	if c.P > 3*mm+1 {
		return fmt.Errorf("t=%d: initial position %d of user %d exceeds 3m+1 with m=%d other users in its queues", n.now, c.P, from, mm)
	}
	return nil
}

func (n *tnet) ids() idMap { return idMap{int32(n.pb.Users), int32(n.pb.Resources)} }

// invariantRuns runs a over random dynamic workloads with every check on.
func invariantRuns(t *testing.T, a algo.Algorithm, seeds int) (*initialBound, error) {
	return checkRuns(t, a, seeds, func(n *tnet) error {
		if err := claim56(n); err != nil {
			return err
		}
		return lemma57(n)
	})
}

// checkRuns runs a over random dynamic workloads with the initial-position
// bound and the given check after every step.
func checkRuns(t *testing.T, a algo.Algorithm, seeds int, check func(*tnet) error) (*initialBound, error) {
	b := &initialBound{}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		users, res := 3+int(seed%10), 2+int(seed%6)
		_, err := runRandom(t, a, users, res, min(res, 1+int(seed%4)), seed, func(n *tnet) {
			n.waitReleases = true
			n.afterStep = check
			n.onSend = b.onSend
		})
		if err != nil {
			return b, fmt.Errorf("seed %d: %w", seed, err)
		}
	}
	return b, nil
}

func TestInvariants(t *testing.T) {
	for _, sub := range subs() {
		t.Run(sub.Name, func(t *testing.T) {
			b, err := invariantRuns(t, For(sub), 40)
			if err != nil {
				t.Fatal(err)
			}
			if b.checked == 0 {
				t.Fatal("no selection checked")
			}
			t.Logf("%d selections: largest initial position %d, largest m %d", b.checked, b.maxP, b.maxM)
		})
	}
}

// TestInvariantsCatchBroken shows each check failing on a variant that
// breaks what it checks.
func TestInvariantsCatchBroken(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    variant
		sub  algo.Algorithm
		want string // in the error
	}{
		// Lemma 5.1, asserted where a position is written.
		{"select position 1 always", variant{alwaysFront: true}, lockAlg, "Lemma 5.1"},
		{"no rm_critical", variant{noCriticalHold: true}, lockAlg, "Lemma 5.1"},
		// Claim 5.6.
		{"advance queue by queue", variant{perQueue: true}, lockAlg, "Claim 5.6"},
		// The initial-position bound.
		{"select the tail", variant{tail: true}, lockAlg, "exceeds 3m+1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := invariantRuns(t, forVariant(tc.sub, tc.v), 80)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestLemma57CatchesBroken: the careless advancement of Fig. 3 (each queue
// advanced on its own) makes two users wait for each other; the Lemma 5.7
// check alone catches it.
func TestLemma57CatchesBroken(t *testing.T) {
	_, err := checkRuns(t, forVariant(lockAlg, variant{perQueue: true}), 80, lemma57)
	if err == nil || !strings.Contains(err.Error(), "Lemma 5.7") {
		t.Fatalf("err %v, want a Lemma 5.7 violation", err)
	}
	t.Log(err)
}

// TestSubroutineExclusionNeeded: without the subroutine's exclusion two
// conflicting users select at once; the managers' rm_critical then holds
// each one's report behind the other's, and nobody gets through.
func TestSubroutineExclusionNeeded(t *testing.T) {
	failed := 0
	for seed := uint64(1); seed <= 20; seed++ {
		if _, err := runRandom(t, For(freeAlg), 6, 3, 3, seed, nil); err != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("modular over a subroutine without exclusion passed every run")
	}
}

// TestBehind: at the step a user chooses its position, Behind says
// known, and behind exactly when another user occupies an earlier
// position of one of its queues (seen in the managers' state, which the
// user's choice has not changed yet). Both answers occur.
func TestBehind(t *testing.T) {
	got, err := behindRuns(t, (*user).Behind)
	if err != nil {
		t.Fatal(err)
	}
	if got[true] == 0 || got[false] == 0 {
		t.Fatalf("placements behind and not: %v, want both", got)
	}
	t.Logf("placements: %d behind another user, %d first", got[true], got[false])
}

// TestBehindCatches: the check above fails for an observation that
// never says behind, and for one that always does.
func TestBehindCatches(t *testing.T) {
	for _, wrong := range []func(*user) (bool, bool){
		func(u *user) (bool, bool) { k, _ := u.Behind(); return k, false },
		func(u *user) (bool, bool) { k, _ := u.Behind(); return k, true },
	} {
		if _, err := behindRuns(t, wrong); err == nil || !strings.Contains(err.Error(), "another user ahead") {
			t.Fatalf("a wrong Behind: %v, want the check to fail", err)
		}
	}
}

// behindRuns checks behind (a user's Behind) at every placement of random
// runs of modular-central and counts its answers.
func behindRuns(t *testing.T, behindOf func(*user) (bool, bool)) (map[bool]int, error) {
	got := map[bool]int{}
	type req struct {
		u  int
		at proc.Time
	}
	seen := map[req]bool{}
	_, err := checkRuns(t, For(central.Algorithm), 20, func(n *tnet) error {
		for id := range n.pb.Users {
			u := n.procs[id].(*user)
			known, behind := behindOf(u)
			r := req{id, n.reqAt[id]}
			if !known || u.region != trying || seen[r] {
				continue
			}
			seen[r] = true
			ahead := false
			for _, k := range u.res {
				m := n.procs[n.ids().rm(k)].(*manager)
				for q := 1; q < len(m.occ) && q < int(u.selected); q++ {
					ahead = ahead || m.occ[q] != proc.None && m.occ[q] != u.id
				}
			}
			if behind != ahead {
				return fmt.Errorf("t=%d: user %d placed at %d: Behind says %v, another user ahead: %v", n.now, id, u.selected, behind, ahead)
			}
			got[behind]++
		}
		return nil
	})
	return got, err
}
