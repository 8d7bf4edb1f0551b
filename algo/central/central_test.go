package central_test

import (
	"testing"

	"allot/algo/algotest"
	"allot/algo/central"
)

func TestConformance(t *testing.T) { algotest.Exclusive(t, central.Algorithm) }
