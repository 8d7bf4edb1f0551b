"""Tests of the client against a running cluster: ALLOT_NODES lists its
nodes as ADDR=PID,ADDR=PID,... (the PIDs let the last test kill one), and
ALLOT_QUOTA names a quota it declares as NAME=BUDGET. Without ALLOT_NODES
they are skipped. The Go test TestPythonClientSessions (cmd/allot) starts
an allot cluster and runs them:

    go test ./cmd/allot -run TestPythonClientSessions -v

Each test uses names of its own: the tests share one cluster.
"""

import os
import signal
import threading
import time
import unittest

import allot
import allot.v1.allot_pb2

NODES = [tuple(p.split("=")) for p in os.environ.get("ALLOT_NODES", "").split(",") if p]
ADDRS = [a for a, _ in NODES]


def client(first=0):
    """A client of every node whose first session opens on node first."""
    return allot.Client(ADDRS[first:] + ADDRS[:first])


@unittest.skipUnless(NODES, "no cluster: ALLOT_NODES is not set")
class ClusterTest(unittest.TestCase):
    def setUp(self):
        self.c = client()
        self.addCleanup(self.c.close)

    def test_lock(self):
        with self.c.session(ttl=10) as s, self.c.session(ttl=10) as other:
            with s.lock("py/a", "py/b") as g:
                self.assertEqual(set(g.tokens), {"py/a", "py/b"})
                first = g.token("py/a")
                self.assertGreater(first.epoch, 0)
                with self.assertRaises(allot.LockedError):
                    other.try_lock("py/b")
                with self.assertRaises(allot.InvalidError):
                    g.token()  # two names: whose?
            with self.assertRaises(allot.NotHeldError):
                g.unlock()  # given back on exit already; the session lives on
            with other.lock("py/a") as g2:
                self.assertGreater(g2.token(), first)
            # A lock that waits is granted once the holder gives it back.
            held = s.lock("py/c")
            got = []
            t = threading.Thread(target=lambda: got.append(other.lock("py/c", timeout=10)))
            t.start()
            time.sleep(0.2)
            self.assertEqual(got, [])
            held.unlock()
            t.join(10)
            self.assertEqual(len(got), 1)
            self.assertGreater(got[0].token(), held.token())
            with self.assertRaises(allot.DeadlineError):
                s.lock("py/c", timeout=0.3)
            got[0].unlock()

    def test_semaphore(self):
        with self.c.session(ttl=10) as s:
            sem = s.semaphore("pysem", 2)
            a, b = sem.acquire(), sem.acquire()
            self.assertEqual({a.unit, b.unit}, {0, 1})
            with self.assertRaises(allot.LockedError):
                sem.try_acquire(timeout=5)
            with self.assertRaises(allot.MismatchError) as cm:
                s.semaphore("pysem", 3).acquire(timeout=5)
            self.assertEqual(cm.exception.units, 2)
            sem.release()  # b, the last acquired
            with sem.acquire() as c:
                self.assertGreater(c.token(), b.token())
            a.release()

    def test_quota(self):
        name, budget = os.environ["ALLOT_QUOTA"].split("=")
        with self.c.session(ttl=10) as s:
            q = s.quota(name)
            self.assertEqual(q.take(3), 3)
            with self.assertRaises(allot.ExhaustedError) as cm:
                q.take(int(budget))
            e = cm.exception
            self.assertEqual(e.asked, int(budget))
            self.assertLessEqual(3 + e.taken, int(budget))
            with self.assertRaises(allot.InvalidError):
                s.quota("py-undeclared").take(1)  # refused by the node

    def test_session_expires(self):
        s = self.c.session(ttl=0.5)
        g = s.lock("py/orphan")
        s.orphan()  # as a client that hangs: no more keep-alives
        self.assertTrue(s.done.wait(5))
        self.assertTrue(g.done.is_set())
        with self.assertRaises(allot.SessionExpiredError):
            s.lock("py/orphan2")
        with self.c.session(ttl=10) as t:
            t.lock("py/orphan", timeout=10).unlock()  # given back with the session

    def test_near(self):
        # A session opened near a name is on the name's home, whichever
        # node the client would have tried first.
        stub = self.c._stubs[0]
        home = stub.Locate(allot.v1.allot_pb2.LocateRequest(name="py/near"), timeout=10).node_addr
        for first in range(len(ADDRS)):
            c = client(first)
            self.addCleanup(c.close)
            with c.session(ttl=10, near="py/near") as s:
                self.assertEqual(s.node, home)

    def test_client_close_stops_keepalives(self):
        # Sessions left open stop being kept alive (their keep-alive
        # threads end quietly, not on the closed channels' errors).
        escaped = []
        hook = threading.excepthook
        threading.excepthook = lambda args: escaped.append(args.exc_value)
        self.addCleanup(setattr, threading, "excepthook", hook)
        c = client()
        s = c.session(ttl=3)
        c.close()
        s._thread.join(5)
        self.assertFalse(s._thread.is_alive())
        self.assertEqual(escaped, [])

    def test_zz_session_moves_when_its_node_is_killed(self):
        # Last (by name): it kills a node. The session opens on node 1,
        # holds a lock and a unit, and node 1 is killed (SIGKILL); the
        # session moves to its backup, with its grants and their tokens.
        victim = 1
        c = client(victim)
        self.addCleanup(c.close)
        s = c.session(ttl=10)
        self.assertEqual(s.node, ADDRS[victim])
        g = s.lock("py/moves")
        sem = s.semaphore("pymoves", 1)
        u = sem.acquire()
        os.kill(int(NODES[victim][1]), signal.SIGKILL)
        t0 = time.monotonic()
        # The unlock rides over the move: sent again on the new node.
        g.unlock(timeout=15)
        moved = time.monotonic() - t0
        self.assertNotEqual(s.node, ADDRS[victim])
        self.assertFalse(s.done.is_set())
        print("session moved from %s to %s; unlock answered %.2fs after the kill" % (ADDRS[victim], s.node, moved))
        # The unit is still the session's: another session finds it taken.
        others = allot.Client([a for a in ADDRS if a != ADDRS[victim]])
        self.addCleanup(others.close)
        with others.session(ttl=10) as o:
            with self.assertRaises(allot.LockedError):
                o.semaphore("pymoves", 1).try_acquire(timeout=10)
            with o.lock("py/moves", timeout=10) as g2:
                self.assertGreater(g2.token(), g.token())
            u.release(timeout=10)
            with o.semaphore("pymoves", 1).acquire(timeout=10) as u2:
                self.assertGreater(u2.token(), u.token())
        # New calls go to the new node.
        with s.lock("py/moves-after", timeout=10):
            pass
        s.close(timeout=10)


if __name__ == "__main__":
    unittest.main()
