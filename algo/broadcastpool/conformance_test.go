package broadcastpool_test

import (
	"testing"

	"github.com/allot-dev/allot/algo/broadcastpool"
	"github.com/allot-dev/allot/conformance"
)

func TestConformance(t *testing.T) { conformance.Pool(t, broadcastpool.Algorithm) }

func TestGolden(t *testing.T) { conformance.Golden(t, broadcastpool.Algorithm, "testdata/golden") }
