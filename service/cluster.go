package service

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/proc"
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
	// algorithm instance: each is one user process of the algorithm.
	Slots int `yaml:"slots"`
	// Resources is the size of the lock namespace: resource names are
	// hashed onto 0..Resources-1 (names that collide are locked together:
	// safe, less concurrent).
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

// The defaults: Rhee's modular algorithm over central for locks, Carvalho's
// R-RESOURCES for semaphores (docs/service.md says why).
const (
	DefaultLock      = "modular-central"
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
//	lock: modular-central
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
	}
	return nil
}

// resource is the resource of the lock namespace a name is locked as.
func (c *Cluster) resource(name string) proc.ResID {
	m := c.Resources
	if m == 0 {
		m = DefaultResources
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return proc.ResID(h.Sum32() % uint32(m))
}

// LockKey is the key under which the event log records the fencing tokens
// of lock resource name ("lock/RES").
func (c *Cluster) LockKey(name string) string { return lockKey(c.resource(name)) }
