package pool_test

import (
	"testing"

	"allot/algo/pool"
	"allot/conformance"
)

func TestConformance(t *testing.T) { conformance.Pool(t, pool.Algorithm) }

func TestGolden(t *testing.T) { conformance.Golden(t, pool.Algorithm, "testdata/golden") }
