package service_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/internal/apiwire"
	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/service"
)

// nativeConn opens a native connection to addr: the preface, TLS with
// cfg (nil: none), the node's preface; the hello is the caller's to send.
func nativeConn(t testing.TB, addr string, cfg *tls.Config) (net.Conn, *apiwire.Conn) {
	t.Helper()
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(raw, apiwire.Preface); err != nil {
		t.Fatal(err)
	}
	c := raw
	if cfg != nil {
		tc := tls.Client(raw, cfg)
		if err := tc.Handshake(); err != nil {
			t.Fatal(err)
		}
		c = tc
	}
	w := apiwire.NewConn(c)
	return c, w
}

// nativeHello opens a native connection and sends a hello with token;
// it returns the node's answer to it (its error, nil: accepted) and the
// connection.
func nativeHello(t testing.TB, addr string, cfg *tls.Config, token string) (*pb.CallError, net.Conn, *apiwire.Conn, error) {
	t.Helper()
	c, w := nativeConn(t, addr, cfg)
	if err := w.Write(&pb.CallsHello{Token: token}); err != nil {
		return nil, c, w, err
	}
	if err := w.ReadPreface(); err != nil {
		return nil, c, w, err
	}
	var r pb.CallResult
	if err := w.Read(&r, 0); err != nil {
		return nil, c, w, err
	}
	if r.Id != 0 {
		t.Fatalf("the hello answered as call %d", r.Id)
	}
	return r.Error, c, w, nil
}

// nativeCalls is callsStream on the native protocol, accepted.
func nativeCalls(t testing.TB, addr string, cfg *tls.Config, token string) (send func(*pb.Call), recv func() *pb.CallResult) {
	t.Helper()
	refused, c, w, err := nativeHello(t, addr, cfg, token)
	if err != nil || refused != nil {
		t.Fatalf("native hello: %v, refused %v", err, refused)
	}
	c.SetDeadline(time.Time{})
	results := make(chan *pb.CallResult, 16)
	go func() {
		defer close(results)
		for {
			r := new(pb.CallResult)
			if err := w.Read(r, 0); err != nil {
				return
			}
			results <- r
		}
	}()
	send = func(m *pb.Call) {
		t.Helper()
		if err := w.Write(m); err != nil {
			t.Fatalf("send %v: %v", m, err)
		}
	}
	recv = func() *pb.CallResult {
		t.Helper()
		select {
		case r, ok := <-results:
			if !ok {
				t.Fatal("the connection ended")
			}
			return r
		case <-time.After(5 * time.Second):
			t.Fatal("no result in 5 s")
			return nil
		}
	}
	return send, recv
}

// closed says whether the node closes c within 5 s (after what it sends
// first, which is read and dropped).
func closed(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.Copy(io.Discard, c)
	return err == nil || errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "reset")
}

// refusal reads the node's refusal of a connection: the result after
// what the test sent, and whether the connection was then closed.
func refusal(t *testing.T, c net.Conn, w *apiwire.Conn) (*pb.CallResult, bool) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := new(pb.CallResult)
	if err := w.Read(r, 0); err != nil {
		t.Fatalf("no refusal: %v", err)
	}
	return r, closed(c)
}

// unharmed: the node still serves a Lock and an Unlock on a native
// connection and on gRPC.
func unharmed(t *testing.T, api pb.AllotClient, addr string, cfg *tls.Config, token string) {
	t.Helper()
	sid := openSession(t, api)
	send, recv := nativeCalls(t, addr, cfg, token)
	send(&pb.Call{Id: 1, Request: &pb.Call_Lock{Lock: &pb.LockRequest{Session: sid, Resources: []string{"u"}}}})
	r := recv()
	if code(r) != codes.OK {
		t.Fatalf("Lock after the refusal: %v", r)
	}
	send(&pb.Call{Id: 2, Request: &pb.Call_Unlock{Unlock: &pb.UnlockRequest{Session: sid, Grant: r.GetLock().Grant}}})
	if r := recv(); code(r) != codes.OK {
		t.Fatalf("Unlock after the refusal: %v", r)
	}
	if api == nil {
		return
	}
	if _, err := api.KeepAlive(context.Background(), &pb.KeepAliveRequest{Session: sid}); err != nil {
		t.Fatalf("gRPC after the refusal: %v", err)
	}
}

// frame is a frame of the protocol: m's bytes behind their length.
func frame(m proto.Message) []byte {
	b, _ := proto.Marshal(m)
	return append(binary.AppendUvarint(nil, uint64(len(b))), b...)
}

// TestNativeBadInput: what breaks the native protocol is refused with a
// status that says why, the connection closed, and the node goes on
// serving others (run it under the race detector).
func TestNativeBadInput(t *testing.T) {
	api, _, addr := apiNodeAt(t, nil)
	lock := &pb.Call{Id: 1, Request: &pb.Call_Lock{Lock: &pb.LockRequest{Session: 1, Resources: []string{"x"}}}}
	cases := []struct {
		name string
		// hello: the bytes sent after the preface in place of the hello;
		// after: sent after an accepted hello (when hello is nil).
		hello, after []byte
		code         codes.Code // the refusal's (OK: none is sent, the connection is just closed)
		says         string
	}{
		{name: "call before the hello", hello: frame(lock), code: codes.FailedPrecondition, says: "before the hello"},
		{name: "hello oversized", hello: binary.AppendUvarint(nil, apiwire.MaxHello+1), code: codes.ResourceExhausted, says: "over the limit"},
		{name: "hello not a message", hello: append(binary.AppendUvarint(nil, 3), 0xff, 0xff, 0xff), code: codes.InvalidArgument, says: "not a message"},
		{name: "hello truncated", hello: append(binary.AppendUvarint(nil, 100), "short"...)},
		{name: "frame oversized", after: binary.AppendUvarint(nil, apiwire.MaxFrame+1), code: codes.ResourceExhausted, says: "over the limit"},
		{name: "frame truncated", after: append(binary.AppendUvarint(nil, 100), "short"...)},
		{name: "frame not a call", after: append(binary.AppendUvarint(nil, 3), 0xff, 0xff, 0xff), code: codes.InvalidArgument, says: "not a message"},
		{name: "unknown method", after: frame(&pb.Call{Id: 5}), code: codes.Unimplemented, says: "no method"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, w := nativeConn(t, addr, nil)
			if tc.hello != nil {
				c.Write(tc.hello)
				if err := w.ReadPreface(); err != nil {
					t.Fatal(err)
				}
			} else {
				refused, cc, ww, err := nativeHello(t, addr, nil, "")
				if err != nil || refused != nil {
					t.Fatalf("hello: %v %v", err, refused)
				}
				c, w = cc, ww
				c.Write(tc.after)
			}
			if tc.code == codes.OK {
				// Truncated: the rest never comes; the caller's end of
				// writing is the frame's end.
				c.(*net.TCPConn).CloseWrite()
				if !closed(c) {
					t.Error("the connection was not closed")
				}
			} else {
				r, done := refusal(t, c, w)
				if code(r) != tc.code || !strings.Contains(r.Error.GetMessage(), tc.says) {
					t.Errorf("refused with %v, want %v saying %q", r, tc.code, tc.says)
				}
				if !done {
					t.Error("the connection was not closed after the refusal")
				}
			}
			unharmed(t, api, addr, nil, "")
		})
	}

	t.Run("wrong preface", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "allot-api/9\n")
		c.Write(frame(&pb.CallsHello{}))
		if !closed(c) {
			t.Error("a connection of another version of the protocol was not closed")
		}
		unharmed(t, api, addr, nil, "")
	})
}

// TestNativeCallsPipelined: calls sent at once on one connection, of two
// sessions, are each answered by its id.
func TestNativeCallsPipelined(t *testing.T) {
	api, _, addr := apiNodeAt(t, nil)
	a, b := openSession(t, api), openSession(t, api)
	send, recv := nativeCalls(t, addr, nil, "")
	var wg sync.WaitGroup
	for i := range uint64(40) {
		wg.Go(func() {
			sid := a
			if i%2 == 1 {
				sid = b
			}
			send(&pb.Call{Id: i + 1, Request: &pb.Call_Acquire{Acquire: &pb.AcquireRequest{Session: sid, Name: "p", Units: 64}}})
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for range 40 {
		r := recv()
		if code(r) != codes.OK || seen[r.Id] {
			t.Fatalf("result %v (seen before: %v)", r, seen[r.Id])
		}
		seen[r.Id] = true
	}
}

// secureNode starts a one-node secure cluster (mTLS, and the token
// "native-test-token-1") logging on log, and returns its address, a gRPC
// client of it with a client certificate and the token, and client TLS
// configurations: with a client certificate, and without one.
func secureNode(t *testing.T, log *syncLog) (string, pb.AllotClient, *tls.Config, *tls.Config) {
	t.Helper()
	now := time.Now()
	ca, err := mtls.NewCA("test CA", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	issue := func(s mtls.Spec) *mtls.Identity {
		s.NotBefore, s.NotAfter = now.Add(-time.Hour), now.Add(time.Hour)
		cert, key, err := ca.Issue(s)
		if err != nil {
			t.Fatal(err)
		}
		id, err := mtls.Parse(ca.PEM(), cert, key, now)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	nodeID := issue(mtls.Spec{Name: "node", Hosts: []string{"127.0.0.1"}, Node: true})
	clientID := issue(mtls.Spec{Name: "client"})
	tokens, err := service.ReadTokens(writeFile(t, "tokens", "tests native-test-token-1\n"))
	if err != nil {
		t.Fatal(err)
	}
	srvOpts, dialOpts := service.Secure(nodeID, tokens, slog.New(slog.NewTextHandler(log, nil)))
	_, _, addr := apiNodeAt(t, func(c *service.Config) {
		c.DialOptions, c.ServerOptions, c.Identity = dialOpts, srvOpts, nodeID
	})
	withCert := clientID.ClientConfig()
	withCert.ServerName = "127.0.0.1"
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.PEM())
	without := &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS13}
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(mtls.NewCredentials(withCert)),
		grpc.WithPerRPCCredentials(bearer("native-test-token-1")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return addr, pb.NewAllotClient(cc), withCert, without
}

// bearer sends a token as the Go client does.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (b bearer) RequireTransportSecurity() bool { return true }

// syncLog is a log buffer written by the node and read by the test.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNativeSecure: in a secure cluster a native connection needs a
// client certificate (the TLS handshake fails without one) and a token
// (UNAUTHENTICATED without one, or with one the node does not know), as
// gRPC calls do, and each refusal is logged; with both, calls are
// served.
func TestNativeSecure(t *testing.T) {
	log := &syncLog{}
	addr, api, withCert, without := secureNode(t, log)

	t.Run("no certificate", func(t *testing.T) {
		raw, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		raw.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(raw, apiwire.Preface)
		tc := tls.Client(raw, without)
		err = tc.Handshake()
		if err == nil {
			// TLS 1.3: the client's handshake ends before the server
			// has checked its certificate; the refusal comes next.
			w := apiwire.NewConn(tc)
			w.Write(&pb.CallsHello{Token: "native-test-token-1"})
			err = w.ReadPreface()
		}
		if err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("a native connection without a client certificate: %v, want a TLS error naming the certificate", err)
		}
		unharmed(t, api, addr, withCert, "native-test-token-1")
	})
	for _, tc := range []struct{ name, token, says string }{
		{"no token", "", "no client token"},
		{"unknown token", "not-a-token-of-this-cluster", "unknown client token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refused, c, _, err := nativeHello(t, addr, withCert, tc.token)
			if err != nil {
				t.Fatal(err)
			}
			if codes.Code(refused.GetCode()) != codes.Unauthenticated || !strings.Contains(refused.GetMessage(), tc.says) {
				t.Errorf("hello with %q: refused with %v, want UNAUTHENTICATED %q", tc.token, refused, tc.says)
			}
			if !closed(c) {
				t.Error("the connection was not closed after the refusal")
			}
			unharmed(t, api, addr, withCert, "native-test-token-1")
		})
	}
	for _, want := range []string{"refused a TLS handshake", "no client token", "unknown client token"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the node's log does not say %q:\n%s", want, log.String())
		}
	}
}

// writeFile writes s to a file name in a temporary directory and returns
// its path.
func writeFile(t *testing.T, name, s string) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// BenchmarkCallRoundTrip: one call there and back on an open stream,
// with nothing behind it at the node (an Unlock of a grant not held), on
// the gRPC Calls stream and on the native protocol; cpu-µs/op is the
// process's CPU, the caller's and the node's together.
func BenchmarkCallRoundTrip(b *testing.B) {
	for _, native := range []bool{false, true} {
		b.Run(map[bool]string{false: "grpc", true: "native"}[native], func(b *testing.B) {
			api, _, addr := apiNodeAt(b, nil)
			sid := openSession(b, api)
			send, recv := callsStream(b, api)
			if native {
				send, recv = nativeCalls(b, addr, nil, "")
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU()
			for i := range uint64(b.N) {
				send(&pb.Call{Id: i + 1, Request: &pb.Call_Unlock{Unlock: &pb.UnlockRequest{Session: sid, Grant: 1}}})
				if r := recv(); code(r) != codes.NotFound {
					b.Fatalf("Unlock of no grant: %v", r)
				}
			}
			// Both sides' CPU: the caller's and the node's, one process.
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
