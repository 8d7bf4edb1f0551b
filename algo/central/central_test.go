package central_test

import (
	"testing"

	"allot/algo/central"
	"allot/conformance"
)

func TestConformance(t *testing.T) { conformance.Exclusive(t, central.Algorithm) }

func TestGolden(t *testing.T) { conformance.Golden(t, central.Algorithm, "testdata/golden") }
