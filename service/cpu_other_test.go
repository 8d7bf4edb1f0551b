//go:build !unix

package service_test

import "time"

// processCPU is not measured here: 0.
func processCPU() time.Duration { return 0 }
