//go:build !unix

package main

// addressLimit is 0 where the address-space limit cannot be read.
func addressLimit() int64 { return 0 }
