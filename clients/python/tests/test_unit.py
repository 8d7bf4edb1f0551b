"""Tests of the client that need no cluster: the lease rule, the error
mapping from gRPC codes and ErrorInfo reasons, the session's rule that a
node's SESSION_EXPIRED means lost only by the client's count, and the
give-backs around a move (on fake nodes)."""

import concurrent.futures
import threading
import time
import unittest

import grpc

import allot
from allot import errors as E
from allot.client import Session
from allot.lease import believed, believed_at_backup, lapsing


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, value):
    if isinstance(value, int):
        return _varint(num << 3) + _varint(value)
    if isinstance(value, str):
        value = value.encode()
    return _varint(num << 3 | 2) + _varint(len(value)) + value


def status_bin(code, message, reason, metadata=None, domain=E.DOMAIN):
    """A serialized google.rpc.Status with one ErrorInfo, as a node sends."""
    info = _field(1, reason) + _field(2, domain)
    for k, v in (metadata or {}).items():
        info += _field(3, _field(1, k) + _field(2, v))
    anyv = _field(1, "type.googleapis.com/google.rpc.ErrorInfo") + _field(2, info)
    return _field(1, code.value[0]) + _field(2, message) + _field(3, anyv)


class FakeRpcError(grpc.RpcError):
    def __init__(self, code, message, reason="", metadata=None):
        self._code, self._message = code, message
        self._md = [("grpc-status-details-bin", status_bin(code, message, reason, metadata))] if reason else []

    def code(self):
        return self._code

    def details(self):
        return self._message

    def trailing_metadata(self):
        return self._md


C = grpc.StatusCode


class LeaseTest(unittest.TestCase):
    def test_believed(self):
        self.assertEqual(believed(10, 3), 3)
        self.assertEqual(believed(2, 3), 2)
        self.assertEqual(believed(10, 0), 10)  # an older node says no lease

    def test_lapsing(self):
        # Under the TTL and under half the longest lease answered: the
        # node's lease is not being renewed.
        self.assertTrue(lapsing(10, 1.4, 3))
        self.assertFalse(lapsing(10, 2.3, 3))  # renewed every quarter
        self.assertFalse(lapsing(10, 1.4, 0))  # no lease answered before
        self.assertFalse(lapsing(10, 0, 3))  # a node that says none
        self.assertFalse(lapsing(1, 1.4, 3))  # the TTL bounds the count

    def test_believed_at_backup(self):
        # TTL 10 s, 4 s since the last answered keep-alive: 6 s left by
        # the TTL, 3 by the backup's lease, 2 by what it keeps.
        self.assertEqual(believed_at_backup(10, 4, 3, 2, True), 2)
        self.assertEqual(believed_at_backup(10, 4, 3, 2, False), 3)
        self.assertEqual(believed_at_backup(10, 8, 3, 5, True), 2)


class ErrorsTest(unittest.TestCase):
    cases = [
        (C.NOT_FOUND, E.SESSION_EXPIRED, {}, allot.SessionExpiredError),
        (C.NOT_FOUND, "", {}, allot.SessionExpiredError),  # an older node
        (C.NOT_FOUND, E.NOT_HELD, {}, allot.NotHeldError),
        (C.FAILED_PRECONDITION, E.TAKEN, {}, allot.LockedError),
        (C.FAILED_PRECONDITION, E.UNITS_MISMATCH, {"units": "5"}, allot.MismatchError),
        (C.RESOURCE_EXHAUSTED, E.QUOTA_EXHAUSTED, {"taken": "2", "asked": "3"}, allot.ExhaustedError),
        (C.RESOURCE_EXHAUSTED, E.NODE_LIMIT, {"limit": "sessions"}, allot.LimitError),
        (C.UNAVAILABLE, E.TAKE_CUT_SHORT, {"taken": "1", "asked": "4"}, allot.CutShortError),
        (C.UNAVAILABLE, E.SESSION_MOVING, {"lease_ms": "900"}, allot.UnavailableError),
        (C.UNAVAILABLE, "", {}, allot.UnavailableError),
        (C.INVALID_ARGUMENT, E.BAD_INPUT, {"field": "units"}, allot.InvalidError),
        (C.UNAUTHENTICATED, "", {}, allot.UnauthenticatedError),
        (C.DEADLINE_EXCEEDED, "", {}, allot.DeadlineError),
        (C.CANCELLED, "", {}, allot.CancelledError),
    ]

    def test_mapping(self):
        for code, reason, meta, want in self.cases:
            with self.subTest(code=code, reason=reason):
                got = E.from_rpc(FakeRpcError(code, "words", reason, meta))
                self.assertIs(type(got), want)
                self.assertIsInstance(got, allot.AllotError)
                self.assertEqual(got.code, code)
                self.assertEqual(got.reason, reason)

    def test_metadata(self):
        e = E.from_rpc(FakeRpcError(C.RESOURCE_EXHAUSTED, "out", E.QUOTA_EXHAUSTED, {"taken": "2", "asked": "3"}))
        self.assertEqual((e.taken, e.asked), (2, 3))
        e = E.from_rpc(FakeRpcError(C.FAILED_PRECONDITION, "other units", E.UNITS_MISMATCH, {"units": "5"}))
        self.assertEqual(e.units, 5)
        e = E.from_rpc(FakeRpcError(C.UNAVAILABLE, "cut", E.TAKE_CUT_SHORT, {"taken": "1", "asked": "4"}))
        self.assertEqual((e.taken, e.asked), (1, 4))
        self.assertIsInstance(e.cause, allot.UnavailableError)
        e = E.from_rpc(FakeRpcError(C.INVALID_ARGUMENT, "bad", E.BAD_INPUT, {"field": "units"}))
        self.assertEqual(e.field, "units")
        self.assertIsInstance(e, ValueError)
        self.assertIsInstance(E.from_rpc(FakeRpcError(C.DEADLINE_EXCEEDED, "late")), TimeoutError)

    def test_other_domain_ignored(self):
        err = FakeRpcError(C.NOT_FOUND, "x")
        err._md = [("grpc-status-details-bin", status_bin(C.NOT_FOUND, "x", E.NOT_HELD, domain="example.com"))]
        self.assertIs(type(E.from_rpc(err)), allot.SessionExpiredError)

    def test_garbage_details(self):
        err = FakeRpcError(C.NOT_FOUND, "x")
        err._md = [("grpc-status-details-bin", b"\x1a\xff\xff")]
        self.assertIs(type(E.from_rpc(err)), allot.SessionExpiredError)

    def test_tls_handshake(self):
        e = E.from_rpc(FakeRpcError(C.UNAVAILABLE, "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: Ssl handshake failed: SSL_ERROR_SSL: CERTIFICATE_VERIFY_FAILED"))
        self.assertIs(type(e), allot.TLSError)


class _Stubless:
    """A Client of n nodes whose calls nobody answers (the tests below
    call only Session._wrap)."""

    def __init__(self, n):
        self.addrs = ["127.0.0.1:%d" % (1 + i) for i in range(n)]
        self._stubs = [None] * n


def _session(n, ttl):
    s = Session.__new__(Session)
    s._c, s.id, s.ttl = _Stubless(n), 1, ttl
    s._cv = threading.Condition()
    s._at, s._gen, s._lost, s._stopped, s._kicked = 0, 0, False, True, False
    s._last_ok = time.monotonic()
    s._until = s._last_ok + ttl
    s._given, s._seq = [], 0
    s._longest = 0.0  # the longest lease a node answered
    s.done = allot.client._Done(s)
    return s


class SessionRuleTest(unittest.TestCase):
    def test_expired_only_by_own_count(self):
        # A node that does not know the session says SESSION_EXPIRED; the
        # session is alive by the client's count: it is moving.
        s = _session(3, 10)
        e = s._wrap(FakeRpcError(C.NOT_FOUND, "session expired", E.SESSION_EXPIRED))
        self.assertIs(type(e), allot.UnavailableError)
        self.assertFalse(s.done.is_set())
        # Past its deadline by the client's count, it is lost.
        s._until = time.monotonic() - 0.001
        e = s._wrap(FakeRpcError(C.NOT_FOUND, "session expired", E.SESSION_EXPIRED))
        self.assertIs(type(e), allot.SessionExpiredError)
        self.assertTrue(s.done.is_set())

    def test_lost_session_sends_nothing(self):
        # Lost by the client's count, the session may still be kept by its
        # node a while: a grant taken now could go to another before the
        # client hears. Nothing is sent (this session's stubs are None).
        s = _session(3, 10)
        s._until = time.monotonic() - 0.001
        for f in [lambda: s.lock("a"), lambda: s.semaphore("u", 2).acquire(), lambda: s.quota("q").take(1),
                  lambda: allot.Grant(s, 7, "lock", {"a": allot.Token(1, 1)}).unlock()]:
            with self.assertRaises(allot.SessionExpiredError):
                f()

    def test_not_here_alone(self):
        # A client that knows one node cannot move: not served there is lost.
        s = _session(1, 10)
        e = s._wrap(FakeRpcError(C.UNAVAILABLE, "not here", E.SESSION_NOT_HERE))
        self.assertIs(type(e), allot.SessionExpiredError)
        self.assertTrue(s.done.is_set())

    def test_backup_moves_deadline_on(self):
        s = _session(3, 10)
        sent = s._last_ok + 4
        before = s._until
        s._keep(sent, 3000, "2000")  # kept 2 s: sent + 2 = last_ok + 6
        self.assertAlmostEqual(s._until, s._last_ok + 10, places=6)  # never back
        s._until = before - 5
        s._keep(sent, 3000, "2000")
        self.assertAlmostEqual(s._until, sent + 2, places=6)
        s._keep(sent, 3000, None)  # an older node: its lease alone
        self.assertAlmostEqual(s._until, sent + 3, places=6)

    def test_done_wait(self):
        s = _session(3, 0.05)
        t0 = time.monotonic()
        self.assertTrue(s.done.wait(2))
        self.assertLess(time.monotonic() - t0, 1)
        self.assertFalse(_session(3, 10).done.wait(0.01))


class _Method:
    """A fake unary method of a fake node: answers from a list of results
    (an exception is raised), recording its requests."""

    def __init__(self, node, name, log, answers):
        self.node, self.name, self.log, self.answers = node, name, log, answers

    def __call__(self, req, timeout=None):
        self.log.append((self.node, self.name, req.grant))
        a = self.answers.pop(0) if self.answers else None
        if isinstance(a, Exception):
            raise a
        return a

    def future(self, req, timeout=None):
        f = concurrent.futures.Future()
        try:
            f.set_result(self(req, timeout))
        except grpc.RpcError as e:
            f.set_exception(e)
        return f


class _Node:
    def __init__(self, k, log, answers):
        for name in ("Unlock", "Release"):
            setattr(self, name, _Method(k, name, log, answers.get(name, [])))


class GiveBackTest(unittest.TestCase):
    def session(self, answers):
        s = _session(3, 10)
        s._stopped = False
        self.log = []
        s._c._stubs = [_Node(k, self.log, answers.get(k, {})) for k in range(3)]
        return s

    def test_given_again_where_the_session_moved(self):
        # A node answers a give-back before the session's backup has it:
        # what was given back since the last grant the same node answered
        # is given back again where the session moves (NOT_HELD there: it
        # was not needed); what a later grant's answer covers is not.
        s = self.session({2: {"Unlock": [None, FakeRpcError(C.NOT_FOUND, "not held", E.NOT_HELD)], "Release": [None]}})
        s._gave(6, "lock", 1)  # at the node before: node 0's backup may not have it
        s._gave(7, "lock", 0)
        s._recorded(s._mark(), 0)  # a Lock sent after them answered by node 0
        s._gave(8, "lock", 0)
        s._gave(9, "semaphore", 0)
        s._give_again(2)
        self.assertEqual(self.log, [(2, "Unlock", 6), (2, "Unlock", 8), (2, "Release", 9)])
        self.assertEqual(s._given, [])

    def test_kept_when_the_new_node_fails(self):
        s = self.session({1: {"Unlock": [FakeRpcError(C.UNAVAILABLE, "down")]}})
        s._gave(8, "lock", 0)
        s._give_again(1)
        self.assertEqual([g[1] for g in s._given], [8])  # the next move gives it again

    def test_unlock_rides_over_a_move(self):
        # Node 0 does not serve the session: the Unlock waits for the move
        # (here: node 1 answers a keep-alive) and is sent again there.
        s = self.session({0: {"Unlock": [FakeRpcError(C.UNAVAILABLE, "connection refused")]}})
        threading.Timer(0.05, lambda: s._renewed(1, time.monotonic(), 3000)).start()
        g = allot.Grant(s, 5, "lock", {"a": allot.Token(1, 1)})
        g.unlock(timeout=5)
        self.assertEqual(self.log, [(0, "Unlock", 5), (1, "Unlock", 5)])
        self.assertEqual(s.node, "127.0.0.1:2")
        self.assertTrue(s._kicked)  # the keep-alive was asked to look for the node

    def test_unlock_cut_off_after_its_give_back(self):
        # Node 0 gave the grant back and recorded it at its backup, but was
        # lost before its answer came: node 1, which adopted the session,
        # says not held. The give-back was done.
        s = self.session({0: {"Unlock": [FakeRpcError(C.UNAVAILABLE, "connection refused")]},
                          1: {"Unlock": [FakeRpcError(C.NOT_FOUND, "not held", E.NOT_HELD)]}})
        threading.Timer(0.05, lambda: s._renewed(1, time.monotonic(), 3000)).start()
        allot.Grant(s, 5, "lock", {"a": allot.Token(1, 1)}).unlock(timeout=5)
        self.assertEqual(self.log, [(0, "Unlock", 5), (1, "Unlock", 5)])

    def test_unlock_not_repeated_when_not_held(self):
        s = self.session({0: {"Unlock": [FakeRpcError(C.NOT_FOUND, "not held", E.NOT_HELD)]}})
        with self.assertRaises(allot.NotHeldError):
            allot.Grant(s, 5, "lock", {"a": allot.Token(1, 1)}).unlock(timeout=5)
        self.assertEqual(self.log, [(0, "Unlock", 5)])


class InputTest(unittest.TestCase):
    def test_bad_input_refused_before_sending(self):
        s = _session(3, 10)
        for f in [
            lambda: s.lock(),
            lambda: s.lock(""),
            lambda: s.lock("a\x00b"),
            lambda: s.lock("x" * 257),
            lambda: s.lock(*["n%d" % i for i in range(129)]),
            lambda: s.semaphore("a/b", 3).acquire(),
            lambda: s.semaphore("ok", 0).acquire(),
            lambda: s.semaphore("ok", 2 ** 31).acquire(),
            lambda: s.quota("q").take(0),
        ]:
            with self.assertRaises(allot.InvalidError):
                f()
        with self.assertRaises(allot.InvalidError):
            allot.Client([])
        with self.assertRaises(allot.InvalidError):
            allot.Client(["127.0.0.1:1"]).session(ttl=0)
        with self.assertRaises(allot.InvalidError):
            allot.Client(["127.0.0.1:1"], token="t")  # a token in plaintext

    def test_token_order(self):
        self.assertLess(allot.Token(1, 9), allot.Token(2, 1))
        self.assertLess(allot.Token(2, 1), allot.Token(2, 2))
        self.assertEqual(str(allot.Token(3, 4)), "3.4")


if __name__ == "__main__":
    unittest.main()
