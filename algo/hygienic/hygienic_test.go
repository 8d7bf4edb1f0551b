package hygienic

import (
	"testing"

	"allot/algo/algotest"
)

func TestConformance(t *testing.T) { algotest.Exclusive(t, Algorithm) }
