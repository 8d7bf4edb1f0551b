package main

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
)

// deadAddr is a loopback address no one listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().String()
	ln.Close()
	return a
}

// The client's errors start with "allot: ", and a command's line does:
// the line has one, wherever the wraps put theirs.
func TestOneAllotPrefix(t *testing.T) {
	for in, want := range map[error]string{
		errors.New("allot: taken"):                                                      "taken",
		fmt.Errorf("W1: %w", errors.New("allot: unavailable")):                          "W1: unavailable",
		fmt.Errorf("allot: 127.0.0.1:1: %w", errors.New("allot: TLS handshake failed")): "127.0.0.1:1: TLS handshake failed",
		errors.New("member list: no node answers"):                                      "member list: no node answers",
	} {
		if got := bare(in); got != want {
			t.Errorf("bare(%q) = %q, want %q", in, got, want)
		}
	}
	dead := deadAddr(t)
	for _, args := range [][]string{
		{"bench", "--addr", dead, "--workloads", "W1", "--duration", "1s"},
		{"member", "list", "--addr", dead, "--timeout", "2s"},
	} {
		_, errs, code := allot(t, args...)
		if code == 0 || strings.Count(errs, "allot:") != 1 || !strings.HasPrefix(errs, "allot: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q: want one line with one allot:", args, code, errs)
		}
	}
}
