package maporder

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/allot-dev/allot/"

// deterministic: the packages whose runs must give the same bytes for
// the same seed.
var deterministic = []string{
	"proc/...", "dist/...", "graph/...", "algo/...", "app/...", "workload/...",
	"sim/...", "explore/...", "check/...", "metrics/...", "trace/...",
	"scenario/...", "run/...", "session/...", "control/...", "dataplane/...",
	"ctlsim/...", "svcsim/...", "codec/...", "conformance/...", "report/...",
	"experiments/...", "cmd/...",
}

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
}

// list runs go list -export over patterns and their dependencies.
func list(t *testing.T, patterns []string) (targets []pkg, export map[string]string) {
	t.Helper()
	args := append([]string{"list", "-e", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,DepOnly"}, patterns...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	export = map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			pkg
			DepOnly bool
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		export[p.ImportPath] = p.Export
		if !p.DepOnly {
			targets = append(targets, p.pkg)
		}
	}
	return targets, export
}

// unordered type-checks one package's files and returns the ranges over
// a map that carry no "any order" comment, as file:line.
func unordered(fset *token.FileSet, path string, files map[string][]byte, imp types.Importer) ([]string, error) {
	var parsed []*ast.File
	for name, src := range files {
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: imp}).Check(path, fset, parsed, info); err != nil {
		return nil, err
	}
	var bad []string
	for _, f := range parsed {
		said := map[int]bool{} // lines with an "any order" comment
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.Contains(c.Text, "any order") {
					said[fset.Position(c.Pos()).Line] = true
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			r, ok := n.(*ast.RangeStmt)
			if !ok {
				return true
			}
			if _, isMap := info.TypeOf(r.X).Underlying().(*types.Map); !isMap {
				return true
			}
			at := fset.Position(r.Pos())
			if !said[at.Line] && !said[at.Line-1] {
				bad = append(bad, at.String())
			}
			return true
		})
	}
	return bad, nil
}

// TestNoMapOrderGetsOut: no range over a map in the deterministic
// packages lets its order out.
func TestNoMapOrderGetsOut(t *testing.T) {
	var patterns []string
	for _, p := range deterministic {
		patterns = append(patterns, module+p)
	}
	targets, export := list(t, patterns)
	if len(targets) < len(deterministic) {
		t.Fatalf("go list found %d packages for %d patterns", len(targets), len(deterministic))
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(export[path])
	})
	for _, p := range targets {
		files := map[string][]byte{}
		for _, name := range p.GoFiles {
			src, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Join(p.Dir, name)] = src
		}
		bad, err := unordered(fset, p.ImportPath, files, imp)
		if err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		for _, b := range bad {
			t.Errorf("%s: a range over a map, in the map's order: range over slices.Sorted(maps.Keys(m)), or say \"any order\" and why", strings.TrimPrefix(b, root(t)))
		}
	}
}

// TestCatchesAMapOrder: the check finds the loop that answered the
// backup's acknowledgements in map order, and passes it sorted or said.
func TestCatchesAMapOrder(t *testing.T) {
	const src = `package p

import (
	"maps"
	"slices"
)

func answer(waiting map[uint64]string, send func(string)) {
	for _, w := range waiting {
		send(w)
	}
	for _, k := range slices.Sorted(maps.Keys(waiting)) {
		send(waiting[k])
	}
	// any order: it only deletes
	for k := range waiting {
		delete(waiting, k)
	}
	for k := range waiting { delete(waiting, k) } // any order: it only deletes
	for i := range []int{1, 2} {
		_ = i
	}
}
`
	fset := token.NewFileSet()
	bad, err := unordered(fset, "p", map[string][]byte{"p.go": []byte(src)}, importer.ForCompiler(fset, "source", nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[0] != "p.go:9:2" {
		t.Fatalf("found %v, want [p.go:9:2]", bad)
	}
}

// root is the module's directory with a trailing slash.
func root(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out)) + string(filepath.Separator)
}
