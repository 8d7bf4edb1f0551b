package svcsim

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
)

type printer struct{ from, to proc.Time }

func (p *printer) Event(e proc.Event) {
	if e.Time < p.from || e.Time > p.to {
		return
	}
	s := ""
	if e.S != nil {
		s = fmt.Sprintf("%+v", *e.S)
	}
	fmt.Println(e.Time, e.P, e.Kind, e.Res, e.Epoch, e.Members, s)
}

func TestDebugRun(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("SEED"))
	from, _ := strconv.Atoi(os.Getenv("FROM"))
	to, _ := strconv.Atoi(os.Getenv("TO"))
	d, _ := dist.Parse("uniform:1:10")
	r, err := Run(Config{Nodes: 3, Clients: 4, Seed: uint64(seed), Horizon: 20000, Delay: d, Random: true, Sink: &printer{proc.Time(from), proc.Time(to)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
}
