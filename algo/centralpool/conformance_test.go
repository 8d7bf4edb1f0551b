package centralpool_test

import (
	"testing"

	"allot/algo/centralpool"
	"allot/conformance"
)

func TestConformance(t *testing.T) { conformance.Pool(t, centralpool.Algorithm) }

func TestGolden(t *testing.T) { conformance.Golden(t, centralpool.Algorithm, "testdata/golden") }
