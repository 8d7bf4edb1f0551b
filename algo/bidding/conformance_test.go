package bidding_test

import (
	"testing"

	"allot/algo/algotest"
	"allot/algo/bidding"
)

func TestConformance(t *testing.T) {
	algotest.Exclusive(t, bidding.Algorithm)
}

func TestConformancePriority(t *testing.T) {
	algotest.Exclusive(t, bidding.Priority)
}
