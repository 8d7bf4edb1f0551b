package allotv1

// ErrorDomain is the domain of the google.rpc.ErrorInfo an error status of
// the Allot service carries in its details. The reason tells apart errors
// that share a code, so that a client keeps a code's old meaning when it
// does not read the details, and a newer client reads the finer one.
const ErrorDomain = "allot.dev"

// Reasons of the ErrorInfo details, by code.
const (
	// ReasonSessionExpired (NOT_FOUND): the session is unknown: its lease
	// expired or it was closed; its grants are gone.
	ReasonSessionExpired = "SESSION_EXPIRED"
	// ReasonNotHeld (NOT_FOUND): Unlock or Release of a grant the live
	// session does not hold (given back already, or never its own); the
	// session is alive.
	ReasonNotHeld = "NOT_HELD"
	// ReasonTaken (FAILED_PRECONDITION): TryLock or TryAcquire found the
	// resources taken.
	ReasonTaken = "TAKEN"
	// ReasonUnitsMismatch (FAILED_PRECONDITION): Acquire named a
	// semaphore the cluster knows with other units; metadata "units" is
	// the cluster's.
	ReasonUnitsMismatch = "UNITS_MISMATCH"
	// ReasonExhausted (RESOURCE_EXHAUSTED): the quota has no permit left;
	// metadata "taken" and "asked" count the Take's permits: the taken
	// ones are consumed.
	ReasonExhausted = "QUOTA_EXHAUSTED"
	// ReasonCutShort (UNAVAILABLE, or the code of a cancelled call): a
	// Take ended after some of its permits, for another reason than the
	// quota's end (the view changed, the node stopped serving); metadata
	// "taken" and "asked" as for ReasonExhausted.
	ReasonCutShort = "TAKE_CUT_SHORT"
	// ReasonLimit (RESOURCE_EXHAUSTED): a limit of the node was reached;
	// metadata "limit" names it ("sessions", "semaphores").
	ReasonLimit = "NODE_LIMIT"
	// ReasonSessionMoving (UNAVAILABLE): the node called keeps the
	// session as its backup but does not serve it: the session is alive,
	// served by another node, and this node adopts it if that node is
	// lost. Metadata "lease_ms": this node serves at least that much
	// longer; "node_addr": the address of the node serving the session,
	// as far as this node knows (it may be the one the client lost). The
	// client tries KeepAlive at every node until one answers (allot.proto
	// says how).
	ReasonSessionMoving = "SESSION_MOVING"
	// ReasonSessionNotHere (UNAVAILABLE): the node called does not serve
	// the session and cannot tell that it ended: it handed the session to
	// its backup when it stopped serving, or the id is another node's, or
	// of an earlier run of this node (a restart), whose backup adopts
	// its sessions. The client looks for the session's node as for
	// SESSION_MOVING, with no lease to count on: KeepAlive at every node
	// until one answers; the session is lost when its own count runs
	// out. SESSION_EXPIRED (NOT_FOUND) is said only of a session known
	// to have ended. A node of an earlier version answers NOT_FOUND,
	// SESSION_EXPIRED for all of these.
	ReasonSessionNotHere = "SESSION_NOT_HERE"
	// ReasonBadInput (INVALID_ARGUMENT): the request was refused as bad
	// input; metadata "field" names the field.
	ReasonBadInput = "BAD_INPUT"
)
