package service

import (
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// statusError is an error status whose details carry a
// google.rpc.ErrorInfo with reason and metadata (pairs of key, value): the
// code keeps its meaning for a client that reads only codes, the reason
// tells errors of one code apart (pb.ErrorDomain).
func statusError(c codes.Code, reason string, msg string, meta ...string) error {
	info := &errdetails.ErrorInfo{Reason: reason, Domain: pb.ErrorDomain}
	if len(meta) > 0 {
		info.Metadata = map[string]string{}
		for i := 0; i+1 < len(meta); i += 2 {
			info.Metadata[meta[i]] = meta[i+1]
		}
	}
	s, err := status.New(c, msg).WithDetails(info)
	if err != nil {
		// ErrorInfo always marshals; the plain status says the same.
		return status.Error(c, msg)
	}
	return s.Err()
}

// Errors every handler may answer.
var (
	errExpired = statusError(codes.NotFound, pb.ReasonSessionExpired, "session expired")
	// errNotHere: the node does not serve the session and cannot tell
	// that it ended (Node.session).
	errNotHere = statusError(codes.Unavailable, pb.ReasonSessionNotHere, "this node does not serve the session, which may be alive at another node: try the other nodes")
	errTaken   = statusError(codes.FailedPrecondition, pb.ReasonTaken, "taken")
)

// errNotHeld: Unlock or Release of grant gid, which the live session does
// not hold. NOT_FOUND, as before this reason existed (an older client
// still reads it as the session's end, as it did), with the reason
// NOT_HELD that a client of this version reads as client.ErrNotHeld.
func errNotHeld(gid uint64) error {
	return statusError(codes.NotFound, pb.ReasonNotHeld, fmt.Sprintf("grant %d is not held in this session (given back already, or not its own)", gid))
}
