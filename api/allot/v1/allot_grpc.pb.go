// The public API of an allot node (allot serve), and the link between nodes.
//
// A client opens a session with a TTL and keeps it alive; every lock,
// semaphore unit and quota permit is taken inside a session and is lost with
// it. A grant carries one fencing token per resource: the resource (a store,
// a file, a device) protects itself by refusing any token smaller than the
// largest it has seen, because a lease gives eventual exclusion at best.
//
// Errors are gRPC status codes; where one code means more than one thing,
// the status details carry a google.rpc.ErrorInfo of domain "allot.dev"
// whose reason tells them apart (a client that reads only codes keeps
// their first meaning):
//
//	INVALID_ARGUMENT    bad input (BAD_INPUT, metadata "field"): a name empty,
//	                    over 256 bytes or with NUL, '/' or '@' in a semaphore
//	                    name, no resources or more than 128, units below 1,
//	                    n outside 1..the quota's budget,
//	                    TTL outside 1ms..24h, an undeclared quota
//	NOT_FOUND           the session ended: expired or closed, said only
//	                    by a node that knows it (SESSION_EXPIRED); or, in a
//	                    live session, the grant is not held: given back
//	                    already (NOT_HELD)
//	FAILED_PRECONDITION TryLock / TryAcquire found the resources taken
//	                    (TAKEN); or the semaphore has other units in the
//	                    cluster (UNITS_MISMATCH, metadata "units")
//	RESOURCE_EXHAUSTED  Take: the quota is exhausted (QUOTA_EXHAUSTED,
//	                    metadata "taken" and "asked": the permits taken are
//	                    consumed); or a limit of the node was reached
//	                    (NODE_LIMIT, metadata "limit": sessions, semaphores)
//	UNAVAILABLE         the node shuts down, or is not serving, or no
//	                    algorithm serves the kind; a Take cut short after some
//	                    permits says how many (TAKE_CUT_SHORT); or the node
//	                    keeps the session as its backup and another node
//	                    serves it (SESSION_MOVING, metadata "lease_ms",
//	                    "kept_ms", "node_addr": the node serving it, as far
//	                    as known); or the node does not serve the session
//	                    and cannot tell that it ended (SESSION_NOT_HERE)
//
// Which node serves a session. A session is served by one node at a time:
// the node that opened it, until that node is lost (killed, or cut off past
// its lease); then by the node that adopts it, the next member after it in
// the cluster's view, which kept a copy of the session and its grants (each
// grant is recorded there before it is answered). The adopted session keeps
// its id, its grants and their tokens, and its deadline: it ends at most
// ttl_ms and the nodes' lease (their --suspect) after the last keep-alive
// its node received, however many nodes adopt it in turn. A session's
// calls go to its node; another node answers them UNAVAILABLE, with reason
// SESSION_MOVING and metadata "lease_ms" and "kept_ms" if it is the
// session's backup, else SESSION_NOT_HERE (it does not serve the session
// and cannot tell that it ended: the session may be alive elsewhere).
// NOT_FOUND with SESSION_EXPIRED comes only from the node the session
// ended at (a node of an earlier version says it of every session it
// does not serve: a client counts its session lost only by its own count,
// below). A client
// whose node does not answer (UNAVAILABLE, connection refused, a
// keep-alive past its deadline) moves the session: it sends KeepAlive with
// the same session id to each node of the cluster in turn, its old node
// included, until one answers OK — that node serves the session from then
// on. Meanwhile the client counts the session alive until
// min(ttl, lease_ms) after the last keep-alive that succeeded; a
// SESSION_MOVING answer sent at time t moves that on to min(t + lease_ms,
// t + kept_ms if given, the last successful keep-alive + ttl), and never
// back. A keep-alive answered OK with a lease_ms under the ttl and under
// half the longest lease_ms answered says the node's lease is lapsing
// (it is cut off, and answers until its lease is out): the client then
// sends KeepAlive to the other nodes too, before its count runs out, and
// takes the backup's SESSION_MOVING answer as above. When that
// time passes with no
// node answering OK, the session is lost (its node and its backup were
// both lost). A Lock, Acquire or Take cut off by its node's loss is not
// answered and may be held by the session until it ends: do not repeat it
// blindly — ask the new node first (Holders with the session's id) for a
// grant of the session on those names that was never answered: it is the
// cut-off call's. Unlock, Release and CloseSession are safe to repeat on
// the new node (NOT_HELD: it was given back). An Unlock or a Release is answered
// before the backup has the give-back (a Lock or Acquire answered later
// by the same node says it has): a node lost in between leaves the grant
// held by the adopted session, so a client gives back again, on the node
// the session moves to, what it gave back since (NOT_HELD: it was not
// needed), or the grant goes with the session's end. A one-node cluster
// has no backup.

// Code generated by protoc-gen-go-grpc. DO NOT EDIT.
// versions:
// - protoc-gen-go-grpc v1.6.0
// - protoc             v3.21.12
// source: allot/v1/allot.proto

package allotv1

import (
	context "context"
	grpc "google.golang.org/grpc"
	codes "google.golang.org/grpc/codes"
	status "google.golang.org/grpc/status"
)

// This is a compile-time assertion to ensure that this generated file
// is compatible with the grpc package it is being compiled against.
// Requires gRPC-Go v1.64.0 or later.
const _ = grpc.SupportPackageIsVersion9

const (
	Allot_OpenSession_FullMethodName  = "/allot.v1.Allot/OpenSession"
	Allot_KeepAlive_FullMethodName    = "/allot.v1.Allot/KeepAlive"
	Allot_CloseSession_FullMethodName = "/allot.v1.Allot/CloseSession"
	Allot_Lock_FullMethodName         = "/allot.v1.Allot/Lock"
	Allot_Unlock_FullMethodName       = "/allot.v1.Allot/Unlock"
	Allot_Acquire_FullMethodName      = "/allot.v1.Allot/Acquire"
	Allot_Release_FullMethodName      = "/allot.v1.Allot/Release"
	Allot_Take_FullMethodName         = "/allot.v1.Allot/Take"
	Allot_Locate_FullMethodName       = "/allot.v1.Allot/Locate"
	Allot_Calls_FullMethodName        = "/allot.v1.Allot/Calls"
	Allot_Holders_FullMethodName      = "/allot.v1.Allot/Holders"
)

// AllotClient is the client API for Allot service.
//
// For semantics around ctx use and closing/ending streaming RPCs, please refer to https://pkg.go.dev/google.golang.org/grpc/?tab=doc#ClientConn.NewStream.
//
// Allot is what clients call, on any node of the cluster; a session's
// calls on the node that serves it (see above).
type AllotClient interface {
	// OpenSession starts a session whose lease lasts ttl_ms after the last
	// keep-alive the node received.
	OpenSession(ctx context.Context, in *OpenSessionRequest, opts ...grpc.CallOption) (*OpenSessionResponse, error)
	// KeepAlive renews the lease. NOT_FOUND: the lease has expired (or, from
	// a node of an earlier version, this node does not know the session);
	// UNAVAILABLE with SESSION_MOVING: this node is the session's backup,
	// and the session is alive elsewhere; with SESSION_NOT_HERE: this node
	// does not serve the session, which may be alive elsewhere (see "Which
	// node serves a session" above).
	KeepAlive(ctx context.Context, in *KeepAliveRequest, opts ...grpc.CallOption) (*KeepAliveResponse, error)
	// CloseSession releases everything the session holds and ends it.
	CloseSession(ctx context.Context, in *CloseSessionRequest, opts ...grpc.CallOption) (*CloseSessionResponse, error)
	// Lock takes every named resource at once (atomic, deadlock-free) and
	// returns when they are all held, or at once with FAILED_PRECONDITION
	// when try_lock is set and one of them is taken.
	Lock(ctx context.Context, in *LockRequest, opts ...grpc.CallOption) (*LockResponse, error)
	// Unlock releases a grant of Lock. NOT_FOUND with reason NOT_HELD: it
	// was released already (the session lives on).
	Unlock(ctx context.Context, in *UnlockRequest, opts ...grpc.CallOption) (*UnlockResponse, error)
	// Acquire takes one unit of the semaphore name of size units. A name's
	// units are those of its first use in the cluster: others are
	// FAILED_PRECONDITION (UNITS_MISMATCH).
	Acquire(ctx context.Context, in *AcquireRequest, opts ...grpc.CallOption) (*AcquireResponse, error)
	// Release gives a unit taken with Acquire back.
	Release(ctx context.Context, in *ReleaseRequest, opts ...grpc.CallOption) (*ReleaseResponse, error)
	// Take consumes n permits of the quota name (never released), one at a
	// time: ended early, the status says how many were taken (consumed).
	Take(ctx context.Context, in *TakeRequest, opts ...grpc.CallOption) (*TakeResponse, error)
	// Locate names the node where a lock of name alone is served with no
	// message between nodes: the name's home in the cluster's view (its
	// resource manager lives there). A session that locks mostly one name
	// is served fastest by that node: open it there. The home moves when
	// the view's members change; a session stays where it was opened.
	// INVALID_ARGUMENT: a bad name; UNAVAILABLE: the node is in no view.
	Locate(ctx context.Context, in *LocateRequest, opts ...grpc.CallOption) (*LocateResponse, error)
	// Calls carries Lock, Unlock, Acquire and Release calls, of any of the
	// caller's sessions on this node, over one stream: each Call is
	// answered by one CallResult with its id, in any order (a Lock that
	// waits holds up no other call). A call means what the unary call of
	// the same request means and fails as it would, its status in the
	// result; the stream spares each call a stream of its own (HTTP/2
	// headers, a handler goroutine), which is most of a short call's cost.
	// A stream that breaks leaves its open calls as a connection lost
	// under unary calls does: unanswered, perhaps done. Nodes of an
	// earlier version answer UNIMPLEMENTED: use the unary calls.
	//
	// The same Calls are also served without gRPC, on the node's one port:
	// a TCP connection that begins with "allot-api/1\n" (then TLS in a
	// secure cluster), then frames, each a length (an unsigned varint, 1
	// to 4 MiB) and that many bytes of one message: first a CallsHello from
	// the caller, answered by a CallResult of id 0 (no error: accepted; an
	// error: refused, and the connection closed), then Calls one way and
	// CallResults the other, as on this stream. A node of an earlier
	// version closes such a connection. docs/service.md ("What crosses the
	// wire") has the rest.
	Calls(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[Call, CallResult], error)
	// Holders lists who holds name now among the sessions this node
	// serves: a lock's name, or a semaphore's (semaphore set; the two are
	// apart, as Lock and Acquire keep them), each grant with its session,
	// its token and since when this node serves it. Each node answers for
	// its own sessions: the cluster's holders are the union of every
	// node's answers (the Go client's Holders and allot holders ask every
	// node). A grant given back, or not answered yet, is not listed.
	// INVALID_ARGUMENT: a bad name (BAD_INPUT, field "name"). Nodes of an
	// earlier version answer UNIMPLEMENTED.
	Holders(ctx context.Context, in *HoldersRequest, opts ...grpc.CallOption) (*HoldersResponse, error)
}

type allotClient struct {
	cc grpc.ClientConnInterface
}

func NewAllotClient(cc grpc.ClientConnInterface) AllotClient {
	return &allotClient{cc}
}

func (c *allotClient) OpenSession(ctx context.Context, in *OpenSessionRequest, opts ...grpc.CallOption) (*OpenSessionResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(OpenSessionResponse)
	err := c.cc.Invoke(ctx, Allot_OpenSession_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) KeepAlive(ctx context.Context, in *KeepAliveRequest, opts ...grpc.CallOption) (*KeepAliveResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(KeepAliveResponse)
	err := c.cc.Invoke(ctx, Allot_KeepAlive_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) CloseSession(ctx context.Context, in *CloseSessionRequest, opts ...grpc.CallOption) (*CloseSessionResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(CloseSessionResponse)
	err := c.cc.Invoke(ctx, Allot_CloseSession_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) Lock(ctx context.Context, in *LockRequest, opts ...grpc.CallOption) (*LockResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(LockResponse)
	err := c.cc.Invoke(ctx, Allot_Lock_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) Unlock(ctx context.Context, in *UnlockRequest, opts ...grpc.CallOption) (*UnlockResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(UnlockResponse)
	err := c.cc.Invoke(ctx, Allot_Unlock_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) Acquire(ctx context.Context, in *AcquireRequest, opts ...grpc.CallOption) (*AcquireResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(AcquireResponse)
	err := c.cc.Invoke(ctx, Allot_Acquire_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) Release(ctx context.Context, in *ReleaseRequest, opts ...grpc.CallOption) (*ReleaseResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ReleaseResponse)
	err := c.cc.Invoke(ctx, Allot_Release_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) Take(ctx context.Context, in *TakeRequest, opts ...grpc.CallOption) (*TakeResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(TakeResponse)
	err := c.cc.Invoke(ctx, Allot_Take_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) Locate(ctx context.Context, in *LocateRequest, opts ...grpc.CallOption) (*LocateResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(LocateResponse)
	err := c.cc.Invoke(ctx, Allot_Locate_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *allotClient) Calls(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[Call, CallResult], error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	stream, err := c.cc.NewStream(ctx, &Allot_ServiceDesc.Streams[0], Allot_Calls_FullMethodName, cOpts...)
	if err != nil {
		return nil, err
	}
	x := &grpc.GenericClientStream[Call, CallResult]{ClientStream: stream}
	return x, nil
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type Allot_CallsClient = grpc.BidiStreamingClient[Call, CallResult]

func (c *allotClient) Holders(ctx context.Context, in *HoldersRequest, opts ...grpc.CallOption) (*HoldersResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(HoldersResponse)
	err := c.cc.Invoke(ctx, Allot_Holders_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AllotServer is the server API for Allot service.
// All implementations must embed UnimplementedAllotServer
// for forward compatibility.
//
// Allot is what clients call, on any node of the cluster; a session's
// calls on the node that serves it (see above).
type AllotServer interface {
	// OpenSession starts a session whose lease lasts ttl_ms after the last
	// keep-alive the node received.
	OpenSession(context.Context, *OpenSessionRequest) (*OpenSessionResponse, error)
	// KeepAlive renews the lease. NOT_FOUND: the lease has expired (or, from
	// a node of an earlier version, this node does not know the session);
	// UNAVAILABLE with SESSION_MOVING: this node is the session's backup,
	// and the session is alive elsewhere; with SESSION_NOT_HERE: this node
	// does not serve the session, which may be alive elsewhere (see "Which
	// node serves a session" above).
	KeepAlive(context.Context, *KeepAliveRequest) (*KeepAliveResponse, error)
	// CloseSession releases everything the session holds and ends it.
	CloseSession(context.Context, *CloseSessionRequest) (*CloseSessionResponse, error)
	// Lock takes every named resource at once (atomic, deadlock-free) and
	// returns when they are all held, or at once with FAILED_PRECONDITION
	// when try_lock is set and one of them is taken.
	Lock(context.Context, *LockRequest) (*LockResponse, error)
	// Unlock releases a grant of Lock. NOT_FOUND with reason NOT_HELD: it
	// was released already (the session lives on).
	Unlock(context.Context, *UnlockRequest) (*UnlockResponse, error)
	// Acquire takes one unit of the semaphore name of size units. A name's
	// units are those of its first use in the cluster: others are
	// FAILED_PRECONDITION (UNITS_MISMATCH).
	Acquire(context.Context, *AcquireRequest) (*AcquireResponse, error)
	// Release gives a unit taken with Acquire back.
	Release(context.Context, *ReleaseRequest) (*ReleaseResponse, error)
	// Take consumes n permits of the quota name (never released), one at a
	// time: ended early, the status says how many were taken (consumed).
	Take(context.Context, *TakeRequest) (*TakeResponse, error)
	// Locate names the node where a lock of name alone is served with no
	// message between nodes: the name's home in the cluster's view (its
	// resource manager lives there). A session that locks mostly one name
	// is served fastest by that node: open it there. The home moves when
	// the view's members change; a session stays where it was opened.
	// INVALID_ARGUMENT: a bad name; UNAVAILABLE: the node is in no view.
	Locate(context.Context, *LocateRequest) (*LocateResponse, error)
	// Calls carries Lock, Unlock, Acquire and Release calls, of any of the
	// caller's sessions on this node, over one stream: each Call is
	// answered by one CallResult with its id, in any order (a Lock that
	// waits holds up no other call). A call means what the unary call of
	// the same request means and fails as it would, its status in the
	// result; the stream spares each call a stream of its own (HTTP/2
	// headers, a handler goroutine), which is most of a short call's cost.
	// A stream that breaks leaves its open calls as a connection lost
	// under unary calls does: unanswered, perhaps done. Nodes of an
	// earlier version answer UNIMPLEMENTED: use the unary calls.
	//
	// The same Calls are also served without gRPC, on the node's one port:
	// a TCP connection that begins with "allot-api/1\n" (then TLS in a
	// secure cluster), then frames, each a length (an unsigned varint, 1
	// to 4 MiB) and that many bytes of one message: first a CallsHello from
	// the caller, answered by a CallResult of id 0 (no error: accepted; an
	// error: refused, and the connection closed), then Calls one way and
	// CallResults the other, as on this stream. A node of an earlier
	// version closes such a connection. docs/service.md ("What crosses the
	// wire") has the rest.
	Calls(grpc.BidiStreamingServer[Call, CallResult]) error
	// Holders lists who holds name now among the sessions this node
	// serves: a lock's name, or a semaphore's (semaphore set; the two are
	// apart, as Lock and Acquire keep them), each grant with its session,
	// its token and since when this node serves it. Each node answers for
	// its own sessions: the cluster's holders are the union of every
	// node's answers (the Go client's Holders and allot holders ask every
	// node). A grant given back, or not answered yet, is not listed.
	// INVALID_ARGUMENT: a bad name (BAD_INPUT, field "name"). Nodes of an
	// earlier version answer UNIMPLEMENTED.
	Holders(context.Context, *HoldersRequest) (*HoldersResponse, error)
	mustEmbedUnimplementedAllotServer()
}

// UnimplementedAllotServer must be embedded to have
// forward compatible implementations.
//
// NOTE: this should be embedded by value instead of pointer to avoid a nil
// pointer dereference when methods are called.
type UnimplementedAllotServer struct{}

func (UnimplementedAllotServer) OpenSession(context.Context, *OpenSessionRequest) (*OpenSessionResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method OpenSession not implemented")
}
func (UnimplementedAllotServer) KeepAlive(context.Context, *KeepAliveRequest) (*KeepAliveResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method KeepAlive not implemented")
}
func (UnimplementedAllotServer) CloseSession(context.Context, *CloseSessionRequest) (*CloseSessionResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method CloseSession not implemented")
}
func (UnimplementedAllotServer) Lock(context.Context, *LockRequest) (*LockResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Lock not implemented")
}
func (UnimplementedAllotServer) Unlock(context.Context, *UnlockRequest) (*UnlockResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Unlock not implemented")
}
func (UnimplementedAllotServer) Acquire(context.Context, *AcquireRequest) (*AcquireResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Acquire not implemented")
}
func (UnimplementedAllotServer) Release(context.Context, *ReleaseRequest) (*ReleaseResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Release not implemented")
}
func (UnimplementedAllotServer) Take(context.Context, *TakeRequest) (*TakeResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Take not implemented")
}
func (UnimplementedAllotServer) Locate(context.Context, *LocateRequest) (*LocateResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Locate not implemented")
}
func (UnimplementedAllotServer) Calls(grpc.BidiStreamingServer[Call, CallResult]) error {
	return status.Error(codes.Unimplemented, "method Calls not implemented")
}
func (UnimplementedAllotServer) Holders(context.Context, *HoldersRequest) (*HoldersResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Holders not implemented")
}
func (UnimplementedAllotServer) mustEmbedUnimplementedAllotServer() {}
func (UnimplementedAllotServer) testEmbeddedByValue()               {}

// UnsafeAllotServer may be embedded to opt out of forward compatibility for this service.
// Use of this interface is not recommended, as added methods to AllotServer will
// result in compilation errors.
type UnsafeAllotServer interface {
	mustEmbedUnimplementedAllotServer()
}

func RegisterAllotServer(s grpc.ServiceRegistrar, srv AllotServer) {
	// If the following call panics, it indicates UnimplementedAllotServer was
	// embedded by pointer and is nil.  This will cause panics if an
	// unimplemented method is ever invoked, so we test this at initialization
	// time to prevent it from happening at runtime later due to I/O.
	if t, ok := srv.(interface{ testEmbeddedByValue() }); ok {
		t.testEmbeddedByValue()
	}
	s.RegisterService(&Allot_ServiceDesc, srv)
}

func _Allot_OpenSession_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(OpenSessionRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).OpenSession(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_OpenSession_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).OpenSession(ctx, req.(*OpenSessionRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_KeepAlive_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(KeepAliveRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).KeepAlive(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_KeepAlive_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).KeepAlive(ctx, req.(*KeepAliveRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_CloseSession_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(CloseSessionRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).CloseSession(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_CloseSession_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).CloseSession(ctx, req.(*CloseSessionRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_Lock_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(LockRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).Lock(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_Lock_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).Lock(ctx, req.(*LockRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_Unlock_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(UnlockRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).Unlock(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_Unlock_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).Unlock(ctx, req.(*UnlockRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_Acquire_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(AcquireRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).Acquire(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_Acquire_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).Acquire(ctx, req.(*AcquireRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_Release_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ReleaseRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).Release(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_Release_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).Release(ctx, req.(*ReleaseRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_Take_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(TakeRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).Take(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_Take_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).Take(ctx, req.(*TakeRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_Locate_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(LocateRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).Locate(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_Locate_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).Locate(ctx, req.(*LocateRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Allot_Calls_Handler(srv interface{}, stream grpc.ServerStream) error {
	return srv.(AllotServer).Calls(&grpc.GenericServerStream[Call, CallResult]{ServerStream: stream})
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type Allot_CallsServer = grpc.BidiStreamingServer[Call, CallResult]

func _Allot_Holders_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(HoldersRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AllotServer).Holders(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Allot_Holders_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AllotServer).Holders(ctx, req.(*HoldersRequest))
	}
	return interceptor(ctx, in, info, handler)
}

// Allot_ServiceDesc is the grpc.ServiceDesc for Allot service.
// It's only intended for direct use with grpc.RegisterService,
// and not to be introspected or modified (even as a copy)
var Allot_ServiceDesc = grpc.ServiceDesc{
	ServiceName: "allot.v1.Allot",
	HandlerType: (*AllotServer)(nil),
	Methods: []grpc.MethodDesc{
		{
			MethodName: "OpenSession",
			Handler:    _Allot_OpenSession_Handler,
		},
		{
			MethodName: "KeepAlive",
			Handler:    _Allot_KeepAlive_Handler,
		},
		{
			MethodName: "CloseSession",
			Handler:    _Allot_CloseSession_Handler,
		},
		{
			MethodName: "Lock",
			Handler:    _Allot_Lock_Handler,
		},
		{
			MethodName: "Unlock",
			Handler:    _Allot_Unlock_Handler,
		},
		{
			MethodName: "Acquire",
			Handler:    _Allot_Acquire_Handler,
		},
		{
			MethodName: "Release",
			Handler:    _Allot_Release_Handler,
		},
		{
			MethodName: "Take",
			Handler:    _Allot_Take_Handler,
		},
		{
			MethodName: "Locate",
			Handler:    _Allot_Locate_Handler,
		},
		{
			MethodName: "Holders",
			Handler:    _Allot_Holders_Handler,
		},
	},
	Streams: []grpc.StreamDesc{
		{
			StreamName:    "Calls",
			Handler:       _Allot_Calls_Handler,
			ServerStreams: true,
			ClientStreams: true,
		},
	},
	Metadata: "allot/v1/allot.proto",
}

const (
	Admin_ListMembers_FullMethodName  = "/allot.v1.Admin/ListMembers"
	Admin_AddMember_FullMethodName    = "/allot.v1.Admin/AddMember"
	Admin_RemoveMember_FullMethodName = "/allot.v1.Admin/RemoveMember"
)

// AdminClient is the client API for Admin service.
//
// For semantics around ctx use and closing/ending streaming RPCs, please refer to https://pkg.go.dev/google.golang.org/grpc/?tab=doc#ClientConn.NewStream.
//
// Admin is the cluster's membership (allot member): the nodes of the
// control plane's Raft configuration, listed, added and removed while the
// cluster runs. Any node answers; a change goes to the leader (the node
// asked forwards it). In a secure cluster only a node certificate may
// call it, as every service but Allot.
//
// Errors:
//
//	INVALID_ARGUMENT    AddMember: the address is not host:port
//	ALREADY_EXISTS      AddMember: the address is a member's
//	NOT_FOUND           RemoveMember: the id is not a member's
//	FAILED_PRECONDITION the members would not be a live majority of the new
//	                    configuration; RemoveMember: the last member;
//	                    AddMember: no node id left (ids are below 64)
//	UNAVAILABLE         no leader, another change in progress, or the change
//	                    was not applied in time (list the members: it may
//	                    have been)
type AdminClient interface {
	// ListMembers is the members as this node has applied the log.
	ListMembers(ctx context.Context, in *ListMembersRequest, opts ...grpc.CallOption) (*ListMembersResponse, error)
	// AddMember adds a node at an address, with the next id never given;
	// the node then starts with allot serve --join.
	AddMember(ctx context.Context, in *AddMemberRequest, opts ...grpc.CallOption) (*AddMemberResponse, error)
	// RemoveMember removes a node: the views that follow leave it out, and
	// it stops serving.
	RemoveMember(ctx context.Context, in *RemoveMemberRequest, opts ...grpc.CallOption) (*RemoveMemberResponse, error)
}

type adminClient struct {
	cc grpc.ClientConnInterface
}

func NewAdminClient(cc grpc.ClientConnInterface) AdminClient {
	return &adminClient{cc}
}

func (c *adminClient) ListMembers(ctx context.Context, in *ListMembersRequest, opts ...grpc.CallOption) (*ListMembersResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ListMembersResponse)
	err := c.cc.Invoke(ctx, Admin_ListMembers_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *adminClient) AddMember(ctx context.Context, in *AddMemberRequest, opts ...grpc.CallOption) (*AddMemberResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(AddMemberResponse)
	err := c.cc.Invoke(ctx, Admin_AddMember_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *adminClient) RemoveMember(ctx context.Context, in *RemoveMemberRequest, opts ...grpc.CallOption) (*RemoveMemberResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(RemoveMemberResponse)
	err := c.cc.Invoke(ctx, Admin_RemoveMember_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AdminServer is the server API for Admin service.
// All implementations must embed UnimplementedAdminServer
// for forward compatibility.
//
// Admin is the cluster's membership (allot member): the nodes of the
// control plane's Raft configuration, listed, added and removed while the
// cluster runs. Any node answers; a change goes to the leader (the node
// asked forwards it). In a secure cluster only a node certificate may
// call it, as every service but Allot.
//
// Errors:
//
//	INVALID_ARGUMENT    AddMember: the address is not host:port
//	ALREADY_EXISTS      AddMember: the address is a member's
//	NOT_FOUND           RemoveMember: the id is not a member's
//	FAILED_PRECONDITION the members would not be a live majority of the new
//	                    configuration; RemoveMember: the last member;
//	                    AddMember: no node id left (ids are below 64)
//	UNAVAILABLE         no leader, another change in progress, or the change
//	                    was not applied in time (list the members: it may
//	                    have been)
type AdminServer interface {
	// ListMembers is the members as this node has applied the log.
	ListMembers(context.Context, *ListMembersRequest) (*ListMembersResponse, error)
	// AddMember adds a node at an address, with the next id never given;
	// the node then starts with allot serve --join.
	AddMember(context.Context, *AddMemberRequest) (*AddMemberResponse, error)
	// RemoveMember removes a node: the views that follow leave it out, and
	// it stops serving.
	RemoveMember(context.Context, *RemoveMemberRequest) (*RemoveMemberResponse, error)
	mustEmbedUnimplementedAdminServer()
}

// UnimplementedAdminServer must be embedded to have
// forward compatible implementations.
//
// NOTE: this should be embedded by value instead of pointer to avoid a nil
// pointer dereference when methods are called.
type UnimplementedAdminServer struct{}

func (UnimplementedAdminServer) ListMembers(context.Context, *ListMembersRequest) (*ListMembersResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ListMembers not implemented")
}
func (UnimplementedAdminServer) AddMember(context.Context, *AddMemberRequest) (*AddMemberResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method AddMember not implemented")
}
func (UnimplementedAdminServer) RemoveMember(context.Context, *RemoveMemberRequest) (*RemoveMemberResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method RemoveMember not implemented")
}
func (UnimplementedAdminServer) mustEmbedUnimplementedAdminServer() {}
func (UnimplementedAdminServer) testEmbeddedByValue()               {}

// UnsafeAdminServer may be embedded to opt out of forward compatibility for this service.
// Use of this interface is not recommended, as added methods to AdminServer will
// result in compilation errors.
type UnsafeAdminServer interface {
	mustEmbedUnimplementedAdminServer()
}

func RegisterAdminServer(s grpc.ServiceRegistrar, srv AdminServer) {
	// If the following call panics, it indicates UnimplementedAdminServer was
	// embedded by pointer and is nil.  This will cause panics if an
	// unimplemented method is ever invoked, so we test this at initialization
	// time to prevent it from happening at runtime later due to I/O.
	if t, ok := srv.(interface{ testEmbeddedByValue() }); ok {
		t.testEmbeddedByValue()
	}
	s.RegisterService(&Admin_ServiceDesc, srv)
}

func _Admin_ListMembers_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ListMembersRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AdminServer).ListMembers(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Admin_ListMembers_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AdminServer).ListMembers(ctx, req.(*ListMembersRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Admin_AddMember_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(AddMemberRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AdminServer).AddMember(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Admin_AddMember_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AdminServer).AddMember(ctx, req.(*AddMemberRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _Admin_RemoveMember_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(RemoveMemberRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(AdminServer).RemoveMember(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: Admin_RemoveMember_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(AdminServer).RemoveMember(ctx, req.(*RemoveMemberRequest))
	}
	return interceptor(ctx, in, info, handler)
}

// Admin_ServiceDesc is the grpc.ServiceDesc for Admin service.
// It's only intended for direct use with grpc.RegisterService,
// and not to be introspected or modified (even as a copy)
var Admin_ServiceDesc = grpc.ServiceDesc{
	ServiceName: "allot.v1.Admin",
	HandlerType: (*AdminServer)(nil),
	Methods: []grpc.MethodDesc{
		{
			MethodName: "ListMembers",
			Handler:    _Admin_ListMembers_Handler,
		},
		{
			MethodName: "AddMember",
			Handler:    _Admin_AddMember_Handler,
		},
		{
			MethodName: "RemoveMember",
			Handler:    _Admin_RemoveMember_Handler,
		},
	},
	Streams:  []grpc.StreamDesc{},
	Metadata: "allot/v1/allot.proto",
}
