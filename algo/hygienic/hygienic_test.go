package hygienic

import (
	"testing"

	"allot/algo/algotest"
)

func TestConformance(t *testing.T) { algotest.Exclusive(t, Algorithm) }

func TestGolden(t *testing.T) { algotest.Golden(t, Algorithm, "testdata/golden") }
