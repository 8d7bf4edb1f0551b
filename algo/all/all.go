// Package all is the catalogue of allot's algorithms: the one place that
// knows every algorithm package.
package all

import (
	"fmt"
	"slices"
	"strings"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/algo/broadcastpool"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/centralpool"
	"github.com/allot-dev/allot/algo/controller"
	"github.com/allot-dev/allot/algo/counter"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/algo/drinking"
	"github.com/allot-dev/allot/algo/hashpool"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/algo/modular"
	"github.com/allot-dev/allot/algo/ordered"
	"github.com/allot-dev/allot/algo/pool"
	"github.com/allot-dev/allot/algo/socialcsp"
	"github.com/allot-dev/allot/algo/threshold"
	"github.com/allot-dev/allot/algo/unhygienic"
)

// List returns every algorithm, in catalogue order: the base algorithms,
// then Rhee's modular algorithm over each exclusion algorithm among them,
// then Chandy and Misra's drinking philosophers over each dining one.
func List() []algo.Algorithm {
	list := base()
	for _, a := range list {
		if a.Kind == algo.Exclusive {
			list = append(list, modular.For(a))
		}
	}
	for _, a := range dining() {
		list = append(list, drinking.For(a))
	}
	return list
}

// dining lists the subroutines of the drinking algorithm: the dining
// algorithms, and central, which is one when each user asks for its whole
// maximum set (as the drinking layer asks).
func dining() []algo.Algorithm {
	return []algo.Algorithm{
		central.Algorithm,
		hygienic.Algorithm,
		threshold.Algorithm,
		doorway.Algorithm,
		unhygienic.Algorithm,
	}
}

// base lists the algorithms of their own packages.
func base() []algo.Algorithm {
	return []algo.Algorithm{
		central.Algorithm,
		ordered.Algorithm,
		hygienic.Algorithm,
		threshold.Algorithm,
		doorway.Algorithm,
		unhygienic.Algorithm,
		bidding.Algorithm,
		bidding.Priority,
		pool.Algorithm,
		centralpool.Algorithm,
		broadcastpool.Algorithm,
		hashpool.Algorithm,
		controller.Algorithm,
		controller.Basic,
		controller.Main,
		controller.ModifiedMain,
		counter.Algorithm,
	}
}

// OfKind returns the algorithms that solve kind k.
func OfKind(k algo.Kind) []algo.Algorithm {
	var out []algo.Algorithm
	for _, a := range List() {
		if a.Kind == k {
			out = append(out, a)
		}
	}
	return out
}

// Broken returns the deliberately broken variants the suites keep to show
// their checks can fail, named ALGO/VARIANT: a hygienic node handing a fork
// over while eating, the bidding granter's literal timeout, ordered
// locking without its order, Rhee's Fig. 5 line 32 as printed and the
// modular package's other broken behaviours
// (over every exclusion subroutine), the drinking package's (over every
// dining one), and the pool's two literal readings of Carvalho's listing.
// They are not in List; Lookup finds them by name, so that
// `allot sim` and `allot explore` can run them.
func Broken() []algo.Algorithm {
	list := []algo.Algorithm{hygienic.Handover, bidding.LiteralTimeout, ordered.AnyOrder}
	for _, a := range base() {
		if a.Kind == algo.Exclusive {
			list = append(list, modular.Broken(a)...)
		}
	}
	for _, a := range dining() {
		list = append(list, drinking.Broken(a)...)
	}
	return append(list, pool.Broken()...)
}

// Lookup finds an algorithm by name: a catalogue entry, a broken variant
// (Broken), or socialcsp-A (socialcsp-in-A), Social-CSP's extended output
// (input) over the catalogue's exclusive algorithm A with a granting
// process per resource (an application of an allocation algorithm, not
// one: it is not in List).
func Lookup(name string) (algo.Algorithm, error) {
	if inner, ok := strings.CutPrefix(name, "socialcsp-"); ok {
		build := socialcsp.For
		if in, ok := strings.CutPrefix(inner, "in-"); ok {
			inner, build = in, socialcsp.InputFor
		}
		if strings.HasPrefix(inner, "socialcsp-") {
			return algo.Algorithm{}, fmt.Errorf("%s: Social-CSP over itself", name)
		}
		a, err := Lookup(inner)
		if err != nil {
			return algo.Algorithm{}, err
		}
		if a.Kind != algo.Exclusive || !a.PerResource {
			return algo.Algorithm{}, fmt.Errorf("%s: Social-CSP needs an exclusive algorithm with a granting process per resource, not %s", name, inner)
		}
		return build(a), nil
	}
	if strings.Contains(name, "/") {
		for _, a := range Broken() {
			if a.Name == name {
				return a, nil
			}
		}
	}
	var names []string
	for _, a := range List() {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	slices.Sort(names)
	return algo.Algorithm{}, fmt.Errorf("unknown algorithm %q (have %s)", name, strings.Join(names, ", "))
}
