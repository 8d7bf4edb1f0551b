package modular_test

import (
	"testing"

	"allot/algo/central"
	"allot/algo/modular"
	"allot/conformance"
)

func TestGolden(t *testing.T) {
	conformance.Golden(t, modular.For(central.Algorithm), "testdata/golden")
}
