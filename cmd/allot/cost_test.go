package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestSimCostColumn: with --cost the table says how many requests were
// served per 1000 ticks (what a busy process bounds); without, the table
// is as it was.
func TestSimCostColumn(t *testing.T) {
	args := []string{"sim", "--algo", "modular-ordered", "--users", "8", "--resources", "64", "--demand", "1:2", "--requests", "200", "--timing=false"}
	out, errs, code := allot(t, args...)
	if code != 0 || strings.Contains(out, "served/1000 ticks") {
		t.Fatalf("without --cost: exit %d, %s%s", code, out, errs)
	}
	out, errs, code = allot(t, append(args, "--cost", "1")...)
	if code != 0 || !strings.Contains(out, "served/1000 ticks") {
		t.Fatalf("--cost 1: exit %d, %s%s", code, out, errs)
	}
	row := strings.Fields(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	if len(row) != 13 || row[0] != "modular-ordered" || row[12] == "0.0" {
		t.Errorf("--cost 1: the row %q, want 13 columns ending with a rate", row)
	}
}

// TestSimUsersList: --users with a list runs every number in turn, all in
// one table (a users column first) and one JSON document (each run with
// its users), each number's rows what a run of that number alone gives.
func TestSimUsersList(t *testing.T) {
	args := []string{"sim", "--algo", "modular-ordered,modular-central", "--resources", "64", "--demand", "1:2", "--requests", "200", "--timing=false", "--cost", "1"}
	out, errs, code := allot(t, append(args, "--users", "4,8")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "exclusive on 4, 8 users,") || len(lines) != 7 || strings.Fields(lines[2])[0] != "users" {
		t.Fatalf("the table:\n%s", out)
	}
	for i, n := range []string{"4", "8"} {
		alone, errs, code := allot(t, append(args, "--users", n)...)
		if code != 0 {
			t.Fatalf("--users %s: exit %d: %s", n, code, errs)
		}
		rows := strings.Split(strings.TrimSpace(alone), "\n")[3:]
		for j, row := range rows {
			got := strings.Fields(lines[3+2*i+j])
			if got[0] != n || strings.Join(got[1:], " ") != strings.Join(strings.Fields(row), " ") {
				t.Errorf("--users 4,8 row %q, want %s then the row of --users %s alone: %q", lines[3+2*i+j], n, n, row)
			}
		}
	}
	js, errs, code := allot(t, append(args, "--users", "4,8", "--format", "json")...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var doc struct {
		Runs []struct {
			Algorithm string `json:"algorithm"`
			Users     int    `json:"users"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range doc.Runs {
		got = append(got, fmt.Sprintf("%d %s", r.Users, r.Algorithm))
	}
	if want := "4 modular-ordered,4 modular-central,8 modular-ordered,8 modular-central"; strings.Join(got, ",") != want {
		t.Errorf("the JSON runs %q, want %q", got, want)
	}
}
