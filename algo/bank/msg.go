package bank

// Deposits carries Cap of a deposit bin at level Level up the tree to the
// bin's supervisor, the deposits it held.
type Deposits struct{ Level int8 }

// Ask asks, for a withdrawal bin at level Level, for as many units as the
// bin holds (its capacity), up the tree to the bin's supervisor.
type Ask struct{ Level int8 }

// Units answers an Ask: the asking bin's capacity of units.
type Units struct{}

func (Deposits) Kind() string { return "deposits" }
func (Ask) Kind() string      { return "ask" }
func (Units) Kind() string    { return "units" }
