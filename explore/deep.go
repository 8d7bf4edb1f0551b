package explore

import (
	"math"
	"math/bits"
	"reflect"
	"unsafe"
)

// A process's state is a Go value: structs, slices, maps, pointers,
// interfaces (a hosted subroutine). The explorer needs two things of it
// that Go does not give: a deep copy (each successor state gets its own
// copy of the process that moved) and a deterministic fingerprint (equal
// states, equal hashes, whatever the map iteration order or the addresses).
// Both walk the value by reflection, unexported fields included.
//
// Memory that the processes of a run share (the problem, the graph, an
// algorithm's parameters) is read-only by the contract — processes share
// nothing they may write — so it is neither copied nor hashed: it is the
// same in every state. It is found once, from the initial state: whatever
// two processes both reach.

// walker holds the shared ("frozen") addresses and per-walk scratch.
type walker struct {
	frozen map[uintptr]bool
	memo   map[uintptr]reflect.Value // clone: pointers already copied in this walk
	// hash: the pointers on the walk's path, by depth, and the hashes of
	// those done whose value does not depend on the path (see hashValue);
	// low is the least depth a back reference below reached.
	path  map[uintptr]int
	done  map[uintptr]uint64
	depth int
	low   int
	// unhashed: struct fields left out of fingerprints (by type, field
	// index): state a process keeps but never lets matter (TimedConfig.Unhashed).
	unhashed map[reflect.Type]map[int]bool
}

// exported makes a field obtained through an unexported name usable: v
// must be addressable (it is, below a pointer or in a copy we made).
func exported(v reflect.Value) reflect.Value {
	if v.CanSet() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// flat reports whether values of t hold no pointers, so a plain copy is a
// deep copy. Cached per type.
var flatCache = map[reflect.Type]bool{}

// deepFields lists the fields of struct type t that are not flat.
var deepFieldsCache = map[reflect.Type][]int{}

func deepFields(t reflect.Type) []int {
	if f, ok := deepFieldsCache[t]; ok {
		return f
	}
	var f []int
	for i := range t.NumField() {
		if !flat(t.Field(i).Type) {
			f = append(f, i)
		}
	}
	deepFieldsCache[t] = f
	return f
}

func flat(t reflect.Type) bool {
	if f, ok := flatCache[t]; ok {
		return f
	}
	flatCache[t] = false // a recursive type is not flat
	f := true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.String:
		f = t.Kind() == reflect.String // strings are immutable
	case reflect.Array:
		f = flat(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type) {
				f = false
				break
			}
		}
	}
	flatCache[t] = f
	return f
}

// refs collects the addresses of the pointers and maps reachable from v.
func (w *walker) refs(v reflect.Value, into map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map:
		if v.IsNil() {
			return
		}
		p := v.Pointer()
		if into[p] {
			return
		}
		into[p] = true
		if v.Kind() == reflect.Pointer {
			w.refs(v.Elem(), into)
			return
		}
		it := v.MapRange()
		for it.Next() {
			w.refs(it.Key(), into)
			w.refs(it.Value(), into)
		}
	case reflect.Interface:
		if !v.IsNil() {
			w.refs(v.Elem(), into)
		}
	case reflect.Slice:
		if flat(v.Type().Elem()) {
			return
		}
		for i := range v.Len() {
			w.refs(v.Index(i), into)
		}
	case reflect.Array:
		if flat(v.Type()) {
			return
		}
		for i := range v.Len() {
			w.refs(v.Index(i), into)
		}
	case reflect.Struct:
		if flat(v.Type()) {
			return
		}
		for _, i := range deepFields(v.Type()) {
			w.refs(exported(v.Field(i)), into)
		}
	}
}

// freeze marks as shared what two or more of the roots reach.
func (w *walker) freeze(roots []any) {
	w.frozen = map[uintptr]bool{}
	count := map[uintptr]int{}
	for _, r := range roots {
		mine := map[uintptr]bool{}
		w.refs(reflect.ValueOf(&r).Elem(), mine)
		for p := range mine { // any order: it counts
			count[p]++
		}
	}
	for p, n := range count { // any order: a set
		if n > 1 {
			w.frozen[p] = true
		}
	}
}

// clone returns a deep copy of x (a process, a checker).
func (w *walker) clone(x any) any {
	clear(w.memo)
	if w.memo == nil {
		w.memo = map[uintptr]reflect.Value{}
	}
	v := reflect.ValueOf(&x).Elem()
	return w.deep(v).Interface()
}

// deep copies v (not read-only: reached through exported).
func (w *walker) deep(v reflect.Value) reflect.Value {
	t := v.Type()
	if flat(t) {
		return v
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || w.frozen[v.Pointer()] {
			return v
		}
		if c, ok := w.memo[v.Pointer()]; ok {
			return c
		}
		n := reflect.New(t.Elem())
		w.memo[v.Pointer()] = n
		n.Elem().Set(w.deep(v.Elem()))
		return n
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		n := reflect.New(t).Elem()
		n.Set(w.deep(v.Elem()))
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeSlice(t, v.Len(), v.Len())
		reflect.Copy(n, v)
		if !flat(t.Elem()) {
			for i := range n.Len() {
				e := n.Index(i)
				e.Set(w.deep(e))
			}
		}
		return n
	case reflect.Map:
		if v.IsNil() || w.frozen[v.Pointer()] {
			return v
		}
		if c, ok := w.memo[v.Pointer()]; ok {
			return c
		}
		n := reflect.MakeMapWithSize(t, v.Len())
		w.memo[v.Pointer()] = n
		it := v.MapRange()
		for it.Next() {
			n.SetMapIndex(w.deep(it.Key()), w.deep(it.Value()))
		}
		return n
	case reflect.Array:
		n := reflect.New(t).Elem()
		n.Set(v)
		for i := range n.Len() {
			e := n.Index(i)
			e.Set(w.deep(e))
		}
		return n
	case reflect.Struct:
		n := reflect.New(t).Elem()
		n.Set(v)
		for _, i := range deepFields(t) {
			f := exported(n.Field(i))
			f.Set(w.deep(f))
		}
		return n
	}
	return v // funcs and channels are shared
}

// hasher accumulates a 64-bit hash.
type hasher uint64

const (
	k1 = 0x9e3779b97f4a7c15
	k2 = 0xbf58476d1ce4e5b9
)

func (h *hasher) add(x uint64) {
	*h = hasher(bits.RotateLeft64(uint64(*h)^(x*k1), 27) * k2)
}

// mix is a strong finalizer (splitmix64): sums of mixed values hash
// multisets independently of their order.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= k2
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// typeID is a per-run identity of a type (its descriptor's address).
func typeID(t reflect.Type) uint64 {
	return uint64((*[2]uintptr)(unsafe.Pointer(&t))[1])
}

// hash fingerprints x. Equal values hash equal: maps are hashed as sets of
// pairs, pointers by what they point to, shared memory not at all.
func (w *walker) hash(x any) uint64 {
	clear(w.path)
	clear(w.done)
	if w.path == nil {
		w.path, w.done = map[uintptr]int{}, map[uintptr]uint64{}
	}
	w.depth, w.low = 0, math.MaxInt
	var h hasher
	w.hashValue(&h, reflect.ValueOf(&x).Elem())
	return mix(uint64(h))
}

func (w *walker) hashValue(h *hasher, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			h.add(1)
		} else {
			h.add(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		h.add(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		h.add(v.Uint())
	case reflect.Float32, reflect.Float64:
		h.add(math64(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		h.add(math64(real(c)))
		h.add(math64(imag(c)))
	case reflect.String:
		s := v.String()
		h.add(uint64(len(s)))
		for len(s) >= 8 {
			h.add(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 | uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
			s = s[8:]
		}
		for i := range len(s) {
			h.add(uint64(s[i]))
		}
	case reflect.Pointer:
		if v.IsNil() {
			h.add(0)
			return
		}
		p := v.Pointer()
		if w.frozen[p] {
			h.add(2)
			return
		}
		// A pointer reached twice is hashed by what it points to each
		// time, so that the hash of a map's entry does not depend on
		// which entry reached shared memory first (the order of a map's
		// range is random). A cycle is cut where it closes; a pointee
		// whose walk closed no cycle above it hashes the same from
		// anywhere, and is hashed once.
		if d, ok := w.path[p]; ok {
			h.add(3)
			w.low = min(w.low, d)
			return
		}
		if x, ok := w.done[p]; ok {
			h.add(1)
			h.add(x)
			return
		}
		w.depth++
		w.path[p] = w.depth
		low := w.low
		w.low = math.MaxInt
		var sub hasher
		w.hashValue(&sub, v.Elem())
		delete(w.path, p)
		if w.low >= w.depth {
			w.done[p] = uint64(sub)
		}
		w.low = min(low, w.low)
		w.depth--
		h.add(1)
		h.add(uint64(sub))
	case reflect.Interface:
		if v.IsNil() {
			h.add(0)
			return
		}
		e := v.Elem()
		h.add(typeID(e.Type()))
		w.hashValue(h, e)
	case reflect.Slice, reflect.Array:
		h.add(uint64(v.Len()))
		for i := range v.Len() {
			w.hashValue(h, v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			h.add(0)
			return
		}
		if w.frozen[v.Pointer()] {
			h.add(2)
			return
		}
		var sum uint64
		it := v.MapRange()
		for it.Next() {
			var kv hasher
			w.hashValue(&kv, it.Key())
			w.hashValue(&kv, it.Value())
			sum += mix(uint64(kv))
		}
		h.add(uint64(v.Len()))
		h.add(sum)
	case reflect.Struct:
		skip := w.unhashed[v.Type()]
		for i := range v.NumField() {
			if skip != nil && skip[i] {
				continue
			}
			w.hashValue(h, exported(v.Field(i)))
		}
	}
	// funcs, channels: identity is not state
}

func math64(f float64) uint64 {
	if f == 0 {
		return 0 // -0 == 0
	}
	return *(*uint64)(unsafe.Pointer(&f))
}
