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

// Code generated by protoc-gen-go. DO NOT EDIT.
// versions:
// 	protoc-gen-go v1.36.12
// 	protoc        v3.21.12
// source: allot/v1/allot.proto

package allotv1

import (
	protoreflect "google.golang.org/protobuf/reflect/protoreflect"
	protoimpl "google.golang.org/protobuf/runtime/protoimpl"
	anypb "google.golang.org/protobuf/types/known/anypb"
	reflect "reflect"
	sync "sync"
	unsafe "unsafe"
)

const (
	// Verify that this generated code is sufficiently up-to-date.
	_ = protoimpl.EnforceVersion(20 - protoimpl.MinVersion)
	// Verify that runtime/protoimpl is sufficiently up-to-date.
	_ = protoimpl.EnforceVersion(protoimpl.MaxVersion - 20)
)

type HoldersRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	Name  string                 `protobuf:"bytes,1,opt,name=name,proto3" json:"name,omitempty"`
	// semaphore: name is a semaphore's (else a lock's).
	Semaphore bool `protobuf:"varint,2,opt,name=semaphore,proto3" json:"semaphore,omitempty"`
	// session: only this session's grants (0: every session's).
	Session       uint64 `protobuf:"varint,3,opt,name=session,proto3" json:"session,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *HoldersRequest) Reset() {
	*x = HoldersRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[0]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *HoldersRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*HoldersRequest) ProtoMessage() {}

func (x *HoldersRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[0]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use HoldersRequest.ProtoReflect.Descriptor instead.
func (*HoldersRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{0}
}

func (x *HoldersRequest) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *HoldersRequest) GetSemaphore() bool {
	if x != nil {
		return x.Semaphore
	}
	return false
}

func (x *HoldersRequest) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

type HoldersResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Holders       []*Holder              `protobuf:"bytes,1,rep,name=holders,proto3" json:"holders,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *HoldersResponse) Reset() {
	*x = HoldersResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[1]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *HoldersResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*HoldersResponse) ProtoMessage() {}

func (x *HoldersResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[1]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use HoldersResponse.ProtoReflect.Descriptor instead.
func (*HoldersResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{1}
}

func (x *HoldersResponse) GetHolders() []*Holder {
	if x != nil {
		return x.Holders
	}
	return nil
}

// Holder is one grant that holds the name asked about.
type Holder struct {
	state   protoimpl.MessageState `protogen:"open.v1"`
	Session uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	// grant is the grant's id, as its Lock or Acquire answered it.
	Grant uint64 `protobuf:"varint,2,opt,name=grant,proto3" json:"grant,omitempty"`
	// token is the grant's token for the name: a lock's (resource: the
	// name), or a semaphore unit's (resource: the unit, as
	// AcquireResponse's).
	Token *Token `protobuf:"bytes,3,opt,name=token,proto3" json:"token,omitempty"`
	// unit: a semaphore grant's unit, as AcquireResponse's.
	Unit int32 `protobuf:"varint,4,opt,name=unit,proto3" json:"unit,omitempty"`
	// resources: a lock grant's names, every one its Lock took at once.
	Resources []string `protobuf:"bytes,5,rep,name=resources,proto3" json:"resources,omitempty"`
	// since_unix_ms is when this node granted it, or adopted the session
	// that holds it (a session moved to its backup), in milliseconds since
	// the Unix epoch by this node's clock.
	SinceUnixMs   int64 `protobuf:"varint,6,opt,name=since_unix_ms,json=sinceUnixMs,proto3" json:"since_unix_ms,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Holder) Reset() {
	*x = Holder{}
	mi := &file_allot_v1_allot_proto_msgTypes[2]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Holder) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Holder) ProtoMessage() {}

func (x *Holder) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[2]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Holder.ProtoReflect.Descriptor instead.
func (*Holder) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{2}
}

func (x *Holder) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

func (x *Holder) GetGrant() uint64 {
	if x != nil {
		return x.Grant
	}
	return 0
}

func (x *Holder) GetToken() *Token {
	if x != nil {
		return x.Token
	}
	return nil
}

func (x *Holder) GetUnit() int32 {
	if x != nil {
		return x.Unit
	}
	return 0
}

func (x *Holder) GetResources() []string {
	if x != nil {
		return x.Resources
	}
	return nil
}

func (x *Holder) GetSinceUnixMs() int64 {
	if x != nil {
		return x.SinceUnixMs
	}
	return 0
}

type LocateRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Name          string                 `protobuf:"bytes,1,opt,name=name,proto3" json:"name,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *LocateRequest) Reset() {
	*x = LocateRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[3]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *LocateRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*LocateRequest) ProtoMessage() {}

func (x *LocateRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[3]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use LocateRequest.ProtoReflect.Descriptor instead.
func (*LocateRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{3}
}

func (x *LocateRequest) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

type LocateResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// node_addr is the home's address, as the cluster's membership has it.
	NodeAddr string `protobuf:"bytes,1,opt,name=node_addr,json=nodeAddr,proto3" json:"node_addr,omitempty"`
	// epoch is the view in which it is the home.
	Epoch         uint64 `protobuf:"varint,2,opt,name=epoch,proto3" json:"epoch,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *LocateResponse) Reset() {
	*x = LocateResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[4]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *LocateResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*LocateResponse) ProtoMessage() {}

func (x *LocateResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[4]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use LocateResponse.ProtoReflect.Descriptor instead.
func (*LocateResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{4}
}

func (x *LocateResponse) GetNodeAddr() string {
	if x != nil {
		return x.NodeAddr
	}
	return ""
}

func (x *LocateResponse) GetEpoch() uint64 {
	if x != nil {
		return x.Epoch
	}
	return 0
}

// CallsHello is the first frame of a Calls connection without gRPC (the
// native protocol, above): what a gRPC call carries in its metadata.
type CallsHello struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// token is the client's token, where the node asks for one (gRPC's
	// "authorization: Bearer TOKEN"); empty: none.
	Token         string `protobuf:"bytes,1,opt,name=token,proto3" json:"token,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CallsHello) Reset() {
	*x = CallsHello{}
	mi := &file_allot_v1_allot_proto_msgTypes[5]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallsHello) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallsHello) ProtoMessage() {}

func (x *CallsHello) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[5]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallsHello.ProtoReflect.Descriptor instead.
func (*CallsHello) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{5}
}

func (x *CallsHello) GetToken() string {
	if x != nil {
		return x.Token
	}
	return ""
}

// Call is one call on a Calls stream, or the giving up of one.
type Call struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// id names the call on its stream; its result carries it. The caller
	// numbers its calls, each id once per stream.
	Id uint64 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// timeout_us is how long the caller waits, in microseconds, from when
	// it sent the call: the node gives up the call then, as a unary
	// call's deadline (0: no deadline).
	TimeoutUs int64 `protobuf:"varint,2,opt,name=timeout_us,json=timeoutUs,proto3" json:"timeout_us,omitempty"`
	// Types that are valid to be assigned to Request:
	//
	//	*Call_Lock
	//	*Call_Unlock
	//	*Call_Acquire
	//	*Call_Release
	//	*Call_Cancel
	Request       isCall_Request `protobuf_oneof:"request"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Call) Reset() {
	*x = Call{}
	mi := &file_allot_v1_allot_proto_msgTypes[6]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Call) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Call) ProtoMessage() {}

func (x *Call) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[6]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Call.ProtoReflect.Descriptor instead.
func (*Call) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{6}
}

func (x *Call) GetId() uint64 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *Call) GetTimeoutUs() int64 {
	if x != nil {
		return x.TimeoutUs
	}
	return 0
}

func (x *Call) GetRequest() isCall_Request {
	if x != nil {
		return x.Request
	}
	return nil
}

func (x *Call) GetLock() *LockRequest {
	if x != nil {
		if x, ok := x.Request.(*Call_Lock); ok {
			return x.Lock
		}
	}
	return nil
}

func (x *Call) GetUnlock() *UnlockRequest {
	if x != nil {
		if x, ok := x.Request.(*Call_Unlock); ok {
			return x.Unlock
		}
	}
	return nil
}

func (x *Call) GetAcquire() *AcquireRequest {
	if x != nil {
		if x, ok := x.Request.(*Call_Acquire); ok {
			return x.Acquire
		}
	}
	return nil
}

func (x *Call) GetRelease() *ReleaseRequest {
	if x != nil {
		if x, ok := x.Request.(*Call_Release); ok {
			return x.Release
		}
	}
	return nil
}

func (x *Call) GetCancel() bool {
	if x != nil {
		if x, ok := x.Request.(*Call_Cancel); ok {
			return x.Cancel
		}
	}
	return false
}

type isCall_Request interface {
	isCall_Request()
}

type Call_Lock struct {
	Lock *LockRequest `protobuf:"bytes,3,opt,name=lock,proto3,oneof"`
}

type Call_Unlock struct {
	Unlock *UnlockRequest `protobuf:"bytes,4,opt,name=unlock,proto3,oneof"`
}

type Call_Acquire struct {
	Acquire *AcquireRequest `protobuf:"bytes,5,opt,name=acquire,proto3,oneof"`
}

type Call_Release struct {
	Release *ReleaseRequest `protobuf:"bytes,6,opt,name=release,proto3,oneof"`
}

type Call_Cancel struct {
	// cancel: the caller gave up the call id (answered CANCELLED if it
	// was still open; a cancel itself is not answered).
	Cancel bool `protobuf:"varint,7,opt,name=cancel,proto3,oneof"`
}

func (*Call_Lock) isCall_Request() {}

func (*Call_Unlock) isCall_Request() {}

func (*Call_Acquire) isCall_Request() {}

func (*Call_Release) isCall_Request() {}

func (*Call_Cancel) isCall_Request() {}

// CallResult answers the Call of the same id.
type CallResult struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	Id    uint64                 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	// error is the call's status when it failed, as a unary call's: its
	// code, message and details (a google.rpc.ErrorInfo where the errors
	// above say so). Absent: the call succeeded, and response says how.
	Error *CallError `protobuf:"bytes,2,opt,name=error,proto3" json:"error,omitempty"`
	// Types that are valid to be assigned to Response:
	//
	//	*CallResult_Lock
	//	*CallResult_Unlock
	//	*CallResult_Acquire
	//	*CallResult_Release
	Response      isCallResult_Response `protobuf_oneof:"response"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CallResult) Reset() {
	*x = CallResult{}
	mi := &file_allot_v1_allot_proto_msgTypes[7]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallResult) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallResult) ProtoMessage() {}

func (x *CallResult) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[7]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallResult.ProtoReflect.Descriptor instead.
func (*CallResult) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{7}
}

func (x *CallResult) GetId() uint64 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *CallResult) GetError() *CallError {
	if x != nil {
		return x.Error
	}
	return nil
}

func (x *CallResult) GetResponse() isCallResult_Response {
	if x != nil {
		return x.Response
	}
	return nil
}

func (x *CallResult) GetLock() *LockResponse {
	if x != nil {
		if x, ok := x.Response.(*CallResult_Lock); ok {
			return x.Lock
		}
	}
	return nil
}

func (x *CallResult) GetUnlock() *UnlockResponse {
	if x != nil {
		if x, ok := x.Response.(*CallResult_Unlock); ok {
			return x.Unlock
		}
	}
	return nil
}

func (x *CallResult) GetAcquire() *AcquireResponse {
	if x != nil {
		if x, ok := x.Response.(*CallResult_Acquire); ok {
			return x.Acquire
		}
	}
	return nil
}

func (x *CallResult) GetRelease() *ReleaseResponse {
	if x != nil {
		if x, ok := x.Response.(*CallResult_Release); ok {
			return x.Release
		}
	}
	return nil
}

type isCallResult_Response interface {
	isCallResult_Response()
}

type CallResult_Lock struct {
	Lock *LockResponse `protobuf:"bytes,3,opt,name=lock,proto3,oneof"`
}

type CallResult_Unlock struct {
	Unlock *UnlockResponse `protobuf:"bytes,4,opt,name=unlock,proto3,oneof"`
}

type CallResult_Acquire struct {
	Acquire *AcquireResponse `protobuf:"bytes,5,opt,name=acquire,proto3,oneof"`
}

type CallResult_Release struct {
	Release *ReleaseResponse `protobuf:"bytes,6,opt,name=release,proto3,oneof"`
}

func (*CallResult_Lock) isCallResult_Response() {}

func (*CallResult_Unlock) isCallResult_Response() {}

func (*CallResult_Acquire) isCallResult_Response() {}

func (*CallResult_Release) isCallResult_Response() {}

// CallError is a google.rpc.Status, field for field.
type CallError struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Code          int32                  `protobuf:"varint,1,opt,name=code,proto3" json:"code,omitempty"`
	Message       string                 `protobuf:"bytes,2,opt,name=message,proto3" json:"message,omitempty"`
	Details       []*anypb.Any           `protobuf:"bytes,3,rep,name=details,proto3" json:"details,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CallError) Reset() {
	*x = CallError{}
	mi := &file_allot_v1_allot_proto_msgTypes[8]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallError) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallError) ProtoMessage() {}

func (x *CallError) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[8]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallError.ProtoReflect.Descriptor instead.
func (*CallError) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{8}
}

func (x *CallError) GetCode() int32 {
	if x != nil {
		return x.Code
	}
	return 0
}

func (x *CallError) GetMessage() string {
	if x != nil {
		return x.Message
	}
	return ""
}

func (x *CallError) GetDetails() []*anypb.Any {
	if x != nil {
		return x.Details
	}
	return nil
}

type OpenSessionRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	TtlMs         int64                  `protobuf:"varint,1,opt,name=ttl_ms,json=ttlMs,proto3" json:"ttl_ms,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *OpenSessionRequest) Reset() {
	*x = OpenSessionRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[9]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *OpenSessionRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*OpenSessionRequest) ProtoMessage() {}

func (x *OpenSessionRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[9]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use OpenSessionRequest.ProtoReflect.Descriptor instead.
func (*OpenSessionRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{9}
}

func (x *OpenSessionRequest) GetTtlMs() int64 {
	if x != nil {
		return x.TtlMs
	}
	return 0
}

type OpenSessionResponse struct {
	state   protoimpl.MessageState `protogen:"open.v1"`
	Session uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	TtlMs   int64                  `protobuf:"varint,2,opt,name=ttl_ms,json=ttlMs,proto3" json:"ttl_ms,omitempty"`
	// lease_ms is how much longer the node may serve, from when it
	// answered (its lease in the cluster's control plane). A client counts
	// its session lost once min(ttl_ms, lease_ms) has passed since it sent
	// the request, unless a later keep-alive moved it on. 0: not given (a
	// node of an older version): ttl_ms alone bounds it.
	LeaseMs       int64 `protobuf:"varint,3,opt,name=lease_ms,json=leaseMs,proto3" json:"lease_ms,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *OpenSessionResponse) Reset() {
	*x = OpenSessionResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[10]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *OpenSessionResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*OpenSessionResponse) ProtoMessage() {}

func (x *OpenSessionResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[10]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use OpenSessionResponse.ProtoReflect.Descriptor instead.
func (*OpenSessionResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{10}
}

func (x *OpenSessionResponse) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

func (x *OpenSessionResponse) GetTtlMs() int64 {
	if x != nil {
		return x.TtlMs
	}
	return 0
}

func (x *OpenSessionResponse) GetLeaseMs() int64 {
	if x != nil {
		return x.LeaseMs
	}
	return 0
}

type KeepAliveRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Session       uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *KeepAliveRequest) Reset() {
	*x = KeepAliveRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[11]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *KeepAliveRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*KeepAliveRequest) ProtoMessage() {}

func (x *KeepAliveRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[11]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use KeepAliveRequest.ProtoReflect.Descriptor instead.
func (*KeepAliveRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{11}
}

func (x *KeepAliveRequest) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

type KeepAliveResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	TtlMs int64                  `protobuf:"varint,1,opt,name=ttl_ms,json=ttlMs,proto3" json:"ttl_ms,omitempty"`
	// lease_ms: as in OpenSessionResponse; shorter when the session's backup
	// has not answered this keep-alive's record: no longer than the backup
	// keeps the session, which is what a node that adopts it keeps.
	LeaseMs       int64 `protobuf:"varint,2,opt,name=lease_ms,json=leaseMs,proto3" json:"lease_ms,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *KeepAliveResponse) Reset() {
	*x = KeepAliveResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[12]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *KeepAliveResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*KeepAliveResponse) ProtoMessage() {}

func (x *KeepAliveResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[12]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use KeepAliveResponse.ProtoReflect.Descriptor instead.
func (*KeepAliveResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{12}
}

func (x *KeepAliveResponse) GetTtlMs() int64 {
	if x != nil {
		return x.TtlMs
	}
	return 0
}

func (x *KeepAliveResponse) GetLeaseMs() int64 {
	if x != nil {
		return x.LeaseMs
	}
	return 0
}

type CloseSessionRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Session       uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CloseSessionRequest) Reset() {
	*x = CloseSessionRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[13]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CloseSessionRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CloseSessionRequest) ProtoMessage() {}

func (x *CloseSessionRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[13]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CloseSessionRequest.ProtoReflect.Descriptor instead.
func (*CloseSessionRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{13}
}

func (x *CloseSessionRequest) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

type CloseSessionResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CloseSessionResponse) Reset() {
	*x = CloseSessionResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[14]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CloseSessionResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CloseSessionResponse) ProtoMessage() {}

func (x *CloseSessionResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[14]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CloseSessionResponse.ProtoReflect.Descriptor instead.
func (*CloseSessionResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{14}
}

// Token fences one resource: tokens of a resource are strictly increasing
// in (epoch, counter) order over the holders of the resource.
type Token struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Resource      string                 `protobuf:"bytes,1,opt,name=resource,proto3" json:"resource,omitempty"`
	Epoch         uint64                 `protobuf:"varint,2,opt,name=epoch,proto3" json:"epoch,omitempty"`
	Counter       uint64                 `protobuf:"varint,3,opt,name=counter,proto3" json:"counter,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Token) Reset() {
	*x = Token{}
	mi := &file_allot_v1_allot_proto_msgTypes[15]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Token) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Token) ProtoMessage() {}

func (x *Token) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[15]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Token.ProtoReflect.Descriptor instead.
func (*Token) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{15}
}

func (x *Token) GetResource() string {
	if x != nil {
		return x.Resource
	}
	return ""
}

func (x *Token) GetEpoch() uint64 {
	if x != nil {
		return x.Epoch
	}
	return 0
}

func (x *Token) GetCounter() uint64 {
	if x != nil {
		return x.Counter
	}
	return 0
}

type LockRequest struct {
	state     protoimpl.MessageState `protogen:"open.v1"`
	Session   uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	Resources []string               `protobuf:"bytes,2,rep,name=resources,proto3" json:"resources,omitempty"`
	// try_lock: fail with FAILED_PRECONDITION instead of waiting when a
	// resource is taken. Field 3 was named try (a keyword in Python): the
	// wire format is the same, only the name in generated code and JSON
	// changed.
	TryLock bool `protobuf:"varint,3,opt,name=try_lock,json=tryLock,proto3" json:"try_lock,omitempty"`
	// call: the client's number of this request in its session (0: none,
	// as before). A request whose answer was lost (its node lost, the
	// connection cut) is asked again under the same number, at the node
	// that serves the session now: if the session holds the grant the
	// first try made (its record reached the backup that adopted it), that
	// grant is the answer, not a second one waiting behind it.
	Call          uint64 `protobuf:"varint,4,opt,name=call,proto3" json:"call,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *LockRequest) Reset() {
	*x = LockRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[16]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *LockRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*LockRequest) ProtoMessage() {}

func (x *LockRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[16]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use LockRequest.ProtoReflect.Descriptor instead.
func (*LockRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{16}
}

func (x *LockRequest) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

func (x *LockRequest) GetResources() []string {
	if x != nil {
		return x.Resources
	}
	return nil
}

func (x *LockRequest) GetTryLock() bool {
	if x != nil {
		return x.TryLock
	}
	return false
}

func (x *LockRequest) GetCall() uint64 {
	if x != nil {
		return x.Call
	}
	return 0
}

type LockResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// grant names this grant (a unique owner, even within one session).
	Grant         uint64   `protobuf:"varint,1,opt,name=grant,proto3" json:"grant,omitempty"`
	Tokens        []*Token `protobuf:"bytes,2,rep,name=tokens,proto3" json:"tokens,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *LockResponse) Reset() {
	*x = LockResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[17]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *LockResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*LockResponse) ProtoMessage() {}

func (x *LockResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[17]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use LockResponse.ProtoReflect.Descriptor instead.
func (*LockResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{17}
}

func (x *LockResponse) GetGrant() uint64 {
	if x != nil {
		return x.Grant
	}
	return 0
}

func (x *LockResponse) GetTokens() []*Token {
	if x != nil {
		return x.Tokens
	}
	return nil
}

type UnlockRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Session       uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	Grant         uint64                 `protobuf:"varint,2,opt,name=grant,proto3" json:"grant,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *UnlockRequest) Reset() {
	*x = UnlockRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[18]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *UnlockRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*UnlockRequest) ProtoMessage() {}

func (x *UnlockRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[18]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use UnlockRequest.ProtoReflect.Descriptor instead.
func (*UnlockRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{18}
}

func (x *UnlockRequest) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

func (x *UnlockRequest) GetGrant() uint64 {
	if x != nil {
		return x.Grant
	}
	return 0
}

type UnlockResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *UnlockResponse) Reset() {
	*x = UnlockResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[19]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *UnlockResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*UnlockResponse) ProtoMessage() {}

func (x *UnlockResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[19]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use UnlockResponse.ProtoReflect.Descriptor instead.
func (*UnlockResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{19}
}

type AcquireRequest struct {
	state   protoimpl.MessageState `protogen:"open.v1"`
	Session uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	Name    string                 `protobuf:"bytes,2,opt,name=name,proto3" json:"name,omitempty"`
	Units   int32                  `protobuf:"varint,3,opt,name=units,proto3" json:"units,omitempty"`
	// try_acquire: fail with FAILED_PRECONDITION instead of waiting when
	// every unit is taken. Field 4 was named try, as in LockRequest.
	TryAcquire bool `protobuf:"varint,4,opt,name=try_acquire,json=tryAcquire,proto3" json:"try_acquire,omitempty"`
	// call: as LockRequest's.
	Call          uint64 `protobuf:"varint,5,opt,name=call,proto3" json:"call,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *AcquireRequest) Reset() {
	*x = AcquireRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[20]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *AcquireRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*AcquireRequest) ProtoMessage() {}

func (x *AcquireRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[20]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use AcquireRequest.ProtoReflect.Descriptor instead.
func (*AcquireRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{20}
}

func (x *AcquireRequest) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

func (x *AcquireRequest) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *AcquireRequest) GetUnits() int32 {
	if x != nil {
		return x.Units
	}
	return 0
}

func (x *AcquireRequest) GetTryAcquire() bool {
	if x != nil {
		return x.TryAcquire
	}
	return false
}

func (x *AcquireRequest) GetCall() uint64 {
	if x != nil {
		return x.Call
	}
	return 0
}

type AcquireResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	Grant uint64                 `protobuf:"varint,1,opt,name=grant,proto3" json:"grant,omitempty"`
	// unit is the unit held, 0..units-1.
	Unit          int32  `protobuf:"varint,2,opt,name=unit,proto3" json:"unit,omitempty"`
	Token         *Token `protobuf:"bytes,3,opt,name=token,proto3" json:"token,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *AcquireResponse) Reset() {
	*x = AcquireResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[21]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *AcquireResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*AcquireResponse) ProtoMessage() {}

func (x *AcquireResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[21]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use AcquireResponse.ProtoReflect.Descriptor instead.
func (*AcquireResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{21}
}

func (x *AcquireResponse) GetGrant() uint64 {
	if x != nil {
		return x.Grant
	}
	return 0
}

func (x *AcquireResponse) GetUnit() int32 {
	if x != nil {
		return x.Unit
	}
	return 0
}

func (x *AcquireResponse) GetToken() *Token {
	if x != nil {
		return x.Token
	}
	return nil
}

type ReleaseRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Session       uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	Grant         uint64                 `protobuf:"varint,2,opt,name=grant,proto3" json:"grant,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ReleaseRequest) Reset() {
	*x = ReleaseRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[22]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ReleaseRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ReleaseRequest) ProtoMessage() {}

func (x *ReleaseRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[22]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ReleaseRequest.ProtoReflect.Descriptor instead.
func (*ReleaseRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{22}
}

func (x *ReleaseRequest) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

func (x *ReleaseRequest) GetGrant() uint64 {
	if x != nil {
		return x.Grant
	}
	return 0
}

type ReleaseResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ReleaseResponse) Reset() {
	*x = ReleaseResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[23]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ReleaseResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ReleaseResponse) ProtoMessage() {}

func (x *ReleaseResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[23]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ReleaseResponse.ProtoReflect.Descriptor instead.
func (*ReleaseResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{23}
}

type TakeRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Session       uint64                 `protobuf:"varint,1,opt,name=session,proto3" json:"session,omitempty"`
	Name          string                 `protobuf:"bytes,2,opt,name=name,proto3" json:"name,omitempty"`
	N             int64                  `protobuf:"varint,3,opt,name=n,proto3" json:"n,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *TakeRequest) Reset() {
	*x = TakeRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[24]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *TakeRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*TakeRequest) ProtoMessage() {}

func (x *TakeRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[24]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use TakeRequest.ProtoReflect.Descriptor instead.
func (*TakeRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{24}
}

func (x *TakeRequest) GetSession() uint64 {
	if x != nil {
		return x.Session
	}
	return 0
}

func (x *TakeRequest) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *TakeRequest) GetN() int64 {
	if x != nil {
		return x.N
	}
	return 0
}

type TakeResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Permits       int64                  `protobuf:"varint,1,opt,name=permits,proto3" json:"permits,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *TakeResponse) Reset() {
	*x = TakeResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[25]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *TakeResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*TakeResponse) ProtoMessage() {}

func (x *TakeResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[25]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use TakeResponse.ProtoReflect.Descriptor instead.
func (*TakeResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{25}
}

func (x *TakeResponse) GetPermits() int64 {
	if x != nil {
		return x.Permits
	}
	return 0
}

type ListMembersRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListMembersRequest) Reset() {
	*x = ListMembersRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[26]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListMembersRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListMembersRequest) ProtoMessage() {}

func (x *ListMembersRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[26]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListMembersRequest.ProtoReflect.Descriptor instead.
func (*ListMembersRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{26}
}

type Member struct {
	state   protoimpl.MessageState `protogen:"open.v1"`
	Id      uint32                 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	Address string                 `protobuf:"bytes,2,opt,name=address,proto3" json:"address,omitempty"`
	Voter   bool                   `protobuf:"varint,3,opt,name=voter,proto3" json:"voter,omitempty"`                 // every member votes (there are no learners)
	InView  bool                   `protobuf:"varint,4,opt,name=in_view,json=inView,proto3" json:"in_view,omitempty"` // a member of the newest view
	Leader  bool                   `protobuf:"varint,5,opt,name=leader,proto3" json:"leader,omitempty"`               // the Raft leader, as the node asked knows
	// rejoins: the starts of the node the log has applied (0: it never
	// joined). A node whose data directory is empty asks the others for
	// it before it starts a new log: more than 0 means its data is lost.
	Rejoins       uint64 `protobuf:"varint,6,opt,name=rejoins,proto3" json:"rejoins,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Member) Reset() {
	*x = Member{}
	mi := &file_allot_v1_allot_proto_msgTypes[27]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Member) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Member) ProtoMessage() {}

func (x *Member) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[27]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Member.ProtoReflect.Descriptor instead.
func (*Member) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{27}
}

func (x *Member) GetId() uint32 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *Member) GetAddress() string {
	if x != nil {
		return x.Address
	}
	return ""
}

func (x *Member) GetVoter() bool {
	if x != nil {
		return x.Voter
	}
	return false
}

func (x *Member) GetInView() bool {
	if x != nil {
		return x.InView
	}
	return false
}

func (x *Member) GetLeader() bool {
	if x != nil {
		return x.Leader
	}
	return false
}

func (x *Member) GetRejoins() uint64 {
	if x != nil {
		return x.Rejoins
	}
	return 0
}

type ListMembersResponse struct {
	state   protoimpl.MessageState `protogen:"open.v1"`
	Members []*Member              `protobuf:"bytes,1,rep,name=members,proto3" json:"members,omitempty"`
	Epoch   uint64                 `protobuf:"varint,2,opt,name=epoch,proto3" json:"epoch,omitempty"` // the newest view the node asked has applied
	Cluster *ClusterSpec           `protobuf:"bytes,3,opt,name=cluster,proto3" json:"cluster,omitempty"`
	Applied uint64                 `protobuf:"varint,4,opt,name=applied,proto3" json:"applied,omitempty"` // the index of the last log entry the node asked has applied
	// What the node asked says of itself (allot member list asks every
	// member for its own):
	// lease_left_ms: how much longer it may serve, in ms (0: it holds no
	// lease: in no view yet, or fenced).
	LeaseLeftMs int64 `protobuf:"varint,5,opt,name=lease_left_ms,json=leaseLeftMs,proto3" json:"lease_left_ms,omitempty"`
	// status_address: where it serves /status and /metrics (allot serve
	// --metrics), host:port ("": nowhere). A host of 0.0.0.0 or :: is any
	// of the node's: the address it was asked at has its host.
	StatusAddress string `protobuf:"bytes,6,opt,name=status_address,json=statusAddress,proto3" json:"status_address,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListMembersResponse) Reset() {
	*x = ListMembersResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[28]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListMembersResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListMembersResponse) ProtoMessage() {}

func (x *ListMembersResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[28]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListMembersResponse.ProtoReflect.Descriptor instead.
func (*ListMembersResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{28}
}

func (x *ListMembersResponse) GetMembers() []*Member {
	if x != nil {
		return x.Members
	}
	return nil
}

func (x *ListMembersResponse) GetEpoch() uint64 {
	if x != nil {
		return x.Epoch
	}
	return 0
}

func (x *ListMembersResponse) GetCluster() *ClusterSpec {
	if x != nil {
		return x.Cluster
	}
	return nil
}

func (x *ListMembersResponse) GetApplied() uint64 {
	if x != nil {
		return x.Applied
	}
	return 0
}

func (x *ListMembersResponse) GetLeaseLeftMs() int64 {
	if x != nil {
		return x.LeaseLeftMs
	}
	return 0
}

func (x *ListMembersResponse) GetStatusAddress() string {
	if x != nil {
		return x.StatusAddress
	}
	return ""
}

// ClusterSpec is what every node of a cluster is given alike: a joining
// node is started with it.
type ClusterSpec struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Bootstrap     []string               `protobuf:"bytes,1,rep,name=bootstrap,proto3" json:"bootstrap,omitempty"` // the nodes the cluster started with, by id
	Lock          string                 `protobuf:"bytes,2,opt,name=lock,proto3" json:"lock,omitempty"`
	Semaphore     string                 `protobuf:"bytes,3,opt,name=semaphore,proto3" json:"semaphore,omitempty"`
	Quota         string                 `protobuf:"bytes,4,opt,name=quota,proto3" json:"quota,omitempty"`
	Slots         int32                  `protobuf:"varint,5,opt,name=slots,proto3" json:"slots,omitempty"`
	Resources     int32                  `protobuf:"varint,6,opt,name=resources,proto3" json:"resources,omitempty"`
	Epoch         uint64                 `protobuf:"varint,7,opt,name=epoch,proto3" json:"epoch,omitempty"`
	Quotas        map[string]*QuotaSpec  `protobuf:"bytes,8,rep,name=quotas,proto3" json:"quotas,omitempty" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ClusterSpec) Reset() {
	*x = ClusterSpec{}
	mi := &file_allot_v1_allot_proto_msgTypes[29]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ClusterSpec) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ClusterSpec) ProtoMessage() {}

func (x *ClusterSpec) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[29]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ClusterSpec.ProtoReflect.Descriptor instead.
func (*ClusterSpec) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{29}
}

func (x *ClusterSpec) GetBootstrap() []string {
	if x != nil {
		return x.Bootstrap
	}
	return nil
}

func (x *ClusterSpec) GetLock() string {
	if x != nil {
		return x.Lock
	}
	return ""
}

func (x *ClusterSpec) GetSemaphore() string {
	if x != nil {
		return x.Semaphore
	}
	return ""
}

func (x *ClusterSpec) GetQuota() string {
	if x != nil {
		return x.Quota
	}
	return ""
}

func (x *ClusterSpec) GetSlots() int32 {
	if x != nil {
		return x.Slots
	}
	return 0
}

func (x *ClusterSpec) GetResources() int32 {
	if x != nil {
		return x.Resources
	}
	return 0
}

func (x *ClusterSpec) GetEpoch() uint64 {
	if x != nil {
		return x.Epoch
	}
	return 0
}

func (x *ClusterSpec) GetQuotas() map[string]*QuotaSpec {
	if x != nil {
		return x.Quotas
	}
	return nil
}

type QuotaSpec struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Budget        int64                  `protobuf:"varint,1,opt,name=budget,proto3" json:"budget,omitempty"`
	Waste         int64                  `protobuf:"varint,2,opt,name=waste,proto3" json:"waste,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *QuotaSpec) Reset() {
	*x = QuotaSpec{}
	mi := &file_allot_v1_allot_proto_msgTypes[30]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *QuotaSpec) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*QuotaSpec) ProtoMessage() {}

func (x *QuotaSpec) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[30]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use QuotaSpec.ProtoReflect.Descriptor instead.
func (*QuotaSpec) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{30}
}

func (x *QuotaSpec) GetBudget() int64 {
	if x != nil {
		return x.Budget
	}
	return 0
}

func (x *QuotaSpec) GetWaste() int64 {
	if x != nil {
		return x.Waste
	}
	return 0
}

type AddMemberRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Address       string                 `protobuf:"bytes,1,opt,name=address,proto3" json:"address,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *AddMemberRequest) Reset() {
	*x = AddMemberRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[31]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *AddMemberRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*AddMemberRequest) ProtoMessage() {}

func (x *AddMemberRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[31]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use AddMemberRequest.ProtoReflect.Descriptor instead.
func (*AddMemberRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{31}
}

func (x *AddMemberRequest) GetAddress() string {
	if x != nil {
		return x.Address
	}
	return ""
}

type AddMemberResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Id            uint32                 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	Members       []*Member              `protobuf:"bytes,2,rep,name=members,proto3" json:"members,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *AddMemberResponse) Reset() {
	*x = AddMemberResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[32]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *AddMemberResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*AddMemberResponse) ProtoMessage() {}

func (x *AddMemberResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[32]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use AddMemberResponse.ProtoReflect.Descriptor instead.
func (*AddMemberResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{32}
}

func (x *AddMemberResponse) GetId() uint32 {
	if x != nil {
		return x.Id
	}
	return 0
}

func (x *AddMemberResponse) GetMembers() []*Member {
	if x != nil {
		return x.Members
	}
	return nil
}

type RemoveMemberRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Id            uint32                 `protobuf:"varint,1,opt,name=id,proto3" json:"id,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *RemoveMemberRequest) Reset() {
	*x = RemoveMemberRequest{}
	mi := &file_allot_v1_allot_proto_msgTypes[33]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *RemoveMemberRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*RemoveMemberRequest) ProtoMessage() {}

func (x *RemoveMemberRequest) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[33]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use RemoveMemberRequest.ProtoReflect.Descriptor instead.
func (*RemoveMemberRequest) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{33}
}

func (x *RemoveMemberRequest) GetId() uint32 {
	if x != nil {
		return x.Id
	}
	return 0
}

type RemoveMemberResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Members       []*Member              `protobuf:"bytes,1,rep,name=members,proto3" json:"members,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *RemoveMemberResponse) Reset() {
	*x = RemoveMemberResponse{}
	mi := &file_allot_v1_allot_proto_msgTypes[34]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *RemoveMemberResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*RemoveMemberResponse) ProtoMessage() {}

func (x *RemoveMemberResponse) ProtoReflect() protoreflect.Message {
	mi := &file_allot_v1_allot_proto_msgTypes[34]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use RemoveMemberResponse.ProtoReflect.Descriptor instead.
func (*RemoveMemberResponse) Descriptor() ([]byte, []int) {
	return file_allot_v1_allot_proto_rawDescGZIP(), []int{34}
}

func (x *RemoveMemberResponse) GetMembers() []*Member {
	if x != nil {
		return x.Members
	}
	return nil
}

var File_allot_v1_allot_proto protoreflect.FileDescriptor

const file_allot_v1_allot_proto_rawDesc = "" +
	"\n" +
	"\x14allot/v1/allot.proto\x12\ballot.v1\x1a\x19google/protobuf/any.proto\"\\\n" +
	"\x0eHoldersRequest\x12\x12\n" +
	"\x04name\x18\x01 \x01(\tR\x04name\x12\x1c\n" +
	"\tsemaphore\x18\x02 \x01(\bR\tsemaphore\x12\x18\n" +
	"\asession\x18\x03 \x01(\x04R\asession\"=\n" +
	"\x0fHoldersResponse\x12*\n" +
	"\aholders\x18\x01 \x03(\v2\x10.allot.v1.HolderR\aholders\"\xb5\x01\n" +
	"\x06Holder\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\x12\x14\n" +
	"\x05grant\x18\x02 \x01(\x04R\x05grant\x12%\n" +
	"\x05token\x18\x03 \x01(\v2\x0f.allot.v1.TokenR\x05token\x12\x12\n" +
	"\x04unit\x18\x04 \x01(\x05R\x04unit\x12\x1c\n" +
	"\tresources\x18\x05 \x03(\tR\tresources\x12\"\n" +
	"\rsince_unix_ms\x18\x06 \x01(\x03R\vsinceUnixMs\"#\n" +
	"\rLocateRequest\x12\x12\n" +
	"\x04name\x18\x01 \x01(\tR\x04name\"C\n" +
	"\x0eLocateResponse\x12\x1b\n" +
	"\tnode_addr\x18\x01 \x01(\tR\bnodeAddr\x12\x14\n" +
	"\x05epoch\x18\x02 \x01(\x04R\x05epoch\"\"\n" +
	"\n" +
	"CallsHello\x12\x14\n" +
	"\x05token\x18\x01 \x01(\tR\x05token\"\xa6\x02\n" +
	"\x04Call\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\x04R\x02id\x12\x1d\n" +
	"\n" +
	"timeout_us\x18\x02 \x01(\x03R\ttimeoutUs\x12+\n" +
	"\x04lock\x18\x03 \x01(\v2\x15.allot.v1.LockRequestH\x00R\x04lock\x121\n" +
	"\x06unlock\x18\x04 \x01(\v2\x17.allot.v1.UnlockRequestH\x00R\x06unlock\x124\n" +
	"\aacquire\x18\x05 \x01(\v2\x18.allot.v1.AcquireRequestH\x00R\aacquire\x124\n" +
	"\arelease\x18\x06 \x01(\v2\x18.allot.v1.ReleaseRequestH\x00R\arelease\x12\x18\n" +
	"\x06cancel\x18\a \x01(\bH\x00R\x06cancelB\t\n" +
	"\arequest\"\xa3\x02\n" +
	"\n" +
	"CallResult\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\x04R\x02id\x12)\n" +
	"\x05error\x18\x02 \x01(\v2\x13.allot.v1.CallErrorR\x05error\x12,\n" +
	"\x04lock\x18\x03 \x01(\v2\x16.allot.v1.LockResponseH\x00R\x04lock\x122\n" +
	"\x06unlock\x18\x04 \x01(\v2\x18.allot.v1.UnlockResponseH\x00R\x06unlock\x125\n" +
	"\aacquire\x18\x05 \x01(\v2\x19.allot.v1.AcquireResponseH\x00R\aacquire\x125\n" +
	"\arelease\x18\x06 \x01(\v2\x19.allot.v1.ReleaseResponseH\x00R\areleaseB\n" +
	"\n" +
	"\bresponse\"i\n" +
	"\tCallError\x12\x12\n" +
	"\x04code\x18\x01 \x01(\x05R\x04code\x12\x18\n" +
	"\amessage\x18\x02 \x01(\tR\amessage\x12.\n" +
	"\adetails\x18\x03 \x03(\v2\x14.google.protobuf.AnyR\adetails\"+\n" +
	"\x12OpenSessionRequest\x12\x15\n" +
	"\x06ttl_ms\x18\x01 \x01(\x03R\x05ttlMs\"a\n" +
	"\x13OpenSessionResponse\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\x12\x15\n" +
	"\x06ttl_ms\x18\x02 \x01(\x03R\x05ttlMs\x12\x19\n" +
	"\blease_ms\x18\x03 \x01(\x03R\aleaseMs\",\n" +
	"\x10KeepAliveRequest\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\"E\n" +
	"\x11KeepAliveResponse\x12\x15\n" +
	"\x06ttl_ms\x18\x01 \x01(\x03R\x05ttlMs\x12\x19\n" +
	"\blease_ms\x18\x02 \x01(\x03R\aleaseMs\"/\n" +
	"\x13CloseSessionRequest\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\"\x16\n" +
	"\x14CloseSessionResponse\"S\n" +
	"\x05Token\x12\x1a\n" +
	"\bresource\x18\x01 \x01(\tR\bresource\x12\x14\n" +
	"\x05epoch\x18\x02 \x01(\x04R\x05epoch\x12\x18\n" +
	"\acounter\x18\x03 \x01(\x04R\acounter\"t\n" +
	"\vLockRequest\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\x12\x1c\n" +
	"\tresources\x18\x02 \x03(\tR\tresources\x12\x19\n" +
	"\btry_lock\x18\x03 \x01(\bR\atryLock\x12\x12\n" +
	"\x04call\x18\x04 \x01(\x04R\x04call\"M\n" +
	"\fLockResponse\x12\x14\n" +
	"\x05grant\x18\x01 \x01(\x04R\x05grant\x12'\n" +
	"\x06tokens\x18\x02 \x03(\v2\x0f.allot.v1.TokenR\x06tokens\"?\n" +
	"\rUnlockRequest\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\x12\x14\n" +
	"\x05grant\x18\x02 \x01(\x04R\x05grant\"\x10\n" +
	"\x0eUnlockResponse\"\x89\x01\n" +
	"\x0eAcquireRequest\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\x12\x12\n" +
	"\x04name\x18\x02 \x01(\tR\x04name\x12\x14\n" +
	"\x05units\x18\x03 \x01(\x05R\x05units\x12\x1f\n" +
	"\vtry_acquire\x18\x04 \x01(\bR\n" +
	"tryAcquire\x12\x12\n" +
	"\x04call\x18\x05 \x01(\x04R\x04call\"b\n" +
	"\x0fAcquireResponse\x12\x14\n" +
	"\x05grant\x18\x01 \x01(\x04R\x05grant\x12\x12\n" +
	"\x04unit\x18\x02 \x01(\x05R\x04unit\x12%\n" +
	"\x05token\x18\x03 \x01(\v2\x0f.allot.v1.TokenR\x05token\"@\n" +
	"\x0eReleaseRequest\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\x12\x14\n" +
	"\x05grant\x18\x02 \x01(\x04R\x05grant\"\x11\n" +
	"\x0fReleaseResponse\"I\n" +
	"\vTakeRequest\x12\x18\n" +
	"\asession\x18\x01 \x01(\x04R\asession\x12\x12\n" +
	"\x04name\x18\x02 \x01(\tR\x04name\x12\f\n" +
	"\x01n\x18\x03 \x01(\x03R\x01n\"(\n" +
	"\fTakeResponse\x12\x18\n" +
	"\apermits\x18\x01 \x01(\x03R\apermits\"\x14\n" +
	"\x12ListMembersRequest\"\x93\x01\n" +
	"\x06Member\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\rR\x02id\x12\x18\n" +
	"\aaddress\x18\x02 \x01(\tR\aaddress\x12\x14\n" +
	"\x05voter\x18\x03 \x01(\bR\x05voter\x12\x17\n" +
	"\ain_view\x18\x04 \x01(\bR\x06inView\x12\x16\n" +
	"\x06leader\x18\x05 \x01(\bR\x06leader\x12\x18\n" +
	"\arejoins\x18\x06 \x01(\x04R\arejoins\"\xed\x01\n" +
	"\x13ListMembersResponse\x12*\n" +
	"\amembers\x18\x01 \x03(\v2\x10.allot.v1.MemberR\amembers\x12\x14\n" +
	"\x05epoch\x18\x02 \x01(\x04R\x05epoch\x12/\n" +
	"\acluster\x18\x03 \x01(\v2\x15.allot.v1.ClusterSpecR\acluster\x12\x18\n" +
	"\aapplied\x18\x04 \x01(\x04R\aapplied\x12\"\n" +
	"\rlease_left_ms\x18\x05 \x01(\x03R\vleaseLeftMs\x12%\n" +
	"\x0estatus_address\x18\x06 \x01(\tR\rstatusAddress\"\xc8\x02\n" +
	"\vClusterSpec\x12\x1c\n" +
	"\tbootstrap\x18\x01 \x03(\tR\tbootstrap\x12\x12\n" +
	"\x04lock\x18\x02 \x01(\tR\x04lock\x12\x1c\n" +
	"\tsemaphore\x18\x03 \x01(\tR\tsemaphore\x12\x14\n" +
	"\x05quota\x18\x04 \x01(\tR\x05quota\x12\x14\n" +
	"\x05slots\x18\x05 \x01(\x05R\x05slots\x12\x1c\n" +
	"\tresources\x18\x06 \x01(\x05R\tresources\x12\x14\n" +
	"\x05epoch\x18\a \x01(\x04R\x05epoch\x129\n" +
	"\x06quotas\x18\b \x03(\v2!.allot.v1.ClusterSpec.QuotasEntryR\x06quotas\x1aN\n" +
	"\vQuotasEntry\x12\x10\n" +
	"\x03key\x18\x01 \x01(\tR\x03key\x12)\n" +
	"\x05value\x18\x02 \x01(\v2\x13.allot.v1.QuotaSpecR\x05value:\x028\x01\"9\n" +
	"\tQuotaSpec\x12\x16\n" +
	"\x06budget\x18\x01 \x01(\x03R\x06budget\x12\x14\n" +
	"\x05waste\x18\x02 \x01(\x03R\x05waste\",\n" +
	"\x10AddMemberRequest\x12\x18\n" +
	"\aaddress\x18\x01 \x01(\tR\aaddress\"O\n" +
	"\x11AddMemberResponse\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\rR\x02id\x12*\n" +
	"\amembers\x18\x02 \x03(\v2\x10.allot.v1.MemberR\amembers\"%\n" +
	"\x13RemoveMemberRequest\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\rR\x02id\"B\n" +
	"\x14RemoveMemberResponse\x12*\n" +
	"\amembers\x18\x01 \x03(\v2\x10.allot.v1.MemberR\amembers2\xc3\x05\n" +
	"\x05Allot\x12J\n" +
	"\vOpenSession\x12\x1c.allot.v1.OpenSessionRequest\x1a\x1d.allot.v1.OpenSessionResponse\x12D\n" +
	"\tKeepAlive\x12\x1a.allot.v1.KeepAliveRequest\x1a\x1b.allot.v1.KeepAliveResponse\x12M\n" +
	"\fCloseSession\x12\x1d.allot.v1.CloseSessionRequest\x1a\x1e.allot.v1.CloseSessionResponse\x125\n" +
	"\x04Lock\x12\x15.allot.v1.LockRequest\x1a\x16.allot.v1.LockResponse\x12;\n" +
	"\x06Unlock\x12\x17.allot.v1.UnlockRequest\x1a\x18.allot.v1.UnlockResponse\x12>\n" +
	"\aAcquire\x12\x18.allot.v1.AcquireRequest\x1a\x19.allot.v1.AcquireResponse\x12>\n" +
	"\aRelease\x12\x18.allot.v1.ReleaseRequest\x1a\x19.allot.v1.ReleaseResponse\x125\n" +
	"\x04Take\x12\x15.allot.v1.TakeRequest\x1a\x16.allot.v1.TakeResponse\x12;\n" +
	"\x06Locate\x12\x17.allot.v1.LocateRequest\x1a\x18.allot.v1.LocateResponse\x121\n" +
	"\x05Calls\x12\x0e.allot.v1.Call\x1a\x14.allot.v1.CallResult(\x010\x01\x12>\n" +
	"\aHolders\x12\x18.allot.v1.HoldersRequest\x1a\x19.allot.v1.HoldersResponse2\xe8\x01\n" +
	"\x05Admin\x12J\n" +
	"\vListMembers\x12\x1c.allot.v1.ListMembersRequest\x1a\x1d.allot.v1.ListMembersResponse\x12D\n" +
	"\tAddMember\x12\x1a.allot.v1.AddMemberRequest\x1a\x1b.allot.v1.AddMemberResponse\x12M\n" +
	"\fRemoveMember\x12\x1d.allot.v1.RemoveMemberRequest\x1a\x1e.allot.v1.RemoveMemberResponseB1Z/github.com/allot-dev/allot/api/allot/v1;allotv1b\x06proto3"

var (
	file_allot_v1_allot_proto_rawDescOnce sync.Once
	file_allot_v1_allot_proto_rawDescData []byte
)

func file_allot_v1_allot_proto_rawDescGZIP() []byte {
	file_allot_v1_allot_proto_rawDescOnce.Do(func() {
		file_allot_v1_allot_proto_rawDescData = protoimpl.X.CompressGZIP(unsafe.Slice(unsafe.StringData(file_allot_v1_allot_proto_rawDesc), len(file_allot_v1_allot_proto_rawDesc)))
	})
	return file_allot_v1_allot_proto_rawDescData
}

var file_allot_v1_allot_proto_msgTypes = make([]protoimpl.MessageInfo, 36)
var file_allot_v1_allot_proto_goTypes = []any{
	(*HoldersRequest)(nil),       // 0: allot.v1.HoldersRequest
	(*HoldersResponse)(nil),      // 1: allot.v1.HoldersResponse
	(*Holder)(nil),               // 2: allot.v1.Holder
	(*LocateRequest)(nil),        // 3: allot.v1.LocateRequest
	(*LocateResponse)(nil),       // 4: allot.v1.LocateResponse
	(*CallsHello)(nil),           // 5: allot.v1.CallsHello
	(*Call)(nil),                 // 6: allot.v1.Call
	(*CallResult)(nil),           // 7: allot.v1.CallResult
	(*CallError)(nil),            // 8: allot.v1.CallError
	(*OpenSessionRequest)(nil),   // 9: allot.v1.OpenSessionRequest
	(*OpenSessionResponse)(nil),  // 10: allot.v1.OpenSessionResponse
	(*KeepAliveRequest)(nil),     // 11: allot.v1.KeepAliveRequest
	(*KeepAliveResponse)(nil),    // 12: allot.v1.KeepAliveResponse
	(*CloseSessionRequest)(nil),  // 13: allot.v1.CloseSessionRequest
	(*CloseSessionResponse)(nil), // 14: allot.v1.CloseSessionResponse
	(*Token)(nil),                // 15: allot.v1.Token
	(*LockRequest)(nil),          // 16: allot.v1.LockRequest
	(*LockResponse)(nil),         // 17: allot.v1.LockResponse
	(*UnlockRequest)(nil),        // 18: allot.v1.UnlockRequest
	(*UnlockResponse)(nil),       // 19: allot.v1.UnlockResponse
	(*AcquireRequest)(nil),       // 20: allot.v1.AcquireRequest
	(*AcquireResponse)(nil),      // 21: allot.v1.AcquireResponse
	(*ReleaseRequest)(nil),       // 22: allot.v1.ReleaseRequest
	(*ReleaseResponse)(nil),      // 23: allot.v1.ReleaseResponse
	(*TakeRequest)(nil),          // 24: allot.v1.TakeRequest
	(*TakeResponse)(nil),         // 25: allot.v1.TakeResponse
	(*ListMembersRequest)(nil),   // 26: allot.v1.ListMembersRequest
	(*Member)(nil),               // 27: allot.v1.Member
	(*ListMembersResponse)(nil),  // 28: allot.v1.ListMembersResponse
	(*ClusterSpec)(nil),          // 29: allot.v1.ClusterSpec
	(*QuotaSpec)(nil),            // 30: allot.v1.QuotaSpec
	(*AddMemberRequest)(nil),     // 31: allot.v1.AddMemberRequest
	(*AddMemberResponse)(nil),    // 32: allot.v1.AddMemberResponse
	(*RemoveMemberRequest)(nil),  // 33: allot.v1.RemoveMemberRequest
	(*RemoveMemberResponse)(nil), // 34: allot.v1.RemoveMemberResponse
	nil,                          // 35: allot.v1.ClusterSpec.QuotasEntry
	(*anypb.Any)(nil),            // 36: google.protobuf.Any
}
var file_allot_v1_allot_proto_depIdxs = []int32{
	2,  // 0: allot.v1.HoldersResponse.holders:type_name -> allot.v1.Holder
	15, // 1: allot.v1.Holder.token:type_name -> allot.v1.Token
	16, // 2: allot.v1.Call.lock:type_name -> allot.v1.LockRequest
	18, // 3: allot.v1.Call.unlock:type_name -> allot.v1.UnlockRequest
	20, // 4: allot.v1.Call.acquire:type_name -> allot.v1.AcquireRequest
	22, // 5: allot.v1.Call.release:type_name -> allot.v1.ReleaseRequest
	8,  // 6: allot.v1.CallResult.error:type_name -> allot.v1.CallError
	17, // 7: allot.v1.CallResult.lock:type_name -> allot.v1.LockResponse
	19, // 8: allot.v1.CallResult.unlock:type_name -> allot.v1.UnlockResponse
	21, // 9: allot.v1.CallResult.acquire:type_name -> allot.v1.AcquireResponse
	23, // 10: allot.v1.CallResult.release:type_name -> allot.v1.ReleaseResponse
	36, // 11: allot.v1.CallError.details:type_name -> google.protobuf.Any
	15, // 12: allot.v1.LockResponse.tokens:type_name -> allot.v1.Token
	15, // 13: allot.v1.AcquireResponse.token:type_name -> allot.v1.Token
	27, // 14: allot.v1.ListMembersResponse.members:type_name -> allot.v1.Member
	29, // 15: allot.v1.ListMembersResponse.cluster:type_name -> allot.v1.ClusterSpec
	35, // 16: allot.v1.ClusterSpec.quotas:type_name -> allot.v1.ClusterSpec.QuotasEntry
	27, // 17: allot.v1.AddMemberResponse.members:type_name -> allot.v1.Member
	27, // 18: allot.v1.RemoveMemberResponse.members:type_name -> allot.v1.Member
	30, // 19: allot.v1.ClusterSpec.QuotasEntry.value:type_name -> allot.v1.QuotaSpec
	9,  // 20: allot.v1.Allot.OpenSession:input_type -> allot.v1.OpenSessionRequest
	11, // 21: allot.v1.Allot.KeepAlive:input_type -> allot.v1.KeepAliveRequest
	13, // 22: allot.v1.Allot.CloseSession:input_type -> allot.v1.CloseSessionRequest
	16, // 23: allot.v1.Allot.Lock:input_type -> allot.v1.LockRequest
	18, // 24: allot.v1.Allot.Unlock:input_type -> allot.v1.UnlockRequest
	20, // 25: allot.v1.Allot.Acquire:input_type -> allot.v1.AcquireRequest
	22, // 26: allot.v1.Allot.Release:input_type -> allot.v1.ReleaseRequest
	24, // 27: allot.v1.Allot.Take:input_type -> allot.v1.TakeRequest
	3,  // 28: allot.v1.Allot.Locate:input_type -> allot.v1.LocateRequest
	6,  // 29: allot.v1.Allot.Calls:input_type -> allot.v1.Call
	0,  // 30: allot.v1.Allot.Holders:input_type -> allot.v1.HoldersRequest
	26, // 31: allot.v1.Admin.ListMembers:input_type -> allot.v1.ListMembersRequest
	31, // 32: allot.v1.Admin.AddMember:input_type -> allot.v1.AddMemberRequest
	33, // 33: allot.v1.Admin.RemoveMember:input_type -> allot.v1.RemoveMemberRequest
	10, // 34: allot.v1.Allot.OpenSession:output_type -> allot.v1.OpenSessionResponse
	12, // 35: allot.v1.Allot.KeepAlive:output_type -> allot.v1.KeepAliveResponse
	14, // 36: allot.v1.Allot.CloseSession:output_type -> allot.v1.CloseSessionResponse
	17, // 37: allot.v1.Allot.Lock:output_type -> allot.v1.LockResponse
	19, // 38: allot.v1.Allot.Unlock:output_type -> allot.v1.UnlockResponse
	21, // 39: allot.v1.Allot.Acquire:output_type -> allot.v1.AcquireResponse
	23, // 40: allot.v1.Allot.Release:output_type -> allot.v1.ReleaseResponse
	25, // 41: allot.v1.Allot.Take:output_type -> allot.v1.TakeResponse
	4,  // 42: allot.v1.Allot.Locate:output_type -> allot.v1.LocateResponse
	7,  // 43: allot.v1.Allot.Calls:output_type -> allot.v1.CallResult
	1,  // 44: allot.v1.Allot.Holders:output_type -> allot.v1.HoldersResponse
	28, // 45: allot.v1.Admin.ListMembers:output_type -> allot.v1.ListMembersResponse
	32, // 46: allot.v1.Admin.AddMember:output_type -> allot.v1.AddMemberResponse
	34, // 47: allot.v1.Admin.RemoveMember:output_type -> allot.v1.RemoveMemberResponse
	34, // [34:48] is the sub-list for method output_type
	20, // [20:34] is the sub-list for method input_type
	20, // [20:20] is the sub-list for extension type_name
	20, // [20:20] is the sub-list for extension extendee
	0,  // [0:20] is the sub-list for field type_name
}

func init() { file_allot_v1_allot_proto_init() }
func file_allot_v1_allot_proto_init() {
	if File_allot_v1_allot_proto != nil {
		return
	}
	file_allot_v1_allot_proto_msgTypes[6].OneofWrappers = []any{
		(*Call_Lock)(nil),
		(*Call_Unlock)(nil),
		(*Call_Acquire)(nil),
		(*Call_Release)(nil),
		(*Call_Cancel)(nil),
	}
	file_allot_v1_allot_proto_msgTypes[7].OneofWrappers = []any{
		(*CallResult_Lock)(nil),
		(*CallResult_Unlock)(nil),
		(*CallResult_Acquire)(nil),
		(*CallResult_Release)(nil),
	}
	type x struct{}
	out := protoimpl.TypeBuilder{
		File: protoimpl.DescBuilder{
			GoPackagePath: reflect.TypeOf(x{}).PkgPath(),
			RawDescriptor: unsafe.Slice(unsafe.StringData(file_allot_v1_allot_proto_rawDesc), len(file_allot_v1_allot_proto_rawDesc)),
			NumEnums:      0,
			NumMessages:   36,
			NumExtensions: 0,
			NumServices:   2,
		},
		GoTypes:           file_allot_v1_allot_proto_goTypes,
		DependencyIndexes: file_allot_v1_allot_proto_depIdxs,
		MessageInfos:      file_allot_v1_allot_proto_msgTypes,
	}.Build()
	File_allot_v1_allot_proto = out.File
	file_allot_v1_allot_proto_goTypes = nil
	file_allot_v1_allot_proto_depIdxs = nil
}
