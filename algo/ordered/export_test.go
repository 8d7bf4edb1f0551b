package ordered_test

import "github.com/allot-dev/allot/algo"

func problem(users, resources int) *algo.Problem {
	return &algo.Problem{Kind: algo.Exclusive, Users: users, Resources: resources}
}
