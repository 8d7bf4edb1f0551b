#!/bin/sh
# Regenerates the Go code of the public API from allot/v1/allot.proto.
#
# Needs protoc (Debian: apt-get install protobuf-compiler) and the two Go
# plugins at the versions go.mod pins:
#
#	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.0
#
# Run from the repository root: sh api/gen.sh
set -e
cd "$(dirname "$0")"
PATH="$(go env GOPATH)/bin:$PATH"
protoc --go_out=. --go_opt=paths=source_relative \
	--go-grpc_out=. --go-grpc_opt=paths=source_relative \
	allot/v1/allot.proto
