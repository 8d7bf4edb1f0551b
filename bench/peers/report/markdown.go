package report

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Region is the README's summary: the caption and the table, as the
// region between the markers holds it.
func (d Doc) Region() string {
	return d.Caption() + "\n\n" + d.Table()
}

// Markdown is the full report: the summary, the targets, every system's
// settings and every run's figures.
func (d Doc) Markdown() string {
	var b strings.Builder
	b.WriteString("# allot beside etcd, ZooKeeper and Redis\n\n")
	b.WriteString(d.Region())
	for _, s := range d.Skipped {
		fmt.Fprintf(&b, "\nNot run: %s.\n", s.Reason)
	}
	b.WriteString("\n## Targets (issue 24), from this run\n\n")
	b.WriteString(d.TargetList())
	b.WriteString("\n## What runs\n\n")
	b.WriteString("- W1: one client, Lock+Unlock of one key; the latency is the pair's.\n")
	b.WriteString("- W2: clients each with a session of their own Lock and Unlock one key, hold 0; the latency is Lock until held (a peer's client-side retries included); min/max per client is fairness.\n")
	b.WriteString("- W3: clients each take 4 random keys of 64 (allot in one atomic call, a peer one by one in sorted order), hold 1 ms, release; the latency is holding the whole set.\n")
	b.WriteString("- W4: independent names: clients each with a session of their own Lock and Unlock one key drawn uniformly from a large space (a million by default), hold 0, so that almost nothing contends; the latency is Lock until held. allot's sessions are spread over its nodes, with `--near` too (its keys are many).\n")
	b.WriteString("- allot: `allot bench` with the same window, warm-up and operation bound, its own 3-node cluster on loopback (a process a node). W1's one session is on each node in turn, a third of the window each: on the key's home node the algorithm's messages stay inside it, on the others they cross (the note of its row gives each node's p50). allot-near: the same with `--near`, W1's and W2's sessions opened at their one key's home node (`client.WithNear`), where the Lock's algorithm messages stay inside the node; W3's keys are many, its sessions spread as allot's. allot's server CPU µs/op is its three nodes' together (allot bench's node_cpu_us_per_op, read off their metrics around each measured workload); a peer's is its server process's in the window.\n")
	for _, n := range d.backends() {
		var info map[string]string
		for _, r := range d.Runs {
			if r.Backend == n && r.Info != nil {
				info = r.Info
			}
		}
		if len(info) == 0 {
			continue
		}
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(info)) {
			kv = append(kv, k+": "+info[k])
		}
		fmt.Fprintf(&b, "- %s: %s.\n", n, strings.Join(kv, "; "))
	}
	if bl := d.Baseline; bl != nil {
		fmt.Fprintf(&b, "- baseline: loopback TCP round trip between two processes p50 %s, p99 %s; ", FmtUs(bl.RTTP50us), FmtUs(bl.RTTP99us))
		if bl.GRPCP50us > 0 {
			fmt.Fprintf(&b, "a unary gRPC call between two processes (the health service's Check: a unary call's floor) p50 %s, p99 %s; ", FmtUs(bl.GRPCP50us), FmtUs(bl.GRPCP99us))
		}
		if bl.StreamP50us > 0 {
			fmt.Fprintf(&b, "a message answered on an open gRPC stream (an echo: the floor of a call on allot's Calls stream) p50 %s, p99 %s; ", FmtUs(bl.StreamP50us), FmtUs(bl.StreamP99us))
		}
		fmt.Fprintf(&b, "4 KiB append + fdatasync p50 %s, p99 %s.\n", FmtUs(bl.FsyncP50us), FmtUs(bl.FsyncP99us))
	}
	b.WriteString("\n## Every run\n\n")
	b.WriteString("| system | run | workload | ops | ops/s | p50 | p90 | p99 | max | min/max per client | lock failures (retried) | unlock failures | server CPU % | server CPU µs/op | bench CPU % | drain s | note |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range d.Runs {
		for _, s := range r.Workloads {
			note := ""
			if s.Aborted {
				note = "aborted: clients closed after the drain"
			}
			if s.FirstErr != "" {
				note = strings.TrimSpace(note + " first error: " + s.FirstErr)
			}
			if len(s.P50usByNode) > 0 {
				var by []string
				for _, a := range slices.Sorted(maps.Keys(s.P50usByNode)) {
					by = append(by, a+" "+FmtUs(s.P50usByNode[a]))
				}
				note = strings.TrimSpace(note + " p50 with the session on each node in turn: " + strings.Join(by, ", "))
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %d | %s | %s | %s | %s | %s | %s | %d | %d | %s | %s | %s | %.2f | %s |\n",
				r.Backend, r.Run, s.Workload, s.Ops, FmtRate(s.OpsPerSec), FmtUs(s.P50us), optUs(s.P90us), FmtUs(s.P99us), optUs(s.MaxUs),
				fmtFair(s.Fairness()), s.LockFailures, s.UnlockFailures, optPct(s.ServerCPUPct), optPerOp(s.ServerCPUusPerOp), optPct(s.BenchCPUPct), s.DrainS, mdEscape(note))
		}
		if r.CPUSeconds > 0 {
			fmt.Fprintf(&b, "| %s | %d | all | | | | | | | | | | | | | | allot bench's processes (clients and nodes) used %.1f CPU s over the whole run, warm-up included |\n", r.Backend, r.Run, r.CPUSeconds)
		}
		if r.Error != "" {
			fmt.Fprintf(&b, "| %s | %d | – | | | | | | | | | | | | | | error: %s |\n", r.Backend, r.Run, mdEscape(r.Error))
		}
		if r.StopNote != "" {
			fmt.Fprintf(&b, "| %s | %d | stop | | | | | | | | | | | | | | %s |\n", r.Backend, r.Run, mdEscape(r.StopNote))
		}
	}
	return b.String()
}

// optUs writes a latency the source may not have (allot bench reports
// p50 and p99 only).
func optUs(us float64) string {
	if us == 0 {
		return ""
	}
	return FmtUs(us)
}

// optPerOp writes CPU µs an operation the source may not have measured.
func optPerOp(us float64) string {
	if us == 0 {
		return ""
	}
	return FmtRate(us)
}

// optPct writes a CPU share the source may not have measured.
func optPct(p float64) string {
	if p == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f", p)
}

func mdEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// The markers of the README's region; the opening one names the command
// that regenerates it.
const (
	OpenMark  = "<!-- peers table: "
	CloseMark = "<!-- end peers table -->"
)

// ErrRegion is a README whose region is missing, repeated or unclosed.
var ErrRegion = errors.New("report: README has no single peers table region")

// Splice returns readme with its region's body replaced by body.
func Splice(readme []byte, body string) ([]byte, error) {
	open := bytes.Index(readme, []byte(OpenMark))
	if open < 0 || bytes.Count(readme, []byte(OpenMark)) != 1 || bytes.Count(readme, []byte(CloseMark)) != 1 {
		return nil, ErrRegion
	}
	eol := bytes.IndexByte(readme[open:], '\n')
	closeAt := bytes.Index(readme, []byte(CloseMark))
	if eol < 0 || closeAt < open+eol {
		return nil, ErrRegion
	}
	start := open + eol + 1
	var out bytes.Buffer
	out.Write(readme[:start])
	out.WriteString(strings.TrimRight(body, "\n") + "\n")
	out.Write(readme[closeAt:])
	return out.Bytes(), nil
}
