package bidding

import (
	"slices"

	"github.com/allot-dev/allot/proc"
)

// Granter is the granting process of one resource. It is the safety
// mechanism: it is reserved for at most one user at a time, from its Agree
// until that user's Decline or Release.
//
//	free ──Win──▶ gathering ──one step, M_j = 1──▶ offered ──Accept──▶ allocated
//	  ▲               │ M_j ≥ 2: Deny all            │ Decline            │ Release
//	  └───────────────┴──────────────────────────────┴────────────────────┘
type Granter struct {
	p *Params

	phase  uint8
	pend   []bid // gathering: the winners seen, one entry per user
	holder proc.ID
	hr, ha uint32 // the holder's period (offered, allocated)
	gen    uint32 // gather timer generation

	// Priority bidding: the current interval's group, the winners' flags
	// (kept up by their Wins for a lease), and the winners the interval
	// started with.
	cur    int
	leases map[proc.ID]lease
	snap   []bid
}

type bid struct {
	u    proc.ID
	r, a uint32
}

type lease struct {
	g   uint8
	r   uint32
	exp proc.Time
}

// GranterTimer is a granter's timer for its generation Gen: the end of the
// gathering step, or with Offer the offer's deadline (the literalTimeout
// variant).
type GranterTimer struct {
	Gen   uint32
	Offer bool
}

const (
	gFree uint8 = iota
	gGathering
	gOffered
	gAllocated
)

// Start does nothing: a granter waits for winners.
func (g *Granter) Start(env proc.Env) {}

// Deliver runs the granter's rounds.
func (g *Granter) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Win:
		g.win(env, from, m)
	case Accept:
		if g.phase == gOffered && g.holds(from, m.R, m.A) {
			g.phase = gAllocated
			if g.leases != nil {
				delete(g.leases, from) // served: its flag is down
			}
		}
	case Decline:
		if g.phase == gOffered && g.holds(from, m.R, m.A) {
			g.free()
		}
	case Release:
		// A Release may overtake its Accept on an unordered channel; the
		// Accept that comes later no longer matches and is ignored.
		if (g.phase == gOffered || g.phase == gAllocated) && g.holds(from, m.R, m.A) {
			if g.leases != nil {
				delete(g.leases, from)
			}
			g.free()
		}
	default:
		panic("bidding: granter got an unexpected message " + m.Kind())
	}
}

func (g *Granter) holds(u proc.ID, r, a uint32) bool {
	return g.holder == u && g.hr == r && g.ha == a
}

func (g *Granter) free() {
	g.phase = gFree
	g.holder = proc.None
}

func (g *Granter) win(env proc.Env, from proc.ID, m Win) {
	if g.leases != nil {
		g.leases[from] = lease{m.G, m.R, env.Now() + proc.Time(g.p.Lease)*g.p.Step}
	}
	switch g.phase {
	case gFree:
		if g.leases != nil {
			g.pick(env)
			if int(m.G) != g.cur {
				g.deny(env, from, m.R, m.A) // not this interval's group
				return
			}
		}
		// A monitoring period with a winner in it: count the winners that
		// show up within one step.
		g.phase = gGathering
		g.pend = append(g.pend[:0], bid{from, m.R, m.A})
		g.gen++
		env.After(g.p.Step, GranterTimer{Gen: g.gen})
	case gGathering:
		if g.leases != nil && int(m.G) != g.cur {
			g.deny(env, from, m.R, m.A)
			return
		}
		for i := range g.pend {
			if g.pend[i].u == from {
				// A later attempt of the same winner: answer that one.
				g.deny(env, from, g.pend[i].r, g.pend[i].a)
				g.pend[i] = bid{from, m.R, m.A}
				return
			}
		}
		g.pend = append(g.pend, bid{from, m.R, m.A})
	default:
		// Offered or allocated: deny every winner that appears.
		g.deny(env, from, m.R, m.A)
	}
}

func (g *Granter) deny(env proc.Env, to proc.ID, r, a uint32) {
	env.Send(to, Deny{r, a})
}

// Fire ends a gather window: M_j = 1 agrees, M_j ≥ 2 denies every winner.
func (g *Granter) Fire(env proc.Env, t proc.Timer) {
	tm := t.(GranterTimer)
	if tm.Offer {
		if g.phase == gOffered && tm.Gen == g.gen {
			g.free() // the broken variant: the Accept may be in flight
		}
		return
	}
	if g.phase != gGathering || tm.Gen != g.gen {
		return
	}
	if len(g.pend) == 1 {
		b := g.pend[0]
		g.phase = gOffered
		g.holder, g.hr, g.ha = b.u, b.r, b.a
		env.Send(b.u, Agree{b.r, b.a})
		g.pend = g.pend[:0]
		if g.p.literalTimeout {
			g.gen++
			env.After(proc.Time(g.p.Lambda1)*g.p.Step, GranterTimer{g.gen, true})
		}
		return
	}
	for _, b := range g.pend {
		g.deny(env, b.u, b.r, b.a)
	}
	g.pend = g.pend[:0]
	g.free()
}

// pick chooses the interval of a free priority granter: the current one
// while a winner it started with is still bidding, else the next group, in
// cyclic order, that has a winner bidding.
func (g *Granter) pick(env proc.Env) {
	now := env.Now()
	live := func(b bid) bool {
		l, ok := g.leases[b.u]
		return ok && l.r == b.r && l.exp > now
	}
	if slices.ContainsFunc(g.snap, live) {
		return
	}
	// Drop expired flags; note which groups have a winner bidding.
	var groups uint64
	for u, l := range g.leases { // any order: deletes, and ORs a mask
		if l.exp <= now {
			delete(g.leases, u)
			continue
		}
		groups |= 1 << l.g
	}
	g.snap = g.snap[:0]
	if groups == 0 {
		return
	}
	n := g.p.Groups
	next := g.cur
	for i := 1; i <= n; i++ {
		if c := (g.cur + i) % n; groups&(1<<c) != 0 {
			next = c
			break
		}
	}
	g.cur = next
	for u, l := range g.leases { // any order: sorted below by user, each once
		if int(l.g) == next {
			g.snap = append(g.snap, bid{u: u, r: l.r})
		}
	}
	slices.SortFunc(g.snap, func(a, b bid) int { return int(a.u - b.u) })
}
