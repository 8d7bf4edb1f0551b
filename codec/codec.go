// Package codec is allot's wire encoding of messages and timers: what the
// network service sends between nodes and what the explorer fingerprints
// (the messages in flight, the timers armed).
//
// The types it knows are the ones the algorithms declare (algo.Algorithm's
// Messages and Timers), plus proc.Wrapped and proc.WrappedTimer, which carry
// a hosted subroutine's traffic. A value is encoded as
//
//	value  = tag body
//	tag    = 4 bytes, big-endian: FNV-1a of the type's name and shape
//	body   = the type's fields in declaration order:
//	         bool          1 byte, 0 or 1
//	         intN          zigzag varint
//	         uintN         varint
//	         float64       IEEE 754 bits, 8 bytes little-endian
//	         string        varint length, bytes
//	         slice         varint length, elements
//	         array         elements
//	         struct        fields
//	         proc.Message  value (a nested tag and body: proc.Wrapped)
//	         proc.Timer    value (proc.WrappedTimer)
//
// The name is the type's import path and name ("github.com/allot-dev/allot/algo/central.Req"),
// so two packages' Req never share a tag; the shape is its encoding's
// structure (kinds, not field names), so a node built with a different
// layout of the same type rejects it as an unknown tag instead of reading
// garbage. Tags collide only if two hashes do, which New reports.
//
// Encoding is deterministic (same value, same bytes: no maps, fields in
// order, minimal varints) and decoding accepts only what encoding
// produces, so bytes and values correspond one to one and equal states
// have equal fingerprints. Nil and empty slices are the same on the wire;
// decoding gives nil. Decoding hostile input never panics and allocates in
// proportion to the input: a value is at most MaxSize bytes, a length never
// exceeds the bytes left, and nesting stops at MaxDepth.
//
// A stream or datagram transport frames the values itself (a length
// prefix); a value does not know its own length.
package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Limits on one encoded value.
const (
	MaxSize  = 1 << 20 // bytes
	MaxDepth = 8       // proc.Message and proc.Timer fields inside each other
)

// Type is one type the codec knows.
type Type struct {
	Name  string // import path and type name
	Shape string // the structure of its encoding
	Tag   uint32
	Timer bool // a timer type; else a message type
	Go    reflect.Type
}

// Codec encodes and decodes the messages and timers of a set of algorithms.
// It is safe for concurrent use.
type Codec struct {
	byType map[reflect.Type]*entry
	byTag  map[uint32]*entry
}

type entry struct {
	Type
	enc encoder
	dec decoder
}

type (
	encoder func(b []byte, v reflect.Value, depth int) ([]byte, error)
	decoder func(d *decoding, v reflect.Value, depth int) error
)

var (
	messageType = reflect.TypeFor[proc.Message]()
	timerType   = reflect.TypeFor[proc.Timer]()
)

// New returns the codec of the types that algs declare. It fails on a type
// it cannot encode (a map, a pointer, an unexported field, ...) and on two
// types with one tag.
func New(algs ...algo.Algorithm) (*Codec, error) {
	c := &Codec{byType: map[reflect.Type]*entry{}, byTag: map[uint32]*entry{}}
	if err := c.add(proc.Wrapped{}, false); err != nil {
		return nil, err
	}
	if err := c.add(proc.WrappedTimer{}, true); err != nil {
		return nil, err
	}
	for _, a := range algs {
		for _, m := range a.Messages {
			if err := c.add(m, false); err != nil {
				return nil, fmt.Errorf("codec: %s: %w", a.Name, err)
			}
		}
		for _, t := range a.Timers {
			if err := c.add(t, true); err != nil {
				return nil, fmt.Errorf("codec: %s: %w", a.Name, err)
			}
		}
	}
	return c, nil
}

func (c *Codec) add(v any, timer bool) error {
	t := reflect.TypeOf(v)
	what := "message"
	if timer {
		what = "timer"
	}
	if t == nil {
		return fmt.Errorf("a nil %s is declared", what)
	}
	if e, ok := c.byType[t]; ok {
		if e.Timer != timer {
			return fmt.Errorf("%s is declared both as a message and as a timer", e.Name)
		}
		return nil
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return fmt.Errorf("%s type %s has no name", what, t)
	}
	name := t.PkgPath() + "." + t.Name()
	shape, err := shapeOf(t, nil)
	if err != nil {
		return fmt.Errorf("%s type %s: %w", what, name, err)
	}
	h := fnv.New32a()
	h.Write([]byte(name + " " + shape))
	e := &entry{Type: Type{Name: name, Shape: shape, Tag: h.Sum32(), Timer: timer, Go: t}}
	if o, ok := c.byTag[e.Tag]; ok {
		return fmt.Errorf("%s and %s have the same tag %#08x (rename one)", o.Name, name, e.Tag)
	}
	e.enc, e.dec = c.compile(t)
	c.byType[t] = e
	c.byTag[e.Tag] = e
	return nil
}

// Types lists the types the codec knows, by name.
func (c *Codec) Types() []Type {
	ts := make([]Type, 0, len(c.byType))
	for _, e := range c.byType { // any order: sorted below
		ts = append(ts, e.Type)
	}
	slices.SortFunc(ts, func(a, b Type) int { return strings.Compare(a.Name, b.Name) })
	return ts
}

// AppendMessage appends the encoding of m to b.
func (c *Codec) AppendMessage(b []byte, m proc.Message) ([]byte, error) {
	return c.append(b, m, false)
}

// AppendTimer appends the encoding of t to b.
func (c *Codec) AppendTimer(b []byte, t proc.Timer) ([]byte, error) {
	return c.append(b, t, true)
}

func (c *Codec) append(b []byte, x any, timer bool) ([]byte, error) {
	start := len(b)
	b, err := c.appendValue(b, reflect.ValueOf(x), timer, 0)
	if err == nil && len(b)-start > MaxSize {
		err = fmt.Errorf("codec: %T encodes to %d bytes, more than %d", x, len(b)-start, MaxSize)
	}
	if err != nil {
		return b[:start], err
	}
	return b, nil
}

// appendValue appends tag and body of v, a message or timer held in an
// interface.
func (c *Codec) appendValue(b []byte, v reflect.Value, timer bool, depth int) ([]byte, error) {
	what := "message"
	if timer {
		what = "timer"
	}
	if !v.IsValid() {
		return b, fmt.Errorf("codec: nil %s", what)
	}
	if depth >= MaxDepth {
		return b, fmt.Errorf("codec: %s %s nested deeper than %d", what, v.Type(), MaxDepth)
	}
	e, ok := c.byType[v.Type()]
	if !ok || e.Timer != timer {
		return b, fmt.Errorf("codec: %s is not a declared %s type (list it in its algorithm's %ss)", v.Type(), what, strings.ToUpper(what[:1])+what[1:])
	}
	b = binary.BigEndian.AppendUint32(b, e.Tag)
	return e.enc(b, v, depth)
}

// DecodeMessage decodes a message encoded by AppendMessage; b must hold
// exactly one.
func (c *Codec) DecodeMessage(b []byte) (proc.Message, error) {
	v, err := c.decode(b, false)
	if err != nil {
		return nil, err
	}
	return v.Interface().(proc.Message), nil
}

// DecodeTimer decodes a timer encoded by AppendTimer; b must hold exactly
// one.
func (c *Codec) DecodeTimer(b []byte) (proc.Timer, error) {
	v, err := c.decode(b, true)
	if err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

func (c *Codec) decode(b []byte, timer bool) (reflect.Value, error) {
	if len(b) > MaxSize {
		return reflect.Value{}, fmt.Errorf("codec: %d bytes, more than %d", len(b), MaxSize)
	}
	d := &decoding{b: b}
	v, err := c.decodeValue(d, timer, 0)
	if err == nil && d.off != len(b) {
		err = d.fail("%d bytes after the value", len(b)-d.off)
	}
	if err != nil {
		return reflect.Value{}, err
	}
	return v, nil
}

func (c *Codec) decodeValue(d *decoding, timer bool, depth int) (reflect.Value, error) {
	what := "message"
	if timer {
		what = "timer"
	}
	if depth >= MaxDepth {
		return reflect.Value{}, d.fail("%ss nested deeper than %d", what, MaxDepth)
	}
	if len(d.b)-d.off < 4 {
		return reflect.Value{}, d.fail("%d bytes left for a 4-byte tag", len(d.b)-d.off)
	}
	tag := binary.BigEndian.Uint32(d.b[d.off:])
	e, ok := c.byTag[tag]
	switch {
	case !ok:
		return reflect.Value{}, d.fail("unknown tag %#08x", tag)
	case e.Timer != timer:
		return reflect.Value{}, d.fail("%s where a %s is expected", e.Go, what)
	}
	d.off += 4
	v := reflect.New(e.Go).Elem()
	if err := e.dec(d, v, depth); err != nil {
		return reflect.Value{}, d.in(e.Go.String(), err)
	}
	return v, nil
}

// decoding is the state of one Decode call.
type decoding struct {
	b   []byte
	off int
}

// Error is a decoding error: what is wrong, at which byte, in which value.
type Error struct {
	Offset int
	Path   string // the value and field being decoded, outermost first
	Msg    string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("codec: at byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("codec: at byte %d in %s: %s", e.Offset, e.Path, e.Msg)
}

func (d *decoding) fail(format string, args ...any) error {
	return &Error{Offset: d.off, Msg: fmt.Sprintf(format, args...)}
}

// in prefixes the path of err with p, on the way out.
func (d *decoding) in(p string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		if e.Path == "" || strings.HasPrefix(e.Path, ".") || strings.HasPrefix(e.Path, "[") {
			e.Path = p + e.Path
		} else {
			e.Path = p + " > " + e.Path
		}
	}
	return err
}

func (d *decoding) uvarint() (uint64, error) {
	x, n := binary.Uvarint(d.b[d.off:])
	switch {
	case n == 0:
		return 0, d.fail("truncated varint")
	case n < 0:
		return 0, d.fail("varint overflows 64 bits")
	case n > 1 && d.b[d.off+n-1] == 0:
		return 0, d.fail("varint not in its shortest form")
	}
	d.off += n
	return x, nil
}

func (d *decoding) fixed(n int) ([]byte, error) {
	if len(d.b)-d.off < n {
		return nil, d.fail("%d bytes left for a %d-byte value", len(d.b)-d.off, n)
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p, nil
}

// length reads a slice or string length: elements of at least min bytes
// each must fit in what is left.
func (d *decoding) length(min int) (int, error) {
	at := d.off
	n, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	left := uint64(len(d.b) - d.off)
	if min == 0 {
		left = MaxSize
	}
	if n > left/uint64(max(min, 1)) {
		left := len(d.b) - d.off
		d.off = at
		return 0, d.fail("length %d, but %d bytes left", n, left)
	}
	return int(n), nil
}

// shapeOf describes t's encoding, or says why it has none. seen holds the
// types being described, to reject recursive ones.
func shapeOf(t reflect.Type, seen []reflect.Type) (string, error) {
	if slices.Contains(seen, t) {
		return "", fmt.Errorf("%s contains itself", t)
	}
	seen = append(seen, t)
	switch t {
	case messageType:
		return "message", nil
	case timerType:
		return "timer", nil
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float64, reflect.String:
		return t.Kind().String(), nil
	case reflect.Float32:
		// reflect reads a float32 through a float64, which quiets a
		// signalling NaN: its bytes would not survive.
		return "", fmt.Errorf("%s: a float32 cannot be encoded bit for bit (use float64)", t)
	case reflect.Int:
		return "int64", nil
	case reflect.Uint:
		return "uint64", nil
	case reflect.Slice:
		s, err := shapeOf(t.Elem(), seen)
		return "[]" + s, err
	case reflect.Array:
		s, err := shapeOf(t.Elem(), seen)
		return fmt.Sprintf("[%d]%s", t.Len(), s), err
	case reflect.Struct:
		fs := make([]string, t.NumField())
		for i := range fs {
			f := t.Field(i)
			if !f.IsExported() {
				return "", fmt.Errorf("field %s of %s is not exported", f.Name, t)
			}
			s, err := shapeOf(f.Type, seen)
			if err != nil {
				return "", err
			}
			fs[i] = s
		}
		return "{" + strings.Join(fs, ",") + "}", nil
	}
	return "", fmt.Errorf("%s: a %s cannot be encoded (a message is a plain value)", t, t.Kind())
}

// minSize is the fewest bytes a value of t encodes to.
func minSize(t reflect.Type) int {
	switch t {
	case messageType, timerType:
		return 4
	}
	switch t.Kind() {
	case reflect.Float64:
		return 8
	case reflect.Array:
		return t.Len() * minSize(t.Elem())
	case reflect.Struct:
		n := 0
		for i := 0; i < t.NumField(); i++ {
			n += minSize(t.Field(i).Type)
		}
		return n
	}
	return 1
}

// compile builds the encoder and decoder of t, a type shapeOf accepted.
func (c *Codec) compile(t reflect.Type) (encoder, decoder) {
	switch t {
	case messageType, timerType:
		timer := t == timerType
		return func(b []byte, v reflect.Value, depth int) ([]byte, error) {
				return c.appendValue(b, v.Elem(), timer, depth+1)
			}, func(d *decoding, v reflect.Value, depth int) error {
				x, err := c.decodeValue(d, timer, depth+1)
				if err == nil {
					v.Set(x)
				}
				return err
			}
	}
	switch k := t.Kind(); k {
	case reflect.Bool:
		return func(b []byte, v reflect.Value, _ int) ([]byte, error) {
				if v.Bool() {
					return append(b, 1), nil
				}
				return append(b, 0), nil
			}, func(d *decoding, v reflect.Value, _ int) error {
				p, err := d.fixed(1)
				if err != nil {
					return err
				}
				if p[0] > 1 {
					d.off--
					return d.fail("bool byte %d", p[0])
				}
				v.SetBool(p[0] == 1)
				return nil
			}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b []byte, v reflect.Value, _ int) ([]byte, error) {
				return binary.AppendVarint(b, v.Int()), nil
			}, func(d *decoding, v reflect.Value, _ int) error {
				at := d.off
				u, err := d.uvarint()
				if err != nil {
					return err
				}
				x := int64(u>>1) ^ -int64(u&1)
				if v.OverflowInt(x) {
					d.off = at
					return d.fail("%d overflows %s", x, t)
				}
				v.SetInt(x)
				return nil
			}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(b []byte, v reflect.Value, _ int) ([]byte, error) {
				return binary.AppendUvarint(b, v.Uint()), nil
			}, func(d *decoding, v reflect.Value, _ int) error {
				at := d.off
				x, err := d.uvarint()
				if err != nil {
					return err
				}
				if v.OverflowUint(x) {
					d.off = at
					return d.fail("%d overflows %s", x, t)
				}
				v.SetUint(x)
				return nil
			}
	case reflect.Float64:
		return func(b []byte, v reflect.Value, _ int) ([]byte, error) {
				return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float())), nil
			}, func(d *decoding, v reflect.Value, _ int) error {
				p, err := d.fixed(8)
				if err == nil {
					v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(p)))
				}
				return err
			}
	case reflect.String:
		return func(b []byte, v reflect.Value, _ int) ([]byte, error) {
				s := v.String()
				return append(binary.AppendUvarint(b, uint64(len(s))), s...), nil
			}, func(d *decoding, v reflect.Value, _ int) error {
				n, err := d.length(1)
				if err != nil {
					return err
				}
				p, _ := d.fixed(n)
				v.SetString(string(p))
				return nil
			}
	case reflect.Slice:
		encElem, decElem := c.compile(t.Elem())
		min := minSize(t.Elem())
		return func(b []byte, v reflect.Value, depth int) ([]byte, error) {
				if min == 0 && v.Len() > MaxSize {
					return b, fmt.Errorf("codec: %s of %d elements, more than %d", t, v.Len(), MaxSize)
				}
				b = binary.AppendUvarint(b, uint64(v.Len()))
				for i := 0; i < v.Len(); i++ {
					var err error
					if b, err = encElem(b, v.Index(i), depth); err != nil {
						return b, err
					}
				}
				return b, nil
			}, func(d *decoding, v reflect.Value, depth int) error {
				n, err := d.length(min)
				if err != nil || n == 0 {
					return err
				}
				s := reflect.MakeSlice(t, n, n)
				for i := 0; i < n; i++ {
					if err := decElem(d, s.Index(i), depth); err != nil {
						return d.in(fmt.Sprintf("[%d]", i), err)
					}
				}
				v.Set(s)
				return nil
			}
	case reflect.Array:
		encElem, decElem := c.compile(t.Elem())
		return func(b []byte, v reflect.Value, depth int) ([]byte, error) {
				for i := 0; i < v.Len(); i++ {
					var err error
					if b, err = encElem(b, v.Index(i), depth); err != nil {
						return b, err
					}
				}
				return b, nil
			}, func(d *decoding, v reflect.Value, depth int) error {
				for i := 0; i < v.Len(); i++ {
					if err := decElem(d, v.Index(i), depth); err != nil {
						return d.in(fmt.Sprintf("[%d]", i), err)
					}
				}
				return nil
			}
	case reflect.Struct:
		n := t.NumField()
		encs, decs := make([]encoder, n), make([]decoder, n)
		for i := range n {
			encs[i], decs[i] = c.compile(t.Field(i).Type)
		}
		return func(b []byte, v reflect.Value, depth int) ([]byte, error) {
				for i, enc := range encs {
					var err error
					if b, err = enc(b, v.Field(i), depth); err != nil {
						return b, err
					}
				}
				return b, nil
			}, func(d *decoding, v reflect.Value, depth int) error {
				for i, dec := range decs {
					if err := dec(d, v.Field(i), depth); err != nil {
						return d.in("."+t.Field(i).Name, err)
					}
				}
				return nil
			}
	}
	panic(fmt.Sprintf("codec: compile %s: shapeOf should have refused it", t))
}
