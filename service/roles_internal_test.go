package service

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// gather is what c reports when scraped, one "name{label=value} value"
// line per metric, sorted.
func gather(t *testing.T, c prometheus.Collector) []string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out = append(out, fmt.Sprintf("%s{%s} %g", mf.GetName(), strings.Join(labels, ","), v))
		}
	}
	slices.Sort(out)
	return out
}

// objectsCount is an objectCounter that says what it is told.
type objectsCount struct{ idle, inUse int }

func (o objectsCount) objects() (int, int) { return o.idle, o.inUse }

// TestObjectsGauge: allot_instances is what the node's objectCounter
// counts, idle and in use.
func TestObjectsGauge(t *testing.T) {
	got := gather(t, objectsGauge{c: objectsCount{idle: 3, inUse: 2}})
	want := []string{`allot_instances{state=idle} 3`, `allot_instances{state=in_use} 2`}
	if !slices.Equal(got, want) {
		t.Errorf("allot_instances = %q, want %q", got, want)
	}
}

// sent is a sentCounter of fixed counts.
type sent map[string]int64

func (s sent) addSent(byKind map[string]int64) {
	for k, v := range s {
		byKind[k] += v
	}
}

// TestMessagesSum: allot_messages_total sums, by message kind, what each
// of its sentCounters (the live instances, the retired ones) counts.
func TestMessagesSum(t *testing.T) {
	got := gather(t, messages{from: []sentCounter{sent{"a.Req": 2, "a.Grant": 1}, sent{"a.Req": 5}}})
	want := []string{`allot_messages_total{message=a.Grant} 1`, `allot_messages_total{message=a.Req} 7`}
	if !slices.Equal(got, want) {
		t.Errorf("allot_messages_total = %q, want %q", got, want)
	}
}
