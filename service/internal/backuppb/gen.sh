#!/bin/sh
# Regenerates backup.pb.go and backup_grpc.pb.go from backup.proto, with the
# tools and versions api/gen.sh names. Run from this directory: sh gen.sh
set -e
cd "$(dirname "$0")"
PATH="$(go env GOPATH)/bin:$PATH"
protoc --go_out=. --go_opt=paths=source_relative \
	--go-grpc_out=. --go-grpc_opt=paths=source_relative \
	backup.proto
