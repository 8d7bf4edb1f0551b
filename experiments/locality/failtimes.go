package locality

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/unhygienic"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// crashTimes is how the failure-model study draws its crash: which
// process, and when. §6 of Sivilotti, Pike and Sridhar: "process failures
// occur according to some known distribution (e.g., negative
// exponential)".
type crashTimes int

const (
	// uniformTimes draws the crashed process with probability
	// proportional to its likelihood, then its crash time uniformly in
	// [crashWarm, crashWarm + 2·crashMean).
	uniformTimes crashTimes = iota
	// expTimes gives every process a failure time crashWarm + T_u, T_u
	// negative exponential with rate proportional to its likelihood,
	// scaled so that the first failure comes crashMean after crashWarm on
	// average; the first to fail crashes. (The first of independent
	// exponentials is exponential with the summed rate, and it is process
	// u's with probability proportional to u's rate: the same choice of
	// process as uniformTimes, at a time the paper's model draws.) A draw
	// whose first failure is past the window is drawn again: the crash is
	// conditioned on falling within the run, as the uniform one does.
	expTimes
)

// The crash window: the heights have had crashWarm ticks to settle, and
// the crash leaves the run time to show whom it starves.
const (
	crashWarm = 500
	crashMean = 1250
)

// draw returns the process that crashes and when; the first failure lies
// before limit.
func (c crashTimes) draw(f []float64, rnd *rand.Rand, limit proc.Time) (proc.ID, proc.Time) {
	if c == uniformTimes {
		x := drawCrash(f, rnd)
		return x, proc.Time(crashWarm + rnd.IntN(2*crashMean))
	}
	total := 0.0
	for _, x := range f {
		total += x
	}
	for {
		first, at := proc.ID(0), math.Inf(1)
		for u, x := range f {
			// Rate x/(total·crashMean): the summed rate is 1/crashMean.
			if t := rnd.ExpFloat64() * crashMean * total / x; t < at {
				first, at = proc.ID(u), t
			}
		}
		if t := proc.Time(crashWarm + at); t < limit {
			return first, t
		}
	}
}

func (c crashTimes) String() string {
	if c == uniformTimes {
		return fmt.Sprintf("the crashed process drawn by its likelihood, at a time uniform in [%d, %d)", crashWarm, crashWarm+2*crashMean)
	}
	return fmt.Sprintf("every process's failure time %d + Exp(rate ∝ its likelihood), the first failure %d ticks after %d on average; the first to fail crashes", crashWarm, crashMean, crashWarm)
}

// expCrash is the instance of one crash of the exponential study: the
// graph, the failure model and the rule, and the crash drawn from them.
// A pair of runs (aware, blind) shares the seed, hence all but the rule.
func expCrash(seed uint64, rule string, horizon proc.Time) (*algo.Problem, proc.ID, proc.Time, error) {
	rnd := rand.New(rand.NewPCG(seed, 7))
	g, err := graph.Parse("random:30:0.15", rnd)
	if err != nil {
		return nil, 0, 0, err
	}
	pb := algo.DiningProblem(g)
	pb.Failure = failureModel(g.N(), rnd)
	pb.Options = map[string]string{"rule": rule}
	x, at := expTimes.draw(pb.Failure, rnd, horizon/2)
	return pb, x, at, nil
}

// unhygienicExpClaims is the failure-model claim with failure times drawn
// as §6 suggests, negative exponential (expTimes); unhygienicClaims keeps
// the uniform crash time.
func unhygienicExpClaims(ctx context.Context, o study.Options) ([]study.Claim, error) {
	seeds, horizon := 150, proc.Time(12000)
	if o.Quick {
		seeds, horizon = 80, 6000
	}
	rules := []string{"aware", "blind"}
	outs, err := sweep.Each(ctx, o.Points, "locality-unhygienic-exp", keys(2*seeds), func(i int) (crashOutcome, error) {
		pb, x, at, err := expCrash(sweep.Seed(o.Seed, uint64(i%seeds), 8), rules[i/seeds], horizon)
		if err != nil {
			return crashOutcome{}, err
		}
		return runCrash(unhygienic.Algorithm, pb, busy(sweep.Seed(o.Seed, uint64(i%seeds), 8), horizon), x, at)
	})
	if err != nil {
		return nil, err
	}
	var flA, flB, flD, ats []float64
	for s := 0; s < seeds; s++ {
		a, b := outs[s], outs[seeds+s]
		flA, flB = append(flA, float64(a.Loc.FailureLocality)), append(flB, float64(b.Loc.FailureLocality))
		flD = append(flD, flA[s]-flB[s])
		_, _, at, _ := expCrash(sweep.Seed(o.Seed, uint64(s), 8), rules[0], horizon)
		ats = append(ats, float64(at))
	}
	ma, sa := sweep.MeanSE(flA)
	mb, sb := sweep.MeanSE(flB)
	md, sd := sweep.MeanSE(flD)
	mat, _ := sweep.MeanSE(ats)
	return []study.Claim{{
		ID: "locality/unhygienic-failure-model-exp", Paper: paperSPS + " §6",
		Claim: "with failures negative exponential in time, at rates by the failure model, keeping failure-prone processes low gives a better expected failure locality than a failure-blind rule",
		Measured: fmt.Sprintf("%d crash pairs (random:30:0.15, likelihoods as in unhygienic-failure-model; %s; mean crash tick %.0f): expected failure locality %.2f ± %.2f (aware) vs %.2f ± %.2f (blind), paired difference %.2f ± %.2f, must be below −2 SE",
			seeds, expTimes, mat, ma, sa, mb, sb, md, sd),
		Figures: map[string]float64{"crashes": float64(seeds), "aware_fl": ma, "aware_fl_se": sa, "blind_fl": mb, "blind_fl_se": sb,
			"difference_fl": md, "difference_fl_se": sd, "mean_crash_tick": mat},
		Pass: better(md, sd),
	}}, nil
}
