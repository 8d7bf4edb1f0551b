package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ErrUnreachable is a node whose status could not be read.
var ErrUnreachable = errors.New("node unreachable")

// Cluster reads the status of a cluster's nodes: each node's /status (a
// node serves it beside /metrics, allot serve --metrics ADDR).
type Cluster struct {
	Addrs  []string     // the nodes' status addresses, host:port
	Client *http.Client // nil: a client with a 2 s timeout
	Now    func() time.Time
	// Changed is called when a node becomes unreachable (err) or
	// reachable again (nil), for the command to say so on stderr.
	Changed func(addr string, err error)

	mu   sync.Mutex
	last map[string]string // addr -> last error text ("" reachable)
}

// NodeState is one node's status, or why it could not be read.
type NodeState struct {
	Addr   string          `json:"addr"`
	Error  string          `json:"error,omitempty"`
	Status json.RawMessage `json:"status,omitempty"`
}

// ClusterState is one poll of every node.
type ClusterState struct {
	At    string      `json:"at"` // RFC 3339, the poll's time
	Nodes []NodeState `json:"nodes"`
}

// ParseAddrs splits a comma-separated address list and checks each is
// host:port.
func ParseAddrs(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if i := strings.LastIndexByte(a, ':'); i <= 0 || i == len(a)-1 {
			return nil, fmt.Errorf("cluster address %q: want host:port", a)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("no cluster address given")
	}
	return out, nil
}

// Poll reads every node's status, in parallel.
func (c *Cluster) Poll(ctx context.Context) ClusterState {
	client := c.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Second}
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	st := ClusterState{At: now().UTC().Format(time.RFC3339Nano), Nodes: make([]NodeState, len(c.Addrs))}
	var wg sync.WaitGroup
	for i, addr := range c.Addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.Nodes[i] = NodeState{Addr: addr}
			b, err := fetch(ctx, client, "http://"+addr+"/status")
			if err != nil {
				st.Nodes[i].Error = err.Error()
			} else {
				st.Nodes[i].Status = b
			}
			c.report(addr, err)
		}()
	}
	wg.Wait()
	return st
}

func (c *Cluster) report(addr string, err error) {
	text := ""
	if err != nil {
		text = err.Error()
	}
	c.mu.Lock()
	if c.last == nil {
		c.last = map[string]string{}
	}
	prev, seen := c.last[addr]
	c.last[addr] = text
	c.mu.Unlock()
	if c.Changed != nil && (prev != text || !seen && err != nil) && (err != nil || seen) {
		c.Changed(addr, err)
	}
}

func fetch(ctx context.Context, client *http.Client, url string) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: GET %s: %s (is it a node's --metrics address?)", ErrUnreachable, url, resp.Status)
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("%w: GET %s: not JSON (is it a node's --metrics address?)", ErrUnreachable, url)
	}
	return b, nil
}
