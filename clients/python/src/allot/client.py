"""Sessions, locks, semaphores and quotas of an allot cluster.

The same rules as the Go client (client/client.go), which the comments of
api/allot/v1/allot.proto state for every client:

- A session is a lease the client keeps alive from a background thread,
  three times per bound (its TTL, or the node's lease if shorter). The
  client counts the session alive until that bound after it sent the last
  keep-alive that succeeded (lease.believed); a backup's SESSION_MOVING
  answer moves it on as far as lease.believed_at_backup allows. When that
  time passes with no node answering, the session is lost: done is set
  and calls raise SessionExpiredError.
- A session is served by one node at a time. When that node does not
  answer (UNAVAILABLE, a keep-alive past its deadline), the session
  moves: KeepAlive with its id to each node in turn, its old node
  included, until one answers OK (the backup that adopted the session,
  with its grants and their tokens).
- Unlock and Release are safe to repeat: they wait for the move and are
  sent again on the new node. A Lock, Acquire or Take cut off by its
  node's loss raises UnavailableError and may be held by the session
  until it ends: it is not repeated blindly.
- A node answers an Unlock or a Release before the session's backup has
  the give-back; lost in between, it leaves the grant held by the adopted
  session. So the client gives back again, on the node the session moves
  to, what it gave back since its last Lock or Acquire answered by the
  same node (NotHeldError there is ignored: it was not needed).
- An Unlock or a Release sent again after its node was lost may find the
  give-back done there and recorded at the backup that adopted the
  session: NotHeldError then means done, and is not raised. Only one
  answered not held at its first send raises it.
- A node's NOT_FOUND (SESSION_EXPIRED) is SessionExpiredError only once
  the session is lost by the client's own count; until then the session
  may live at the node that adopted it, and the call is UnavailableError.
"""

import collections
import itertools
import socket
import threading
import time
import weakref
from typing import NamedTuple

import grpc

from . import errors as E
from .lease import believed, believed_at_backup, lapsing
from .v1 import allot_pb2 as pb
from .v1 import allot_pb2_grpc as pb_grpc

# Limits of a request's input, the node's own.
MAX_NAME_BYTES = 256
MAX_LOCK_NAMES = 128
MAX_TTL = 24 * 3600.0

# MOVE_TRY bounds one keep-alive while the session moves; MOVE_PAUSE is the
# wait after every node was tried (the new node is adopting the session:
# a view change takes the lost node's lease and an election).
MOVE_TRY = 0.5
MOVE_PAUSE = 0.02

# A node back after a crash is worth trying again within a second, not
# after gRPC's default backoff of up to two minutes (the Go client's
# settings).
_CHANNEL_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 10),
    ("grpc.min_reconnect_backoff_ms", 1000),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


class Token(NamedTuple):
    """A fencing token: a resource accepts a holder's write only if its
    token is at least the largest it has seen. Tokens order by (epoch,
    counter), as tuples do."""

    epoch: int
    counter: int

    def __str__(self):
        return "%d.%d" % (self.epoch, self.counter)


def _check_name(what, name, semaphore=False):
    if not isinstance(name, str) or name == "":
        raise E.InvalidError("allot: bad name: %s: empty name" % what, metadata={"field": what})
    b = name.encode("utf-8", "surrogatepass")
    if len(b) > MAX_NAME_BYTES:
        raise E.InvalidError("allot: bad name: %s: a name is at most %d bytes, got %d" % (what, MAX_NAME_BYTES, len(b)), metadata={"field": what})
    if "\x00" in name:
        raise E.InvalidError("allot: bad name: %s: a name may not hold a NUL byte" % what, metadata={"field": what})
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise E.InvalidError("allot: bad name: %s: a name must be valid UTF-8" % what, metadata={"field": what}) from None
    if semaphore and ("/" in name or "@" in name):
        raise E.InvalidError("allot: bad name: %s %r: '/' and '@' are not allowed in a semaphore name" % (what, name), metadata={"field": what})


def _elsewhere(err):
    """Whether err says the node called does not serve the session now:
    it is unavailable (down, not serving, SESSION_MOVING,
    SESSION_NOT_HERE; not a refused TLS handshake), or it does not know
    the session (NOT_FOUND other than NOT_HELD). The keep-alive finds out
    which: the session moves, or it is lost."""
    code, message, reason, _ = E.status_of(err)
    if code == grpc.StatusCode.UNAVAILABLE:
        return not E.handshake(message)
    return code == grpc.StatusCode.NOT_FOUND and reason != E.NOT_HELD


def _serves(err):
    """False when a node's answer says it does not serve the session and
    will not come to (SESSION_NOT_HERE, NOT_FOUND); a backup that keeps it
    (SESSION_MOVING) may adopt it, a node that did not answer may serve it."""
    code, _, reason, _ = E.status_of(err)
    if code == grpc.StatusCode.NOT_FOUND:
        return False
    return reason != E.SESSION_NOT_HERE


def _left(deadline):
    """Seconds until deadline (None: no deadline), never below zero."""
    if deadline is None:
        return None
    return max(deadline - time.monotonic(), 0.0)


class Client:
    """Connections to the nodes of a cluster (any node serves any request;
    sessions are spread over them). Give every node's address: a session
    moves only to a node the client knows.

    credentials: grpc.ChannelCredentials for TLS (tls_files=(ca, cert,
    key) reads PEM files, as allot certs writes them, for mTLS); token: a
    client token sent with every call (allot serve --auth-tokens), only
    over TLS unless allow_insecure_token."""

    def __init__(self, addrs, credentials=None, tls_files=None, token=None, allow_insecure_token=False, options=()):
        if isinstance(addrs, str):
            addrs = [a for a in addrs.split(",") if a]
        addrs = list(addrs)
        if not addrs:
            raise E.InvalidError("allot: no node address")
        if tls_files is not None:
            ca, cert, key = (open(p, "rb").read() for p in tls_files)
            credentials = grpc.ssl_channel_credentials(root_certificates=ca, private_key=key, certificate_chain=cert)
        opts = _CHANNEL_OPTIONS + list(options)
        if token:
            if credentials is None and not allow_insecure_token:
                raise E.InvalidError("allot: a token over a connection without TLS (allow_insecure_token allows it)")
            metadata = [("authorization", "Bearer " + token)]
            self._interceptor = _Bearer(metadata)
        else:
            self._interceptor = None
        self.addrs = addrs
        self._channels = []
        for a in addrs:
            ch = grpc.secure_channel(a, credentials, opts) if credentials is not None else grpc.insecure_channel(a, opts)
            if self._interceptor is not None:
                ch = grpc.intercept_channel(ch, self._interceptor)
            self._channels.append(ch)
        self._stubs = [pb_grpc.AllotStub(ch) for ch in self._channels]
        self._next = itertools.count()
        self._sessions = weakref.WeakSet()

    def close(self):
        """Closes the connections. Sessions still open stop being kept
        alive (as with Session.orphan): their leases run out at the nodes
        after their TTL; close them first to give their grants back now."""
        for s in list(self._sessions):
            s.orphan()
        for ch in self._channels:
            ch.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def session(self, ttl=10.0, timeout=None, near=None):
        """Opens a session of ttl seconds (at most 24h) on one of the
        nodes, kept alive until it is closed or lost. A node that is down
        or at its most sessions is passed over for the next.

        near: open it on the node where that lock name lives (its
        resource manager), if the client has that node's address: a lock
        of that name alone then takes no message between nodes. A
        placement, not a promise (as the Go client's WithNear): without
        an answer, or the address, the session opens as without it, and
        it stays where it opened when the members change."""
        if not (0 < ttl <= MAX_TTL):
            raise E.InvalidError("allot: a session TTL must be positive and at most 24h, got %r" % (ttl,), metadata={"field": "ttl"})
        deadline = None if timeout is None else time.monotonic() + timeout
        n = len(self._stubs)
        first = next(self._next)
        if near is not None:
            _check_name("near", near)
            k = self._home(near, first, deadline)
            if k is not None:
                first = k
        req = pb.OpenSessionRequest(ttl_ms=max(1, int(ttl * 1000)))
        err = None
        for i in range(n):
            at = (first + i) % n
            sent = time.monotonic()
            try:
                r = self._stubs[at].OpenSession(req, timeout=_left(deadline))
            except grpc.RpcError as e:
                err = e
                code, _, reason, _ = E.status_of(e)
                if (code == grpc.StatusCode.UNAVAILABLE or reason == E.NODE_LIMIT) and _left(deadline) != 0:
                    continue
                break
            s = Session(self, at, r.session, ttl, sent, r.lease_ms)
            self._sessions.add(s)
            return s
        raise E.from_rpc(err)


    def _home(self, name, first, deadline):
        """The index of the node where name is at home, as the first node
        (from first on) that answers says, if the client has its address
        (as the membership has it, or resolving to the same address and
        port); None otherwise."""
        n = len(self._stubs)
        for i in range(n):
            try:
                r = self._stubs[(first + i) % n].Locate(pb.LocateRequest(name=name), timeout=_left(deadline))
            except grpc.RpcError as e:
                if E.status_of(e)[0] == grpc.StatusCode.UNIMPLEMENTED or _left(deadline) == 0:
                    return None
                continue
            want = _resolve(r.node_addr)
            for k, a in enumerate(self.addrs):
                if a == r.node_addr or want is not None and _resolve(a) == want:
                    return k
            return None
        return None


def _resolve(addr):
    """(IP, port) of host:port, None if it does not resolve."""
    host, _, port = addr.rpartition(":")
    try:
        return socket.gethostbyname(host.strip("[]")), int(port)
    except (OSError, ValueError):
        return None


class _Bearer(grpc.UnaryUnaryClientInterceptor):
    """Adds the client token to every call."""

    def __init__(self, metadata):
        self._metadata = metadata

    def intercept_unary_unary(self, continuation, details, request):
        md = list(details.metadata or []) + self._metadata
        details = _Details(details.method, details.timeout, md, details.credentials, getattr(details, "wait_for_ready", None), getattr(details, "compression", None))
        return continuation(details, request)


class _Details(collections.namedtuple("_Details", ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression")), grpc.ClientCallDetails):
    """A call's details with the token added."""


class _Done:
    """Set when the session may have expired (by the client's count) or
    was closed: from then on its grants may be someone else's. Like a
    threading.Event: is_set(), wait(timeout)."""

    def __init__(self, session):
        self._s = session

    def is_set(self):
        with self._s._cv:
            return self._s._expired()

    def wait(self, timeout=None):
        end = None if timeout is None else time.monotonic() + timeout
        s = self._s
        with s._cv:
            while not s._expired():
                t = s._until - time.monotonic()
                if end is not None:
                    t = min(t, end - time.monotonic())
                    if t <= 0:
                        return False
                s._cv.wait(max(t, 0.001))
            return True


class Session:
    """A lease in the cluster, served by one node at a time; it moves by
    itself to the node that adopts it when its node is lost. Use it as a
    context manager, or close() it."""

    def __init__(self, client, at, sid, ttl, sent, lease_ms):
        self._c = client
        self.id = sid
        self.ttl = ttl
        self._cv = threading.Condition()
        self._at = at
        self._gen = 0  # counts the moves: a call waits for it to change
        self._lost = False
        self._stopped = False
        self._kicked = False
        b = believed(ttl, lease_ms / 1000.0)
        self._last_ok = sent
        self._until = sent + b
        self._longest = lease_ms / 1000.0  # the longest lease a node answered
        # Grants given back whose give-back the session's backup may not
        # have yet: (seq, grant, kind, node).
        self._given = []
        self._seq = 0
        self.done = _Done(self)
        self._thread = threading.Thread(target=self._keeping, args=(b / 3,), name="allot-keepalive-%d" % sid, daemon=True)
        self._thread.start()

    # -- the lease ---------------------------------------------------------

    def _expired(self):
        """With _cv held: whether the session is lost; marks it so once its
        deadline has passed."""
        if not self._lost and time.monotonic() >= self._until:
            self._lost = True
            self._cv.notify_all()
        return self._lost

    def _lose(self):
        with self._cv:
            self._lost = True
            self._cv.notify_all()

    @property
    def alive(self):
        return not self.done.is_set()

    @property
    def node(self):
        """The address of the node serving the session, as given; it
        changes when the session moves."""
        with self._cv:
            return self._c.addrs[self._at]

    @property
    def renewed(self):
        """When (time.monotonic()) the last keep-alive its node answered was
        sent: the cluster keeps the session at least its TTL from then."""
        with self._cv:
            return self._last_ok

    def _node(self):
        with self._cv:
            return self._c._stubs[self._at], self._at, self._gen

    def _renewed(self, k, sent, lease_ms):
        b = believed(self.ttl, lease_ms / 1000.0)
        with self._cv:
            if k != self._at:
                self._at = k
                self._gen += 1
                if self._given:
                    threading.Thread(target=self._giving_again, args=(k,), daemon=True).start()
            # Never back: what an earlier answer promised (a backup's word
            # included) holds still.
            self._last_ok, self._until = sent, max(self._until, sent + b)
            self._longest = max(self._longest, lease_ms / 1000.0)
            self._cv.notify_all()
        return b

    def _lapsing(self, lease_ms):
        with self._cv:
            return len(self._c._stubs) > 1 and lapsing(self.ttl, lease_ms / 1000.0, self._longest)

    def _ask_backup(self, frm):
        """Asks every node but frm for the session while its node's lease
        lapses: the backup's SESSION_MOVING moves the deadline on before
        the lease is out; a node that serves the session takes it."""
        with self._cv:
            left = self._until - time.monotonic()
        for k in range(len(self._c._stubs)):
            if k == frm:
                continue
            sent = time.monotonic()
            try:
                r = self._c._stubs[k].KeepAlive(pb.KeepAliveRequest(session=self.id), timeout=max(min(left, MOVE_TRY), 0.001))
                self._renewed(k, sent, r.lease_ms)
                return
            except grpc.RpcError as e:
                code, _, reason, meta = E.status_of(e)
                if code == grpc.StatusCode.UNAVAILABLE and reason == E.SESSION_MOVING:
                    self._keep(sent, E._count(meta.get("lease_ms")), meta.get("kept_ms"))

    def _keep(self, sent, lease_ms, kept_ms):
        """A backup answered SESSION_MOVING to a keep-alive sent at sent:
        the deadline moves as far as believed_at_backup allows, never back."""
        with self._cv:
            said = kept_ms is not None
            u = sent + believed_at_backup(self.ttl, sent - self._last_ok, lease_ms / 1000.0, E._count(kept_ms) / 1000.0, said)
            if u > self._until:
                self._until = u
                self._cv.notify_all()

    def _keeping(self, every):
        try:
            self._keep_alive(every)
        except ValueError:
            # grpc's "Cannot invoke RPC on closed channel": Client.close
            # stopped the session (orphan) while a keep-alive was due.
            pass

    def _keep_alive(self, every):
        n = len(self._c._stubs)
        while True:
            with self._cv:
                wake = time.monotonic() + max(every, 0.001)
                while not (self._stopped or self._kicked or self._expired()):
                    now = time.monotonic()
                    if now >= wake:
                        break
                    self._cv.wait(max(min(wake, self._until) - now, 0.001))
                if self._stopped or self._lost:
                    return
                self._kicked = False
                at, until = self._at, self._until
            sent = time.monotonic()
            # A keep-alive is worth waiting for until the session is lost;
            # with other nodes to move to, a node that does not answer
            # (frozen, cut off silently) is left in time to find the
            # backup: after MOVE_TRY, or half the time left if sooner.
            end = max(until, sent + every)
            if n > 1:
                end = min(end, sent + min(max(every, MOVE_TRY), max((until - sent) / 2, 0.001)))
            try:
                r = self._c._stubs[at].KeepAlive(pb.KeepAliveRequest(session=self.id), timeout=max(end - sent, 0.001))
                every = self._renewed(at, sent, r.lease_ms) / 3
                if self._lapsing(r.lease_ms):
                    self._ask_backup(at)
                continue
            except grpc.RpcError as e:
                code = E.status_of(e)[0]
            if n == 1:
                # Nowhere to move: the session is lost with its node.
                if code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE):
                    self._lose()
                    return
                continue
            if code == grpc.StatusCode.CANCELLED:
                continue
            every = self._move(at)
            if every == 0:
                return

    def _move(self, frm):
        """Looks for the node that serves the session, from the one after
        frm on, until one answers a keep-alive (the next renewal's
        interval) or the session is lost or closed (0)."""
        n = len(self._c._stubs)
        for i in itertools.count(1):
            k = (frm + i) % n
            with self._cv:
                if self._stopped or self._expired():
                    return 0
            sent = time.monotonic()
            try:
                r = self._c._stubs[k].KeepAlive(pb.KeepAliveRequest(session=self.id), timeout=min(self.ttl, MOVE_TRY))
                return self._renewed(k, sent, r.lease_ms) / 3
            except grpc.RpcError as e:
                code, _, reason, meta = E.status_of(e)
                if code == grpc.StatusCode.UNAVAILABLE and reason == E.SESSION_MOVING:
                    self._keep(sent, E._count(meta.get("lease_ms")), meta.get("kept_ms"))
            if i % n == 0:
                with self._cv:
                    if not self._stopped:
                        self._cv.wait(MOVE_PAUSE)

    def _move_now(self):
        with self._cv:
            self._kicked = True
            self._cv.notify_all()

    # -- calls -------------------------------------------------------------

    def _call(self, method, req, timeout, again, tries=None):
        """Calls method of the session's node; returns (node, answer). With
        again (the call is safe to repeat), a node that does not serve the
        session sends the call, once the session has moved, to the new
        node, until it is answered, the session is lost or timeout ends;
        a call not answered when the session moves is given up and sent
        again there. tries, a list of one number, counts the sends."""
        if tries is None:
            tries = [0]
        # A session lost by the client's count may still be kept by its
        # node a while (its lease counts from when the node received the
        # keep-alive, and an adopter adds a slack): a grant taken in it
        # now could be given to another before the client hears.
        if self.done.is_set():
            raise E.SessionExpiredError("allot: session expired: no node answered its keep-alives in time, or it was closed")
        deadline = None if timeout is None else time.monotonic() + timeout
        n = len(self._c._stubs)
        if not again or n == 1:
            stub, at, _ = self._node()
            tries[0] += 1
            try:
                return at, getattr(stub, method)(req, timeout=_left(deadline))
            except grpc.RpcError as e:
                if n > 1 and _elsewhere(e):
                    self._move_now()
                raise self._wrap(e) from None
        while True:
            stub, at, gen = self._node()
            tries[0] += 1
            fut = getattr(stub, method).future(req, timeout=_left(deadline))
            fut.add_done_callback(lambda _: self._notify())
            with self._cv:
                while not fut.done() and self._gen == gen and _left(deadline) != 0:
                    self._cv.wait(_left(deadline))
                moved = self._gen != gen
            if not fut.done():
                fut.cancel()
                if moved:
                    continue
            try:
                return at, fut.result()
            except grpc.FutureCancelledError:
                if moved:
                    continue
                raise E.DeadlineError("allot: %s: timed out" % method, grpc.StatusCode.DEADLINE_EXCEEDED) from None
            except grpc.RpcError as e:
                err = e
            code = E.status_of(err)[0]
            if _left(deadline) == 0 or not _elsewhere(err) and not (code == grpc.StatusCode.CANCELLED and moved):
                raise self._wrap(err) from None
            self._move_now()
            with self._cv:
                while self._gen == gen and not self._expired() and _left(deadline) != 0:
                    self._cv.wait(_left(deadline))
                if self._gen == gen:
                    raise self._wrap(err) from None

    def _notify(self):
        with self._cv:
            self._cv.notify_all()

    def _wrap(self, err):
        """The exception of a call's error err, except that a node's
        NOT_FOUND (SESSION_EXPIRED) is SessionExpiredError only once the
        session is lost by the client's own count: until then it may be
        alive at the node that adopted it, and the call is
        UnavailableError. A client that knows the session's node alone
        cannot move: a node that does not serve the session
        (SESSION_NOT_HERE) loses it."""
        w = E.from_rpc(err)
        code, message, reason, _ = E.status_of(err)
        if len(self._c._stubs) == 1 and code == grpc.StatusCode.UNAVAILABLE and reason == E.SESSION_NOT_HERE:
            self._lose()
            return E.SessionExpiredError("allot: session expired: " + message, code, reason)
        cause = w.cause if isinstance(w, E.CutShortError) else w
        if not isinstance(cause, E.SessionExpiredError):
            return w
        with self._cv:
            if self._expired():
                return w
        moving = E.UnavailableError("allot: the node does not know the session, which is alive by this client's count: it moves to the node that serves it", code, reason)
        if isinstance(w, E.CutShortError):
            w.cause = moving
            return w
        return moving

    def _gave(self, grant, kind, at):
        with self._cv:
            self._seq += 1
            self._given.append((self._seq, grant, kind, at))

    def _mark(self):
        with self._cv:
            return self._seq

    def _recorded(self, mark, at):
        """A Lock or Acquire sent after the give-backs up to mark was
        answered by node at: its backup has them."""
        with self._cv:
            self._given = [g for g in self._given if not (g[0] <= mark and g[3] == at)]

    def _giving_again(self, k):
        try:
            self._give_again(k)
        except ValueError:
            pass  # the client's channels closed: nothing to give back to

    def _give_again(self, k):
        """Gives back at node k, where the session moved, what it gave back
        elsewhere and may not be recorded by the backup that adopted it."""
        with self._cv:
            again = [g for g in self._given if g[3] != k]
        stub = self._c._stubs[k]
        for seq, grant, kind, _ in again:
            try:
                if kind == "lock":
                    stub.Unlock(pb.UnlockRequest(session=self.id, grant=grant), timeout=min(self.ttl, MOVE_TRY))
                else:
                    stub.Release(pb.ReleaseRequest(session=self.id, grant=grant), timeout=min(self.ttl, MOVE_TRY))
            except grpc.RpcError as e:
                if E.status_of(e)[2] != E.NOT_HELD:
                    continue  # the next move gives it again
            with self._cv:
                self._given = [g for g in self._given if g[0] != seq]

    # -- the API -----------------------------------------------------------

    def lock(self, *resources, timeout=None):
        """Takes every named resource at once (atomic, deadlock-free) and
        returns the Grant when all are held; waits up to timeout seconds
        (None: until granted). A name given twice is one resource."""
        return self._lock(resources, False, timeout)

    def try_lock(self, *resources, timeout=None):
        """lock, or LockedError rather than wait behind another holder."""
        return self._lock(resources, True, timeout)

    def _lock(self, resources, try_, timeout):
        if not resources:
            raise E.InvalidError("allot: lock of no resources", metadata={"field": "resources"})
        if len(resources) > MAX_LOCK_NAMES:
            raise E.InvalidError("allot: too many names in one lock: at most %d, got %d" % (MAX_LOCK_NAMES, len(resources)), metadata={"field": "resources"})
        for i, r in enumerate(resources):
            _check_name("resource %d" % i, r)
        mark = self._mark()
        at, r = self._call("Lock", pb.LockRequest(session=self.id, resources=list(resources), try_lock=try_), timeout, False)
        self._recorded(mark, at)
        return Grant(self, r.grant, "lock", {t.resource: Token(t.epoch, t.counter) for t in r.tokens})

    def semaphore(self, name, units):
        """The semaphore name of units units: every user gives the same
        units (the cluster records a name's units at its first Acquire;
        others are MismatchError)."""
        return Semaphore(self, name, units)

    def quota(self, name):
        """The quota name, as the cluster declares it."""
        return Quota(self, name)

    def _give_back(self, grant, kind, timeout):
        if kind == "lock":
            method, req = "Unlock", pb.UnlockRequest(session=self.id, grant=grant)
        else:
            method, req = "Release", pb.ReleaseRequest(session=self.id, grant=grant)
        tries = [0]
        try:
            at, _ = self._call(method, req, timeout, True, tries)
        except E.NotHeldError:
            # A give-back sent again (its node was lost before its answer
            # came) may have been done there, and recorded at the backup
            # that adopted the session: not held here is its answer. Not
            # held at the first send is the caller's mistake.
            if tries[0] == 1:
                raise
            return
        self._gave(grant, kind, at)

    def close(self, timeout=None):
        """Ends the session and gives back everything it holds, at the node
        that serves it (it may wait for a backup's adoption, until timeout
        or the session's deadline)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cv:
            self._stopped = True
            self._cv.notify_all()
        try:
            stub, at, _ = self._node()
            req = pb.CloseSessionRequest(session=self.id)
            try:
                stub.CloseSession(req, timeout=_left(deadline))
                return
            except grpc.RpcError as e:
                err = e
            if len(self._c._stubs) > 1 and _elsewhere(err) and self._close_elsewhere(req, at, err, deadline):
                return
            raise E.from_rpc(err) from None
        finally:
            self._lose()

    def _close_elsewhere(self, req, at, err, deadline):
        """Closes the session at the node that serves it now, when node at
        did not: every node is asked, and asked again after a pause while
        one may still come to serve it (SESSION_MOVING, or no answer),
        until the deadline or the session's end by the client's count.
        Closed nowhere, an adopted session would hold its grants until its
        deadline, every waiter on them behind it."""
        with self._cv:
            until = self._until
        answers = [None] * len(self._c._stubs)
        answers[at] = err
        first = True
        while True:
            again = False
            for k, stub in enumerate(self._c._stubs):
                if not first or k != at:
                    t = min(self.ttl, MOVE_TRY)
                    if deadline is not None:
                        t = min(t, _left(deadline))
                    try:
                        stub.CloseSession(req, timeout=max(t, 0.001))
                        return True
                    except grpc.RpcError as e:
                        answers[k] = e
                again = again or _serves(answers[k])
            first = False
            if not again or time.monotonic() >= until or _left(deadline) == 0:
                return False
            time.sleep(MOVE_PAUSE)

    def orphan(self):
        """Stops keeping the session alive without closing it, as a client
        that hangs or dies would: it expires after its TTL. For tests."""
        with self._cv:
            self._stopped = True
            self._cv.notify_all()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            self.close()
        except E.AllotError:
            if exc_type is None:
                raise


class Grant:
    """One Lock, or one semaphore unit, held by a session; a context
    manager that gives it back on exit."""

    def __init__(self, session, gid, kind, tokens, unit=None, semaphore=None):
        self.session = session
        self.id = gid
        self.kind = kind
        self.tokens = tokens
        self.unit = unit
        self._semaphore = semaphore

    def token(self, resource=None):
        """The fencing token of resource; of the grant's only name if none
        is given."""
        if resource is None:
            if len(self.tokens) != 1:
                raise E.InvalidError("allot: a grant of %d names: say whose token" % len(self.tokens))
            return next(iter(self.tokens.values()))
        return self.tokens[resource]

    @property
    def done(self):
        """Set when the grant may be lost: its session's lease may have
        expired."""
        return self.session.done

    def unlock(self, timeout=None):
        """Gives the grant back; NotHeldError: it was given back already
        (the session goes on). Rides over a move of the session."""
        if self._semaphore is not None:
            self._semaphore._forget(self)
        self.session._give_back(self.id, self.kind, timeout)

    release = unlock

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        # A lost session has given everything back; while another
        # exception propagates, the give-back's own error would hide it.
        if self.session.done.is_set():
            return
        try:
            self.unlock()
        except E.NotHeldError:
            pass
        except E.AllotError:
            if exc_type is None:
                raise


class Semaphore:
    """A semaphore of units units named name in the cluster."""

    def __init__(self, session, name, units):
        self.session = session
        self.name = name
        self.units = units
        self._mu = threading.Lock()
        self._held = []

    def acquire(self, timeout=None):
        """Takes one unit and returns its Grant (unit, token()), waiting up
        to timeout seconds (None: until granted)."""
        return self._acquire(False, timeout)

    def try_acquire(self, timeout=None):
        """acquire, or LockedError when every unit is taken."""
        return self._acquire(True, timeout)

    def _acquire(self, try_, timeout):
        if not isinstance(self.units, int) or not (0 < self.units < 2 ** 31):
            raise E.InvalidError("allot: a semaphore needs units > 0 and below 2^31, got %r" % (self.units,), metadata={"field": "units"})
        _check_name("semaphore", self.name, semaphore=True)
        s = self.session
        mark = s._mark()
        at, r = s._call("Acquire", pb.AcquireRequest(session=s.id, name=self.name, units=self.units, try_acquire=try_), timeout, False)
        s._recorded(mark, at)
        g = Grant(s, r.grant, "semaphore", {self.name: Token(r.token.epoch, r.token.counter)}, unit=r.unit, semaphore=self)
        with self._mu:
            self._held.append(g)
        return g

    def _forget(self, g):
        with self._mu:
            if g in self._held:
                self._held.remove(g)

    def release(self, timeout=None):
        """Gives back the unit this Semaphore acquired last."""
        with self._mu:
            if not self._held:
                raise E.NotHeldError("allot: release of semaphore %s without a unit held" % self.name)
            g = self._held[-1]
        g.release(timeout)


class Quota:
    """A quota named name in the cluster."""

    def __init__(self, session, name):
        self.session = session
        self.name = name

    def take(self, n=1, timeout=None):
        """Consumes n permits, one at a time, and returns how many it took
        (n). ExhaustedError: the quota ran out after e.taken of them (those
        are consumed); CutShortError: cut short otherwise after e.taken."""
        if not isinstance(n, int) or n <= 0:
            raise E.InvalidError("allot: take needs n > 0, got %r" % (n,), metadata={"field": "n"})
        _check_name("quota", self.name)
        s = self.session
        _, r = s._call("Take", pb.TakeRequest(session=s.id, name=self.name, n=n), timeout, False)
        return r.permits
