// Package names is how the nodes of a view agree on a lock name's
// resource id without hashing names onto a fixed namespace: each name has
// a home among the view's members (rendezvous hashing, Home), the home
// gives the name an id of its own range for the view's life, and a node
// locking a name homed elsewhere asks the home once per view (Resolve,
// answered by Resolved, over the node links).
//
// Rendezvous hashing is a pure function of the name and the members, so
// every node (and a client that knows the view) computes the same home;
// a member joining or leaving moves only the names it wins or won.
package names

import (
	"github.com/allot-dev/allot/lockname"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/space"
)

// Home is the member of members (node indices) whose score for name is
// the largest: the name's home in a view of those members (package
// lockname's, which the data plane's model shares). members must not be
// empty.
func Home(name string, members space.Set) int {
	return lockname.Home(name, members.List())
}

// Resolve asks a name's home for its id in the view (Epoch, Members).
// The view travels with the question: a home may hear it before it has
// adopted the view itself, and its range in the view depends on the
// members.
type Resolve struct {
	Epoch   uint64
	Members uint64 // a space.Set
	Name    string
}

// Resolved is the home's answer: Name's resource id in view Epoch.
type Resolved struct {
	Epoch uint64
	Name  string
	Res   proc.ResID
}

func (Resolve) Kind() string  { return "resolve" }
func (Resolved) Kind() string { return "resolved" }

// Messages are the package's messages, for the wire codec's registry.
var Messages = []proc.Message{Resolve{}, Resolved{}}
