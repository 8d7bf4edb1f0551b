package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestSessionScript runs testdata/session: one session's life at its
// node, as a driver sees it. Directives (times in milliseconds):
//
//	open now=MS ttl=MS            adopt now=MS ttl=MS until=MS
//	keepalive now=MS              record now=MS slack=MS     ack
//	promise now=MS lease=MS       due now=MS [serving]       end [record]
func TestSessionScript(t *testing.T) {
	var s Session
	var lastEnd Time
	at := func(td *datadriven.TestData, key string) Time {
		var n int
		td.ScanArgs(t, key, &n)
		return Time(n) * ms
	}
	dur := func(td *datadriven.TestData, key string) time.Duration { return time.Duration(at(td, key)) }
	state := func() string {
		return fmt.Sprintf("deadline %d adopted %d recorded %d seq %d ended %v handed %v", s.Deadline/ms, s.Adopted/ms, s.Recorded/ms, s.Seq, s.Ended, s.Handed)
	}
	datadriven.RunTest(t, "testdata/session", func(t *testing.T, td *datadriven.TestData) string {
		switch td.Cmd {
		case "open":
			s = Opened(7, at(td, "now"), dur(td, "ttl"))
			return state()
		case "adopt":
			r := Record{ID: 7, TTL: dur(td, "ttl")}
			s = Adopted(Adoption{Record: r, Lease: Adopt(at(td, "now"), r.TTL, at(td, "until"))})
			return state()
		case "keepalive":
			return fmt.Sprintf("%v: %s", s.KeepAlive(at(td, "now")), state())
		case "record":
			r, end := s.Record(at(td, "now"), dur(td, "slack"), nil)
			lastEnd = end
			return fmt.Sprintf("seq %d left %v ended %v: the backup keeps it until %d", r.Seq, r.Left, r.Ended, end/ms)
		case "ack":
			s.Acked(lastEnd)
			return state()
		case "promise":
			p, ok := s.Promise(at(td, "now"), dur(td, "lease"))
			if !ok {
				return "no answer: the backup keeps nothing"
			}
			return fmt.Sprintf("lease %v", p)
		case "due":
			return [...]string{Drop: "drop", Later: "later", Wait: "wait", Expire: "expire"}[s.Due(at(td, "now"), td.HasArg("serving"))]
		case "end":
			handed, ok := s.End(td.HasArg("record"))
			if !ok {
				return "ended already"
			}
			return fmt.Sprintf("handed until %d; gone: %v; %s", handed/ms, [...]string{Moving: "moving", NotHere: "not here", Ended: "expired"}[s.Gone()], state())
		}
		td.Fatalf(t, "unknown directive %q", td.Cmd)
		return ""
	})
}
