package hashpool_test

import (
	"testing"

	"github.com/allot-dev/allot/algo/hashpool"
	"github.com/allot-dev/allot/conformance"
)

func TestConformance(t *testing.T) { conformance.Pool(t, hashpool.Algorithm) }

func TestGolden(t *testing.T) { conformance.Golden(t, hashpool.Algorithm, "testdata/golden") }
