// Package client is the Go client of an allot cluster, in the idiom of
// etcd's concurrency package and x/sync/semaphore:
//
//	c, _ := client.Dial(ctx, "127.0.0.1:7001", "127.0.0.1:7002")
//	s, _ := c.Session(ctx, client.WithTTL(5*time.Second))
//	g, _ := s.Lock(ctx, "accounts/alice", "accounts/bob") // both, atomically
//	write(g.Token("accounts/alice"))                      // the store checks the token
//	g.Unlock(ctx)
//
// A session is a lease the client keeps alive in the background; every
// grant lives inside one and is lost with it. Done() of the session, and of
// each of its grants, closes when the lease may have expired: the client
// counts the lease from the moment it sent its last successful keep-alive,
// which is before the node received it, so Done closes before the node
// gives the resources to anyone else. Leases give eventual exclusion at
// best (a paused process cannot notice in time), so a resource protects
// itself with the fencing token of each grant: it refuses a token smaller
// than the largest it has seen.
//
// A session's Lock, Unlock, Acquire and Release go on one stream per node
// (the API's Calls), which costs a node less than a unary call each: by
// default on the node's native protocol, a connection of its own to the
// node's port that carries the same Calls without HTTP/2 (the same
// semantics, errors, certificates and tokens), on the gRPC Calls stream
// where a node does not speak it (an older version) or with
// WithProtocol(ProtocolGRPC), and unary where a node has no Calls at
// all. Client.Protocols says which each node's took. A session that locks mostly
// one name is best opened where that name lives, with WithNear: its
// Lock then stays inside one node.
//
// Each grant is its own owner: two Locks on one session are two holders,
// and the second waits for the first (unlike etcd's mutexes, which both
// "own" a lock taken twice on one session). The client never needs to know
// which algorithm the cluster runs.
//
// A cluster run with mTLS and client tokens (allot serve --tls-ca,
// --tls-cert, --tls-key, --auth-tokens) is dialled with DialWith and a
// client certificate and token:
//
//	c, err := client.DialWith(ctx, addrs,
//		client.WithTLSFiles("ca.pem", "client.pem", "client-key.pem"),
//		client.WithToken(token))
//
// A refused certificate is ErrTLS, a missing or unknown token
// ErrUnauthenticated.
//
// # Limits
//
// What the cluster does not hide from its clients:
//
//   - Lock names are exact: two different names never contend, and each
//     has its own tokens. A Lock waits only for the holders of its names;
//     a node takes at most --max-locks lock requests open at once
//     (default 50000; one more is ErrLimit).
//   - A semaphore has 1 to 2^31 − 1 units. Below --slots units (default
//     16) a node serves at most --slots of its requests at once; more
//     wait for a slot (they contend for its units anyway). From --slots
//     on, a node serves up to --max-sessions of them at once (default
//     10000; one more is ErrLimit).
//   - A session is served by one node at a time, and recorded at another
//     (its backup), which adopts it if the first dies or is cut off: the
//     session then moves there by itself, with its grants and their tokens
//     (give Dial every node's address, or it cannot). The node and its
//     backup lost at once lose the session (Done closes): open a new one
//     (Session passes over nodes that are down). A call cut off by its
//     node's loss, a view change or the move (Lock, Unlock, Acquire,
//     Release, Take; failover.go says how) waits for the session's node
//     and is made again there, within the caller's context: the caller
//     sees its answer, ErrSessionExpired (only once Done has closed) or
//     the context's end, not the transport's errors. A Lock or Acquire
//     granted before its node was lost without answering is found held by
//     the session and returned; it stays ErrUnavailable, and may be held
//     by the session until it ends, when another Lock of the same names
//     of the session is on its way, or at a node of an earlier version
//     (no Holders). The adopted
//     session keeps its deadline (a session whose client stopped ends
//     within its TTL and the nodes' --suspect of its last keep-alive). A
//     one-node cluster has no backup.
//   - A semaphore's units are those of its first use in the cluster
//     (ErrMismatch otherwise, a *MismatchError saying them), until nobody
//     holds it at a refresh; a node
//     keeps at most --max-semaphores semaphores in use (default 1024; the
//     idle ones are collected by a refresh) and at most --max-sessions
//     sessions (default 10000): ErrLimit.
//   - Names are 1 to MaxNameBytes bytes of UTF-8 without NUL (and without
//     '/' or '@' for a semaphore); a Lock takes at most MaxLockNames.
//   - A Take the quota cannot fill keeps the permits it took, which are
//     consumed: ExhaustedError says how many.
package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/session"
)

// Errors. Bad input is refused by the client before anything is sent.
var (
	ErrNoResources = errors.New("allot: lock of no resources")
	ErrBadUnits    = errors.New("allot: a semaphore needs units > 0 and below 2^31")
	ErrBadTTL      = errors.New("allot: a session TTL must be positive and at most 24h (MaxTTL)")
	ErrBadCount    = errors.New("allot: take needs n > 0")
	ErrNoAddress   = errors.New("allot: no node address")
	// ErrBadName: a name that is empty, over MaxNameBytes, holds a NUL
	// byte or is not UTF-8, or a semaphore name with '/' or '@'. A node
	// refuses the same names (ErrInvalid).
	ErrBadName = errors.New("allot: bad name")
	// ErrTooManyNames: a Lock of more than MaxLockNames names.
	ErrTooManyNames = errors.New("allot: too many names in one lock")
	// ErrLocked: TryLock or TryAcquire found the resources taken.
	ErrLocked = errors.New("allot: taken")
	// ErrMismatch: Acquire of a semaphore the cluster knows with other
	// units (the units of a name are those of its first use, anywhere);
	// the error is a *MismatchError, which says the units in force.
	ErrMismatch = errors.New("allot: semaphore units mismatch")
	// ErrSessionExpired: the session's lease expired (or the session was
	// closed); its grants are gone. A call returns it only once the
	// session's Done has closed: a node that does not know a session the
	// client still keeps alive (it moved) is a sign of the move, which
	// the call waits for.
	ErrSessionExpired = errors.New("allot: session expired")
	// ErrNotHeld: Unlock or Release of a grant its session does not hold
	// (any more): given back twice, or after a node answered that it was
	// not. The session is alive and keeps its other grants; a node of an
	// older version answers ErrSessionExpired instead.
	ErrNotHeld = errors.New("allot: grant not held")
	// ErrExhausted: the quota has no permit left.
	ErrExhausted = errors.New("allot: quota exhausted")
	// ErrLimit: a limit of the node was reached: its most sessions open
	// (Session then tries the other nodes), its most lock requests open
	// at once, or its most semaphores in use (the node asks for a refresh
	// that collects the idle ones: ask again). A node of an older version
	// has no limits.
	ErrLimit = errors.New("allot: limit reached")
	// ErrUnavailable: the node is shutting down, or cannot reach what the
	// request needs. A session's calls ride over it where the session
	// can move (failover.go), and return it only where a call cut off
	// may have left a grant held that the client cannot tell; Holders
	// returns it beside the holders when a node did not answer.
	ErrUnavailable = errors.New("allot: unavailable")
	// ErrInvalid: the node refused the request as bad input.
	ErrInvalid = errors.New("allot: invalid request")
	// ErrUnauthenticated: the node wants a client token (WithToken) and
	// got none, or one it does not know.
	ErrUnauthenticated = errors.New("allot: unauthenticated")
	// ErrTLS: the TLS handshake failed: the node refused the client's
	// certificate (none, expired, or not signed by the cluster's CA), or
	// the client refused the node's.
	ErrTLS = errors.New("allot: TLS handshake failed")
	// ErrInsecureToken: WithToken without WithTLS, which would send the
	// token in plaintext (AllowInsecureToken allows it).
	ErrInsecureToken = errors.New("allot: a token over a connection without TLS")
)

// wrap turns a gRPC status into the package's errors (errors.Is works).
func wrap(err error) error {
	if err == nil {
		return nil
	}
	s, ok := status.FromError(err)
	if !ok {
		return err
	}
	var base error
	reason, meta := errorInfo(s)
	switch reason {
	case pb.ReasonExhausted:
		return &ExhaustedError{Taken: count(meta["taken"]), Asked: count(meta["asked"]), msg: s.Message()}
	case pb.ReasonCutShort:
		return &CutShortError{Taken: count(meta["taken"]), Asked: count(meta["asked"]), err: wrap(status.Error(s.Code(), s.Message()))}
	case pb.ReasonUnitsMismatch:
		return &MismatchError{Units: count(meta["units"]), msg: s.Message()}
	}
	switch s.Code() {
	case codes.NotFound:
		base = ErrSessionExpired
		if reason == pb.ReasonNotHeld {
			base = ErrNotHeld
		}
	case codes.FailedPrecondition:
		if reason != pb.ReasonUnitsMismatch {
			return ErrLocked
		}
		base = ErrMismatch
	case codes.ResourceExhausted:
		base = ErrExhausted
		if reason == pb.ReasonLimit {
			base = ErrLimit
		}
	case codes.Unavailable:
		base = ErrUnavailable
		if handshake(s.Message()) {
			base = ErrTLS
		}
	case codes.Unauthenticated:
		base = ErrUnauthenticated
	case codes.InvalidArgument:
		base = ErrInvalid
	case codes.Canceled:
		return context.Canceled
	case codes.DeadlineExceeded:
		return context.DeadlineExceeded
	default:
		return err
	}
	return fmt.Errorf("%w: %s", base, s.Message())
}

// ExhaustedError is a Take refused because the quota has no permit
// left, after Taken of its Asked permits: those are consumed (a permit
// once issued is never given back). errors.Is(err, ErrExhausted) holds.
// A node of an older version sends no count: Taken and Asked are 0.
type ExhaustedError struct {
	Taken, Asked int
	msg          string
}

func (e *ExhaustedError) Error() string { return ErrExhausted.Error() + ": " + e.msg }

// Is makes errors.Is(err, ErrExhausted) hold.
func (e *ExhaustedError) Is(target error) bool { return target == ErrExhausted }

// MismatchError is an Acquire refused because the cluster knows the
// semaphore with other units: Units is the size in force, which a name
// keeps while anyone holds it (a node of an older version does not say:
// 0). errors.Is(err, ErrMismatch) holds.
type MismatchError struct {
	Units int
	msg   string
}

func (e *MismatchError) Error() string { return ErrMismatch.Error() + ": " + e.msg }

// Is makes errors.Is(err, ErrMismatch) hold.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// CutShortError is a Take that ended after Taken of its Asked permits,
// which are consumed, for another reason than the quota's end: Unwrap
// says which (context.Canceled, ErrSessionExpired; ErrUnavailable from a
// client that cannot move its session). Taken counts the permits the
// nodes said they took: those of a try cut off unanswered are not
// counted (they are consumed all the same).
type CutShortError struct {
	Taken, Asked int
	err          error
}

func (e *CutShortError) Error() string { return e.err.Error() }

func (e *CutShortError) Unwrap() error { return e.err }

// count is a count of the ErrorInfo's metadata (0 if none).
func count(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// errorInfo is the reason and metadata of the google.rpc.ErrorInfo of
// the service's domain in a status' details ("" from a node that gives
// none: an older version).
func errorInfo(s *status.Status) (string, map[string]string) {
	for _, d := range s.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Domain == pb.ErrorDomain {
			return info.Reason, info.Metadata
		}
	}
	return "", nil
}

// Limits of a request's input, the node's own (service.MaxNameBytes,
// service.MaxLockNames).
const (
	// MaxNameBytes is the longest resource, semaphore or quota name, in
	// bytes of UTF-8.
	MaxNameBytes = 256
	// MaxLockNames is the most names one Lock takes (a request's names
	// are resolved and held together, and its messages carry them all).
	MaxLockNames = 128
)

// checkName is the node's check of a name (ErrBadName); what names it in
// the error.
func checkName(what, name string, semaphore bool) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: %s: empty name", ErrBadName, what)
	case len(name) > MaxNameBytes:
		return fmt.Errorf("%w: %s: a name is at most %d bytes, got %d", ErrBadName, what, MaxNameBytes, len(name))
	case strings.IndexByte(name, 0) >= 0:
		return fmt.Errorf("%w: %s: a name may not hold a NUL byte", ErrBadName, what)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: %s: a name must be valid UTF-8", ErrBadName, what)
	case semaphore && strings.ContainsAny(name, "/@"):
		return fmt.Errorf("%w: %s %q: '/' and '@' are not allowed in a semaphore name", ErrBadName, what, name)
	}
	return nil
}

// handshake reports whether an UNAVAILABLE status is a failed TLS
// handshake: gRPC gives it no code of its own, only crypto/tls's words.
func handshake(msg string) bool {
	return strings.Contains(msg, "authentication handshake failed") || strings.Contains(msg, "tls: ") || strings.Contains(msg, "x509: ")
}

// Client is a connection to the nodes of a cluster.
type Client struct {
	conns []*grpc.ClientConn
	api   []*caller // each node's API, on conns
	next  atomic.Uint32
}

// window is the HTTP/2 flow-control window of a client's connections and
// calls (1 MiB: far beyond any request or answer).
const window = 1 << 20

// Dial connects to the nodes at addrs (any of them serves any request;
// sessions are spread over them), in plaintext; DialWith takes options.
func Dial(ctx context.Context, addrs ...string) (*Client, error) {
	return DialWith(ctx, addrs)
}

// Option configures a Client.
type Option func(*options) error

type options struct {
	tls           *tls.Config
	token         string
	insecureToken bool
	protocol      Protocol
}

// WithTLS speaks TLS with cfg to the nodes; a cluster with mTLS needs a
// client certificate in it (cfg.Certificates) and the cluster's CA
// (cfg.RootCAs).
func WithTLS(cfg *tls.Config) Option {
	return func(o *options) error { o.tls = cfg; return nil }
}

// WithTLSFiles speaks mTLS to the nodes with the client certificate and
// key in certFile and keyFile, trusting nodes signed by the CA in caFile
// (allot certs writes such files). The files are checked at once: Dial
// fails with mtls.ErrFile, mtls.ErrKeyMismatch, mtls.ErrExpired, ... .
func WithTLSFiles(caFile, certFile, keyFile string) Option {
	return func(o *options) error {
		id, err := mtls.Load(caFile, certFile, keyFile)
		if err != nil {
			return err
		}
		o.tls = id.ClientConfig()
		return nil
	}
}

// WithToken sends token with every call, for a cluster whose nodes ask
// clients for one (allot serve --auth-tokens). Only over TLS, unless
// AllowInsecureToken.
func WithToken(token string) Option {
	return func(o *options) error { o.token = token; return nil }
}

// AllowInsecureToken lets WithToken send the token without TLS, where
// anyone on the path can read it: for a proxy that adds TLS, or tests.
func AllowInsecureToken() Option {
	return func(o *options) error { o.insecureToken = true; return nil }
}

// bearer is a token sent as "authorization: Bearer TOKEN" with each call.
type bearer struct {
	token  string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.token}, nil
}

func (b bearer) RequireTransportSecurity() bool { return b.secure }

// DialWith is Dial with options.
func DialWith(ctx context.Context, addrs []string, opts ...Option) (*Client, error) {
	if len(addrs) == 0 {
		return nil, ErrNoAddress
	}
	var o options
	for _, f := range opts {
		if err := f(&o); err != nil {
			return nil, fmt.Errorf("allot: %w", err)
		}
	}
	dopts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if o.tls != nil {
		dopts[0] = grpc.WithTransportCredentials(mtls.NewCredentials(o.tls))
	}
	if o.token != "" {
		if o.tls == nil && !o.insecureToken {
			return nil, ErrInsecureToken
		}
		dopts = append(dopts, grpc.WithPerRPCCredentials(bearer{token: o.token, secure: !o.insecureToken}))
	}
	// A node back after a crash is worth trying again within a second,
	// not after gRPC's default backoff of up to two minutes.
	dopts = append(dopts, grpc.WithConnectParams(grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: 10 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
		MinConnectTimeout: time.Second,
	}),
		// Fixed flow-control windows turn off gRPC's estimate of the
		// bandwidth-delay product, which answers nearly every response
		// of a call with a PING the node must answer: a write and a
		// read more on each side for every call, for a window that
		// small calls never fill (the node's side does the same).
		grpc.WithInitialWindowSize(window), grpc.WithInitialConnWindowSize(window))
	c := &Client{}
	for _, a := range addrs {
		cc, err := grpc.NewClient(a, dopts...)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("allot: %s: %w", a, err)
		}
		var nd *nativeDialer
		if o.protocol != ProtocolGRPC {
			nd = &nativeDialer{addr: a, tls: o.tls, token: o.token}
		}
		c.conns = append(c.conns, cc)
		c.api = append(c.api, newCaller(cc, nd))
	}
	return c, nil
}

// Close closes the connections.
func (c *Client) Close() error {
	for _, cc := range c.conns {
		cc.Close()
	}
	return nil
}

// SessionOption configures a session.
type SessionOption func(*sessionOptions)

type sessionOptions struct {
	ttl  time.Duration
	near *string // WithNear's name (nil: none)
}

// MaxTTL is the longest session TTL (WithTTL) a node accepts.
const MaxTTL = 24 * time.Hour

// WithTTL sets the session's lease (default 10s, at most MaxTTL).
func WithTTL(d time.Duration) SessionOption { return func(o *sessionOptions) { o.ttl = d } }

// WithNear opens the session on the node where name is at home (its
// lock's resource manager lives there), if the client was given that
// node's address: a Lock of name alone then takes no message between
// nodes. For a session that locks mostly one name (a leader's lock, a
// hot record); it is a placement, not a promise: without a node that
// answers where name lives (an earlier version), or without that node
// among the client's addresses, the session opens as without it, and it
// stays where it opened when the cluster's members change.
func WithNear(name string) SessionOption { return func(o *sessionOptions) { o.near = &name } }

// Session opens a session on one of the nodes, and keeps it alive until it
// is closed, its context ends, or a keep-alive fails.
func (c *Client) Session(ctx context.Context, opts ...SessionOption) (*Session, error) {
	o := sessionOptions{ttl: 10 * time.Second}
	for _, f := range opts {
		f(&o)
	}
	if o.ttl <= 0 || o.ttl > MaxTTL {
		return nil, ErrBadTTL
	}
	// Sessions are spread over the nodes; a node that is down, shutting
	// down (Unavailable) or at its most sessions (ErrLimit) is passed over
	// for the next one.
	first := int(c.next.Add(1) - 1)
	if o.near != nil {
		if err := checkName("name", *o.near, false); err != nil {
			return nil, err
		}
		if k, ok := c.home(ctx, *o.near, first); ok {
			first = k
		}
	}
	var (
		at   int
		r    *pb.OpenSessionResponse
		err  error
		sent time.Time
	)
	for i := range c.conns {
		at = (first + i) % len(c.conns)
		api := c.api[at]
		sent = time.Now()
		r, err = api.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: max(1, o.ttl.Milliseconds())})
		if status.Code(err) != codes.Unavailable && !errors.Is(wrap(err), ErrLimit) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return nil, wrap(err)
	}
	s := &Session{c: c, at: at, id: r.Session, ttl: o.ttl, done: make(chan struct{}), stop: make(chan struct{}), kick: make(chan struct{}, 1), moved: make(chan struct{}),
		renewal: make(chan struct{}), held: map[uint64]bool{}, flying: map[*flight]bool{}}
	b := s.bound(r.LeaseMs)
	s.lastOK, s.until = sent, sent.Add(b)
	s.longest = time.Duration(r.LeaseMs) * time.Millisecond
	s.deadline = time.AfterFunc(time.Until(s.until), s.lost)
	go s.keepAlive(b / 3)
	return s, nil
}

// home is the index of the node where name is at home, as the first of
// the nodes (from first on) that answers says, if the client has its
// address (given as the membership has it, or resolving to the same
// address and port).
func (c *Client) home(ctx context.Context, name string, first int) (int, bool) {
	for i := range c.conns {
		r, err := c.api[(first+i)%len(c.conns)].Locate(ctx, &pb.LocateRequest{Name: name})
		if err != nil {
			if ctx.Err() != nil || status.Code(err) == codes.Unimplemented {
				return 0, false
			}
			continue
		}
		want, _ := net.ResolveTCPAddr("tcp", r.NodeAddr)
		for k, cc := range c.conns {
			if cc.Target() == r.NodeAddr {
				return k, true
			}
			if got, err := net.ResolveTCPAddr("tcp", cc.Target()); err == nil && want != nil && got.Port == want.Port && got.IP.Equal(want.IP) {
				return k, true
			}
		}
		return 0, false
	}
	return 0, false
}

// Session is a lease in the cluster, served by one node at a time: the
// one that opened it, or, once that node is lost, the one that adopted it
// (Session moves to it by itself).
type Session struct {
	c        *Client
	id       uint64
	ttl      time.Duration
	done     chan struct{}
	stop     chan struct{}
	kick     chan struct{} // a call found the session's node unavailable
	once     sync.Once
	stopOnce sync.Once
	deadline *time.Timer

	mu     sync.Mutex
	at     int           // the node serving the session (an index of c.conns)
	moved  chan struct{} // closed when at changes (and replaced)
	lastOK time.Time     // when the last keep-alive that succeeded was sent
	until  time.Time     // when Done closes, unless a keep-alive moves it
	// longest is the longest lease a node's answer gave: one under half
	// of it says the node's lease is not being renewed (lapsing).
	longest time.Duration
	// given: grants given back whose give-back the session's backup may
	// not have yet (given back again where the session moves: giveAgain);
	// seq numbers them.
	given []givenBack
	seq   uint64
	// calls numbers the session's Locks and Acquires: one asked again
	// where the session moved (its answer lost with its node) goes under
	// the same number, and a node that holds the grant of the first try
	// answers with it (a node of an earlier version ignores the number:
	// the second try then waits behind the first's grant).
	calls atomic.Uint64
	// renewal is closed when a keep-alive succeeds (and replaced): the
	// session's node serves it again after a call was cut off (rideOver).
	renewal chan struct{}
	// held: the grants answered to this client and not given back;
	// flying: the Lock and Acquire calls sent and not answered yet
	// (failover.go: what a call cut off may have left held).
	held   map[uint64]bool
	flying map[*flight]bool
}

// givenBack is a grant given back at node at, the seq-th of its session.
type givenBack struct {
	seq, grant uint64
	at         int
}

// Done closes when the session's lease may have expired or the session was
// closed: from then on its grants may be someone else's.
func (s *Session) Done() <-chan struct{} { return s.done }

// ID is the session's id in the cluster.
func (s *Session) ID() uint64 { return s.id }

// Node is the address of the node serving the session, as dialled; it
// changes when the session moves.
func (s *Session) Node() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.conns[s.at].Target()
}

// Renewed is when the last keep-alive its node answered was sent (at
// first, the session's opening): the cluster keeps the session at least
// its TTL from then, unless its node and its backup are lost together.
// For a test that judges the cluster by what its clients saw.
func (s *Session) Renewed() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastOK
}

func (s *Session) lost() { s.once.Do(func() { close(s.done) }) }

// node is the session's node now, and the channel that closes when it
// changes.
func (s *Session) node() (pb.AllotClient, int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.api[s.at], s.at, s.moved
}

// bound is how long the session may be believed alive after a request
// was sent, given the answer's lease (session.Believed: the TTL, and no
// longer than its node may serve).
func (s *Session) bound(leaseMs int64) time.Duration {
	return session.Believed(s.ttl, time.Duration(leaseMs)*time.Millisecond)
}

// renewed moves the deadline after a keep-alive sent at sent succeeded at
// node k with the answer's lease.
func (s *Session) renewed(k int, sent time.Time, leaseMs int64) time.Duration {
	b := s.bound(leaseMs)
	s.mu.Lock()
	defer s.mu.Unlock()
	if k != s.at {
		s.at = k
		close(s.moved)
		s.moved = make(chan struct{})
		if len(s.given) > 0 {
			go s.giveAgain(k)
		}
	}
	// Never back: what an earlier answer promised (a backup's word
	// included: keep) holds still, whatever this one says.
	s.lastOK, s.until = sent, later(s.until, sent.Add(b))
	s.longest = max(s.longest, time.Duration(leaseMs)*time.Millisecond)
	s.deadline.Reset(time.Until(s.until))
	close(s.renewal)
	s.renewal = make(chan struct{})
	return b
}

// keep moves the deadline after a node that keeps the session as its
// backup answered (SESSION_MOVING) a keep-alive sent at sent, with its
// lease and what it keeps (keptMs, from a node that says): as far as
// session.BelievedAtBackup allows, never back.
func (s *Session) keep(sent time.Time, leaseMs int64, keptMs string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	u := sent.Add(session.BelievedAtBackup(s.ttl, sent.Sub(s.lastOK), ms(leaseMs), ms(int64(count(keptMs))), keptMs != ""))
	if u.After(s.until) {
		s.until = u
		s.deadline.Reset(time.Until(u))
	}
}

// halfLeft is half the time from sent to until, the session's count (at
// least a millisecond): the longest a call to a node that may not answer
// waits, so that the rest is left to find the session elsewhere.
func halfLeft(until, sent time.Time) time.Duration {
	return max(until.Sub(sent)/2, time.Millisecond)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// keepAlive renews the lease three times per bound (the TTL, or the
// node's lease if shorter); the local deadline moves only when a renewal
// succeeded, counted from when it was sent. When the session's node does
// not answer, the session moves (move).
func (s *Session) keepAlive(every time.Duration) {
	for {
		t := time.NewTimer(max(every, time.Millisecond))
		select {
		case <-s.stop:
			t.Stop()
			return
		case <-s.done:
			t.Stop()
			return
		case <-t.C:
		case <-s.kick:
			t.Stop()
		}
		api, at, _ := s.node()
		sent := time.Now()
		// A keep-alive is worth waiting for until the session is lost.
		s.mu.Lock()
		until := s.until
		s.mu.Unlock()
		end := until
		if end.Before(sent.Add(every)) {
			end = sent.Add(every)
		}
		if len(s.c.conns) > 1 {
			// A node that does not answer (frozen, or cut off silently)
			// is left in time to find the session's backup: after
			// moveTry, or half the time the session has left if that
			// is sooner (a short lease: the rest is the move's).
			wait := min(max(every, moveTry), halfLeft(until, sent))
			end = minTime(end, sent.Add(wait))
		}
		ctx, cancel := context.WithDeadline(context.Background(), end)
		r, err := api.KeepAlive(ctx, &pb.KeepAliveRequest{Session: s.id})
		cancel()
		if err == nil {
			every = s.renewed(at, sent, r.LeaseMs) / 3
			if s.lapsing(r.LeaseMs) {
				s.askBackup(at)
			}
			continue
		}
		if len(s.c.conns) == 1 {
			// Nowhere to move. A node that says the session ended, or
			// that it does not serve it (it stopped serving, and its
			// backup adopts the session where this client cannot follow)
			// has lost it for this client. Any other failure (the node
			// busy, its backup slow to answer a keep-alive's record,
			// the node away for a moment) is tried again: the session
			// is counted alive until its deadline (s.until, from the
			// last keep-alive answered) and lost then, not before, if
			// none succeeds. (A keep-alive whose record missed the
			// backup on a loaded machine lost every such session at
			// once.)
			if status.Code(err) == codes.NotFound || notHere(err) {
				s.lost()
				return
			}
			continue
		}
		if status.Code(err) == codes.Canceled {
			continue
		}
		every = s.move(at)
		if every == 0 {
			return
		}
	}
}

// move looks for the node that serves the session, starting after node
// from, until one answers a keep-alive (it returns the next renewal's
// interval) or the session is lost or stopped (0). A node that keeps the
// session as its backup (SESSION_MOVING) moves the deadline on; any other
// answer sends it to the next node. The node that served the session is
// tried too: it may have been away for a moment only.
func (s *Session) move(from int) time.Duration {
	n := len(s.c.conns)
	for i := 1; ; i++ {
		k := (from + i) % n
		select {
		case <-s.stop:
			return 0
		case <-s.done:
			return 0
		default:
		}
		sent := time.Now()
		// A node that does not answer (the frozen one the session
		// leaves) is given up in time to ask the others again before
		// the session's count runs out: after moveTry, or half the
		// time the session has left if that is sooner, as keepAlive's
		// wait. (Waited moveTry whole, a frozen node outlasted the
		// count that the backup's last answer gave, when its lease was
		// short: the session was lost while it moved.)
		s.mu.Lock()
		until := s.until
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), min(s.ttl, moveTry, halfLeft(until, sent)))
		r, err := s.c.api[k].KeepAlive(ctx, &pb.KeepAliveRequest{Session: s.id})
		cancel()
		if err == nil {
			return s.renewed(k, sent, r.LeaseMs) / 3
		}
		if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable {
			if reason, meta := errorInfo(st); reason == pb.ReasonSessionMoving {
				s.keep(sent, int64(count(meta["lease_ms"])), meta["kept_ms"])
			}
		}
		if i%n == 0 {
			// Every node tried: the session's new node is adopting it
			// (a view change takes the lease of the lost node, and an
			// election).
			select {
			case <-s.stop:
				return 0
			case <-s.done:
				return 0
			case <-time.After(movePause):
			}
		}
	}
}

// lapsing reports whether a keep-alive's answer with leaseMs says the
// session's node is losing its lease (session.Lapsing), when the session
// has other nodes to ask.
func (s *Session) lapsing(leaseMs int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.c.conns) > 1 && session.Lapsing(s.ttl, time.Duration(leaseMs)*time.Millisecond, s.longest)
}

// askBackup asks every node but from, at once, for the session while its
// node's lease lapses: the backup's word (SESSION_MOVING) moves the
// deadline as far as it keeps the session (keep), before the node's
// lease is out; a node that serves the session already (it adopted it)
// takes it (renewed).
func (s *Session) askBackup(from int) {
	s.mu.Lock()
	left := time.Until(s.until)
	s.mu.Unlock()
	var wg sync.WaitGroup
	for k := range s.c.conns {
		if k == from {
			continue
		}
		wg.Go(func() {
			sent := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), max(min(left, moveTry), time.Millisecond))
			r, err := s.c.api[k].KeepAlive(ctx, &pb.KeepAliveRequest{Session: s.id})
			cancel()
			if err == nil {
				s.renewed(k, sent, r.LeaseMs)
				return
			}
			if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable {
				if reason, meta := errorInfo(st); reason == pb.ReasonSessionMoving {
					s.keep(sent, int64(count(meta["lease_ms"])), meta["kept_ms"])
				}
			}
		})
	}
	wg.Wait()
}

// moveTry bounds one keep-alive while the session moves, and movePause
// is the wait after every node was tried.
const (
	moveTry   = 500 * time.Millisecond
	movePause = 20 * time.Millisecond
)

// notHere reports whether err is a node's SESSION_NOT_HERE: it does not
// serve the session, which may be alive at another node.
func notHere(err error) bool {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Unavailable {
		return false
	}
	reason, _ := errorInfo(st)
	return reason == pb.ReasonSessionNotHere
}

// unavailable reports whether err says the session's node cannot serve
// it now: it is down or unreachable (not a refused TLS handshake), or it
// keeps the session as a backup. The session then moves.
func unavailable(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Unavailable && !handshake(st.Message())
}

// A node answers an Unlock or a Release before the session's backup has
// the give-back (it goes there next, on the stream that records the
// session's grants in order). Lost before, the node leaves the grant in
// the backup's records, and the node that adopts the session holds it
// again: the session gives back there, again, what it gave back since
// its last Lock or Acquire answered by the same node (that answer waited
// for its own record, which came after the give-backs'). NOT_HELD: it
// had it already.

// gave notes grant id given back at node at.
func (s *Session) gave(id uint64, at int) {
	s.mu.Lock()
	s.seq++
	s.given = append(s.given, givenBack{seq: s.seq, grant: id, at: at})
	s.mu.Unlock()
}

// mark is the number of the last give-back answered so far.
func (s *Session) mark() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// recorded forgets the give-backs up to mark that node at answered: a
// Lock or Acquire sent after them was answered by at, so its backup has
// them.
func (s *Session) recorded(mark uint64, at int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.given = slices.DeleteFunc(s.given, func(g givenBack) bool { return g.seq <= mark && g.at == at })
}

// giveAgain gives back at node k, where the session moved, what it gave
// back elsewhere and may not be recorded by the backup that adopted it.
func (s *Session) giveAgain(k int) {
	s.mu.Lock()
	var again []givenBack
	for _, g := range s.given {
		if g.at != k {
			again = append(again, g)
		}
	}
	s.mu.Unlock()
	api := s.c.api[k]
	for _, g := range again {
		ctx, cancel := context.WithTimeout(context.Background(), min(s.ttl, moveTry))
		_, err := api.Unlock(ctx, &pb.UnlockRequest{Session: s.id, Grant: g.grant})
		cancel()
		if err != nil && !errors.Is(wrap(err), ErrNotHeld) {
			continue // the next move gives it again
		}
		s.mu.Lock()
		s.given = slices.DeleteFunc(s.given, func(h givenBack) bool { return h.seq == g.seq })
		s.mu.Unlock()
	}
}

// moveNow asks the keep-alive loop to look for the session's node now.
func (s *Session) moveNow() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// elsewhere reports whether err says the node called does not serve the
// session now: it is unavailable (down, unreachable, not serving, or it
// does not serve this session: SESSION_MOVING, SESSION_NOT_HERE), or it
// does not know the session (NOT_FOUND other than NOT_HELD: a node of
// this version says it only of a session that ended, one of an earlier
// version of every session it does not serve, one its backup adopted
// included). The keep-alive finds out which: it moves the session, or
// Done closes.
func elsewhere(err error) bool {
	return unavailable(err) || status.Code(err) == codes.NotFound && !errors.Is(wrap(err), ErrNotHeld)
}

// callAt runs f, safe to repeat, on the session's node, with ctx, and
// says which node answered; if that node does not serve the session
// (elsewhere), it waits for the session's node to serve it (rideOver)
// and runs f again there, until it is answered, the session is lost
// (Done) or ctx ends. A call the node has not answered when the session
// moves (a frozen node answers nothing) is given up and sent to the new
// node. (Calls not safe to repeat: callOnce.)
func (s *Session) callAt(ctx context.Context, f func(context.Context, pb.AllotClient) error) (int, error) {
	if len(s.c.conns) == 1 {
		api, at, _ := s.node()
		return at, f(ctx, api)
	}
	for try := 0; ; try++ {
		api, at, moved := s.node()
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-moved:
				cancel()
			case <-cctx.Done():
			}
		}()
		err := f(cctx, api)
		cancel()
		switch {
		case err == nil || ctx.Err() != nil:
			return at, err
		case status.Code(err) == codes.Canceled:
			select {
			case <-moved:
				continue // given up: the session moved meanwhile
			default:
				return at, err
			}
		case !elsewhere(err):
			return at, err
		}
		if err := s.rideOver(ctx, err, try); err != nil {
			return at, err
		}
	}
}

// wrap is the package's wrap of err, an answer to a call of s, except
// that a node's NOT_FOUND (SESSION_EXPIRED) is ErrSessionExpired only
// once the session is lost by the client's own count (Done): until then
// the session may be alive at the node that adopted it (a node of an
// earlier version says SESSION_EXPIRED of every session it does not
// serve), and the call is ErrUnavailable, as one cut off by its node's
// loss is, while the session moves.
// (A Take cut short keeps its count: CutShortError.) A client that knows
// the session's node alone cannot move: a node that does not serve the
// session (SESSION_NOT_HERE) loses it at once, as the keep-alive would,
// and the call is ErrSessionExpired, as before that reason.
func (s *Session) wrap(err error) error {
	w := wrap(err)
	if len(s.c.conns) == 1 && notHere(err) {
		s.lost()
		return fmt.Errorf("%w: %s", ErrSessionExpired, status.Convert(err).Message())
	}
	if !errors.Is(w, ErrSessionExpired) {
		return w
	}
	select {
	case <-s.done:
		return w
	default:
	}
	s.mu.Lock()
	past := !time.Now().Before(s.until)
	s.mu.Unlock()
	if past {
		s.lost() // Done's timer is due
		return w
	}
	// The node's words ("session expired") are not repeated: they would
	// read as the session's end.
	moving := fmt.Errorf("%w: the node does not know the session, which is alive by this client's count: it moves to the node that serves it", ErrUnavailable)
	if cs, ok := w.(*CutShortError); ok {
		return &CutShortError{Taken: cs.Taken, Asked: cs.Asked, err: moving}
	}
	return moving
}

// Close ends the session and gives back everything it holds. When the
// session's node does not serve it (its backup adopted it, or is about
// to), Close ends it at the node that does: it may wait for the adoption,
// until ctx ends or the session's deadline passes.
func (s *Session) Close(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.stop) })
	s.deadline.Stop()
	defer s.lost()
	api, at, _ := s.node()
	_, err := api.CloseSession(ctx, &pb.CloseSessionRequest{Session: s.id})
	if err != nil && len(s.c.conns) > 1 && elsewhere(err) {
		err = s.closeElsewhere(ctx, at, err)
	}
	return wrap(err)
}

// closeElsewhere closes the session at the node that serves it now, when
// node at, the one the client knew, answered err: it does not serve the
// session, or it could not be reached. The session may be alive at the
// backup that adopted it (its node stopped serving: it left the view, or
// its lease ran out, or it was restarted) with every grant it held, and
// the keep-alives, stopped, will not move it there: closed nowhere, it
// would hold those grants until its deadline, every waiter on them
// behind it. (Seen when a follower cut from another was left out of the
// view: a locker whose Lock answered "not here" closed its session, the
// close went to the node it had left, and the adopted session held its
// lock for the rest of its TTL, the other lockers waiting on it.) So
// every node is asked, and asked again after a pause while one may still
// come to serve it: it keeps the session as its backup (SESSION_MOVING:
// it adopts it once the view moves on) or gave no answer (unreachable,
// too slow); until ctx ends or the session is past its deadline by the
// client's count (then it has ended anyway). It returns nil once a node
// closed it, err if none did.
func (s *Session) closeElsewhere(ctx context.Context, at int, err error) error {
	s.mu.Lock()
	until := s.until
	s.mu.Unlock()
	answers := make([]error, len(s.c.api))
	answers[at] = err
	for first := true; ; first = false {
		again := false
		for k, api := range s.c.api {
			if !first || k != at {
				cctx, cancel := context.WithTimeout(ctx, min(s.ttl, moveTry))
				_, answers[k] = api.CloseSession(cctx, &pb.CloseSessionRequest{Session: s.id})
				cancel()
				if answers[k] == nil {
					return nil
				}
			}
			again = again || !serves(answers[k])
		}
		if !again || !time.Now().Before(until) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(movePause):
		}
	}
}

// serves is false when a node's answer err to a call of a session says
// that it does not serve the session and will not come to: it handed it
// to its backup, or never had it (SESSION_NOT_HERE), or it ended there
// (NOT_FOUND). A backup that keeps it (SESSION_MOVING) may adopt it, and
// a node that did not answer may serve it.
func serves(err error) bool {
	st, ok := status.FromError(err)
	switch {
	case !ok:
		return true
	case st.Code() == codes.NotFound:
		return false
	}
	reason, _ := errorInfo(st)
	return reason != pb.ReasonSessionNotHere
}

// Orphan stops keeping the session alive without closing it, as a client
// that hangs or dies would: the lease expires after its TTL. For tests
// and demonstrations.
func (s *Session) Orphan() { s.stopOnce.Do(func() { close(s.stop) }) }

// Token fences one resource: a resource accepts a holder's write only if
// its token is at least the largest it has seen (Less orders tokens).
type Token struct {
	Epoch, Counter uint64
}

// Less orders tokens: by epoch, then by counter.
func (t Token) Less(u Token) bool {
	return t.Epoch < u.Epoch || t.Epoch == u.Epoch && t.Counter < u.Counter
}

func (t Token) String() string { return fmt.Sprintf("%d.%d", t.Epoch, t.Counter) }

// Grant is one Lock (or one semaphore unit) held by a session.
type Grant struct {
	s      *Session
	id     uint64
	tokens map[string]Token
	unit   int
}

// Token is the fencing token of resource r (the zero Token if the grant
// does not hold r).
func (g *Grant) Token(r string) Token { return g.tokens[r] }

// Done closes when the grant may be lost: its session's lease may have
// expired.
func (g *Grant) Done() <-chan struct{} { return g.s.done }

// Lock takes every resource of the set at once and returns when all are
// held (atomic, deadlock-free: no lock order to keep). It waits until
// ctx ends. A name given twice is one resource of the set, with one token.
// At most MaxLockNames names, each a good name (ErrBadName).
func (s *Session) Lock(ctx context.Context, resources ...string) (*Grant, error) {
	return s.lock(ctx, resources, false)
}

// TryLock is Lock that returns ErrLocked rather than wait behind another
// holder: it fails only once the lock algorithm has placed the request
// behind another session's (under modular-ordered, the default, and
// modular-central), and is granted otherwise, however long the grant
// takes to come. (Under central or ordered it waits a few milliseconds,
// the time a free set takes to be granted.)
func (s *Session) TryLock(ctx context.Context, resources ...string) (*Grant, error) {
	return s.lock(ctx, resources, true)
}

func (s *Session) lock(ctx context.Context, resources []string, try bool) (*Grant, error) {
	if len(resources) == 0 {
		return nil, ErrNoResources
	}
	if len(resources) > MaxLockNames {
		return nil, fmt.Errorf("%w: at most %d, got %d", ErrTooManyNames, MaxLockNames, len(resources))
	}
	for i, r := range resources {
		if err := checkName("resource "+strconv.Itoa(i), r, false); err != nil {
			return nil, err
		}
	}
	var answered []*pb.Token // the tokens of the Lock's answer
	call := s.calls.Add(1)
	h, err := s.obtain(ctx, &flight{names: resources}, func(ctx context.Context, api pb.AllotClient) (*pb.Holder, error) {
		r, err := api.Lock(ctx, &pb.LockRequest{Session: s.id, Resources: resources, TryLock: try, Call: call})
		if err != nil {
			return nil, err
		}
		answered = r.Tokens
		return &pb.Holder{Grant: r.Grant}, nil
	})
	if err != nil {
		return nil, err
	}
	g := &Grant{s: s, id: h.Grant, tokens: map[string]Token{}}
	for _, t := range answered {
		g.tokens[t.Resource] = Token{t.Epoch, t.Counter}
	}
	if h.Token != nil {
		// Found held after its call was cut off: one counter fences
		// every name of a grant, as the Lock's answer would have said.
		for _, name := range resources {
			g.tokens[name] = Token{h.Token.Epoch, h.Token.Counter}
		}
	}
	return g, nil
}

// Unlock gives the grant back. ErrNotHeld: it was given back already;
// the session goes on.
func (g *Grant) Unlock(ctx context.Context) error {
	return g.s.giveBack(ctx, g.id, func(ctx context.Context, api pb.AllotClient) error {
		_, err := api.Unlock(ctx, &pb.UnlockRequest{Session: g.s.id, Grant: g.id})
		return err
	})
}

// giveBack gives grant id back by f, safe to repeat on the session's
// next node. A try cut off by its node's loss may have given the grant
// back already, its give-back recorded at the backup before the answer
// was lost: the adopter then says it is not held, and the give-back is
// done (seen in TestKill9 as one Unlock in 1800 answering ErrNotHeld
// through the kill of the session's node).
func (s *Session) giveBack(ctx context.Context, id uint64, f func(context.Context, pb.AllotClient) error) error {
	tries := 0
	at, err := s.callAt(ctx, func(ctx context.Context, api pb.AllotClient) error {
		tries++
		return f(ctx, api)
	})
	if tries > 1 && errors.Is(s.wrap(err), ErrNotHeld) {
		err = nil
	}
	if err == nil {
		s.gave(id, at)
	}
	err = s.wrap(err)
	if err == nil || errors.Is(err, ErrNotHeld) {
		s.mu.Lock()
		delete(s.held, id)
		s.mu.Unlock()
	}
	return err
}

// Semaphore is a semaphore of units units, named name in the cluster.
type Semaphore struct {
	s     *Session
	name  string
	units int
	mu    sync.Mutex
	held  []*Grant
}

// Semaphore returns the semaphore name of units units; every user of a
// semaphore must give the same units: the cluster records a name's units
// at its first Acquire, and an Acquire with others is ErrMismatch. Acquire checks units (ErrBadUnits:
// not positive, or past 2^31 − 1) and
// the name (ErrBadName: '/' and '@' are not allowed, besides the
// limits of every name).
func (s *Session) Semaphore(name string, units int) *Semaphore {
	return &Semaphore{s: s, name: name, units: units}
}

// Acquire takes one unit, waiting until ctx ends.
func (m *Semaphore) Acquire(ctx context.Context) error {
	_, err := m.acquire(ctx, false)
	return err
}

// TryAcquire takes one unit or returns ErrLocked.
func (m *Semaphore) TryAcquire(ctx context.Context) error {
	_, err := m.acquire(ctx, true)
	return err
}

// AcquireUnit takes one unit and returns its grant: which unit it is
// (Unit) and its fencing token (Token(Name())).
func (m *Semaphore) AcquireUnit(ctx context.Context) (*Grant, error) {
	return m.acquire(ctx, false)
}

// Name is the semaphore's name.
func (m *Semaphore) Name() string { return m.name }

// Unit is the unit a semaphore grant holds, numbered within the cluster's
// view it was granted in: when the view changes (a node dies or comes
// back) the units are numbered afresh, and a holder keeps its grant while a
// new holder may get the same number as a unit of the new view. A unit is
// thus named by its number and its token's epoch together (the node's
// event log and the wire call it "sem/NAME/R/UNIT@EPOCH").
func (g *Grant) Unit() int { return g.unit }

func (m *Semaphore) acquire(ctx context.Context, try bool) (*Grant, error) {
	if m.units <= 0 || m.units > math.MaxInt32 {
		return nil, ErrBadUnits
	}
	if err := checkName("semaphore", m.name, true); err != nil {
		return nil, err
	}
	call := m.s.calls.Add(1)
	h, err := m.s.obtain(ctx, &flight{semaphore: m.name}, func(ctx context.Context, api pb.AllotClient) (*pb.Holder, error) {
		r, err := api.Acquire(ctx, &pb.AcquireRequest{Session: m.s.id, Name: m.name, Units: int32(m.units), TryAcquire: try, Call: call})
		if err != nil {
			return nil, err
		}
		return &pb.Holder{Grant: r.Grant, Unit: r.Unit, Token: r.Token}, nil
	})
	if err != nil {
		return nil, err
	}
	g := &Grant{s: m.s, id: h.Grant, unit: int(h.Unit), tokens: map[string]Token{m.name: {h.Token.GetEpoch(), h.Token.GetCounter()}}}
	m.mu.Lock()
	m.held = append(m.held, g)
	m.mu.Unlock()
	return g, nil
}

// Release gives back the unit this Semaphore value acquired last.
func (m *Semaphore) Release(ctx context.Context) error {
	m.mu.Lock()
	if len(m.held) == 0 {
		m.mu.Unlock()
		return fmt.Errorf("allot: release of semaphore %s without a unit held", m.name)
	}
	g := m.held[len(m.held)-1]
	m.held = m.held[:len(m.held)-1]
	m.mu.Unlock()
	return m.s.giveBack(ctx, g.id, func(ctx context.Context, api pb.AllotClient) error {
		_, err := api.Release(ctx, &pb.ReleaseRequest{Session: m.s.id, Grant: g.id})
		return err
	})
}

// Quota is a quota named name in the cluster.
type Quota struct {
	s    *Session
	name string
}

// Quota returns the quota name.
func (s *Session) Quota(name string) *Quota { return &Quota{s: s, name: name} }

// Take consumes n permits, one at a time. When the quota runs out before
// the n-th it returns an *ExhaustedError (errors.Is(err, ErrExhausted))
// saying how many it took: those are consumed, as every permit issued is
// (the quota's controller cannot take one back, so all-or-nothing is not
// possible). Cut off by the loss of the session's node, or its stopping
// to serve, it takes the rest where the session's node serves it again
// (failover.go; a view change alone does not cut it: the node takes the
// rest in the next view). Cut short otherwise after some permits (ctx
// ended, the session lost), it returns a *CutShortError with the count
// of every try.
// ErrInvalid for a
// quota the cluster does not declare, or n above its budget.
func (q *Quota) Take(ctx context.Context, n int) error {
	if n <= 0 {
		return ErrBadCount
	}
	if err := checkName("quota", q.name, false); err != nil {
		return err
	}
	return q.s.take(ctx, q.name, n)
}
