#!/usr/bin/env bash
# Installs the peers the benchmark starts: Debian's redis-server and
# zookeeper, and a Java runtime for ZooKeeper. etcd needs nothing: the
# benchmark embeds its server. Run once per machine, as root.
#
# The benchmark runs each server itself, on a port of its own on
# 127.0.0.1; where apt starts a system redis-server or zookeeper service,
# the benchmark does not use it (stop it if its load is unwanted).
set -euo pipefail
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server zookeeper default-jre-headless
