package workload

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// Matrix is one of the lower-bound networks of Reif and Spirakis §2: every
// user wants one row plus one column of a matrix of resources, and any two
// such crosses meet, so at most one user is served at a time and the last
// of a batch of simultaneous requests waits for all the others.
//
//	matrix:A:B          Theorem 1: a B×A matrix (resource m·A+n is row m,
//	                    column n) and A·B users; user m·A+n wants row m and
//	                    column n. Each user wants A+B−1 resources and each
//	                    resource is wanted by A+B−1 users.
//	matrix-groups:A:B   Theorem 2: an A×A matrix and A groups of B users;
//	                    every user of group g wants row g and column g
//	                    (2A−1 resources; resource (g,h) is wanted by the B
//	                    users of group g and the B of group h).
//
// Requests are static: each user always asks for its whole cross.
type Matrix struct {
	A, B   int
	Groups bool // Theorem 2's network instead of Theorem 1's
}

// MatrixSpecs is the spec syntax ParseMatrix accepts.
const MatrixSpecs = "matrix:A:B matrix-groups:A:B"

// IsMatrix reports whether spec names a matrix network.
func IsMatrix(spec string) bool {
	return strings.HasPrefix(spec, "matrix:") || strings.HasPrefix(spec, "matrix-groups:")
}

// ParseMatrix reads matrix:A:B or matrix-groups:A:B.
func ParseMatrix(spec string) (Matrix, error) {
	name, args, _ := strings.Cut(spec, ":")
	bad := func(why string) (Matrix, error) {
		return Matrix{}, fmt.Errorf("bad matrix network %q: %s (want %s)", spec, why, MatrixSpecs)
	}
	m := Matrix{Groups: name == "matrix-groups"}
	if name != "matrix" && !m.Groups {
		return bad("unknown network")
	}
	parts := strings.Split(args, ":")
	if len(parts) != 2 {
		return bad("two sizes needed")
	}
	var err error
	if m.A, err = strconv.Atoi(parts[0]); err != nil {
		return bad(fmt.Sprintf("%q is not a whole number", parts[0]))
	}
	if m.B, err = strconv.Atoi(parts[1]); err != nil {
		return bad(fmt.Sprintf("%q is not a whole number", parts[1]))
	}
	if err := m.Validate(); err != nil {
		return bad(err.Error())
	}
	return m, nil
}

// Validate reports sizes that make no network.
func (m Matrix) Validate() error {
	if m.A < 1 || m.B < 1 {
		return fmt.Errorf("sizes must be at least 1, have %d and %d", m.A, m.B)
	}
	if m.A > 2048 || m.B > 2048 || m.A*m.B > 1<<20 {
		return fmt.Errorf("%d×%d is too large", m.A, m.B)
	}
	return nil
}

// Users is the number of users, A·B in both networks.
func (m Matrix) Users() int { return m.A * m.B }

// K is the largest demand: A+B−1 (Theorem 1) or 2A−1 (Theorem 2).
func (m Matrix) K() int {
	if m.Groups {
		return 2*m.A - 1
	}
	return m.A + m.B - 1
}

// V is the most users wanting one resource: A+B−1 (Theorem 1) or 2B
// (Theorem 2, B when A = 1).
func (m Matrix) V() int {
	if m.Groups {
		if m.A == 1 {
			return m.B
		}
		return 2 * m.B
	}
	return m.A + m.B - 1
}

// Sets returns every user's cross, sorted, and the number of resources.
func (m Matrix) Sets() ([][]proc.ResID, int) {
	sets := make([][]proc.ResID, m.Users())
	if m.Groups {
		// Resource (i, j) of the A×A matrix is i·A+j.
		for u := range sets {
			g := u / m.B
			sets[u] = cross(m.A, m.A, g, g)
		}
		return sets, m.A * m.A
	}
	// Resource (i, j) of the B×A matrix is i·A+j.
	for u := range sets {
		sets[u] = cross(m.B, m.A, u/m.A, u%m.A)
	}
	return sets, m.A * m.B
}

// setSize is the resources each user wants.
func (m Matrix) setSize() int {
	if m.Groups {
		return 2*m.A - 1
	}
	return m.A + m.B - 1
}

// cross is row r and column c of a rows×cols matrix, sorted.
func cross(rows, cols, r, c int) []proc.ResID {
	set := make([]proc.ResID, 0, rows+cols-1)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if i == r || j == c {
				set = append(set, proc.ResID(i*cols+j))
			}
		}
	}
	return set
}

// Problem is the exclusive problem of the network; requests are the
// users' whole crosses (the simulator's default with a nil Next).
func (m Matrix) Problem() (*algo.Problem, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	// Every two crosses meet, so the conflict graph is complete: refuse
	// one too large before building the sets (A·B·(A+B−1) resource ids,
	// which alone may take minutes), not after.
	if u := float64(m.Users()); u*(u-1)/2 > graph.MaxEdges {
		return nil, algo.TooLarge("every two of the %d users want a common resource: the conflict graph would have %.3g edges (at most %d), and the requests %.3g resource ids",
			m.Users(), u*(u-1)/2, graph.MaxEdges, u*float64(m.setSize()))
	}
	sets, res := m.Sets()
	g, err := algo.ConflictGraph(len(sets), sets)
	if err != nil {
		return nil, err
	}
	return &algo.Problem{Kind: algo.Exclusive, Users: len(sets), Resources: res, MaxSets: sets, Conflict: g}, nil
}
