// Package space names the algorithm instances of an allot node. An
// instance is one run of an algorithm (the lock, a semaphore, one view's
// quota controller: its Key) on the members of one view (its View); its
// name, key@EPOCH:MEMBERS, is the link transport's space on the wire and
// the event log's instance field, so that a node can build an instance
// from the name of a message's space alone.
//
// The names are contracts and keep their exact format; inside the node an
// instance is the typed Space, parsed once where a name comes in (a
// message of a peer, a line of the log) and formatted once where one goes
// out. A malformed name is a *NameError, never a panic: a peer's bytes
// are input.
package space

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/algo"
)

// ErrName is what every *NameError is (errors.Is).
var ErrName = errors.New("malformed instance name")

// NameError is a name that names no instance, and why.
type NameError struct {
	Name string
	Why  string
}

func (e *NameError) Error() string { return fmt.Sprintf("%v %q: %s", ErrName, e.Name, e.Why) }

// Is makes a NameError match ErrName.
func (e *NameError) Is(target error) bool { return target == ErrName }

func bad(name, why string) error { return &NameError{Name: name, Why: why} }

// Key is an instance apart from its view: the lock ("lock"), a semaphore
// of Units units ("sem/NAME/UNITS"), or a quota's controller in one view
// ("quota/NAME/BUDGET/WASTE~LEFT": of its Budget, Left permits were not yet
// issued when the view began; the controller runs on Left, with waste at
// most Waste).
type Key struct {
	Kind                algo.Kind
	Name                string // a semaphore's or a quota's
	Units               int    // a semaphore's
	Budget, Waste, Left int    // a quota's
}

// Lock is the key of the lock.
var Lock = Key{Kind: algo.Exclusive}

// Sem is the key of semaphore name with units units.
func Sem(name string, units int) Key { return Key{Kind: algo.Pool, Name: name, Units: units} }

// Quota is the key of quota name's controller in a view that begins with
// left of budget permits not yet issued.
func Quota(name string, budget, waste, left int) Key {
	return Key{Kind: algo.Quota, Name: name, Budget: budget, Waste: waste, Left: left}
}

// String is the key's name.
func (k Key) String() string {
	switch k.Kind {
	case algo.Exclusive:
		return "lock"
	case algo.Pool:
		return "sem/" + k.Name + "/" + strconv.Itoa(k.Units)
	case algo.Quota:
		return fmt.Sprintf("quota/%s/%d/%d~%d", k.Name, k.Budget, k.Waste, k.Left)
	}
	return fmt.Sprintf("kind-%d", uint8(k.Kind))
}

// ParseKey parses a key's name. A quota's key without its "~LEFT" (the
// whole budget left) is accepted too: so the checkers read it.
func ParseKey(s string) (Key, error) {
	if s == "lock" {
		return Lock, nil
	}
	// nums cuts the last k "/"-separated numbers off rest: a name may
	// hold a "/" itself.
	nums := func(rest string, k int) (string, []int, bool) {
		parts := strings.Split(rest, "/")
		if len(parts) < k+1 {
			return "", nil, false
		}
		var out []int
		for _, p := range parts[len(parts)-k:] {
			v, err := strconv.Atoi(p)
			if err != nil {
				return "", nil, false
			}
			out = append(out, v)
		}
		return strings.Join(parts[:len(parts)-k], "/"), out, true
	}
	if rest, ok := strings.CutPrefix(s, "sem/"); ok {
		if name, v, ok := nums(rest, 1); ok {
			return Sem(name, v[0]), nil
		}
	}
	if rest, ok := strings.CutPrefix(s, "quota/"); ok {
		rest, left, cut := strings.Cut(rest, "~")
		if name, v, ok := nums(rest, 2); ok {
			k := Quota(name, v[0], v[1], v[0])
			if cut {
				l, err := strconv.Atoi(left)
				if err != nil || l < 0 || l > k.Budget {
					return Key{}, bad(s, "a quota's permits left are not within its budget")
				}
				k.Left = l
			}
			return k, nil
		}
	}
	return Key{}, bad(s, "not the lock, a semaphore or a quota")
}

// Check reports whether k can name an instance: its name, in an instance
// name, parses back to k. A name holding "@" cannot (nor a quota's name
// holding "~"): the other nodes would read another instance.
func (k Key) Check() error {
	s := Space{Key: k, View: View{Members: SetOf(0)}}
	if back, err := Parse(s.String()); err != nil || back != s {
		return bad(k.String(), `a name holding "@" (or a quota's holding "~") would read as another instance`)
	}
	return nil
}

// Set is a set of node indices, below MaxNode.
type Set uint64

// MaxNode is one above the largest node index a Set holds (a cluster has
// at most 64 nodes).
const MaxNode = 64

// SetOf is the set of nodes ks, each in [0, MaxNode).
func SetOf(ks ...int) Set {
	var s Set
	for _, k := range ks {
		s |= 1 << uint(k)
	}
	return s
}

// Len is how many nodes s holds.
func (s Set) Len() int { return bits.OnesCount64(uint64(s)) }

// Rank is node k's place among s's nodes in ascending order, -1 if s does
// not hold it.
func (s Set) Rank(k int) int {
	if k < 0 || k >= MaxNode || s&(1<<uint(k)) == 0 {
		return -1
	}
	return bits.OnesCount64(uint64(s) & (1<<uint(k) - 1))
}

// Nth is s's node of rank i (0 ≤ i < Len).
func (s Set) Nth(i int) int {
	for ; s != 0; s &= s - 1 {
		if i == 0 {
			return bits.TrailingZeros64(uint64(s))
		}
		i--
	}
	panic(fmt.Sprintf("space: rank %d of a set of fewer nodes", i))
}

// List is s's nodes, ascending.
func (s Set) List() []int {
	out := make([]int, 0, s.Len())
	for ; s != 0; s &= s - 1 {
		out = append(out, bits.TrailingZeros64(uint64(s)))
	}
	return out
}

// A View is the set of nodes serving together, agreed by the control plane
// (package control): Epoch is the index of its entry in the control log.
type View struct {
	Epoch   uint64
	Members Set
}

// String is "EPOCH:MEMBERS", the members ascending, dot-separated.
func (v View) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(v.Epoch, 10))
	b.WriteString(":")
	for i, k := range v.Members.List() {
		if i > 0 {
			b.WriteString(".")
		}
		b.WriteString(strconv.Itoa(k))
	}
	return b.String()
}

// ParseView parses "EPOCH:MEMBERS": the members ascending, at least one.
func ParseView(s string) (View, error) {
	e, members, ok := strings.Cut(s, ":")
	var v View
	var err error
	if v.Epoch, err = strconv.ParseUint(e, 10, 64); !ok || err != nil {
		return View{}, bad(s, "bad epoch")
	}
	last := -1
	for _, f := range strings.Split(members, ".") {
		k, err := strconv.Atoi(f)
		if err != nil || k <= last || k >= MaxNode {
			return View{}, bad(s, "bad node list")
		}
		v.Members |= SetOf(k)
		last = k
	}
	return v, nil
}

// Space is an instance: its key in one view. It is comparable: the node
// finds its instances by it.
type Space struct {
	Key  Key
	View View
}

// String is the instance's name, key@EPOCH:MEMBERS.
func (s Space) String() string { return s.Key.String() + "@" + s.View.String() }

// Parse parses an instance's name. Only the name String gives is taken:
// another spelling of the same instance ("+1", "01") would name another
// transport space.
func Parse(name string) (Space, error) {
	key, view, ok := strings.Cut(name, "@")
	if !ok {
		return Space{}, bad(name, "names no view")
	}
	var s Space
	var err error
	var ne *NameError
	if s.Key, err = ParseKey(key); errors.As(err, &ne) {
		return Space{}, bad(name, ne.Why)
	}
	if s.View, err = ParseView(view); errors.As(err, &ne) {
		return Space{}, bad(name, ne.Why)
	}
	if s.String() != name {
		return Space{}, bad(name, "not in its one spelling "+strconv.Quote(s.String()))
	}
	return s, nil
}
