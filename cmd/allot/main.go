// Command allot runs allot's distributed resource-allocation algorithms in
// the deterministic simulator and reproduces the papers' claims.
//
//	allot sim [flags] [scenario.yaml]   compare algorithms on one workload
//	allot repro [NAME...] [flags]       run the paper reproductions
//	allot explore [flags]               every interleaving of a tiny instance
//	allot list                          the algorithms and reproductions
//	allot ui TRACE                      a browser view of a run
//	allot check TRACE                   check a trace from its events alone
//
// Bad input prints one line starting "allot: " and exits 2.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

const usage = `allot — distributed resource allocation: multi-resource locks, pools, quotas

usage:
  allot sim [flags] [scenario.yaml]   run algorithms side by side on one workload (allot sim -h)
  allot sim --kind control [flags]    the service's control plane under faults (allot sim --kind control -h)
  allot sim --kind service [flags]    the service's whole data path with clients, under faults (allot sim --kind service -h)
  allot repro [NAME...] [flags]       reproduce the papers' claims (allot repro -h)
  allot explore [flags]               check every interleaving of a tiny instance (allot explore -h;
                                      the control plane: allot explore --kind control -h;
                                      the data path: allot explore --kind service -h)
  allot list                          list the algorithms and reproductions
  allot check [flags] TRACE           check a trace from its events alone (allot check -h)
  allot serve --nodes A,B,C --node I  run node I of a cluster (allot serve -h)
  allot cluster [--nodes N] [--tls]   start an N-node cluster on loopback for trying out
  allot member list|add|remove --addr A
                                      the members of a running cluster; add or remove one (allot member -h)
  allot certs --out DIR               write a CA, node and client certificates for mTLS (allot certs -h)
  allot lock --addr A,B,C NAME... -- CMD [ARGS...]
                                      run CMD holding the lock on the NAMEs, its tokens in
                                      $ALLOT_TOKEN and $ALLOT_TOKENS (allot lock -h)
  allot holders --addr A,B,C [--semaphore] NAME
                                      who holds a lock's or a semaphore's NAME: session, grant,
                                      token, since when (allot holders -h)
  allot bench [--nodes N | --addr A,B,C]
                                      the peer workloads W1-W3 on a cluster (its own of N nodes, 3 by default)
  allot ui TRACE | [sim flags] | --cluster ADDRS
                                      a browser view of a run, a counterexample or a live cluster (allot ui -h)
  allot version                       the version of this build (also --version)
`

// usageError is bad input: exit 2.
type usageError struct{ error }

func badf(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// failed means the run itself found a problem (a violation, a failed
// claim): exit 1, the details are already printed.
var errFailed = errors.New("failed")

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "sim":
		err = simCmd(args[1:], stdout, stderr)
	case "repro":
		err = reproCmd(args[1:], stdout, stderr)
	case "explore":
		err = exploreCmd(args[1:], stdout, stderr)
	case "list":
		if len(args) > 1 {
			err = badf("list takes no arguments, got %q", args[1:])
			break
		}
		err = listCmd(stdout)
	case "check":
		err = checkCmd(args[1:], stdout, stderr)
	case "serve":
		err = serveCmd(args[1:], stdout, stderr)
	case "cluster":
		err = clusterCmd(args[1:], stdout, stderr)
	case "member":
		err = memberCmd(args[1:], stdout, stderr)
	case "bench":
		err = benchCmd(args[1:], stdout, stderr)
	case "lock":
		err = lockCmd(args[1:], stdout, stderr)
	case "holders":
		err = holdersCmd(args[1:], stdout, stderr)
	case "certs":
		err = certsCmd(args[1:], stdout, stderr)
	case "ui":
		err = uiCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, version())
		return 0
	default:
		err = badf("unknown command %q (want sim, repro, explore, list, check, serve, cluster, member, lock, holders, bench, certs, ui or version)", args[0])
	}
	var ue usageError
	var es exitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &es):
		return int(es)
	case errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errFailed):
		return 1
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "allot: %s\n", bare(ue.error))
		return 2
	default:
		fmt.Fprintf(stderr, "allot: %s\n", bare(err))
		return 1
	}
}
