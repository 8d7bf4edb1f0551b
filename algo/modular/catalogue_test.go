package modular_test

import (
	"testing"

	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/modular"
	"github.com/allot-dev/allot/conformance"
)

func TestGolden(t *testing.T) {
	conformance.Golden(t, modular.For(central.Algorithm), "testdata/golden")
}
