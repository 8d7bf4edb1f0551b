package main

import (
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
