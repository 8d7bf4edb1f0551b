package pool

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// env records what a node does.
type env struct {
	self  proc.ID
	sent  []sent
	grant []int32
}

type sent struct {
	to proc.ID
	m  proc.Message
}

func (e *env) Self() proc.ID                   { return e.self }
func (e *env) Now() proc.Time                  { return 0 }
func (e *env) Send(to proc.ID, m proc.Message) { e.sent = append(e.sent, sent{to, m}) }
func (e *env) After(proc.Time, proc.Timer)     {}
func (e *env) Rand() *rand.Rand                { return rand.New(rand.NewPCG(1, 2)) }
func (e *env) Emit(ev proc.Event) {
	if ev.Kind == proc.EvGrant {
		e.grant = append(e.grant, ev.Unit)
	}
}

// TestTreatMessage scripts TREAT-MESSAGE at node 1 of the line 0-1-2 with
// one unit (at node 0, so node 1's flag towards 0 is up).
func TestTreatMessage(t *testing.T) {
	newLine := func() (*Node, *env) {
		return newNode(1, []proc.ID{0, 2}, 0, 1, faithful), &env{self: 1}
	}

	t.Run("a request is queued, and a stale one is not", func(t *testing.T) {
		n, e := newLine()
		n.Deliver(e, 2, Release{TH: 5, M: []bool{false}}) // 2 needs nothing as of its clock 5
		n.Deliver(e, 2, Request{TH: 3, M: []bool{false}}) // overtaken: older than 5
		if len(n.reqs) != 0 {
			t.Fatalf("stale request queued: %v", n.reqs)
		}
		n.Deliver(e, 2, Request{TH: 7, M: []bool{false}}) // accepted and new
		if len(n.reqs) != 1 || n.reqs[0].j != 1 {
			t.Fatalf("request of node 2 not queued: %v", n.reqs)
		}
		// Lacking for node 2, node 1 asks its father, not node 2 back.
		if len(e.sent) != 1 || e.sent[0].to != 0 {
			t.Fatalf("sent %v, want one request to node 0", e.sent)
		}
	})

	t.Run("of two crossing messages only the higher threshold counts", func(t *testing.T) {
		n, e := newLine()
		n.Request(e, proc.Request{}) // node 1 asks node 0 with TH 1
		if n.th[0] != 1 || len(e.sent) != 1 {
			t.Fatalf("TH[0]=%d, sent %v", n.th[0], e.sent)
		}
		// Node 0 hands the unit over with TH 1, crossing node 1's request:
		// equal thresholds, and node 0 < node 1, so node 1 ignores its m.
		n.Deliver(e, 0, Release{TH: 1, M: []bool{true}})
		if len(e.grant) != 0 || len(n.res) != 0 {
			t.Fatalf("crossing message with the lower (TH, id) accepted: grants %v", e.grant)
		}
		// A later message from node 0 with a higher threshold carries it.
		n.Deliver(e, 0, Release{TH: 4, M: []bool{true}})
		if len(e.grant) != 1 || e.grant[0] != 0 {
			t.Fatalf("grants %v, want unit 0", e.grant)
		}
		if n.row(0)[0] {
			t.Fatal("flag towards node 0 still up after taking the unit")
		}
	})

	t.Run("a message raises the threshold of its own link", func(t *testing.T) {
		n, e := newLine()
		n.Deliver(e, 2, Request{TH: 9, M: []bool{false}}) // node 1 forwards to node 0
		if len(e.sent) != 1 || e.sent[0].to != 0 {
			t.Fatalf("sent %v", e.sent)
		}
		th := e.sent[0].m.(Request).TH
		if n.th[0] != th || n.th[1] != 9 {
			t.Fatalf("TH = %v after sending TH %d to node 0 and receiving 9 from node 2", n.th, th)
		}
		lit, le := newNode(1, []proc.ID{0, 2}, 0, 1, literalTH), &env{self: 1}
		lit.Deliver(le, 2, Request{TH: 9, M: []bool{false}})
		if lit.th[0] != 0 {
			t.Fatalf("literal reading: TH[0] = %d, want it left at 0", lit.th[0])
		}
	})
}
