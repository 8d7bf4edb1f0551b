package modular

import (
	"fmt"

	"github.com/allot-dev/allot/proc"
)

// manager is the resource manager rm_k of Fig. 5. It keeps q_k as three
// arrays indexed by position (index 0 is unused; position 0 does not exist):
// the occupant, has_dec_sent and has_received_advance.
type manager struct {
	k       proc.ResID
	occ     []proc.ID // occupant_k(p); proc.None when unoccupied (the paper's 0)
	decSent []bool    // has_dec_sent(p)
	recvAdv []bool    // has_received_advance(p)

	// rm_critical_k, and the user whose report set it.
	critical bool
	critUser proc.ID

	// held are the inputs whose guards are false while rm_critical_k is
	// true (report, advance, release): they wait in the manager's buffer,
	// oldest first, as in the paper's guarded-command model.
	held     []heldMsg
	heldHead int

	v variant
}

type heldMsg struct {
	from proc.ID
	m    proc.Message
}

var _ proc.Process = (*manager)(nil)

func newManager(k proc.ResID, v variant) *manager {
	return &manager{k: k, occ: []proc.ID{proc.None}, decSent: []bool{false}, recvAdv: []bool{false}, critUser: proc.None, v: v}
}

func (m *manager) Start(proc.Env)            {}
func (m *manager) Fire(proc.Env, proc.Timer) {}

func (m *manager) Deliver(env proc.Env, from proc.ID, msg proc.Message) {
	if m.critical {
		if _, ok := msg.(Select); !ok && !m.v.noCriticalHold {
			m.held = append(m.held, heldMsg{from, msg})
			return
		}
	}
	m.step(env, from, msg)
	// Leaving rm_critical enables the held inputs; run them in arrival
	// order until one sets rm_critical again.
	for !m.critical && m.heldHead < len(m.held) {
		h := m.held[m.heldHead]
		m.held[m.heldHead] = heldMsg{}
		m.heldHead++
		m.step(env, h.from, h.m)
	}
	if m.heldHead == len(m.held) {
		m.held, m.heldHead = m.held[:0], 0
	}
}

// step is one guarded command of Fig. 5 (lines 1–15).
func (m *manager) step(env proc.Env, from proc.ID, msg proc.Message) {
	switch msg := msg.(type) {
	case Report: // lines 1–4
		env.Send(from, Marked{m.markedSet()})
		m.critical, m.critUser = true, from
	case Select: // lines 5–9
		if !m.critical || from != m.critUser {
			panic(fmt.Sprintf("modular: rm of resource %d: select from user %d while rm_critical=%v for user %d (the subroutine broke exclusion)", m.k, from, m.critical, m.critUser))
		}
		m.critical, m.critUser = false, proc.None
		p := msg.P
		m.grow(p)
		m.occupy(p, from)
		if p == 1 {
			env.Send(from, Grant{})
		}
		m.adjust(env, p)
	case Advance: // lines 10–12
		m.grow(msg.P)
		m.recvAdv[msg.P] = true
		m.adjust(env, msg.P)
	case Release: // lines 13–15
		if m.occ[1] != from {
			panic(fmt.Sprintf("modular: rm of resource %d: release from user %d, but position 1 holds %d", m.k, from, m.occ[1]))
		}
		m.occ[1] = proc.None
		m.adjust(env, 2)
	default:
		panic(fmt.Sprintf("modular: rm of resource %d: unexpected message %T from %d", m.k, msg, from))
	}
}

// markedSet is Fig. 5 line 2: {j−1, j : occupant_k(j) ≠ 0}. Position 0 (the
// predecessor of 1) is left out: it is never selectable anyway.
func (m *manager) markedSet() []int32 {
	var out []int32
	for j := 1; j < len(m.occ); j++ {
		if m.occ[j] == proc.None {
			continue
		}
		if j > 1 && (len(out) == 0 || out[len(out)-1] != int32(j-1)) {
			out = append(out, int32(j-1))
		}
		out = append(out, int32(j))
	}
	return out
}

// occupy writes occupant_k(p) := u. Lemma 5.1 says the slot is free: a
// conflicting user never shares a position, and the same user never
// selects or advances onto itself.
func (m *manager) occupy(p int32, u proc.ID) {
	if m.occ[p] != proc.None {
		panic(fmt.Sprintf("modular: rm of resource %d: user %d moves to position %d held by user %d (Lemma 5.1 violated)", m.k, u, p, m.occ[p]))
	}
	m.occ[p] = u
}

// grow makes position p addressable, and p+1 so adjust's loop can look past
// the last occupied position.
func (m *manager) grow(p int32) {
	for int32(len(m.occ)) <= p+1 {
		m.occ = append(m.occ, proc.None)
		m.decSent = append(m.decSent, false)
		m.recvAdv = append(m.recvAdv, false)
	}
}

// adjust is adjust_queue(p), Fig. 5 lines 16–24. Position 1 has no
// predecessor, so the loop starts at 2 at the lowest: a user at 1 is
// granted, never sent dec(1).
func (m *manager) adjust(env proc.Env, p int32) {
	p = max(p, 2)
	for int(p) < len(m.occ) && m.occ[p] != proc.None && m.occ[p-1] == proc.None {
		if !m.decSent[p] {
			m.decSent[p] = true
			env.Send(m.occ[p], Dec{p})
		}
		if m.recvAdv[p] {
			m.advanceOne(env, p)
		}
		p++
	}
}

// advanceOne is advance_one_position(p), Fig. 5 lines 25–33, with line 32
// read as has_dec_sent(p−1) := true (see the package documentation).
func (m *manager) advanceOne(env proc.Env, p int32) {
	u := m.occ[p]
	m.occ[p] = proc.None
	m.occupy(p-1, u)
	m.recvAdv[p] = false
	m.decSent[p] = false
	if p-1 == 1 {
		env.Send(u, Grant{})
		return
	}
	if !m.decSent[p-1] && m.occ[p-2] == proc.None {
		if m.v.literal32 {
			m.decSent[p] = true // the listing as printed
		} else {
			m.decSent[p-1] = true
		}
		env.Send(u, Dec{p - 1})
	}
}
