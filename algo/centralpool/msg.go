package centralpool

// Acquire asks the owner for a unit.
type Acquire struct{}

// Grant hands a unit to a user.
type Grant struct{ Unit int32 }

// Give returns a user's unit to the owner.
type Give struct{ Unit int32 }

func (Acquire) Kind() string { return "acquire" }
func (Grant) Kind() string   { return "grant" }
func (Give) Kind() string    { return "give" }
