package ui

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// scanLine reads what encoding/json reads, or leaves the line to it.
func TestScanLineAgreesWithJSON(t *testing.T) {
	lines := []string{
		`{"t":120,"ev":"request","p":3,"res":[5,9]}`,
		`{"t":0,"ev":"exit","p":3}`,
		` { "t" : 5 , "ev" : "send" , "p" : 2 , "to" : 5 , "msg" : "fork" } `,
		`{"t":409,"ev":"deliver","p":5,"from":2,"msg":"modular.advance"}`,
		`{"t":410,"ev":"move","p":4,"unit":2,"from":1}`,
		`{"t":420,"ev":"view","p":1,"epoch":12,"members":[0,1,2]}`,
		`{"t":5230,"ev":"end","p":-1,"holding":[4],"open":[]}`,
		`{"t":1,"ev":"request","p":3,"res":[]}`,
		`{"t":-7,"ev":"x","p":0,"version":2}`,
		`{}`,
		// Left to encoding/json:
		`{"t":1.5,"ev":"exit","p":0}`,
		`{"t":1,"ev":"ex\u0069t","p":0}`,
		`{"t":1,"ev":"exit","p":0,"extra":{"a":1}}`,
		`{"t":01,"ev":"exit","p":0}`,
		`{"t":1,"ev":"exit","p":0,}`,
		`{"t":1,"ev":"exit","p":99999999999}`,
		`{"t":-9223372036854775808,"ev":"exit","p":0}`,
		`{"t":9223372036854775807,"ev":"exit","p":0}`,
		`{"t":9223372036854775808,"ev":"exit","p":0}`,
		`{"t":123456789012345678,"ev":"exit","p":-0}`,
		`{"t":1,"ev":"exit","p":0} x`,
		`[1,2]`,
		`{"t":1 "ev":"exit"}`,
	}
	// A run of allot sim, messages traced.
	b, err := os.ReadFile("testdata/ring.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, strings.Split(strings.TrimSpace(string(b)), "\n")...)
	fast := 0
	for _, line := range lines {
		var got, want rawLine
		var sc scratch
		if !scanLine([]byte(line), &got, &sc) {
			continue
		}
		fast++
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Errorf("%s: scanned, but encoding/json says %v", line, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: scanned %+v, encoding/json %+v", line, got, want)
		}
	}
	if fast < 90 {
		t.Errorf("only %d lines scanned fast", fast)
	}
}
