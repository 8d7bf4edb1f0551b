// Package allotbench runs the project's own benchmark, `allot bench
// --format json`, on the same workloads, durations and machine as the
// peers, and reads its report into the same Stats as theirs.
//
// allot bench starts its own 3-node cluster on loopback (one process per
// node) and runs W1-W4 against it with the project's client; the only
// workload difference, by design, is W3's: allot takes a client's 4 keys
// in one atomic call, where a client of a single-key lock service takes
// them one by one in sorted order.
package allotbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/allot-dev/allot/bench/peers/workload"
)

// Module is the project's module path, which Build expects at its source.
const Module = "github.com/allot-dev/allot"

// ErrNotProject is a source directory that is not the project's module.
var ErrNotProject = errors.New("allotbench: not the allot module")

// Build builds cmd/allot of the project at src into dir and returns the
// program's path.
func Build(ctx context.Context, src, dir string) (string, error) {
	mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotProject, err)
	}
	if first, _, _ := strings.Cut(string(mod), "\n"); strings.TrimSpace(first) != "module "+Module {
		return "", fmt.Errorf("%w: %s starts %q", ErrNotProject, filepath.Join(src, "go.mod"), first)
	}
	bin := filepath.Join(dir, "allot")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/allot")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/allot: %v\n%s", err, out)
	}
	return bin, nil
}

// Options are allot bench's flags the comparison sets.
type Options struct {
	Window time.Duration // --duration
	Warmup time.Duration // --warmup
	MaxOps int           // --max-ops
	Near   bool          // --near: W1's and W2's sessions at their key's home
	// W4's sessions and name space (--w4-sessions, --w4-names); 0 leaves
	// allot bench's default.
	W4Sessions, W4Names int
}

// Workloads are the workloads Run asks allot bench for, and Parse wants.
var Workloads = []string{"W1", "W2", "W3", "W4"}

// Args are the command-line arguments of allot bench for o.
func (o Options) Args() []string {
	args := []string{"bench", "--format", "json", "--workloads", strings.Join(Workloads, ","), "--duration", o.Window.String(), "--max-ops", fmt.Sprint(o.MaxOps)}
	if o.W4Sessions > 0 {
		args = append(args, "--w4-sessions", fmt.Sprint(o.W4Sessions))
	}
	if o.W4Names > 0 {
		args = append(args, "--w4-names", fmt.Sprint(o.W4Names))
	}
	if o.Warmup > 0 {
		args = append(args, "--warmup", o.Warmup.String())
	}
	if o.Near {
		args = append(args, "--near")
	}
	return args
}

// Result is what one allot bench run reports.
type Result struct {
	Workloads []workload.Stats
	// Protocol is what the client's Lock, Unlock, Acquire and Release
	// went on (allot bench's "protocol": native, grpc, or several joined
	// by "+" where the nodes differed); "" from a bench that does not say.
	Protocol string
	// CPUSeconds is what its processes used (the bench's clients and the
	// cluster's nodes together, warm-up included); Parse leaves it 0.
	CPUSeconds float64
}

// Run runs allot bench and returns what it reports.
func Run(ctx context.Context, bin string, o Options) (Result, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, o.Args()...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// SIGTERM first, so that allot bench stops the nodes it started.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 20 * time.Second
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("allot %s: %v: %s", strings.Join(o.Args(), " "), err, strings.TrimSpace(stderr.String()))
	}
	cpu := 0.0
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// The nodes are allot bench's children, waited for before it
		// exits: the kernel counts them in its usage.
		cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	r, err := Parse(stdout.Bytes(), o.Window)
	r.CPUSeconds = cpu
	return r, err
}

// report is allot bench's JSON, the fields other tools read.
type report struct {
	Protocol  string `json:"protocol"`
	Workloads []struct {
		Name         *string  `json:"name"`
		OpsPerSecond *float64 `json:"ops_per_second"`
		P50us        *float64 `json:"p50_us"`
		P99us        *float64 `json:"p99_us"`
		PerClient    []int64  `json:"per_client"`
		// Optional: W1 on several nodes.
		P50usByNode map[string]float64 `json:"p50_us_by_node"`
		// Optional: the nodes' CPU an operation, read off their metrics.
		NodeCPUusPerOp *float64 `json:"node_cpu_us_per_op"`
	} `json:"workloads"`
}

// ErrReport is allot bench output that is not the report this reads.
var ErrReport = errors.New("allotbench: unexpected allot bench report")

// Parse reads allot bench's JSON report; it wants W1, W2, W3 and W4,
// each with every field, once.
func Parse(b []byte, window time.Duration) (Result, error) {
	var r report
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrReport, err)
	}
	var out []workload.Stats
	for _, w := range r.Workloads {
		if w.Name == nil || w.OpsPerSecond == nil || w.P50us == nil || w.P99us == nil || len(w.PerClient) == 0 {
			return Result{}, fmt.Errorf("%w: a workload without name, ops_per_second, p50_us, p99_us or per_client", ErrReport)
		}
		if slices.ContainsFunc(out, func(s workload.Stats) bool { return s.Workload == *w.Name }) {
			return Result{}, fmt.Errorf("%w: %s twice", ErrReport, *w.Name)
		}
		var ops int64
		for _, n := range w.PerClient {
			ops += n
		}
		s := workload.Stats{Workload: *w.Name, Clients: len(w.PerClient), Ops: ops,
			WindowS: window.Seconds(), OpsPerSec: *w.OpsPerSecond, P50us: *w.P50us, P99us: *w.P99us, PerClient: w.PerClient, P50usByNode: w.P50usByNode}
		if w.NodeCPUusPerOp != nil {
			s.ServerCPUusPerOp = *w.NodeCPUusPerOp
		}
		out = append(out, s)
	}
	for _, want := range Workloads {
		if !slices.ContainsFunc(out, func(s workload.Stats) bool { return s.Workload == want }) {
			return Result{}, fmt.Errorf("%w: no %s", ErrReport, want)
		}
	}
	return Result{Workloads: out, Protocol: r.Protocol}, nil
}
