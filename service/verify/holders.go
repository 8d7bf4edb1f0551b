package verify

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/service/eventlog"
	"github.com/allot-dev/allot/service/internal/space"
)

// holders checks exclusion and the semaphores' bound across views, by
// session grant: an instance's own checker sees one view, but a grant held
// when its view was replaced is asked again in the next one, on another
// slot, and is one holder from its first answer to its last exit, as long
// as it is carried over (no exit in the earlier view: carried).
//
// A holding starts at its answer, the fenced record (the token, written
// as the grant leaves the instance for its caller), not at the enter: a
// node whose lease has run out and that has not noticed yet may still
// enter a request its own processes can grant, in a view the cluster has
// left, but it answers nothing past its lease (service: instance.answer);
// the fence retires the instance and the enter is never a holder anyone
// is told of. The instance's own checker still judges every enter. A holding
// of a retired view that is not asked again (its node died, or it was
// given back meanwhile) ends when the view is first retired; one given
// back in its view while its node was changing views ends at its exit
// there, and its regrant (granted and released at once) is a holding of
// its own.
type holders struct {
	owner   map[slotOf]uint64   // the grant a slot's open request is for
	open    map[slotOf]*holding // the slot's current holding
	retired map[string]int64    // space -> first retire
	byGrant map[uint64][]*holding
}

type slotOf struct {
	space string
	p     int32
}

type holding struct {
	key        string // the instance key: "lock", "sem/NAME/R"
	space      string
	start, end int64
	res        []int32
	keys       []string // a lock's names as fenced keys ("lock/NAME"), if the owner record has them
}

func newHolders() *holders {
	return &holders{owner: map[slotOf]uint64{}, open: map[slotOf]*holding{}, retired: map[string]int64{}, byGrant: map[uint64][]*holding{}}
}

// record takes one record, in time order.
func (h *holders) record(r eventlog.Record) {
	key, _, ok := strings.Cut(r.Instance, "@")
	if !ok {
		return // quotas do not move between views
	}
	at := slotOf{r.Instance, int32(r.P)}
	switch r.Ev {
	case eventlog.Owner:
		h.owner[at] = r.Grant
		x := &holding{key: key, space: r.Instance, end: math.MaxInt64}
		for _, res := range r.Res {
			x.res = append(x.res, int32(res))
		}
		x.keys = r.Keys
		h.open[at] = x // not held yet: start is set at the answer
		x.start = -1
	case eventlog.Fenced:
		if x := h.open[at]; x != nil && x.start < 0 {
			x.start = r.T
			h.byGrant[h.owner[at]] = append(h.byGrant[h.owner[at]], x)
		}
	case "exit", "release":
		if x := h.open[at]; x != nil && x.start >= 0 {
			x.end = r.T
		}
		delete(h.open, at)
	case eventlog.Retired:
		if _, seen := h.retired[r.Instance]; !seen {
			h.retired[r.Instance] = r.T
		}
	}
}

// carried splits a grant's holdings, sorted by start, into the runs that
// are one holding across views: a holding that ends without an exit was
// carried into the next view by its retire (asked again there), so the
// next holding continues it; one that ends with an exit was given back
// then, and a later holding of the grant (asked again in a view whose
// change came before the give-back reached it: granted, and released at
// once) starts a run of its own. Between the two the grant is held by no
// one's session, and another grant may hold its resources.
func carried(xs []*holding) [][]*holding {
	var runs [][]*holding
	start := 0
	for i, x := range xs {
		if x.end != math.MaxInt64 || i == len(xs)-1 {
			runs = append(runs, xs[start:i+1])
			start = i + 1
		}
	}
	return runs
}

// check reports every two grants holding one resource at once, and every
// semaphore held by more than its units.
func (h *holders) check(fail func(format string, args ...any)) {
	type span struct {
		grant      uint64
		start, end int64
		how        string // how the holding ended, for the report
	}
	byRes := map[string][]span{}
	bySem := map[string][]span{}
	units := map[string]int{}
	for g, xs := range h.byGrant {
		slices.SortFunc(xs, func(a, b *holding) int { return int(a.start - b.start) })
		for _, run := range carried(xs) {
			first, last := run[0], run[len(run)-1]
			end, how := last.end, "exit in "+last.space
			if end == math.MaxInt64 {
				how = "no exit, and " + last.space + " never retired"
				if t, ok := h.retired[last.space]; ok {
					end, how = t, "no exit, "+last.space+" retired"
				}
			}
			s := span{g, first.start, end, fmt.Sprintf("from t=%d in %s to t=%d: %s, over %d views", first.start, first.space, end, how, len(run))}
			k, err := space.ParseKey(first.key)
			if err != nil {
				continue
			}
			switch {
			case k.Kind == algo.Pool:
				bySem[first.key] = append(bySem[first.key], s)
				units[first.key] = k.Units
			case len(first.keys) > 0:
				// A lock's names have other ids in each view: a grant
				// asked again holds the same names, not the same ids.
				for _, k := range first.keys {
					byRes[k] = append(byRes[k], s)
				}
			default:
				for _, r := range first.res {
					res := fmt.Sprintf("%s/%d", first.key, r)
					byRes[res] = append(byRes[res], s)
				}
			}
		}
	}
	for k, ss := range byRes {
		slices.SortFunc(ss, func(a, b span) int { return int(a.start - b.start) })
		for i := 1; i < len(ss); i++ {
			for j := range i {
				if ss[j].grant != ss[i].grant && ss[j].end > ss[i].start {
					fail("t=%d: %s held by grants %d and %d at once, across views (the first %s; the second %s)", ss[i].start, k, ss[j].grant, ss[i].grant, ss[j].how, ss[i].how)
				}
			}
		}
	}
	for k, ss := range bySem {
		type edge struct {
			t int64
			d int
		}
		var es []edge
		for _, s := range ss {
			es = append(es, edge{s.start, 1}, edge{s.end, -1})
		}
		slices.SortFunc(es, func(a, b edge) int {
			if a.t != b.t {
				return int(a.t - b.t)
			}
			return a.d - b.d // a release before an acquire at the same time
		})
		n := 0
		for _, e := range es {
			if n += e.d; n > units[k] {
				fail("t=%d: %s held by %d grants at once, across views", e.t, k, n)
				break
			}
		}
	}
}
