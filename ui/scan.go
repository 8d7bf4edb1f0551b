package ui

import (
	"bytes"
	"strconv"

	"github.com/allot-dev/allot/proc"
)

// scratch holds what scanLine's pointers point to, reused line after
// line (the caller copies the values out before the next line), and the
// strings seen, so that a kind or a message costs no allocation.
type scratch struct {
	t, unit, name, to, from, epoch int64
	ev, msg                        string
	version                        int
	strs                           map[string]string
}

func (sc *scratch) intern(b []byte) string {
	if s, ok := sc.strs[string(b)]; ok {
		return s
	}
	if sc.strs == nil {
		sc.strs = map[string]string{}
	}
	s := string(b)
	sc.strs[s] = s
	return s
}

// scanLine reads the common shape of a trace line, a flat object of
// integers, strings without escapes and arrays of integers, several times
// faster than encoding/json, which reads everything else (ok false: the
// caller falls back to json.Unmarshal, which also says what is wrong).
// The pointers it sets point into sc.
func scanLine(b []byte, l *rawLine, sc *scratch) (ok bool) {
	*l = rawLine{}
	i := skip(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skip(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skip(b, i+1) == len(b)
	}
	for {
		key, j, ok := str(b, i)
		if !ok {
			return false
		}
		i = skip(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skip(b, i+1)
		switch string(key) {
		case "t", "unit", "name", "to", "from", "epoch", "p", "version":
			n, j, ok := integer(b, i)
			if !ok {
				return false
			}
			i = j
			switch string(key) {
			case "t":
				sc.t, l.T = n, &sc.t
			case "unit":
				sc.unit, l.Unit = n, &sc.unit
			case "name":
				sc.name, l.Name = n, &sc.name
			case "to":
				sc.to, l.To = n, &sc.to
			case "from":
				sc.from, l.From = n, &sc.from
			case "epoch":
				sc.epoch, l.Epoch = n, &sc.epoch
			case "p":
				if int64(int32(n)) != n {
					return false
				}
				l.P = int32(n)
			case "version":
				if int64(int(n)) != n {
					return false
				}
				sc.version, l.Version = int(n), &sc.version
			}
		case "ev", "msg":
			s, j, ok := str(b, i)
			if !ok {
				return false
			}
			i = j
			if key[0] == 'e' {
				sc.ev, l.Ev = sc.intern(s), &sc.ev
			} else {
				sc.msg, l.Msg = sc.intern(s), &sc.msg
			}
		case "res", "members", "holding", "open":
			ns, j, ok := ints(b, i)
			if !ok {
				return false
			}
			i = j
			switch string(key) {
			case "res", "members":
				rs := make([]proc.ResID, len(ns))
				for k, n := range ns {
					if int64(int32(n)) != n {
						return false
					}
					rs[k] = proc.ResID(n)
				}
				if key[0] == 'r' {
					l.Res = rs
				} else {
					l.Members = rs
				}
			default:
				ps := make([]proc.ID, len(ns))
				for k, n := range ns {
					if int64(int32(n)) != n {
						return false
					}
					ps[k] = proc.ID(n)
				}
				if key[0] == 'h' {
					l.Holding = ps
				} else {
					l.Open = ps
				}
			}
		default:
			return false // a field of another shape: the header's scenario, or unknown
		}
		i = skip(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skip(b, i+1)
		case '}':
			return skip(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func skip(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// str reads a string without escapes or control characters.
func str(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	end := bytes.IndexByte(b[i+1:], '"')
	if end < 0 {
		return nil, i, false
	}
	s := b[i+1 : i+1+end]
	for _, c := range s {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return nil, i, false
		}
	}
	return s, i + 2 + end, true
}

// integer reads a JSON integer (no fraction, no exponent).
func integer(b []byte, i int) (int64, int, bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	start := j
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == start || j-start > 1 && b[start] == '0' {
		return 0, i, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return 0, i, false
	}
	if j-start > 18 { // may not fit: strconv says
		n, err := strconv.ParseInt(string(b[i:j]), 10, 64)
		return n, j, err == nil
	}
	var n int64
	for _, c := range b[start:j] {
		n = n*10 + int64(c-'0')
	}
	if b[i] == '-' {
		n = -n
	}
	return n, j, true
}

func ints(b []byte, i int) ([]int64, int, bool) {
	if i >= len(b) || b[i] != '[' {
		return nil, i, false
	}
	i = skip(b, i+1)
	ns := []int64{}
	if i < len(b) && b[i] == ']' {
		return ns, i + 1, true
	}
	for {
		n, j, ok := integer(b, i)
		if !ok {
			return nil, i, false
		}
		ns = append(ns, n)
		i = skip(b, j)
		if i >= len(b) {
			return nil, i, false
		}
		switch b[i] {
		case ',':
			i = skip(b, i+1)
		case ']':
			return ns, i + 1, true
		default:
			return nil, i, false
		}
	}
}
