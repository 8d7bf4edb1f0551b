package central_test

import (
	"testing"

	"allot/algo/algotest"
	"allot/algo/central"
)

func TestConformance(t *testing.T) { algotest.Exclusive(t, central.Algorithm) }

func TestGolden(t *testing.T) { algotest.Golden(t, central.Algorithm, "testdata/golden") }
