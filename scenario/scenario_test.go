package scenario

import (
	"errors"
	"github.com/allot-dev/allot/algo/all"
	"slices"
	"strings"
	"testing"
)

func TestScenario(t *testing.T) {
	d := Default()
	if d.Graph == "" || d.Requests == 0 {
		t.Fatalf("default scenario %+v", d)
	}
	s, err := Decode(strings.NewReader("kind: exclusive\nalgo: [central]\nusers: 4\nresources: 3\ndemand: \"1:2\"\n"))
	if err != nil || s.Users != 4 || s.Algo[0] != "central" {
		t.Fatalf("%+v %v", s, err)
	}
	if _, err := Decode(strings.NewReader("userz: 4\n")); err == nil {
		t.Error("unknown field accepted")
	}
}

func TestCompileNamesTheFieldsAtFault(t *testing.T) {
	base := func() Scenario {
		s := Default()
		s.Requests = 10
		return s
	}
	for _, c := range []struct {
		name   string
		edit   func(*Scenario)
		fields []string
	}{
		{"unknown kind", func(s *Scenario) { s.Kind = "dining" }, []string{"kind"}},
		{"unknown algorithm", func(s *Scenario) { s.Algo = []string{"nope"} }, []string{"algo"}},
		{"FIFO algorithm without FIFO", func(s *Scenario) { s.Algo = []string{"doorway"} }, []string{"algo", "fifo"}},
		{"negative requests", func(s *Scenario) { s.Requests = -1 }, []string{"requests"}},
		{"no end", func(s *Scenario) { s.Requests = 0 }, []string{"requests", "horizon"}},
		{"bad delay", func(s *Scenario) { s.Delay = "exp:0" }, []string{"delay"}},
		{"graph and dynamic", func(s *Scenario) { s.Users, s.Resources, s.Demand = 3, 3, "1" }, []string{"graph", "users", "resources", "demand"}},
		{"bad crash", func(s *Scenario) { s.Crash = []string{"3@"} }, []string{"crash"}},
		{"bad graph", func(s *Scenario) { s.Graph = "ring:0" }, []string{"graph"}},
	} {
		s := base()
		c.edit(&s)
		_, err := Compile(s)
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want a FieldError", c.name, err)
			continue
		}
		if !slices.Equal(fe.Fields, c.fields) {
			t.Errorf("%s: fields %q, want %q (%v)", c.name, fe.Fields, c.fields, err)
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%s: the library names a flag: %v", c.name, err)
		}
	}
}

func TestCompileDefault(t *testing.T) {
	p, err := Compile(Default())
	if err != nil {
		t.Fatal(err)
	}
	if p.Problem.Users != 36 || len(p.Algos) == 0 || p.Config.Net.Delay.String() != "uniform:1:20" || p.Config.Work.Think.String() != "exp:40" {
		t.Errorf("default plan: %d users, %d algorithms, delay %s, think %s", p.Problem.Users, len(p.Algos), p.Config.Net.Delay, p.Config.Work.Think)
	}
	for _, name := range p.Skipped {
		if a, _ := all.Lookup(name); !a.NeedsFIFO {
			t.Errorf("%s skipped, but it does not need FIFO", name)
		}
	}
}
