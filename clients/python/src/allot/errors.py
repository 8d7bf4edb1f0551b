"""The client's exceptions: one class per error that means something to a
caller, mapped from the node's gRPC status code and, where a code means
more than one thing, the reason of the google.rpc.ErrorInfo (domain
"allot.dev") in the status details, as the Go client maps them
(api/allot/v1/allot.proto lists the codes and reasons).

Every exception is an AllotError; its code (a grpc.StatusCode, None for
what the client refused before sending), reason and metadata are those
of the node's answer.
"""

import grpc

DOMAIN = "allot.dev"

# Reasons of the ErrorInfo details (api/allot/v1/reasons.go).
SESSION_EXPIRED = "SESSION_EXPIRED"
NOT_HELD = "NOT_HELD"
TAKEN = "TAKEN"
UNITS_MISMATCH = "UNITS_MISMATCH"
QUOTA_EXHAUSTED = "QUOTA_EXHAUSTED"
TAKE_CUT_SHORT = "TAKE_CUT_SHORT"
NODE_LIMIT = "NODE_LIMIT"
SESSION_MOVING = "SESSION_MOVING"
SESSION_NOT_HERE = "SESSION_NOT_HERE"
BAD_INPUT = "BAD_INPUT"


class AllotError(Exception):
    """Any error of the client."""

    def __init__(self, message, code=None, reason="", metadata=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.metadata = dict(metadata or {})


class InvalidError(AllotError, ValueError):
    """Bad input, refused by the client before anything was sent or by the
    node (INVALID_ARGUMENT; field names the field, when known): a bad
    name, too many names, units or n out of range, a TTL out of
    1ms..24h, a quota the cluster does not declare."""

    @property
    def field(self):
        return self.metadata.get("field", "")


class SessionExpiredError(AllotError):
    """The session is lost: its lease expired (by the client's own count:
    no node answered a keep-alive in time) or it was closed; its grants
    are gone, and may be someone else's."""


class NotHeldError(AllotError):
    """Unlock or Release of a grant the session does not hold (any more):
    given back twice. The session is alive and keeps its other grants."""


class LockedError(AllotError):
    """try_lock or try_acquire found the resources taken."""


class MismatchError(AllotError):
    """Acquire of a semaphore the cluster knows with other units (a
    name's units are those of its first use); units is the cluster's
    (0 if the node did not say)."""

    @property
    def units(self):
        return _count(self.metadata.get("units"))


class ExhaustedError(AllotError):
    """Take: the quota has no permit left, after taken of the asked
    permits (those are consumed: a permit once issued is never given
    back)."""

    @property
    def taken(self):
        return _count(self.metadata.get("taken"))

    @property
    def asked(self):
        return _count(self.metadata.get("asked"))


class CutShortError(AllotError):
    """Take ended after taken of the asked permits (consumed) for another
    reason than the quota's end: cause says which (UnavailableError: the
    node stopped serving; CancelledError, DeadlineError)."""

    def __init__(self, message, code=None, reason="", metadata=None, cause=None):
        super().__init__(message, code, reason, metadata)
        self.cause = cause

    @property
    def taken(self):
        return _count(self.metadata.get("taken"))

    @property
    def asked(self):
        return _count(self.metadata.get("asked"))


class LimitError(AllotError):
    """A limit of the node was reached; limit names it ("sessions",
    "semaphores", ...). Session() tries the other nodes first."""

    @property
    def limit(self):
        return self.metadata.get("limit", "")


class UnavailableError(AllotError):
    """The node cannot serve the call now (down, shutting down, not
    serving, or the session is moving to another node). A Lock, Acquire
    or Take that ends so may have been granted: the grant then ends with
    the session."""


class UnauthenticatedError(AllotError):
    """The node wants a client token and got none, or one it does not
    know."""


class TLSError(AllotError):
    """The TLS handshake failed: the node refused the client's certificate
    or the client the node's."""


class DeadlineError(AllotError, TimeoutError):
    """The call's timeout passed before it was answered."""


class CancelledError(AllotError):
    """The call was cancelled."""


def _count(s):
    try:
        return int(s)
    except (TypeError, ValueError):
        return 0


def _varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def _fields(b):
    """The (number, value) pairs of a protobuf message's wire form: varints
    as ints, length-delimited fields as bytes (the only kinds google.rpc's
    Status, Any and ErrorInfo use; fixed-size ones are skipped)."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        num, kind = key >> 3, key & 7
        if kind == 0:
            v, i = _varint(b, i)
        elif kind == 2:
            n, i = _varint(b, i)
            v, i = bytes(b[i:i + n]), i + n
        elif kind == 1:
            i += 8
            continue
        elif kind == 5:
            i += 4
            continue
        else:
            raise ValueError("wire type %d" % kind)
        yield num, v


def error_info(status_details):
    """The reason and metadata of the ErrorInfo of domain allot.dev in a
    serialized google.rpc.Status ("", {} if none: a node of an older
    version). Decoded by hand so that the client needs no googleapis
    package beside grpcio and protobuf."""
    try:
        for num, v in _fields(status_details):
            if num != 3:  # Status.details: repeated Any
                continue
            url, value = "", b""
            for n, w in _fields(v):
                if n == 1:
                    url = w.decode()
                elif n == 2:
                    value = w
            if not url.endswith("/google.rpc.ErrorInfo"):
                continue
            reason, domain, meta = "", "", {}
            for n, w in _fields(value):
                if n == 1:
                    reason = w.decode()
                elif n == 2:
                    domain = w.decode()
                elif n == 3:  # map<string, string>: entries of key 1, value 2
                    entry = dict(_fields(w))
                    meta[entry.get(1, b"").decode()] = entry.get(2, b"").decode()
            if domain == DOMAIN:
                return reason, meta
    except (ValueError, IndexError, UnicodeDecodeError):
        pass
    return "", {}


def status_of(err):
    """The code, message, reason and metadata of a grpc.RpcError."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    message = err.details() if hasattr(err, "details") else str(err)
    reason, meta = "", {}
    md = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    for key, value in md or ():
        if key == "grpc-status-details-bin":
            reason, meta = error_info(value)
    return code, message or "", reason, meta


def handshake(message):
    """Whether an UNAVAILABLE status is a failed TLS handshake: gRPC gives
    it no code of its own, only the TLS library's words."""
    m = message.lower()
    return "handshake" in m and ("ssl" in m or "tls" in m or "certificate" in m) or "certificate verify failed" in m


def from_rpc(err):
    """The exception that err, a grpc.RpcError of a call to a node, means."""
    code, message, reason, meta = status_of(err)
    text = "allot: " + message
    if reason == QUOTA_EXHAUSTED:
        return ExhaustedError("allot: quota exhausted: " + message, code, reason, meta)
    if reason == TAKE_CUT_SHORT:
        cause = _by_code(code, text, "", {})
        return CutShortError(text, code, reason, meta, cause=cause)
    return _by_code(code, text, reason, meta)


def _by_code(code, text, reason, meta):
    C = grpc.StatusCode
    if code == C.NOT_FOUND:
        cls = NotHeldError if reason == NOT_HELD else SessionExpiredError
    elif code == C.FAILED_PRECONDITION:
        cls = MismatchError if reason == UNITS_MISMATCH else LockedError
    elif code == C.RESOURCE_EXHAUSTED:
        cls = LimitError if reason == NODE_LIMIT else ExhaustedError
    elif code == C.UNAVAILABLE:
        cls = TLSError if handshake(text) else UnavailableError
    elif code == C.UNAUTHENTICATED:
        cls = UnauthenticatedError
    elif code == C.INVALID_ARGUMENT:
        cls = InvalidError
    elif code == C.DEADLINE_EXCEEDED:
        cls = DeadlineError
    elif code == C.CANCELLED:
        cls = CancelledError
    else:
        cls = AllotError
    return cls(text, code, reason, meta)
