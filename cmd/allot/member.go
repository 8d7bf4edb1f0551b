package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
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
node certificate (--tls-ca, --tls-cert, --tls-key): membership is the nodes'.`

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
			return rpcErr("member list", err)
		}
		return printMembers(stdout, o.format, r)
	case "add":
		if _, _, err := net.SplitHostPort(pos[0]); err != nil {
			return badf("member add %q: %v", pos[0], err)
		}
		r, err := c.AddMember(ctx, &pb.AddMemberRequest{Address: pos[0]})
		if err != nil {
			return rpcErr("member add", err)
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
			return rpcErr("member remove", err)
		}
		fmt.Fprintf(stdout, "node %d removed; it stops serving (stop its process)\n", id)
		return nil
	}
}

// rpcErr is a refused or failed call as one line: exit 2 for a change
// the cluster refuses (bad input), exit 1 for a node that could not be
// reached or answer in time (nothing wrong with the command).
func rpcErr(what string, err error) error {
	s := status.Convert(err)
	if c := s.Code(); c == codes.Unavailable || c == codes.DeadlineExceeded {
		return fmt.Errorf("%s: %s (%s)", what, s.Message(), c)
	}
	return badf("%s: %s (%s)", what, s.Message(), s.Code())
}

// printMembers writes the members as a table or as JSON.
func printMembers(w io.Writer, format string, r *pb.ListMembersResponse) error {
	var ms []service.MemberInfo
	for _, m := range r.Members {
		ms = append(ms, service.MemberInfo{ID: int(m.Id), Addr: m.Address, Voter: m.Voter, InView: m.InView, Leader: m.Leader, Rejoins: m.Rejoins})
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Epoch   uint64               `json:"epoch"`
			Members []service.MemberInfo `json:"members"`
		}{r.Epoch, ms})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tADDRESS\tVOTER\tIN VIEW\tLEADER")
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "-"
	}
	for _, m := range ms {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", m.ID, m.Addr, yes(m.Voter), yes(m.InView), yes(m.Leader))
	}
	fmt.Fprintf(tw, "view %d\n", r.Epoch)
	return tw.Flush()
}
