package service

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A view is the set of nodes serving together, agreed by the control
// plane (package control): its epoch is the index of its entry in the
// control log. Every instance of a lock or a semaphore runs in one view,
// on its members only, in the transport space key@EPOCH:MEMBERS, so a node
// can build it from the name of a message's space alone.
type view struct {
	epoch uint64
	live  []int // node indices, ascending
}

// suffix is what a space name of the view ends with.
func (v view) suffix() string {
	var b strings.Builder
	b.WriteString("@")
	b.WriteString(strconv.FormatUint(v.epoch, 10))
	b.WriteString(":")
	for i, k := range v.live {
		if i > 0 {
			b.WriteString(".")
		}
		b.WriteString(strconv.Itoa(k))
	}
	return b.String()
}

// rank is node k's place among the live nodes, -1 if it is not live.
func (v view) rank(k int) int {
	if i, ok := slices.BinarySearch(v.live, k); ok {
		return i
	}
	return -1
}

// splitSpace splits a space name into its instance key and view.
func splitSpace(space string) (string, view, error) {
	key, rest, ok := strings.Cut(space, "@")
	if !ok {
		return "", view{}, fmt.Errorf("space %q names no view", space)
	}
	e, live, ok := strings.Cut(rest, ":")
	var v view
	var err error
	if v.epoch, err = strconv.ParseUint(e, 10, 64); !ok || err != nil {
		return "", view{}, fmt.Errorf("space %q: bad epoch", space)
	}
	for _, f := range strings.Split(live, ".") {
		k, err := strconv.Atoi(f)
		if err != nil || (len(v.live) > 0 && k <= v.live[len(v.live)-1]) || k < 0 {
			return "", view{}, fmt.Errorf("space %q: bad node list", space)
		}
		v.live = append(v.live, k)
	}
	return key, v, nil
}
