//go:build unix

package main

import "syscall"

// addressLimit is the soft limit on this process's address space in bytes
// (ulimit -v), or 0 when there is none. The Go runtime reserves some of it
// for itself, so a run may have three quarters.
func addressLimit() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur > 1<<62 { // RLIM_INFINITY is all ones
		return 0
	}
	return int64(rl.Cur) / 4 * 3
}
