package controller

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// BankMain is the distributed bank of §6.3 as the paper builds it: two
// MAIN CONTROLLERS on the participants' tree, one for the withdrawals and
// one for the deposits. It is not in the catalogue (like package bank's,
// its requests are deposits and withdrawals: a request naming resource
// DepositRes is a deposit, any other a withdrawal; check.Bank judges the
// events).
//
// The withdrawal controller is the main controller's CONTROLLER-R whose
// root bin is the bank: it never rejects; a request the bank cannot serve
// waits there, in order, until deposits arrive (§6.3). The deposit
// controller is the same bin hierarchy run backwards, as in package bank:
// a deposit is acknowledged at once into the node's local deposit bin,
// and a bin that reaches its capacity sends its content to its
// supervisor, up to the bank. Both use Λ for ⌊W/3⌋ and U_i = 3n_i, and
// are re-initialized with CONTROLLER-N's iterations: the collection
// brings every bin's money (withdrawal and deposit bins) back to the
// bank, and the withdrawals waiting at the bank are answered Later and
// asked again in the next iteration. Readings beyond package bank's:
//
//   - A deposit message carries its amount (Deposit.N): capacities change
//     between iterations, and a deposit still on its way when one ends
//     would otherwise change its value. Money that reaches a node after it
//     echoed the collection stays in its bins for the next collection;
//     money that reaches the root then is added to the next iteration's
//     bank.
//   - A node joins the participants when it first asks, a deposit
//     included: its deposit bin can only be emptied up the participants'
//     tree.
var BankMain = algo.Algorithm{
	Name:     "bank-main",
	Kind:     algo.Quota,
	Summary:  "Afek et al.'s distributed bank as §6.3 builds it: two main controllers, deposits up and withdrawals down the participants' bin hierarchy, withdrawals waiting at the root for money",
	Build:    BuildBankMain,
	Messages: slices.Concat(mainMessages, []proc.Message{Deposit{}}),
}

// DepositRes is the resource a deposit request of BankMain names (the
// same as package bank's).
const DepositRes proc.ResID = 1

// Deposit carries N units of money from a bin at level Level (−1: a
// local bin) up to its supervisor.
type Deposit struct {
	Level int8
	N     int64
}

func (Deposit) Kind() string { return "deposits" }

// BuildBankMain returns the nodes of the bank over MAIN, the root
// (process 0) first. It reads Waste (W ≥ 1); Budget is not read.
func BuildBankMain(pb *algo.Problem) ([]proc.Process, error) {
	if pb.Waste < 1 {
		return nil, fmt.Errorf("bank-main: W must be at least 1, not %d", pb.Waste)
	}
	q := *pb
	q.Budget = q.Waste
	ps, err := BuildMain(&q)
	for _, p := range ps {
		x := p.(*MainNode)
		x.bank, x.budget, x.wr = true, 0, int64(pb.Waste/3)
	}
	return ps, err
}

// request is DEPOSIT-RESOURCE or WITHDRAW-RESOURCE.
func (x *MainNode) bankRequest(env proc.Env, r proc.Request) {
	if len(r.Res) == 1 && r.Res[0] == DepositRes {
		env.Emit(proc.Event{Kind: proc.EvDeposit})
		x.dl++
		x.join(env)
		x.flush(env)
		return
	}
	x.want = true
	x.join(env)
	x.resourceR(env)
}

// flush sends the local deposit bin up each time it is full, once the
// node participates.
func (x *MainNode) flush(env proc.Env) {
	for x.bank && x.in && x.dl >= Cap(x.r.lam, -1) {
		c := Cap(x.r.lam, -1)
		x.dl -= c
		x.deposit(env, -1, c)
	}
}

// deposit takes n units from a bin at level below this node's global
// bin, or from this node's own local bin: the root banks them, the
// supervisor keeps them until its own bin is full, a node between relays
// them.
func (x *MainNode) deposit(env proc.Env, level int8, n int64) {
	lv := Level(x.part.Depth)
	switch {
	case x.root && x.phase == running:
		x.r.global += n
		x.serveWaiting(env)
	case x.root:
		x.late += n
	case lv != level+1:
		env.Send(x.part.Parent, Deposit{Level: level, N: n})
	default:
		if x.dg += n; x.dg >= Cap(x.r.lam, lv) {
			env.Send(x.part.Parent, Deposit{Level: lv, N: x.dg})
			x.dg = 0
		}
	}
}

// wait keeps a withdrawal the bank cannot serve while the iteration runs;
// while it closes, the request is asked again in the next one.
func (x *MainNode) wait(env proc.Env, it item) {
	if x.phase != running {
		x.send(env, ctlR, it, ansLater, 0)
		return
	}
	x.waiting = append(x.waiting, it)
}

// serveWaiting hands the bank's money to the waiting withdrawals, in
// order, as far as it goes.
func (x *MainNode) serveWaiting(env proc.Env) {
	for len(x.waiting) > 0 && x.r.global >= Cap(x.r.lam, x.waiting[0].level) {
		it := x.waiting[0]
		x.waiting = x.waiting[1:]
		size := Cap(x.r.lam, it.level)
		x.r.global -= size
		x.send(env, ctlR, it, ansPermit, 0)
	}
	if len(x.waiting) == 0 {
		x.waiting = nil
	}
}

// unwait answers the waiting withdrawals Later when an iteration closes,
// so that every node settles for the collection.
func (x *MainNode) unwait(env proc.Env) {
	ws := x.waiting
	x.waiting = nil
	for _, it := range ws {
		x.send(env, ctlR, it, ansLater, 0)
	}
}
