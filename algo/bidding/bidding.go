package bidding

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is uniform probabilistic bidding (§3).
var Algorithm = algo.Algorithm{
	Name:        "bidding",
	Kind:        algo.Exclusive,
	Summary:     "Reif–Spirakis uniform probabilistic bidding: granting processes, rounds, a user wins a round with probability 1/(βkv)",
	Options:     optionKeys,
	PerResource: true,
	Build:       func(p *algo.Problem) ([]proc.Process, error) { return build(p, false) },

	Messages: messages,
	Timers:   timers,
}

// Priority is priority bidding (§4): users grouped by demand, random waits,
// granter rounds split into one interval per group.
var Priority = algo.Algorithm{
	Name:        "priority-bidding",
	Kind:        algo.Exclusive,
	Summary:     "Reif–Spirakis priority bidding: small requests win more often, heavy ones lose a polylog factor",
	Options:     optionKeys,
	PerResource: true,
	Build:       func(p *algo.Problem) ([]proc.Process, error) { return build(p, true) },

	Messages: messages,
	Timers:   timers,
}

// maxUserRounds bounds βkv × users, the bids one answered request costs
// the simulation.
const maxUserRounds = 1e10

// optionKeys are the settings Problem.Options may give (see the package
// doc): the constants k, v, ρ (ratio), μ and the step length.
var optionKeys = []string{"k", "v", "ratio", "mu", "step"}

// LiteralTimeout is uniform bidding with the paper's listing taken
// literally: a granter gives up its offer after λ1 steps, even while the
// winner's Accept is in flight. It is not in the catalogue: it is the
// broken variant the suites keep (TestLiteralTimeoutBreaksExclusion, the
// explorer).
var LiteralTimeout = algo.Algorithm{
	Name:    "bidding/literal-timeout",
	Kind:    algo.Exclusive,
	Summary: "BROKEN on purpose: bidding whose granters withdraw an offer after λ1 steps",
	Options: optionKeys,
	Build: func(pb *algo.Problem) ([]proc.Process, error) {
		procs, err := build(pb, false)
		if err == nil && len(procs) > 0 {
			procs[0].(*User).p.literalTimeout = true // one Params, shared by all
		}
		return procs, err
	},
}

// Params are the constants of a run, derived from the problem (see the
// package doc). All lengths are in steps.
type Params struct {
	K, V     int     // largest request, most users competing for a resource
	Ratio    float64 // ρ = r_max/r_min ≥ 1
	Mu       int     // μ: critical-section steps the rounds are sized for
	Step     proc.Time
	Priority bool
	// Paper sizes λ1 and c exactly as §3.2 gives them (option
	// constants=paper) instead of with the extra step of the package doc.
	Paper bool

	Beta    float64 // 1 + ρ
	Lambda1 int     // steps a winner collects answers
	C       int     // steps of a user round
	C1      int     // priority: bound of the random wait
	Lease   int     // priority: steps a Win keeps a winner's flag up
	Groups  int     // priority: number of demand groups (1 for uniform)

	// literalTimeout makes a granter give up an offer after λ1 steps, as the
	// paper's listing does (E_ji ← 0 when A_ij is still 0). Tests only: it
	// is the broken variant that shows why the granter waits for the answer.
	literalTimeout bool
}

// Draws is the size of the draw range of a user in group g: ⌈β·h_g·v⌉ with
// h_g = ⌈k/2^g⌉ (g = 0 for uniform bidding, h_0 = k).
func (p *Params) Draws(g int) int {
	return int(math.Ceil(p.Beta * float64(p.H(g)) * float64(p.V)))
}

// H is h_g = ⌈k/2^g⌉, the largest demand of group g.
func (p *Params) H(g int) int {
	d := 1 << g
	return (p.K + d - 1) / d
}

// Group is the demand group of a request of n resources: the largest g in
// 0..Groups-1 with n ≤ ⌈k/2^g⌉ (always 0 for uniform bidding).
func (p *Params) Group(n int) int {
	g := 0
	for g+1 < p.Groups && n <= p.H(g+1) {
		g++
	}
	return g
}

// Attempts is how many λ1-step attempts fit before step c−μ of a round.
func (p *Params) Attempts() int {
	return max(1, (p.C-p.Mu)/p.Lambda1)
}

// RoundTicks is the length of a uniform round at nominal speed.
func (p *Params) RoundTicks() proc.Time { return proc.Time(p.C) * p.Step }

// NewParams derives the constants of a problem; see the package doc for
// the options it reads.
func NewParams(pb *algo.Problem, priority bool) (*Params, error) {
	if pb.Kind != algo.Exclusive {
		return nil, fmt.Errorf("bidding solves exclusive problems, not %s", pb.Kind)
	}
	if pb.Users < 1 || pb.Resources < 1 {
		return nil, fmt.Errorf("bidding needs at least one user and one resource (have %d, %d)", pb.Users, pb.Resources)
	}
	p := &Params{Ratio: 1, Mu: 1, Step: 10, Priority: priority}
	// k and v from the largest request sets, unless given.
	compete := make([]int, pb.Resources)
	for _, set := range pb.MaxSets {
		p.K = max(p.K, len(set))
		for _, r := range set {
			if r < 0 || int(r) >= pb.Resources {
				return nil, fmt.Errorf("bidding: resource %d out of range 0..%d", r, pb.Resources-1)
			}
			compete[r]++
		}
	}
	if len(pb.MaxSets) == 0 {
		p.K = pb.Resources
	}
	p.V = max(1, slices.Max(compete))
	if len(pb.MaxSets) == 0 {
		p.V = pb.Users
	}
	if pb.MaxDemand > 0 {
		p.K = min(p.K, pb.MaxDemand)
	}
	p.K = max(1, p.K)
	keys := make([]string, 0, len(pb.Options))
	for key := range pb.Options { // any order: sorted below
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		val := pb.Options[key]
		bad := func(why string) error { return fmt.Errorf("bidding option %s=%q: %s", key, val, why) }
		switch key {
		case "k", "v", "mu", "step":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > 1<<30 {
				return nil, bad("want a whole number ≥ 1")
			}
			switch key {
			case "k":
				p.K = n
			case "v":
				p.V = n
			case "mu":
				p.Mu = n
			case "step":
				p.Step = proc.Time(n)
			}
		case "constants":
			switch val {
			case "paper":
				p.Paper = true
			case "allot":
			default:
				return nil, bad("want paper (λ1 = ⌈2ρ⌉, c = ⌈(2(2+μ)+1)ρ²⌉, §3.2) or allot (the default: one step more per exchange)")
			}
		case "ratio":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || !(f >= 1) || f > 1000 {
				return nil, bad("want r_max/r_min, a number in [1, 1000]")
			}
			p.Ratio = f
		default:
			return nil, fmt.Errorf("bidding: unknown option %q (known: k, v, ratio, mu, step, constants)", key)
		}
	}
	bkv := float64(p.K) * float64(p.V) * (1 + p.Ratio)
	if bkv > 1<<40 {
		return nil, fmt.Errorf("bidding: βkv = %.0f is too large", bkv)
	}
	// A user wins a round with probability 1/(βkv), so a request waits
	// about βkv rounds while every waiting user bids in each: past
	// maxUserRounds a run answers nothing in any time a user would wait.
	if bkv*float64(pb.Users) > maxUserRounds {
		return nil, algo.TooLarge("bidding: %d users competing with βkv = %.3g make about %.2g user-rounds a request (at most %.0g can be simulated): a user wins a round with probability 1/(βkv)",
			pb.Users, bkv, bkv*float64(pb.Users), float64(maxUserRounds))
	}
	p.Beta = 1 + p.Ratio
	p.Lambda1 = int(math.Ceil(2*p.Ratio)) + 1
	p.C = int(math.Ceil(float64(2*(p.Lambda1+p.Mu)+1) * p.Ratio * p.Ratio))
	if p.Paper {
		p.Lambda1 = int(math.Ceil(2 * p.Ratio))
		p.C = int(math.Ceil(float64(2*(2+p.Mu)+1) * p.Ratio * p.Ratio))
	}
	p.C1 = int(math.Ceil(float64(p.C) * p.Ratio))
	p.Lease = int(math.Ceil(float64(p.Lambda1+2) * p.Ratio))
	p.Groups = 1
	if priority {
		p.Groups = bitsLen(p.K-1) + 1 // ⌈log₂ k⌉ + 1
	}
	return p, nil
}

// bitsLen is the number of bits of n ≥ 0, so bitsLen(k-1) = ⌈log₂ k⌉.
func bitsLen(n int) int {
	b := 0
	for n > 0 {
		b++
		n >>= 1
	}
	return b
}

func build(pb *algo.Problem, priority bool) ([]proc.Process, error) {
	p, err := NewParams(pb, priority)
	if err != nil {
		return nil, err
	}
	procs := make([]proc.Process, 0, pb.Users+pb.Resources)
	for i := 0; i < pb.Users; i++ {
		procs = append(procs, &User{p: p, users: proc.ID(pb.Users)})
	}
	for j := 0; j < pb.Resources; j++ {
		g := &Granter{p: p, holder: proc.None}
		if priority {
			g.leases = map[proc.ID]lease{}
		}
		procs = append(procs, g)
	}
	return procs, nil
}

// The messages. R and A are the user's round and attempt: the period an
// answer belongs to. G is the bidder's demand group (priority bidding).
type (
	// Win is W_ij ← 1: "I am a winner and want your resource".
	Win struct {
		R, A uint32
		G    uint8
	}
	// Agree is E_ji ← 1: the granter is reserved for the winner.
	Agree struct{ R, A uint32 }
	// Deny is E_ji ← 0 made visible: not this period.
	Deny struct{ R, A uint32 }
	// Accept is A_ij ← 1: every granter agreed; the user takes the resource.
	Accept struct{ R, A uint32 }
	// Decline is A_ij ← 0: the user does not take it this period.
	Decline struct{ R, A uint32 }
	// Release is N_ij ← 1: the user is done with the resource.
	Release struct{ R, A uint32 }
)

var (
	messages = []proc.Message{Win{}, Agree{}, Deny{}, Accept{}, Decline{}, Release{}}
	timers   = []proc.Timer{UserTimer{}, GranterTimer{}}
)

func (Win) Kind() string     { return "win" }
func (Agree) Kind() string   { return "agree" }
func (Deny) Kind() string    { return "deny" }
func (Accept) Kind() string  { return "accept" }
func (Decline) Kind() string { return "decline" }
func (Release) Kind() string { return "release" }
