package pool_test

import (
	"testing"

	"github.com/allot-dev/allot/algo/pool"
	"github.com/allot-dev/allot/conformance"
)

func TestConformance(t *testing.T) { conformance.Pool(t, pool.Algorithm) }

func TestGolden(t *testing.T) { conformance.Golden(t, pool.Algorithm, "testdata/golden") }
