package chaos

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/allot-dev/allot/client"
)

// Store is the protected resource of the fencing argument: a versioned
// register per key that takes every read and write with a fencing token
// and refuses one whose token is below the largest it has seen for the
// key (a read raises it too, so a stale holder's read-modify-write is
// refused at its write once a newer holder has touched the key). A client
// holding a lock on a key reads its version v and writes v+1: a write the
// store acknowledged is lost exactly when another acknowledged write wrote
// the same version, which the checker looks for in the histories.
type Store interface {
	// Read returns the key's version, or ok false: the token is stale.
	Read(key string, tok client.Token) (version int, ok bool, err error)
	// Write sets the key's version, or refuses a stale token (ok false).
	Write(key string, tok client.Token, version int) (ok bool, err error)
}

// MemStore is the store, in memory. Unfenced makes it accept every
// token: the broken store the fencing check is shown to catch.
type MemStore struct {
	Unfenced bool
	mu       sync.Mutex
	keys     map[string]*register
}

type register struct {
	version int
	max     client.Token
}

func (s *MemStore) reg(key string, tok client.Token) (*register, bool) {
	if s.keys == nil {
		s.keys = map[string]*register{}
	}
	r := s.keys[key]
	if r == nil {
		r = &register{}
		s.keys[key] = r
	}
	if tok.Less(r.max) && !s.Unfenced {
		return r, false
	}
	if r.max.Less(tok) {
		r.max = tok
	}
	return r, true
}

// Read implements Store.
func (s *MemStore) Read(key string, tok client.Token) (int, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reg(key, tok)
	return r.version, ok, nil
}

// Write implements Store.
func (s *MemStore) Write(key string, tok client.Token, version int) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reg(key, tok)
	if ok {
		r.version = version
	}
	return ok, nil
}

// ServeHTTP serves the store to client processes: GET
// /?op=read|write&key=K&e=EPOCH&c=COUNTER[&v=VERSION] answers
// {"ok":..,"version":..}.
func (s *MemStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	e, err1 := strconv.ParseUint(q.Get("e"), 10, 64)
	c, err2 := strconv.ParseUint(q.Get("c"), 10, 64)
	v, err3 := strconv.Atoi(q.Get("v"))
	if err1 != nil || err2 != nil || (q.Get("op") == "write" && err3 != nil) {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	tok := client.Token{Epoch: e, Counter: c}
	var out storeAnswer
	switch q.Get("op") {
	case "read":
		out.Version, out.OK, _ = s.Read(q.Get("key"), tok)
	case "write":
		out.OK, _ = s.Write(q.Get("key"), tok, v)
		out.Version = v
	default:
		http.Error(w, "bad op", http.StatusBadRequest)
		return
	}
	json.NewEncoder(w).Encode(out)
}

type storeAnswer struct {
	OK      bool `json:"ok"`
	Version int  `json:"version"`
}

// HTTPStore is a client process's way to a MemStore served by the
// harness.
type HTTPStore struct {
	URL string
	C   *http.Client
}

func (s HTTPStore) do(op, key string, tok client.Token, version int) (storeAnswer, error) {
	u := fmt.Sprintf("%s/?op=%s&key=%s&e=%d&c=%d&v=%d", s.URL, op, key, tok.Epoch, tok.Counter, version)
	resp, err := s.C.Get(u)
	if err != nil {
		return storeAnswer{}, err
	}
	defer resp.Body.Close()
	var a storeAnswer
	if resp.StatusCode != http.StatusOK {
		return a, fmt.Errorf("store: %s", resp.Status)
	}
	return a, json.NewDecoder(resp.Body).Decode(&a)
}

// Read implements Store.
func (s HTTPStore) Read(key string, tok client.Token) (int, bool, error) {
	a, err := s.do("read", key, tok, 0)
	return a.Version, a.OK, err
}

// Write implements Store.
func (s HTTPStore) Write(key string, tok client.Token, version int) (bool, error) {
	a, err := s.do("write", key, tok, version)
	return a.OK, err
}
