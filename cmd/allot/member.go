package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service"
)

const memberUsage = `usage: allot member list|add|remove --addr A [flags] [ARG]

  allot member list --addr A [--format json]     the members, as node A has applied the log
  allot member add --addr A NEWADDR              add a node at NEWADDR; prints its id and how to start it
  allot member remove --addr A ID                remove node ID: the cluster goes on without it

A change goes to the leader (node A forwards it). In a secure cluster, give a
node certificate (--tls-ca, --tls-cert, --tls-key): membership is the nodes'.

list asks every member for itself: UP is whether it answered, LEASE how much
longer it may serve (-: it holds no lease, or did not answer); LEADER is the
Raft leader as node A knows it.

Exit status: 0; 1 when node A does not answer (down, or not a node); 2 for
bad input or a change the cluster refuses.`

// memberOpts are the flags of allot member.
type memberOpts struct {
	addr, format, dataDir string
	timeout               time.Duration
	tls                   tlsOpts
}

// memberCmd lists, adds or removes members of a running cluster through
// its Admin service.
func memberCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "list" && args[0] != "add" && args[0] != "remove") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stdout, memberUsage)
			return errHelp
		}
		return badf("member: want list, add or remove (allot member -h)")
	}
	verb := args[0]
	var o memberOpts
	fs := flag.NewFlagSet("allot member "+verb, flag.ContinueOnError)
	fs.StringVar(&o.addr, "addr", "", "a node of the cluster, host:port")
	fs.StringVar(&o.format, "format", "text", "list: text or json")
	fs.StringVar(&o.dataDir, "data-dir", "", "add: the new node's data dir, in the command printed (default allot-data/node-ID)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "give up after this long")
	o.tls.flags(fs)
	// The argument comes after the flags or before them.
	var pos []string
	rest := args[1:]
	for {
		if err := parseFlagsOnly(fs, rest, stdout, memberUsage); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if o.addr == "" {
		return badf("member %s: --addr: a node of the cluster is needed", verb)
	}
	if _, _, err := net.SplitHostPort(o.addr); err != nil {
		return badf("member %s: --addr: %v", verb, err)
	}
	if o.format != "text" && o.format != "json" {
		return badf("member %s: --format %q: want text or json", verb, o.format)
	}
	want := map[string]int{"list": 0, "add": 1, "remove": 1}[verb]
	if len(pos) != want {
		return badf("member %s: want %d argument(s), got %d (allot member -h)", verb, want, len(pos))
	}
	_, dial, _, err := o.tls.options(nil)
	if err != nil {
		return err
	}
	if dial == nil {
		dial = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	conn, err := grpc.NewClient(o.addr, dial...)
	if err != nil {
		return badf("member %s: %v", verb, err)
	}
	defer conn.Close()
	c := pb.NewAdminClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	switch verb {
	case "list":
		r, err := c.ListMembers(ctx, &pb.ListMembersRequest{})
		if err != nil {
			return rpcErr("member list", o.addr, err)
		}
		return printMembers(stdout, o.format, r, askMembers(ctx, r, dial))
	case "add":
		if _, _, err := net.SplitHostPort(pos[0]); err != nil {
			return badf("member add %q: %v", pos[0], err)
		}
		r, err := c.AddMember(ctx, &pb.AddMemberRequest{Address: pos[0]})
		if err != nil {
			return rpcErr("member add", o.addr, err)
		}
		dir := o.dataDir
		if dir == "" {
			dir = fmt.Sprintf("allot-data/node-%d", r.Id)
		}
		fmt.Fprintf(stdout, "node %d added at %s; start it with:\n  %s\n", r.Id, pos[0],
			shellQuote(([]string{"allot", "serve", "--join", o.addr, "--node", strconv.Itoa(int(r.Id)), "--listen", pos[0], "--data-dir", dir})))
		return nil
	default:
		id, err := strconv.ParseUint(pos[0], 10, 32)
		if err != nil {
			return badf("member remove %q: want a node id", pos[0])
		}
		if _, err := c.RemoveMember(ctx, &pb.RemoveMemberRequest{Id: uint32(id)}); err != nil {
			return rpcErr("member remove", o.addr, err)
		}
		fmt.Fprintf(stdout, "node %d removed; it stops serving (stop its process)\n", id)
		return nil
	}
}

// rpcErr is a refused or failed call as one line: exit 2 for a change
// the cluster refuses (bad input), exit 1 for a node that could not be
// reached or answer in time (nothing wrong with the command).
func rpcErr(what, addr string, err error) error {
	s := status.Convert(err)
	switch c := s.Code(); c {
	case codes.Unavailable:
		return fmt.Errorf("%s: no node answers at %s (%s)", what, addr, transportCause(s.Message()))
	case codes.DeadlineExceeded:
		return fmt.Errorf("%s: %s: %s (%s)", what, addr, s.Message(), c)
	}
	return badf("%s: %s (%s)", what, s.Message(), s.Code())
}

// transportCause is the end of gRPC's message for a connection that
// failed ("connection error: desc = \"transport: Error while dialing:
// dial tcp A: connect: connection refused\""): what the system said.
func transportCause(msg string) string {
	msg = strings.TrimSuffix(msg, `"`)
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.Contains(msg, "transport: ") {
		return msg[i+2:]
	}
	return msg
}

// memberState is a member as allot member list prints it: what node A
// knows of it, and what it said of itself.
type memberState struct {
	service.MemberInfo
	Up          bool   `json:"up"`            // it answered
	LeaseLeftMs int64  `json:"lease_left_ms"` // how much longer it may serve (0: no lease, or down)
	Status      string `json:"status_address,omitempty"`
}

// askMembers asks every member of r for itself, at once, each within
// two seconds (or ctx's time): a member down costs the list that long.
// A member's answer is nil where it gave none.
func askMembers(ctx context.Context, r *pb.ListMembersResponse, dial []grpc.DialOption) []*pb.ListMembersResponse {
	out := make([]*pb.ListMembersResponse, len(r.Members))
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i, m := range r.Members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := grpc.NewClient(m.Address, dial...)
			if err != nil {
				return
			}
			defer conn.Close()
			if s, err := pb.NewAdminClient(conn).ListMembers(ctx, &pb.ListMembersRequest{}); err == nil {
				out[i] = s
			}
		}()
	}
	wg.Wait()
	return out
}

// printMembers writes the members as a table or as JSON.
func printMembers(w io.Writer, format string, r *pb.ListMembersResponse, selves []*pb.ListMembersResponse) error {
	var ms []memberState
	for i, m := range r.Members {
		st := memberState{MemberInfo: service.MemberInfo{ID: int(m.Id), Addr: m.Address, Voter: m.Voter, InView: m.InView, Leader: m.Leader, Rejoins: m.Rejoins}}
		if s := selves[i]; s != nil {
			st.Up, st.LeaseLeftMs, st.Status = true, s.LeaseLeftMs, s.StatusAddress
		}
		ms = append(ms, st)
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Epoch   uint64        `json:"epoch"`
			Members []memberState `json:"members"`
		}{r.Epoch, ms})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tADDRESS\tVOTER\tIN VIEW\tLEADER\tUP\tLEASE")
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "-"
	}
	for _, m := range ms {
		up, lease := "down", "-"
		if m.Up {
			up = "up"
		}
		if m.LeaseLeftMs > 0 {
			lease = (time.Duration(m.LeaseLeftMs) * time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.Addr, yes(m.Voter), yes(m.InView), yes(m.Leader), up, lease)
	}
	fmt.Fprintf(tw, "view %d\n", r.Epoch)
	return tw.Flush()
}
