package experiments

import (
	"context"
	"testing"
)

func TestLocalityQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Locality().Run(context.Background(), Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims {
		t.Logf("%s pass=%v: %s", c.ID, c.Pass, c.Measured)
		if !c.Pass {
			t.Errorf("claim %s fails: %s", c.ID, c.Measured)
		}
	}
}
