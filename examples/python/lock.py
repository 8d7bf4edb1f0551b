"""A Python client of an allot cluster, with the client in clients/python:

    pip install ./clients/python       (or: PYTHONPATH=clients/python/src)
    python3 examples/python/lock.py HOST:PORT[,HOST:PORT...] [RESOURCE]

It opens a session (kept alive in the background, moved to its backup if
its node is lost), locks RESOURCE, prints its fencing token as one JSON
line, unlocks it, shows that a second unlock is NotHeldError without
ending the session, and closes the session.
"""

import json
import sys

import allot


def main():
    addrs = sys.argv[1].split(",")
    resource = sys.argv[2] if len(sys.argv) > 2 else "py/accounts"
    with allot.Client(addrs) as c, c.session(ttl=10) as s:
        with s.lock(resource) as g:
            tok = g.token()
        # A grant given back twice: NotHeldError (NOT_FOUND, reason
        # NOT_HELD), and the session lives on.
        again = ""
        try:
            g.unlock()
        except allot.NotHeldError as e:
            again = e.code.name
        print(json.dumps({"resource": resource, "epoch": tok.epoch,
                          "counter": tok.counter, "unlock_again": again}))


if __name__ == "__main__":
    main()
