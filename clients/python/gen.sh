#!/bin/sh
# Regenerates the Python code of the public API (src/allot/v1) from
# api/allot/v1/allot.proto. The code is committed, so that pip installs
# the client with no code generator and no network beyond grpcio and
# protobuf.
#
# Needs protoc 3.20 or later (Debian 12: apt-get install protobuf-compiler;
# its messages' code runs on any protobuf runtime from 3.20 on) and
# grpc_tools for the stubs (Debian: apt-get install python3-grpc-tools;
# they are the same in every version). The api package's tests check that
# the committed code describes the .proto (TestPythonCodeUpToDate).
#
# Run from the repository root: sh clients/python/gen.sh
set -e
cd "$(dirname "$0")/../../api"
out=../clients/python/src
protoc --python_out="$out" allot/v1/allot.proto
PY=python3; $PY -c "import grpc_tools" 2>/dev/null || PY=/usr/bin/python3
$PY -m grpc_tools.protoc -I . --grpc_python_out="$out" allot/v1/allot.proto
