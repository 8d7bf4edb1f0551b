"""The client's side of the lease rule (session/lease.go in Go: Believed,
BelievedAtBackup): how long after it sent a keep-alive a client may count
its session alive. Times are seconds (floats); a lease of 0 or less is a
node that gives none (an older version), bounded by the TTL alone."""


def believed(ttl, lease):
    """How long after it sent a keep-alive its session's node answered,
    with the node's lease, the session may be counted alive: its TTL, and
    no longer than the node serves (a node cut off from the cluster stops
    serving when its lease runs out, and the others may then hand out what
    the session holds, unless its backup adopts it)."""
    if lease > 0:
        return min(ttl, lease)
    return ttl


def lapsing(ttl, lease, longest):
    """Whether a keep-alive's answer with the node's lease says the node is
    losing it, for a client whose nodes answered at most longest: the
    lease bounds what the client counts on (under the TTL), and it is
    under half of longest (a serving node renews its lease every quarter
    of it). The client asks the session's backup then, before the lease
    is out (the Go client's session.Lapsing)."""
    return 0 < lease < ttl and lease < longest / 2


def believed_at_backup(ttl, since, lease, kept, said):
    """How long after it sent a keep-alive the session's backup answered
    (SESSION_MOVING: it adopts the session if its node is lost), since
    seconds after the last keep-alive its node answered was sent, the
    session may be counted alive: not past the backup's lease (it cannot
    adopt the session later), nor past the TTL from the last keep-alive
    that reached its node (the session ends there then), nor, when the
    backup says (said), past what it keeps (an adopter keeps that
    deadline; an older node that does not say adopts with a fresh TTL)."""
    b = min(ttl - since, lease)
    if said:
        b = min(b, kept)
    return b
