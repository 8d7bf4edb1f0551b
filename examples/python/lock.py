"""A Python client of an allot node, on stubs generated from the .proto.

    python3 -m grpc_tools.protoc -I api/allot/v1 --python_out=DIR \
        --grpc_python_out=DIR api/allot/v1/allot.proto
    PYTHONPATH=DIR python3 examples/python/lock.py HOST:PORT [RESOURCE]

It opens a session, locks RESOURCE, prints its fencing token as one JSON
line, unlocks it, shows that a second unlock is NOT_FOUND without ending
the session, and closes the session. A real client also sends a KeepAlive
every ttl_ms/3 while it holds anything (the Go client does it for you).
"""

import json
import sys

import grpc

import allot_pb2
import allot_pb2_grpc


def main():
    addr = sys.argv[1]
    resource = sys.argv[2] if len(sys.argv) > 2 else "py/accounts"
    with grpc.insecure_channel(addr) as ch:
        api = allot_pb2_grpc.AllotStub(ch)
        s = api.OpenSession(allot_pb2.OpenSessionRequest(ttl_ms=10000)).session
        g = api.Lock(allot_pb2.LockRequest(session=s, resources=[resource]))
        tok = g.tokens[0]
        api.Unlock(allot_pb2.UnlockRequest(session=s, grant=g.grant))
        # A grant given back twice: NOT_FOUND (reason NOT_HELD in the
        # status details), and the session lives on.
        again = ""
        try:
            api.Unlock(allot_pb2.UnlockRequest(session=s, grant=g.grant))
        except grpc.RpcError as e:
            again = e.code().name
        api.KeepAlive(allot_pb2.KeepAliveRequest(session=s))
        api.CloseSession(allot_pb2.CloseSessionRequest(session=s))
        print(json.dumps({"resource": tok.resource, "epoch": tok.epoch,
                          "counter": tok.counter, "unlock_again": again}))


if __name__ == "__main__":
    main()
