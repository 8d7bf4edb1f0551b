package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"-backends", "mongo"},
		{"-backends", "etcd,etcd"},
		{"-runs", "0"},
		{"-dur", "0s"},
		{"-max-ops", "-1"},
		{"-warmup", "-1s"},
		{"-nope"},
		{"extra"},
	} {
		var out, errs bytes.Buffer
		code := run(context.Background(), args, &out, &errs)
		if code != 2 || out.Len() != 0 || strings.Count(errs.String(), "\n") != 1 || !strings.HasPrefix(errs.String(), "peers: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want one peers: line and exit 2", args, code, out.String(), errs.String())
		}
	}
}

func TestParse(t *testing.T) {
	o, err := parse([]string{"-backends", "all", "-dur", "1s", "-src", "/r"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.backends) != 9 || o.backends[0] != "baseline" || o.backends[1] != "allot" || o.cfg.Window != time.Second || o.readme != "/r/README.md" {
		t.Errorf("%+v", o)
	}
	var help bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &help, &bytes.Buffer{}); code != 0 || !strings.Contains(help.String(), "usage: go run ./cmd/peers") {
		t.Errorf("-h: exit %d, %q", code, help.String())
	}
}
