package service

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/service/internal/space"
)

// This file is how a node gives back the memory of what nobody uses.
//
// An instance (a semaphore's (name, units), ...) is built on first use in a
// view, on every node of the view (its processes are spread over them),
// and lives as long as the view: one node cannot drop its share alone, the
// others' processes may still send to it. A view change retires every
// instance of the old view, and each node asks again, in the new view, for
// the grants its sessions hold (adopt, regrant): what nobody holds is not
// built again. So a view of the same members, a refresh, collects every
// idle instance of the cluster: the node whose idle objects pass a
// threshold (refreshDue: or that has had some for long, or that refused a
// semaphore at its limit) asks for one (control.RefreshEntry), and the
// control log makes it a view like any other — no run is left out, so it
// waits for no lease.
//
// What a refresh costs: new requests pause from the moment a node adopts
// the refresh view until every member is ready in it (each has asked again
// for its sessions' held grants, keeping their tokens, and its ready is
// committed: a Raft round trip after the regrants); requests waiting then
// start over in the new view. Held grants are not lost, nor their tokens
// changed. The quota ledger sees a view change like any other.
//
// The refresh also forgets the units of the semaphores nobody holds
// (control.RefreshEntry): each node's ready records those its sessions
// hold (semaphores.go), so the control log's record is bounded by the
// semaphores in use, not by the names ever used.

// Defaults of the refresh (Config.RefreshIdle, RefreshEvery).
const (
	// DefaultRefreshIdle is the idle objects of a view on a node past
	// which it asks for a refresh (and at least twice those in use).
	DefaultRefreshIdle = 256
	// DefaultRefreshEvery is the least time a view serves before a node
	// asks to refresh it: a busy cluster is not refreshed in a loop.
	DefaultRefreshEvery = 2 * time.Second
)

// objects counts this node's collectable objects of its view: in use (an
// instance with a holder or a waiter of this node's sessions) and idle
// (every other one). A quota's instances are not counted: each view
// builds them whatever is used. The lock's one instance is not counted
// as such (a cluster using locks now and then would be refreshed for
// nothing), but what it grows in a view is: the names in this node's
// tables (names.go) and its users. A busy lock user is one in use; the
// names beyond the busy users are counted idle (a Lock of several names
// makes this over-count them: a refresh then comes a little early).
func (n *Node) objects() (idle, inUse int) {
	names := n.nameCount() // before the views' lock: it reads the current view
	n.views.inView(func(sp space.Space, in *instance) {
		if sp.Key.Kind == algo.Quota {
			return
		}
		if sp.Key == space.Lock {
			in.mu.Lock()
			users := in.users.Len()
			in.mu.Unlock()
			busy := max(users-len(in.free), 0)
			inUse += busy
			idle += users - busy + max(names-busy, 0)
			return
		}
		users := 0 // a large semaphore's, made so far
		if in.lazy {
			in.mu.Lock()
			users = in.users.Len()
			in.mu.Unlock()
		}
		if in.lazy && len(in.free) >= users || !in.lazy && len(in.free) == cap(in.free) {
			idle++
		} else {
			inUse++
		}
	})
	return idle, inUse
}

// refreshDue reports whether a node with these idle and in-use objects,
// in a view that has served for age, asks for a refresh: idle ≥
// max(threshold, 2 × in use) once the view has served for every, so that
// a refresh collects at least two thirds of what the view built and a
// busy cluster is not refreshed in a loop; or, so that a quiet node gives
// back the last of its memory, any idle object (still at least twice
// those in use) once the view has served for QuietRefreshes × every.
func refreshDue(idle, inUse, threshold int, age, every time.Duration) bool {
	switch {
	case threshold <= 0 || idle == 0 || idle < 2*inUse || age < every:
		return false
	case idle >= threshold:
		return true
	}
	return age >= QuietRefreshes*every
}

// QuietRefreshes × Config.RefreshEvery is how long a view serves before
// a node asks to refresh it for any idle object (refreshDue).
const QuietRefreshes = 10

// refresher asks for a refresh of the node's view when its idle objects
// are due (refreshDue), the view has served for RefreshEvery, and the
// node's last ask of it was RefreshEvery ago; until ctx ends. wake makes
// it look at once (a semaphore refused at the node's limit).
func (n *Node) refresher(ctx context.Context) {
	t := time.NewTicker(max(n.cfg.RefreshEvery/8, 10*time.Millisecond))
	defer t.Stop()
	var (
		seen   *epochState // the view last looked at
		since  time.Time   // when it was first seen serving
		asked  time.Time   // the last ask of it
		needed bool        // a refresh was wanted for it: at the limit
	)
	for {
		woke := false
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-n.refreshWake:
			woke = true
		}
		st := n.views.current()
		if st == nil || !n.ctl.serving(st.v.Epoch) {
			continue
		}
		if st != seen {
			// A new view: what the old one built is gone, and a need
			// of room is looked at again when a request is refused.
			seen, since, asked, needed = st, time.Now(), time.Time{}, false
		}
		needed = needed || woke
		idle, inUse := n.objects()
		age := time.Since(since)
		due := refreshDue(idle, inUse, n.cfg.RefreshIdle, age, n.cfg.RefreshEvery) ||
			needed && idle > 0 && n.cfg.RefreshIdle > 0 && age >= n.cfg.RefreshEvery
		if !due || time.Since(asked) < n.cfg.RefreshEvery {
			continue
		}
		asked, needed = time.Now(), false
		n.log.Info("asking for a refresh", "epoch", st.v.Epoch, "idle", idle, "in use", inUse)
		n.metrics.refreshes.Inc()
		n.ctl.proposeRefresh(st.v.Epoch)
	}
}

// wantRefresh wakes the refresher: a request was refused at a limit that
// a refresh may lift.
func (n *Node) wantRefresh() {
	select {
	case n.refreshWake <- struct{}{}:
	default:
	}
}

// forget drops what the node kept of the instances it retired at the view
// change to epoch: the parsed names of older views, the semaphores' units
// read in them (good for those views only: semaphores.go), and the transport's
// marks of the spaces retired at the change before (a message that comes
// for one later finds no instance, and instance refuses to build one of an
// older view: it is dropped all the same). Called at each adopt, so that
// these tables follow the instances, not every name ever used.
func (n *Node) forget(epoch uint64, retired []string) {
	n.spaces.forget(epoch)
	n.semUnits.Range(func(k, v any) bool {
		if v.(semRecord).epoch < epoch {
			n.semUnits.Delete(k)
		}
		return true
	})
	old := n.views.retire(retired)
	if tr := n.members.transport(); tr != nil {
		tr.Forget(old...)
	}
}

// refreshMetrics is the count of the refreshes a node asked for.
func refreshMetrics() prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{
		Name: "allot_refreshes_asked_total",
		Help: "Refreshes of its view this node asked for (its idle instances passed --refresh-idle, or a semaphore was refused at --max-semaphores).",
	})
}

// pauseMetric is the time from adopting a view to serving it: what a
// refresh (or any view change) costs new requests on the node.
func pauseMetric() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "allot_view_pause_seconds",
		Help:    "Time from adopting a view to serving it on this node (its held grants asked again, every member ready): new requests wait meanwhile. A refresh costs one.",
		Buckets: prometheus.ExponentialBuckets(1e-3, 2, 14),
	})
}

// objectsGauge is what objects counts, when scraped: the node's
// instances of its view, idle or in use.
type objectsGauge struct{ c objectCounter }

// objectCounter counts a node's collectable objects of its view (objects):
// all the gauge reads of the node.
type objectCounter interface {
	objects() (idle, inUse int)
}

var objectsDesc = prometheus.NewDesc("allot_instances", "Instances (semaphores) of its view this node hosts, by state: in_use (a holder or a waiter of this node's sessions) or idle (collected at the next refresh).", []string{"state"}, nil)

func (o objectsGauge) Describe(ch chan<- *prometheus.Desc) { ch <- objectsDesc }

func (o objectsGauge) Collect(ch chan<- prometheus.Metric) {
	idle, inUse := o.c.objects()
	ch <- prometheus.MustNewConstMetric(objectsDesc, prometheus.GaugeValue, float64(idle), "idle")
	ch <- prometheus.MustNewConstMetric(objectsDesc, prometheus.GaugeValue, float64(inUse), "in_use")
}
