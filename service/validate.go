package service

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc/codes"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// Limits of a request's input (client has the same constants). A bad
// input is INVALID_ARGUMENT naming the limit, before the request reaches
// an instance: an internal key never shows in the message.
const (
	// MaxNameBytes is the longest resource, semaphore or quota name, in
	// bytes of UTF-8.
	MaxNameBytes = 256
	// MaxLockNames is the most names one Lock takes: a request's names
	// are resolved and held together, and its messages carry them all.
	MaxLockNames = 128
)

// Defaults of the node's limits (Config.MaxSessions, MaxSemaphores).
const (
	DefaultMaxSessions   = 10000
	DefaultMaxSemaphores = 1024
	DefaultMaxLocks      = 50000
	// MaxMaxLocks is the most Config.MaxLocks may be: every node's users
	// of a view, rank + N·k, stay within the lock's range of ids with
	// MaxNodes nodes.
	MaxMaxLocks = lockRange / MaxNodes
)

// limitReached is RESOURCE_EXHAUSTED with reason NODE_LIMIT naming the
// limit, counted in allot_limit_rejects_total.
func (n *Node) limitReached(limit, format string, args ...any) error {
	n.metrics.limitRejects.WithLabelValues(limit).Inc()
	return statusError(codes.ResourceExhausted, pb.ReasonLimit, fmt.Sprintf(format, args...), "limit", limit)
}

// badInput is INVALID_ARGUMENT with reason BAD_INPUT naming field.
func badInput(field, format string, args ...any) error {
	return statusError(codes.InvalidArgument, pb.ReasonBadInput, fmt.Sprintf(format, args...), "field", field)
}

// checkName refuses an empty name, one over MaxNameBytes, one with a NUL
// byte or not UTF-8 (a Python or JSON client could not print or return
// it), and in a semaphore's name '/' and '@', which would change what its
// instance's key says (sem/NAME/UNITS@VIEW). what names the name in the
// message ("resource 2", "semaphore").
func checkName(field, what, name string, semaphore bool) error {
	switch {
	case name == "":
		return badInput(field, "%s: empty name", what)
	case len(name) > MaxNameBytes:
		return badInput(field, "%s: a name is at most %d bytes, got %d", what, MaxNameBytes, len(name))
	case strings.IndexByte(name, 0) >= 0:
		return badInput(field, "%s: a name may not hold a NUL byte", what)
	case !utf8.ValidString(name):
		return badInput(field, "%s: a name must be valid UTF-8", what)
	case semaphore && strings.ContainsAny(name, "/@"):
		return badInput(field, "%s %q: '/' and '@' are not allowed in a semaphore name", what, name)
	}
	return nil
}

// checkLock checks a Lock's names: 1 to MaxLockNames, each a good name.
// Repeats are allowed: the set is locked, one token per distinct name.
func checkLock(names []string) error {
	if len(names) == 0 {
		return badInput("resources", "lock of no resources")
	}
	if len(names) > MaxLockNames {
		return badInput("resources", "a lock takes at most %d names, got %d", MaxLockNames, len(names))
	}
	for i, s := range names {
		if err := checkName("resources", "resource "+strconv.Itoa(i), s, false); err != nil {
			return err
		}
	}
	return nil
}
