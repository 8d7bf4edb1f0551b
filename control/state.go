package control

import (
	"fmt"
	"math"
	"slices"

	"github.com/allot-dev/allot/proc"
)

// Quota is a quota the ledger accounts for: at most Budget permits in the
// cluster's whole life. Chunk is C: a member of a view issues at most C
// permits in it beyond what its last committed report says (0: no bound,
// and a view's whole Left is held while one of its members is away).
type Quota struct {
	Name   string
	Budget uint64
	Chunk  uint64
}

// View is a committed view: its epoch (the index of its entry in the
// log), its members with their generations (ascending by member), and the
// wait before it serves.
type View struct {
	Epoch   uint64
	Members []proc.ID
	Gens    []uint64
	Wait    proc.Time
}

// Has reports whether node id serves in v as generation gen.
func (v View) Has(id proc.ID, gen uint64) bool {
	i, ok := slices.BinarySearch(v.Members, id)
	return ok && v.Gens[i] == gen
}

func (v View) String() string { return fmt.Sprintf("view %d %v gens %v", v.Epoch, v.Members, v.Gens) }

// QuotaLeft is what a view may issue of a quota: Left permits, of which
// Reserve are a guess (permits an earlier view's member that has not
// reported since may have issued, counted as spent): a reject in a view
// with a Reserve is not proof that Budget − Waste permits were issued.
type QuotaLeft struct {
	Name          string
	Left, Reserve uint64
}

// ledgerView is a view that opened and whose members have not all
// reported their counts since: what it issued is known only up to left.
type ledgerView struct {
	epoch    uint64
	members  []proc.ID
	start    map[proc.ID][]uint64 // each member's counts when it opened
	reported map[proc.ID][]uint64 // each member's counts as of its last report committed while the view was the newest
	ended    map[proc.ID]bool     // members that reported since
	known    []uint64             // permits the ended members issued in it
	left     []uint64             // what it could issue
}

// could is what view lv may have issued of quota i, and of that how much
// is a guess: the ended members' permits, and for every other member
// its last report plus the chunk it may have issued beyond it, at most
// lv's left.
func (lv *ledgerView) could(i int, chunk uint64) (could, guess uint64) {
	if chunk == 0 {
		return lv.left[i], lv.left[i] - min(lv.known[i], lv.left[i])
	}
	could = lv.known[i]
	for _, m := range lv.members {
		if lv.ended[m] {
			continue
		}
		r := lv.reported[m][i] - lv.start[m][i]
		could += r + chunk
		guess += chunk
	}
	if could > lv.left[i] {
		guess -= min(guess, could-lv.left[i])
		could = lv.left[i]
	}
	return could, guess
}

// State is the view state machine: what the committed entries of the log
// say, applied in log order. Every node that applied the same entries has
// the same State.
type State struct {
	quotas  []Quota
	applied uint64
	members membership // the configuration, as the log says

	gen  map[proc.ID]uint64    // each node's generation (rejoins applied)
	runs map[proc.ID][2]uint64 // each node's last run (Run, Seq)
	left map[proc.ID]bool      // nodes whose last run left

	view   View
	ready  map[proc.ID]bool     // the members ready in view
	starts map[proc.ID][]uint64 // their counts when ready
	open   bool                 // every member is ready: the view may serve
	lefts  []QuotaLeft          // when open

	ledger []*ledgerView
	closed []uint64 // per quota: permits issued in views every member reported on

	sems map[string]int32 // each semaphore's units, as first recorded

	// broken, for the tests only: NoChunk counts an away member of a
	// view as having issued what it last reported, not the chunk beyond.
	broken Broken
}

// NewState is the state before any entry, for a cluster of these quotas
// (every node must be given the same, in the same order).
func NewState(quotas []Quota) *State {
	return &State{
		quotas: quotas, members: membership{addrs: map[proc.ID]string{}}, gen: map[proc.ID]uint64{}, runs: map[proc.ID][2]uint64{}, left: map[proc.ID]bool{},
		ready: map[proc.ID]bool{}, starts: map[proc.ID][]uint64{}, closed: make([]uint64, len(quotas)),
		sems: map[string]int32{},
	}
}

// View is the newest committed view (Epoch 0: none yet).
func (s *State) View() View { return s.view }

// Open reports whether the newest view has every member ready, and what
// it may issue of each quota.
func (s *State) Open() (bool, []QuotaLeft) { return s.open, s.lefts }

// Gen is node id's generation, and whether its last rejoin was run.
func (s *State) Gen(id proc.ID, run [2]uint64) (uint64, bool) {
	return s.gen[id], s.runs[id] == run
}

// Left reports whether node id's last run has left.
func (s *State) Left(id proc.ID) bool { return s.left[id] }

// Semaphore is the units of semaphore name as the log first recorded
// them, and whether it has.
func (s *State) Semaphore(name string) (units int32, ok bool) {
	units, ok = s.sems[name]
	return units, ok
}

// Semaphores is how many semaphore names the log has recorded.
func (s *State) Semaphores() int { return len(s.sems) }

// Applied is the index of the last entry applied.
func (s *State) Applied() uint64 { return s.applied }

// Apply applies the entry of the log at index; data that is not a control
// entry (raft's own empty entries) only moves the index.
func (s *State) Apply(index uint64, data []byte) error {
	s.applied = index
	if len(data) == 0 {
		return nil
	}
	m, err := decodeEntry(data)
	if err != nil {
		return fmt.Errorf("control: entry %d: %w", index, err)
	}
	switch e := m.(type) {
	case ViewEntry:
		if len(e.Members) != len(e.Gens) || !slices.IsSorted(e.Members) {
			return fmt.Errorf("control: entry %d: malformed view", index)
		}
		v := View{Epoch: index, Gens: slices.Clone(e.Gens), Wait: proc.Time(e.Wait)}
		for _, m := range e.Members {
			v.Members = append(v.Members, proc.ID(m))
		}
		s.view, s.ready, s.starts, s.open, s.lefts = v, map[proc.ID]bool{}, map[proc.ID][]uint64{}, false, nil
	case RefreshEntry:
		if e.Epoch != s.view.Epoch || !s.open {
			return nil // the view moved on, or is not serving yet
		}
		v := s.view
		v.Epoch, v.Wait = index, 0
		s.view, s.ready, s.starts, s.open, s.lefts = v, map[proc.ID]bool{}, map[proc.ID][]uint64{}, false, nil
		clear(s.sems)
	case HoldingEntry:
		s.applyReady(e.Ready, e.Sems)
	case ReadyEntry:
		s.applyReady(e, nil)
	case ReportEntry:
		s.reportInView(proc.ID(e.Node), e.Epoch, e.Gen, e.Counts)
	case RejoinEntry:
		id := proc.ID(e.Node)
		run := [2]uint64{e.Run, e.Seq}
		if s.runs[id] == run {
			return nil // a proposal retried
		}
		s.runs[id] = run
		s.gen[id]++
		delete(s.left, id)
		s.report(id, e.Counts, ^uint64(0))
	case LeaveEntry:
		id := proc.ID(e.Node)
		if s.runs[id] != [2]uint64{e.Run, e.Seq} {
			return nil // an older run's, or before its rejoin
		}
		s.left[id] = true
		s.report(id, e.Counts, ^uint64(0))
	case SemaphoreEntry:
		if s.open {
			s.recordSemaphore(e)
		}
	default:
		return fmt.Errorf("control: entry %d: unexpected %s", index, m.Kind())
	}
	return nil
}

// applyReady applies node e.Node's ready in view e.Epoch, holding the
// semaphores sems: their units are recorded first, so that the view opens
// with them.
func (s *State) applyReady(e ReadyEntry, sems []SemaphoreEntry) {
	id := proc.ID(e.Node)
	s.report(id, e.Counts, e.Epoch)
	if e.Epoch != s.view.Epoch || !s.view.Has(id, e.Gen) || s.ready[id] || s.open {
		return // a late or repeated ready
	}
	for _, h := range sems {
		s.recordSemaphore(h)
	}
	s.ready[id] = true
	s.starts[id] = s.counts(e.Counts)
	if len(s.ready) == len(s.view.Members) {
		s.openView()
	}
}

// recordSemaphore records a semaphore's units unless its name has some.
func (s *State) recordSemaphore(e SemaphoreEntry) {
	if _, ok := s.sems[e.Name]; !ok && e.Units > 0 {
		s.sems[e.Name] = e.Units
	}
}

// counts is c fitted to the quotas (a node of another quota list sends
// another length: missing counts are 0, extra ones dropped).
func (s *State) counts(c []uint64) []uint64 {
	out := make([]uint64, len(s.quotas))
	copy(out, c)
	return out
}

// openView opens the newest view: every member is ready in it. It may
// issue what no earlier view may have issued: the budget, less what the
// closed views issued, less the whole of what every view still in the
// ledger could issue (its unreported part is counted as spent).
func (s *State) openView() {
	s.open = true
	lv := &ledgerView{
		epoch: s.view.Epoch, members: s.view.Members, start: s.starts, reported: map[proc.ID][]uint64{},
		ended: map[proc.ID]bool{}, known: make([]uint64, len(s.quotas)), left: make([]uint64, len(s.quotas)),
	}
	for m, c := range s.starts { // any order: into a map
		lv.reported[m] = slices.Clone(c)
	}
	s.lefts = make([]QuotaLeft, len(s.quotas))
	for i, q := range s.quotas {
		spent, reserve := s.closed[i], uint64(0)
		for _, o := range s.ledger {
			could, guess := o.could(i, s.chunk(i))
			spent += could
			reserve += guess
		}
		left := uint64(0)
		if spent < q.Budget {
			left = q.Budget - spent
		}
		lv.left[i] = left
		s.lefts[i] = QuotaLeft{Name: q.Name, Left: left, Reserve: reserve}
	}
	s.ledger = append(s.ledger, lv)
}

// chunk is the chunk of quota i the ledger counts for an away member.
func (s *State) chunk(i int) uint64 {
	if s.broken == NoChunk {
		return 1 // any bound but the one the members keep to: a guess too small
	}
	return s.quotas[i].Chunk
}

// reportInView records node id's counts, reported while it serves view
// epoch as generation gen. Only a report applied while its view is the
// newest and open counts: a member stops serving a view when it applies
// a newer one, so every report its bound rests on is applied before the
// newer view opens and reckons what the older could have issued.
func (s *State) reportInView(id proc.ID, epoch, gen uint64, c []uint64) {
	if !s.open || epoch != s.view.Epoch || !s.view.Has(id, gen) || len(s.ledger) == 0 {
		return
	}
	lv := s.ledger[len(s.ledger)-1]
	if lv.epoch != epoch || lv.ended[id] {
		return
	}
	c = s.counts(c)
	for i := range c {
		lv.reported[id][i] = max(lv.reported[id][i], c[i])
	}
}

// Limit is what node id's count of quota i may reach in view epoch: its
// count when the view opened, plus its last report in it, plus the
// chunk. ok is false if the view is not open in the ledger with id a
// member that has not ended it (then id issues nothing in it); limit is
// math.MaxUint64 when the quota has no chunk.
func (s *State) Limit(id proc.ID, epoch uint64, i int) (limit uint64, ok bool) {
	for _, lv := range s.ledger {
		if lv.epoch != epoch {
			continue
		}
		if _, in := slices.BinarySearch(lv.members, id); !in || lv.ended[id] || i >= len(s.quotas) {
			return 0, false
		}
		if s.quotas[i].Chunk == 0 {
			return math.MaxUint64, true
		}
		return lv.reported[id][i] + s.quotas[i].Chunk, true
	}
	return 0, false
}

// report records node id's counts, final for every view before epoch
// that it served in: such a view whose members have all reported leaves
// the ledger, what it issued now known.
func (s *State) report(id proc.ID, c []uint64, before uint64) {
	c = s.counts(c)
	kept := s.ledger[:0]
	for _, lv := range s.ledger {
		if _, in := slices.BinarySearch(lv.members, id); in && lv.epoch < before && !lv.ended[id] {
			lv.ended[id] = true
			for i := range c {
				if st := lv.start[id][i]; c[i] > st {
					lv.known[i] += c[i] - st
				}
			}
		}
		if len(lv.ended) == len(lv.members) {
			for i := range s.closed {
				s.closed[i] += lv.known[i]
			}
			continue
		}
		kept = append(kept, lv)
	}
	s.ledger = kept
}
