"""The Python client of an allot cluster: sessions kept alive in the
background and moved to the node that adopts them when theirs is lost,
multi-resource locks, semaphores and quotas, with fencing tokens.

    import allot

    with allot.Client(["127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"]) as c:
        with c.session(ttl=10) as s:
            with s.lock("accounts/alice", "accounts/bob") as g:
                store.write(..., token=g.token("accounts/alice"))

allot.v1 holds the code generated from api/allot/v1/allot.proto, for the
raw API.
"""

from .client import MAX_LOCK_NAMES, MAX_NAME_BYTES, MAX_TTL, Client, Grant, Quota, Semaphore, Session, Token
from .errors import (
    AllotError,
    CancelledError,
    CutShortError,
    DeadlineError,
    ExhaustedError,
    InvalidError,
    LimitError,
    LockedError,
    MismatchError,
    NotHeldError,
    SessionExpiredError,
    TLSError,
    UnauthenticatedError,
    UnavailableError,
)

__all__ = [
    "MAX_LOCK_NAMES", "MAX_NAME_BYTES", "MAX_TTL",
    "Client", "Grant", "Quota", "Semaphore", "Session", "Token",
    "AllotError", "CancelledError", "CutShortError", "DeadlineError", "ExhaustedError", "InvalidError",
    "LimitError", "LockedError", "MismatchError", "NotHeldError", "SessionExpiredError", "TLSError",
    "UnauthenticatedError", "UnavailableError",
]
