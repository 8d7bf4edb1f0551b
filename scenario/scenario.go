// Package scenario is a whole run's settings — what `allot sim` and every
// other front end read from a YAML file or flags — and their validation:
// Compile checks every field and builds the problem instance, the
// workload and the network model the drivers take, before anything runs.
// The library speaks in field names (the YAML keys, which the CLI also
// uses as flag names); it never names a flag itself.
//
//	YAML file ─Load─┐
//	                ├─> Scenario ──Compile──> Plan{Problem, Algos, Sim config}
//	flags ──────────┘     (FieldError names the field at fault)
package scenario

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Scenario is a whole `allot sim` run, as a YAML file or as flags: the
// field names are the flag names.
//
//	kind: exclusive
//	algo: [central, hygienic]
//	graph: grid:6x6
//	requests: 3000
//	think: exp:40
//	cs: uniform:5:15
//	delay: uniform:1:20
//	crash: ["45@300"]
//	seed: 8
type Scenario struct {
	Kind      string   `yaml:"kind" json:"kind,omitempty"`
	Algo      []string `yaml:"algo" json:"algo,omitempty"`
	Graph     string   `yaml:"graph" json:"graph,omitempty"`
	Users     int      `yaml:"users" json:"users,omitempty"`
	Resources int      `yaml:"resources" json:"resources,omitempty"`
	Demand    string   `yaml:"demand" json:"demand,omitempty"`
	FixedSets bool     `yaml:"fixed-sets" json:"fixed-sets,omitempty"`
	Zipf      float64  `yaml:"zipf" json:"zipf,omitempty"`
	Units     int      `yaml:"units" json:"units,omitempty"`
	Budget    int      `yaml:"budget" json:"budget,omitempty"`
	Waste     int      `yaml:"waste" json:"waste,omitempty"`
	Requests  int      `yaml:"requests" json:"requests,omitempty"`
	Think     string   `yaml:"think" json:"think,omitempty"`
	CS        string   `yaml:"cs" json:"cs,omitempty"`
	Delay     string   `yaml:"delay" json:"delay,omitempty"`
	FIFO      bool     `yaml:"fifo" json:"fifo,omitempty"`
	// Speeds is the process speed schedule, PATTERN:MIN:MAX[:PERIOD]
	// (sim.ParseSpeeds); empty: every process at speed 1.
	Speeds string   `yaml:"speeds" json:"speeds,omitempty"`
	Crash  []string `yaml:"crash" json:"crash,omitempty"`
	Seed   uint64   `yaml:"seed" json:"seed,omitempty"`
	// Cost is the processing cost in ticks per handled input.
	Cost int64 `yaml:"cost" json:"cost,omitempty"`
	// Horizon stops the run at that tick (0: none).
	Horizon int64 `yaml:"horizon" json:"horizon,omitempty"`
	// Failure is a per-user failure likelihood (the unhygienic algorithm's
	// failure model); users beyond the list get the last value.
	Failure []float64 `yaml:"failure" json:"failure,omitempty"`
	// Options are algorithm-specific settings.
	Options map[string]string `yaml:"options" json:"options,omitempty"`
}

//go:embed scenarios/default.yaml
var defaultScenario []byte

// Default is the scenario `allot sim` runs without arguments.
func Default() Scenario {
	s, err := Decode(bytes.NewReader(defaultScenario))
	if err != nil {
		panic("scenario: embedded default scenario: " + err.Error())
	}
	return s
}

// Decode reads a YAML scenario; unknown fields are errors.
func Decode(r io.Reader) (Scenario, error) {
	var s Scenario
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && err != io.EOF {
		return s, err
	}
	return s, nil
}

// Load reads a scenario file.
func Load(path string) (Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return Scenario{}, fmt.Errorf("scenario: %w", err)
	}
	defer f.Close()
	s, err := Decode(f)
	if err != nil {
		// YAML reports several problems on several lines: keep one line.
		msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
		return s, fmt.Errorf("scenario %s: %s", path, msg)
	}
	return s, nil
}
