package centralpool_test

import (
	"testing"

	"github.com/allot-dev/allot/algo/centralpool"
	"github.com/allot-dev/allot/conformance"
)

func TestConformance(t *testing.T) { conformance.Pool(t, centralpool.Algorithm) }

func TestGolden(t *testing.T) { conformance.Golden(t, centralpool.Algorithm, "testdata/golden") }
