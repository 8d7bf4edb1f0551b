package modular

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// recEnv records what a single process sends.
type recEnv struct{ sent []string }

func (e *recEnv) Self() proc.ID               { return 100 }
func (e *recEnv) Now() proc.Time              { return 0 }
func (e *recEnv) Rand() *rand.Rand            { return nil }
func (e *recEnv) After(proc.Time, proc.Timer) {}
func (e *recEnv) Emit(proc.Event)             {}
func (e *recEnv) Send(to proc.ID, m proc.Message) {
	e.sent = append(e.sent, fmt.Sprintf("%s%v→%d", m.Kind()[len("modular."):], m, to))
}

func (e *recEnv) take() []string {
	s := e.sent
	e.sent = nil
	return s
}

// TestLine32 scripts one manager through the case that tells the two
// readings of Fig. 5 line 32 apart. B advances from 3 to 2 with position 1
// free (line 31 fires); C then selects 3, behind B. When B advances to 1,
// the cascade of adjust_queue reaches C at 3 with 2 now free:
//
//   - read as has_dec_sent(p−1) := true, C gets its dec(3) and B gets no
//     second dec(2) (Claims 5.3 and 5.4 hold);
//   - read literally (has_dec_sent(p) := true), has_dec_sent(3) was left
//     true with position 3 empty, so C never gets dec(3) — it is locked out —
//     and has_dec_sent(2) was never set, so B gets dec(2) twice.
func TestLine32(t *testing.T) {
	const X, B, C = 10, 11, 12
	for _, tc := range []struct {
		name               string
		literal            bool
		wantAdv2, wantRest []string
	}{
		{"has_dec_sent(p-1)", false,
			[]string{"grant{}→11", "dec{3}→12"}, nil},
		{"literal has_dec_sent(p)", true,
			[]string{"dec{2}→11", "grant{}→11"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newManager(0, variant{literal32: tc.literal})
			env := &recEnv{}
			steps := []struct {
				from proc.ID
				msg  proc.Message
				want []string
			}{
				{X, Report{}, []string{"marked{[]}→10"}},
				{X, Select{1}, []string{"grant{}→10"}},
				{B, Report{}, []string{"marked{[1]}→11"}},
				// 2 is free here but marked in another of B's queues.
				{B, Select{3}, []string{"dec{3}→11"}},
				{X, Release{}, nil},
				{B, Advance{3}, []string{"dec{2}→11"}},
				{C, Report{}, []string{"marked{[1 2]}→12"}},
				{C, Select{3}, nil},
				{B, Advance{2}, tc.wantAdv2},
			}
			for i, s := range steps {
				m.Deliver(env, s.from, s.msg)
				if got := env.take(); !slices.Equal(got, s.want) {
					t.Fatalf("step %d (%T from %d): sent %q, want %q", i, s.msg, s.from, got, s.want)
				}
			}
			if tc.literal {
				if !m.decSent[3] || m.occ[3] != C {
					t.Fatalf("literal reading: want C at 3 with has_dec_sent(3) stale (occ %v, decSent %v)", m.occ, m.decSent)
				}
			}
		})
	}
}

// TestLine32Runs: over random runs the literal reading locks users out (or
// lets a duplicate dec through) while the chosen one serves everybody.
func TestLine32Runs(t *testing.T) {
	bad := 0
	for seed := uint64(1); seed <= 30; seed++ {
		if _, err := runRandom(t, forVariant(lockAlg, variant{}), 8, 4, 3, seed, nil); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if _, err := runRandom(t, forVariant(lockAlg, variant{literal32: true}), 8, 4, 3, seed, nil); err != nil {
			bad++
		}
	}
	if bad == 0 {
		t.Fatal("the literal reading of line 32 passed every run; the test cannot tell the readings apart")
	}
	t.Logf("literal line 32 failed %d of 30 runs", bad)
}
