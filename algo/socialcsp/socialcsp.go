// Package socialcsp runs Social-CSP's extended output and input commands
// (Reif and Spirakis §1.6, after Francez and Reif) on a resource granting
// system:
//
//	(p_j1, …, p_jk)!(u_1, …, u_k)   the sender gives u_m to p_jm, all k at once
//	(p_i1, …, p_ik)?(x_1, …, x_k)   the receiver gets x_m from p_im, all k at once
//
// As §1.6 prescribes, the sender is a user of the allocation algorithm and
// its k partners are the granting processes of the resources it asks for:
// a communication is a request for the partners' resources; once the
// algorithm grants them all, the sender emits an output event naming the
// partners and sends each its value; each partner emits an input event as
// its value arrives and acknowledges it; when the k acknowledgements are in
// the rendezvous is complete and the sender enters (the application's
// critical section is the time the sender keeps its partners). Partners are
// named per request, so they may be computed at run time, as §1.6 allows.
//
//	sender ──request{r1..rk}──> algorithm ... enter (inner) ──> output{partners}
//	sender ──value──> partner p_jm: input ──ack──> sender ... k acks: enter
//
// The acknowledgements are this package's: §1.6 gives the command's
// meaning, not its messages. A CSP communication is over when both sides
// have taken part, and the sender learns that its k receivers have from
// their acks; the values are sent at once and each partner's receipt is
// independent of the others', which is the paper's "simultaneously".
//
// The extended input command (socialcsp-in-<algorithm>, InputFor) is the
// same rendezvous with the values flowing the other way, as §1.6 says:
// "the receiver in the input command" is the user, its partners the
// granting processes. Once granted, the receiver emits an ext-input event
// naming the partners and asks each for its value (Want); each partner
// answers with it (Give), and the receiver emits a receive event per value;
// when the k values are in the rendezvous is complete and the receiver
// enters. Each partner answers on its own, so a value's receipt does not
// wait on the others' ("simultaneously").
//
//	receiver ──request{r1..rk}──> algorithm ... enter (inner) ──> ext-input{partners}
//	receiver ──want──> partner p_im ──give──> receiver: receive ... k values: enter
//
// The layer needs an algorithm with a granting process per resource:
// resource r's granter is process Users+r (bidding's granters, ordered's
// locks, the modular algorithm's resource managers). Those processes are
// the partners; the layer wraps them to take values, passing every other
// message on. What keeps two rendezvous off one partner is the algorithm's
// exclusion: the layer adds no coordination, so the rendezvous checker
// (check.Rendezvous) judges the algorithm.
package socialcsp

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Value carries the sender's value of its communication Comm to one
// partner.
type Value struct{ Comm int32 }

// Ack tells the sender its partner has the value of Comm.
type Ack struct{ Comm int32 }

// Want asks a partner for its value of the receiver's extended input
// Comm.
type Want struct{ Comm int32 }

// Give carries a partner's value of extended input Comm to its receiver.
type Give struct{ Comm int32 }

func (Value) Kind() string { return "value" }
func (Ack) Kind() string   { return "ack" }
func (Want) Kind() string  { return "want" }
func (Give) Kind() string  { return "give" }

// For returns Social-CSP's extended output over the allocation algorithm
// a, named socialcsp-<a>.
func For(a algo.Algorithm) algo.Algorithm {
	return forVariant(a, false, false)
}

// InputFor returns Social-CSP's extended input over the allocation
// algorithm a, named socialcsp-in-<a>.
func InputFor(a algo.Algorithm) algo.Algorithm {
	return forVariant(a, true, false)
}

// EarlyEnter is For with a broken sender that completes its rendezvous on
// the first acknowledgement, not the k-th. It is not in any catalogue: it
// shows that the rendezvous checker catches an output its sender leaves
// before every input happened.
func EarlyEnter(a algo.Algorithm) algo.Algorithm {
	b := forVariant(a, false, true)
	b.Name += "/early-enter"
	b.Summary = "BROKEN on purpose: " + b.Summary + ", entering on the first ack"
	return b
}

// InputEarlyEnter is InputFor with a broken receiver that completes its
// extended input on the first value, not the k-th; like EarlyEnter it is
// in no catalogue.
func InputEarlyEnter(a algo.Algorithm) algo.Algorithm {
	b := forVariant(a, true, true)
	b.Name += "/early-enter"
	b.Summary = "BROKEN on purpose: " + b.Summary + ", entering on the first value"
	return b
}

func forVariant(a algo.Algorithm, input, early bool) algo.Algorithm {
	name, summary := "socialcsp-", "Social-CSP extended output over "+a.Name+": the sender a user, its k partners the granting processes"
	if input {
		name, summary = "socialcsp-in-", "Social-CSP extended input over "+a.Name+": the receiver a user, its k partners the granting processes"
	}
	return algo.Algorithm{
		Name:        name + a.Name,
		Kind:        algo.Exclusive,
		Summary:     summary,
		NeedsFIFO:   a.NeedsFIFO,
		Options:     a.Options,
		PerResource: true,
		Build: func(pb *algo.Problem) ([]proc.Process, error) {
			return build(a, pb, input, early)
		},
		Messages: slices.Concat(a.Messages, []proc.Message{Value{}, Ack{}, Want{}, Give{}}),
		Timers:   a.Timers,
	}
}

func build(a algo.Algorithm, pb *algo.Problem, input, early bool) ([]proc.Process, error) {
	if !a.PerResource {
		return nil, fmt.Errorf("socialcsp-%s: %s has no granting process per resource to be the partners", a.Name, a.Name)
	}
	ps, err := a.Build(pb)
	if err != nil {
		return nil, fmt.Errorf("socialcsp-%s: %w", a.Name, err)
	}
	if len(ps) < pb.Users+pb.Resources {
		return nil, fmt.Errorf("socialcsp-%s: %d processes for %d users and %d resources", a.Name, len(ps), pb.Users, pb.Resources)
	}
	out := slices.Clone(ps)
	for u := range pb.Users {
		inner, ok := ps[u].(proc.Allocator)
		if !ok {
			return nil, fmt.Errorf("socialcsp-%s: user %d is not an allocator", a.Name, u)
		}
		out[u] = &Sender{inner: inner, first: proc.ID(pb.Users), input: input, early: early}
	}
	for r := range pb.Resources {
		out[pb.Users+r] = &Partner{inner: ps[pb.Users+r]}
	}
	return out, nil
}

// Sender is a user making one extended output per request, or, as the
// receiver of InputFor, one extended input.
type Sender struct {
	inner   proc.Allocator
	first   proc.ID // the granter of resource 0
	input   bool    // an extended input: ask the partners for their values
	early   bool    // the broken variant: enter on the first ack or value
	res     []proc.ResID
	comm    int32 // the current communication's number (from 1)
	waiting int   // acks or values still expected (0: none)
}

// senderEnv is the inner user's Env: its enter starts the rendezvous.
type senderEnv struct {
	proc.Env
	s *Sender
}

func (e senderEnv) Emit(ev proc.Event) {
	if ev.Kind != proc.EvEnter {
		e.Env.Emit(ev)
		return
	}
	e.s.granted(e.Env)
}

func (s *Sender) Start(env proc.Env)              { s.inner.Start(senderEnv{env, s}) }
func (s *Sender) Fire(env proc.Env, t proc.Timer) { s.inner.Fire(senderEnv{env, s}, t) }
func (s *Sender) Release(env proc.Env)            { s.inner.Release(senderEnv{env, s}) }

// Request asks the algorithm for the partners' resources.
func (s *Sender) Request(env proc.Env, r proc.Request) {
	s.res = r.Res
	s.inner.Request(senderEnv{env, s}, r)
}

// granted makes the output: every partner is held, each gets its value.
func (s *Sender) granted(env proc.Env) {
	s.comm++
	partners := make([]proc.ID, len(s.res))
	for i, r := range s.res {
		partners[i] = s.first + proc.ID(r)
	}
	if s.input {
		env.Emit(proc.Event{Kind: proc.EvExtInput, Unit: s.comm, Members: partners})
	} else {
		env.Emit(proc.Event{Kind: proc.EvOutput, Unit: s.comm, Members: partners})
	}
	if len(partners) == 0 {
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: s.res})
		return
	}
	s.waiting = len(partners)
	for _, p := range partners {
		if s.input {
			env.Send(p, Want{Comm: s.comm})
		} else {
			env.Send(p, Value{Comm: s.comm})
		}
	}
}

func (s *Sender) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	var comm int32
	switch m := m.(type) {
	case Ack:
		comm = m.Comm
	case Give:
		comm = m.Comm
	default:
		s.inner.Deliver(senderEnv{env, s}, from, m)
		return
	}
	if comm != s.comm || s.waiting == 0 {
		if s.early {
			return // the broken variant: the answers it stopped waiting for
		}
		panic(fmt.Sprintf("socialcsp: %s of communication %d from %d, current %d awaiting %d", m.Kind(), comm, from, s.comm, s.waiting))
	}
	if s.input {
		env.Emit(proc.Event{Kind: proc.EvReceive, Peer: from, Unit: comm})
	}
	s.waiting--
	if s.early {
		s.waiting = 0
	}
	if s.waiting == 0 {
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: s.res})
	}
}

// Partner is a granting process that also takes values, and gives its own
// to a receiver that asks.
type Partner struct{ inner proc.Process }

func (p *Partner) Start(env proc.Env)              { p.inner.Start(env) }
func (p *Partner) Fire(env proc.Env, t proc.Timer) { p.inner.Fire(env, t) }

func (p *Partner) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Value:
		env.Emit(proc.Event{Kind: proc.EvInput, Peer: from, Unit: m.Comm})
		env.Send(from, Ack{Comm: m.Comm})
	case Want:
		env.Send(from, Give{Comm: m.Comm})
	default:
		p.inner.Deliver(env, from, m)
	}
}
