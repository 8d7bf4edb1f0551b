package service

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
)

// Cluster is the static membership of a cluster and which algorithm serves
// which kind. Every node of a cluster must be given the same Cluster: the
// nodes build the same processes from it and agree on who hosts which.
type Cluster struct {
	// Nodes are the nodes' addresses (host:port); a node's index is its id.
	Nodes []string `yaml:"nodes"`
	// Lock is the algorithm serving Lock (kind exclusive), Semaphore the
	// one serving Acquire (kind pool), Quota the one serving Take (kind
	// quota; empty: Take is unavailable).
	Lock      string `yaml:"lock"`
	Semaphore string `yaml:"semaphore"`
	Quota     string `yaml:"quota"`
	// Slots is how many sessions' requests a node serves at once per
	// semaphore or quota instance: each is one user process of the
	// algorithm. Locks have no slots: each open Lock has a user process of
	// its own (locks.go; Config.MaxLocks bounds them).
	Slots int `yaml:"slots"`
	// Resources is ignored: a lock's resources are its names, exactly.
	// It was the size of the namespace names were hashed onto, and is
	// still accepted (and recorded in the control log's cluster spec, as
	// before) so that files and scripts that set it keep working.
	//
	// Deprecated: names are exact; the value means nothing.
	Resources int `yaml:"resources"`
	// Epoch is the fencing epoch of this cluster configuration.
	Epoch uint64 `yaml:"epoch"`
	// Quotas are the quotas Take serves, by name.
	Quotas map[string]QuotaSpec `yaml:"quotas"`
}

// QuotaSpec is one quota: at most Budget permits in all, and a Take
// rejected only once at least Budget − Waste permits are issued (the (M, W)
// controller's guarantee).
type QuotaSpec struct {
	Budget int `yaml:"budget"`
	Waste  int `yaml:"waste"`
}

// The defaults: Rhee's modular algorithm over ordered for locks, Carvalho's
// R-RESOURCES for semaphores (docs/service.md says why).
const (
	DefaultLock      = "modular-ordered"
	DefaultSemaphore = "pool"
	DefaultQuota     = "controller"
	DefaultSlots     = 16
	DefaultResources = 256
)

// ErrCluster marks a malformed cluster description.
var ErrCluster = errors.New("bad cluster")

// ReadCluster reads a cluster from a YAML file:
//
//	nodes: [127.0.0.1:7001, 127.0.0.1:7002, 127.0.0.1:7003]
//	lock: modular-ordered
//	semaphore: pool
func ReadCluster(path string) (Cluster, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Cluster{}, err
	}
	var c Cluster
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		// yaml lists several errors on several lines; one line is kept.
		msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", ";")), " ")
		return Cluster{}, fmt.Errorf("%w: %s: %s", ErrCluster, path, msg)
	}
	return c, nil
}

// Complete fills in the defaults and checks c.
func (c *Cluster) Complete() error {
	if c.Lock == "" {
		c.Lock = DefaultLock
	}
	if c.Semaphore == "" {
		c.Semaphore = DefaultSemaphore
	}
	if c.Quota == "" {
		c.Quota = DefaultQuota
	}
	if c.Slots == 0 {
		c.Slots = DefaultSlots
	}
	if c.Resources == 0 {
		c.Resources = DefaultResources
	}
	if c.Epoch == 0 {
		c.Epoch = 1
	}
	if len(c.Nodes) == 0 || len(c.Nodes) > MaxNodes {
		return fmt.Errorf("%w: %d nodes, want 1 to %d", ErrCluster, len(c.Nodes), MaxNodes)
	}
	for i, a := range c.Nodes {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("%w: node %d: %v", ErrCluster, i, err)
		}
		if slices.Index(c.Nodes, a) != i {
			return fmt.Errorf("%w: node %s listed twice", ErrCluster, a)
		}
	}
	for name, q := range c.Quotas {
		if name == "" || q.Budget < 0 || q.Waste < 0 || q.Waste > q.Budget {
			return fmt.Errorf("%w: quota %q: want a name and 0 ≤ waste ≤ budget, got budget %d, waste %d", ErrCluster, name, q.Budget, q.Waste)
		}
	}
	if c.Slots < 1 || c.Resources < 1 {
		return fmt.Errorf("%w: slots and resources must be positive", ErrCluster)
	}
	for _, k := range []struct {
		name string
		kind algo.Kind
	}{{c.Lock, algo.Exclusive}, {c.Semaphore, algo.Pool}, {c.Quota, algo.Quota}} {
		if k.name == "" {
			continue
		}
		a, err := all.Lookup(k.name)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCluster, err)
		}
		if a.Kind != k.kind {
			return fmt.Errorf("%w: %s solves %s problems, not %s", ErrCluster, a.Name, a.Kind, k.kind)
		}
		if k.kind == algo.Exclusive && a.Process == nil {
			return fmt.Errorf("%w: %s cannot serve locks: its processes need every user and resource known beforehand (a dining subroutine's conflict graph), and the service's locks make a user per request and a resource per name; locks are served by %s", ErrCluster, a.Name, strings.Join(LockAlgorithms(), ", "))
		}
	}
	return nil
}

// LockAlgorithms are the algorithms of the catalogue that can serve the
// service's locks: those that make a process alone (algo.Algorithm's
// Process).
func LockAlgorithms() []string {
	var out []string
	for _, a := range all.OfKind(algo.Exclusive) {
		if a.Process != nil {
			out = append(out, a.Name)
		}
	}
	return out
}

// LockKey is the key under which the event log records the fencing tokens
// of lock name: "lock/" + name (a name is its own resource; before names
// were exact it was the resource the name was hashed onto).
func (c *Cluster) LockKey(name string) string { return lockKey(name) }
