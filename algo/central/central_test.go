package central_test

import (
	"testing"

	"allot/algo/central"
	"allot/conformance"
)

func TestGolden(t *testing.T) { conformance.Golden(t, central.Algorithm, "testdata/golden") }
