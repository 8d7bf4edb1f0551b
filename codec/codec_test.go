package codec_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"

	"pgregory.net/rapid"
)

var update = flag.Bool("update", false, "rewrite testdata/types.golden")

// catalogue is the codec of every catalogue algorithm: the one the network
// service and the explorer use.
func catalogue(t testing.TB) *codec.Codec {
	t.Helper()
	c, err := codec.New(all.List()...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// spy runs a process with an env that records what it sends and arms.
type spy struct {
	inner proc.Process
	seen  *[]any
}

type spyEnv struct {
	proc.Env
	seen *[]any
}

func (e spyEnv) Send(to proc.ID, m proc.Message) { *e.seen = append(*e.seen, m); e.Env.Send(to, m) }
func (e spyEnv) After(d proc.Time, t proc.Timer) { *e.seen = append(*e.seen, t); e.Env.After(d, t) }

func (s spy) env(env proc.Env) proc.Env { return spyEnv{env, s.seen} }
func (s spy) Start(env proc.Env)        { s.inner.Start(s.env(env)) }
func (s spy) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	s.inner.Deliver(s.env(env), from, m)
}
func (s spy) Fire(env proc.Env, t proc.Timer) { s.inner.Fire(s.env(env), t) }
func (s spy) Request(env proc.Env, r proc.Request) {
	s.inner.(proc.Allocator).Request(s.env(env), r)
}
func (s spy) Release(env proc.Env) { s.inner.(proc.Allocator).Release(s.env(env)) }

// problem is a small instance of kind k; every kind of the catalogue needs
// one here.
func problem(k algo.Kind) (*algo.Problem, error) {
	g, err := graph.Parse("ring:5", nil)
	if err != nil {
		return nil, err
	}
	switch k {
	case algo.Exclusive:
		return algo.DiningProblem(g), nil
	case algo.Pool:
		return &algo.Problem{Kind: k, Users: g.N(), Graph: g, Units: 2}, nil
	case algo.Quota:
		return &algo.Problem{Kind: k, Users: g.N(), Graph: g, Budget: 12, Waste: 2}, nil
	}
	return nil, fmt.Errorf("no test problem for %s algorithms", k)
}

// TestCatalogue runs every catalogue algorithm in the simulator and checks
// that every message it sends and every timer it arms is declared by the
// algorithm itself (its own codec encodes it), round-trips, and has the
// same bytes under the codec of the whole catalogue. A new algorithm that
// forgets a declaration fails here.
func TestCatalogue(t *testing.T) {
	whole := catalogue(t)
	for _, a := range all.List() {
		t.Run(a.Name, func(t *testing.T) {
			own, err := codec.New(a)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := problem(a.Kind)
			if err != nil {
				t.Fatal(err)
			}
			pb.FIFO = a.NeedsFIFO
			procs, err := a.Build(pb)
			if err != nil {
				t.Fatal(err)
			}
			var seen []any
			for i, p := range procs {
				procs[i] = spy{p, &seen}
			}
			_, err = sim.Run(sim.Config{
				Seed: 1,
				Net:  sim.Network{Delay: dist.Uniform(1, 6), FIFO: a.NeedsFIFO},
				Work: app.Workload{Think: dist.Uniform(0, 5), CS: dist.Const(2), PerUser: 3},
			}, pb, procs)
			if err != nil {
				t.Fatal(err)
			}
			msgs := 0
			for _, x := range seen {
				var b, wb []byte
				var back any
				if m, ok := x.(proc.Message); ok {
					msgs++
					if b, err = own.AppendMessage(nil, m); err == nil {
						back, err = own.DecodeMessage(b)
					}
					wb, _ = whole.AppendMessage(nil, m)
				} else {
					if b, err = own.AppendTimer(nil, x); err == nil {
						back, err = own.DecodeTimer(b)
					}
					wb, _ = whole.AppendTimer(nil, x)
				}
				switch {
				case err != nil:
					t.Fatalf("%#v: %v", x, err)
				case !same(reflect.ValueOf(x), reflect.ValueOf(back)):
					t.Fatalf("%#v came back as %#v", x, back)
				case !bytes.Equal(b, wb):
					t.Fatalf("%#v: % x with its own codec, % x with the catalogue's", x, b, wb)
				}
			}
			if msgs == 0 {
				t.Fatal("the run sent no message: nothing was checked")
			}
		})
	}
}

// same is deep equality on the wire's terms: nil and empty slices are the
// same, floats are compared bit for bit.
func same(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	switch a.Kind() {
	case reflect.Interface:
		return same(a.Elem(), b.Elem())
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !same(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	}
	return a.Equal(b)
}

// gen draws a random value of type t; fields of type proc.Message and
// proc.Timer get a random declared type, wrapped at most a few deep.
func gen(r *rapid.T, c *codec.Codec, t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t {
	case reflect.TypeFor[proc.Message](), reflect.TypeFor[proc.Timer]():
		timer := t == reflect.TypeFor[proc.Timer]()
		var pick []codec.Type
		for _, ct := range c.Types() {
			if ct.Timer == timer && (depth < 3 || !strings.Contains(ct.Shape, "message") && !strings.Contains(ct.Shape, "timer")) {
				pick = append(pick, ct)
			}
		}
		ct := rapid.SampledFrom(pick).Draw(r, "type")
		v.Set(gen(r, c, ct.Go, depth+1))
		return v
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(rapid.Bool().Draw(r, "bool"))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(rapid.Int64().Draw(r, "int"))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(rapid.Uint64().Draw(r, "uint"))
	case reflect.Float64:
		v.SetFloat(math.Float64frombits(rapid.Uint64().Draw(r, "float")))
	case reflect.String:
		v.SetString(rapid.String().Draw(r, "string"))
	case reflect.Slice:
		n := rapid.IntRange(0, 6).Draw(r, "len")
		if n > 0 || rapid.Bool().Draw(r, "empty, not nil") {
			v.Set(reflect.MakeSlice(t, n, n))
		}
		for i := 0; i < n; i++ {
			v.Index(i).Set(gen(r, c, t.Elem(), depth))
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			v.Index(i).Set(gen(r, c, t.Elem(), depth))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			v.Field(i).Set(gen(r, c, t.Field(i).Type, depth))
		}
	default:
		r.Fatalf("gen: %s", t)
	}
	return v
}

// TestRoundTrip: every value of every declared type, nested wrappers
// included, decodes to itself, and re-encodes to the same bytes.
func TestRoundTrip(t *testing.T) {
	c := catalogue(t)
	for _, ct := range c.Types() {
		t.Run(ct.Go.String(), func(t *testing.T) {
			rapid.Check(t, func(r *rapid.T) {
				x := gen(r, c, ct.Go, 0).Interface()
				var b, b2 []byte
				var back any
				var err error
				if ct.Timer {
					if b, err = c.AppendTimer(nil, x); err == nil {
						if back, err = c.DecodeTimer(b); err == nil {
							b2, err = c.AppendTimer(nil, back)
						}
					}
				} else {
					if b, err = c.AppendMessage(nil, x.(proc.Message)); err == nil {
						if back, err = c.DecodeMessage(b); err == nil {
							b2, err = c.AppendMessage(nil, back.(proc.Message))
						}
					}
				}
				switch {
				case err != nil:
					r.Fatalf("%#v: %v", x, err)
				case !same(reflect.ValueOf(x), reflect.ValueOf(back)):
					r.Fatalf("%#v came back as %#v", x, back)
				case !bytes.Equal(b, b2):
					r.Fatalf("%#v: % x, then % x", x, b, b2)
				}
			})
		})
	}
}

// TestTypes keeps the tags stable: a changed name or layout of a message
// type changes its tag, and shows here.
func TestTypes(t *testing.T) {
	var buf bytes.Buffer
	for _, ct := range catalogue(t).Types() {
		what := "message"
		if ct.Timer {
			what = "timer"
		}
		fmt.Fprintf(&buf, "%08x %-7s %s %s\n", ct.Tag, what, ct.Name, ct.Shape)
	}
	const path = "testdata/types.golden"
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the declared types changed (a new algorithm: run go test ./codec -run TestTypes -update and commit %s):\n%s", path, buf.String())
	}
}

func enc(t *testing.T, c *codec.Codec, m proc.Message) []byte {
	t.Helper()
	b, err := c.AppendMessage(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeErrors: hostile input gets an error that says what is wrong.
func TestDecodeErrors(t *testing.T) {
	c := catalogue(t)
	req := enc(t, c, central.Req{Res: []proc.ResID{1, 300}}) // tag, 2, 2, 0xd8 0x04
	grant := enc(t, c, central.Grant{})
	wrapped := enc(t, c, proc.Wrapped{M: central.Grant{}})
	deep := grant
	for range codec.MaxDepth {
		deep = append(clone(wrapped[:4]), deep...)
	}
	timer, err := c.AppendTimer(nil, catalogueTimer(t, c))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "at byte 0: 0 bytes left for a 4-byte tag"},
		{"unknown tag", []byte{1, 2, 3, 4}, "unknown tag 0x01020304"},
		{"trailing", append(clone(grant), 0), "at byte 4: 1 bytes after the value"},
		{"truncated length", req[:4], "in central.Req.Res: truncated varint"},
		{"length past the end", append(clone(req[:4]), 9, 2), "length 9, but 1 bytes left"},
		{"truncated element", req[:len(req)-1], "in central.Req.Res[1]: truncated varint"},
		{"long varint", append(clone(req[:4]), 0x81, 0x00, 2), "at byte 4 in central.Req.Res: varint not in its shortest form"},
		{"overflow", append(clone(req[:4]), 1, 0x80, 0x80, 0x80, 0x80, 0x10), "in central.Req.Res[0]: 2147483648 overflows proc.ResID"},
		{"too deep", deep, "messages nested deeper than 8"},
		{"wrapped unknown", append(clone(wrapped[:4]), 9, 9, 9, 9), "in proc.Wrapped.M: unknown tag 0x09090909"},
		{"timer for a message", timer, "where a message is expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := c.DecodeMessage(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("% x: got %v, %v; want an error containing %q", tc.in, m, err, tc.want)
			}
		})
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// catalogueTimer is some declared timer type's zero value.
func catalogueTimer(t testing.TB, c *codec.Codec) proc.Timer {
	for _, ct := range c.Types() {
		if ct.Timer && ct.Go != reflect.TypeFor[proc.WrappedTimer]() {
			return reflect.New(ct.Go).Elem().Interface()
		}
	}
	t.Fatal("no timer type is declared")
	return nil
}

type (
	withMap     struct{ M map[int]int }
	withPointer struct{ P *int }
	//lint:ignore U1000 the unexported field is what the codec must refuse
	withHidden   struct{ x int }
	withFloat32  struct{ F float32 }
	withAny      struct{ A any }
	recursive    struct{ R []recursive }
	undeclared   struct{}
	alsoAMessage struct{}
)

func (withMap) Kind() string      { return "map" }
func (withPointer) Kind() string  { return "pointer" }
func (withHidden) Kind() string   { return "hidden" }
func (withFloat32) Kind() string  { return "float32" }
func (withAny) Kind() string      { return "any" }
func (recursive) Kind() string    { return "recursive" }
func (undeclared) Kind() string   { return "undeclared" }
func (alsoAMessage) Kind() string { return "both" }

// TestNewRefuses: New names the type it cannot encode and says why.
func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		a    algo.Algorithm
		want string
	}{
		{algo.Algorithm{Name: "m", Messages: []proc.Message{withMap{}}}, "codec: m: message type github.com/allot-dev/allot/codec_test.withMap: map[int]int: a map cannot be encoded"},
		{algo.Algorithm{Name: "p", Messages: []proc.Message{withPointer{}}}, "a ptr cannot be encoded"},
		{algo.Algorithm{Name: "h", Messages: []proc.Message{withHidden{}}}, "field x of codec_test.withHidden is not exported"},
		{algo.Algorithm{Name: "f", Messages: []proc.Message{withFloat32{}}}, "float32 cannot be encoded bit for bit"},
		{algo.Algorithm{Name: "a", Messages: []proc.Message{withAny{}}}, "interface {}: a interface cannot be encoded"},
		{algo.Algorithm{Name: "r", Messages: []proc.Message{recursive{}}}, "codec_test.recursive contains itself"},
		{algo.Algorithm{Name: "n", Messages: []proc.Message{nil}}, "a nil message is declared"},
		{algo.Algorithm{Name: "u", Timers: []proc.Timer{struct{ X int }{}}}, "timer type struct { X int } has no name"},
		{algo.Algorithm{Name: "b", Messages: []proc.Message{alsoAMessage{}}, Timers: []proc.Timer{alsoAMessage{}}}, "declared both as a message and as a timer"},
	} {
		_, err := codec.New(tc.a)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.a.Name, err, tc.want)
		}
	}
}

// TestEncodeRefuses: what no algorithm declared is not encoded.
func TestEncodeRefuses(t *testing.T) {
	c := catalogue(t)
	for _, tc := range []struct {
		m    proc.Message
		want string
	}{
		{undeclared{}, "codec_test.undeclared is not a declared message type (list it in its algorithm's Messages)"},
		{proc.Wrapped{M: undeclared{}}, "codec_test.undeclared is not a declared message type"},
		{proc.Wrapped{}, "nil message"},
	} {
		if b, err := c.AppendMessage([]byte{7}, tc.m); err == nil || !strings.Contains(err.Error(), tc.want) || !bytes.Equal(b, []byte{7}) {
			t.Errorf("%#v: got % x, %v; want the input back and an error containing %q", tc.m, b, err, tc.want)
		}
	}
	if _, err := c.AppendTimer(nil, 3); err == nil || !strings.Contains(err.Error(), "int is not a declared timer type") {
		t.Errorf("an int timer: %v", err)
	}
	if _, err := c.AppendTimer(nil, proc.WrappedTimer{}); err == nil || !strings.Contains(err.Error(), "nil timer") {
		t.Errorf("a wrapped nil timer: %v", err)
	}
}

// TestDeterministic: equal values have equal bytes, whatever their
// history (the explorer's fingerprints rely on it).
func TestDeterministic(t *testing.T) {
	c := catalogue(t)
	res := make([]proc.ResID, 0, 10)
	res = append(res, 4, 2)
	a := enc(t, c, proc.Wrapped{M: central.Req{Res: res}})
	b := enc(t, c, proc.Wrapped{M: central.Req{Res: []proc.ResID{4, 2}}})
	if !bytes.Equal(a, b) {
		t.Errorf("% x and % x", a, b)
	}
	if e, n := enc(t, c, central.Req{Res: []proc.ResID{}}), enc(t, c, central.Req{}); !bytes.Equal(e, n) {
		t.Errorf("empty % x, nil % x", e, n)
	}
}

// FuzzDecode: hostile input never panics, and what decodes re-encodes to
// the very same bytes (the encoding is canonical).
func FuzzDecode(f *testing.F) {
	c := catalogue(f)
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, ct := range c.Types() {
		v := reflect.New(ct.Go).Elem()
		if ct.Go == reflect.TypeFor[proc.Wrapped]() {
			v.Field(0).Set(reflect.ValueOf(central.Req{Res: []proc.ResID{proc.ResID(rnd.IntN(100)), 1}}))
		}
		if ct.Go == reflect.TypeFor[proc.WrappedTimer]() {
			v.Field(0).Set(reflect.ValueOf(catalogueTimer(f, c)))
		}
		var b []byte
		var err error
		if ct.Timer {
			b, err = c.AppendTimer(nil, v.Interface())
		} else {
			b, err = c.AppendMessage(nil, v.Interface().(proc.Message))
		}
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if m, err := c.DecodeMessage(in); err == nil {
			out, err := c.AppendMessage(nil, m)
			if err != nil || !bytes.Equal(in, out) {
				t.Fatalf("% x decodes to %#v, which encodes to % x, %v", in, m, out, err)
			}
		}
		if tm, err := c.DecodeTimer(in); err == nil {
			out, err := c.AppendTimer(nil, tm)
			if err != nil || !bytes.Equal(in, out) {
				t.Fatalf("% x decodes to %#v, which encodes to % x, %v", in, tm, out, err)
			}
		}
	})
}
