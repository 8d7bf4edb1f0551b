package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// deployDir is the repository's deploy/: the packaging files.
var deployDir = filepath.Join("..", "..", "deploy")

// checkAllotArgs checks an allot command line (the arguments after the
// binary) with the command's own flag parsing and checks, as far as they
// go without the network: allot serve's parseServe and, given the nodes
// or a cluster file, the cluster it describes. A cluster file at
// /etc/allot/cluster.yaml is deploy/cluster.yaml installed (the systemd
// unit's instructions).
func checkAllotArgs(args []string) error {
	if len(args) == 0 {
		return errors.New("no command")
	}
	switch args[0] {
	case "serve":
		o, _, err := parseServe(args[1:], io.Discard)
		if err != nil {
			return err
		}
		if o.clusterFile == "/etc/allot/cluster.yaml" {
			o.clusterFile = filepath.Join(deployDir, "cluster.yaml")
		}
		if o.nodes != "" || o.clusterFile != "" {
			_, err = o.cluster()
		}
		return err
	case "repro":
		// Its flags may follow its names: -h at the end makes it parse
		// them all and stop before it runs anything; the names (not
		// merge's files) are then looked up as it would.
		var stderr strings.Builder
		if code := realMain(append(slices.Clone(args), "-h"), io.Discard, &stderr); code != 0 {
			return fmt.Errorf("exit %d: %s", code, strings.TrimSpace(stderr.String()))
		}
		if len(args) > 1 && args[1] == "merge" {
			return nil
		}
		_, err := choose(reproNames(args[1:]))
		return err
	}
	return fmt.Errorf("no check for allot %s here: add one to checkAllotArgs", args[0])
}

// reproNames are the reproductions allot repro's args name: the words
// that are neither flags nor a flag's value (the flags that take one are
// those its help shows with a type, "  -out string").
func reproNames(args []string) []string {
	var help strings.Builder
	realMain([]string{"repro", "-h"}, &help, io.Discard)
	takesValue := map[string]bool{}
	for _, l := range strings.Split(help.String(), "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "  -") && len(f) > 1 {
			takesValue[f[0]] = true
		}
	}
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !strings.HasPrefix(a, "-"):
			names = append(names, a)
		case !strings.Contains(a, "=") && takesValue["-"+strings.TrimLeft(a, "-")]:
			i++ // its value
		}
	}
	return names
}

// commandLine is an allot command line found in a packaging file.
type commandLine struct {
	where string
	args  []string
}

// yamlCommands are the allot command lines of a YAML file's documents:
// the args (Kubernetes; after a command, if it runs allot) or the
// command (compose) of every container or service whose image is
// allot's. $(VAR) is a container's env, a StatefulSet's pod index for
// each of its replicas.
func yamlCommands(name string, docs []map[string]any) ([]commandLine, error) {
	var out []commandLine
	var walk func(v any, path string, replicas int) error
	walk = func(v any, path string, replicas int) error {
		switch v := v.(type) {
		case map[string]any:
			if n, ok := v["replicas"].(int); ok {
				replicas = n
			}
			if img, ok := v["image"].(string); ok && (strings.HasPrefix(img, "allot:") || strings.Contains(img, "/allot:")) {
				args, err := containerArgs(v, docs)
				if err != nil {
					return fmt.Errorf("%s: %v", path, err)
				}
				for _, a := range expandPodIndex(args, v, replicas) {
					out = append(out, commandLine{where: name + ": " + path, args: a})
				}
			}
			for k, w := range v {
				if err := walk(w, path+"."+k, replicas); err != nil {
					return err
				}
			}
		case []any:
			for i, w := range v {
				if err := walk(w, fmt.Sprintf("%s[%d]", path, i), replicas); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if len(docs) == 1 && docs[0]["services"] != nil {
		// compose: its services alone (an extension field, x-..., may
		// hold a fragment of one).
		return out, walk(docs[0]["services"], "services", 1)
	}
	for i, d := range docs {
		if err := walk(d, fmt.Sprintf("doc %d", i), 1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// containerArgs is the allot command line of a container or compose
// service (compose: a file with services).
func containerArgs(c map[string]any, docs []map[string]any) ([]string, error) {
	strs := func(key string) ([]string, error) {
		raw, ok := c[key]
		if !ok {
			return nil, nil
		}
		list, ok := raw.([]any)
		if !ok {
			return nil, fmt.Errorf("%s is not a list (a string would go through a shell)", key)
		}
		var s []string
		for _, x := range list {
			s = append(s, fmt.Sprint(x))
		}
		return s, nil
	}
	compose := len(docs) == 1 && docs[0]["services"] != nil
	if compose {
		return strs("command")
	}
	cmd, err := strs("command")
	if err != nil {
		return nil, err
	}
	args, err := strs("args")
	if err != nil {
		return nil, err
	}
	if len(cmd) > 0 {
		if filepath.Base(cmd[0]) != "allot" {
			return nil, fmt.Errorf("command %q does not run allot", cmd)
		}
		args = append(cmd[1:], args...)
	}
	return args, nil
}

var kubeVar = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expandPodIndex expands $(VAR) in args from the container's env: a
// value, or the pod's index (a StatefulSet's label
// apps.kubernetes.io/pod-index), one command line per replica. An
// unknown variable is left as it is, which the flags then refuse.
func expandPodIndex(args []string, c map[string]any, replicas int) [][]string {
	vals := map[string]string{}
	index := ""
	env, _ := c["env"].([]any)
	for _, e := range env {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		if v, ok := m["value"].(string); ok {
			vals[name] = v
		}
		if vf, ok := m["valueFrom"].(map[string]any); ok {
			if fr, ok := vf["fieldRef"].(map[string]any); ok && fr["fieldPath"] == "metadata.labels['apps.kubernetes.io/pod-index']" {
				index = name
			}
		}
	}
	var out [][]string
	for i := range max(replicas, 1) {
		vals[index] = strconv.Itoa(i)
		var a []string
		for _, s := range args {
			a = append(a, kubeVar.ReplaceAllStringFunc(s, func(m string) string {
				if v, ok := vals[m[2:len(m)-1]]; ok {
					return v
				}
				return m
			}))
		}
		out = append(out, a)
		if index == "" {
			break
		}
	}
	return out
}

// readYAML decodes every document of a YAML file.
func readYAML(r io.Reader) ([]map[string]any, error) {
	dec := yaml.NewDecoder(r)
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

// dockerCommand is the allot command line of a Dockerfile's last stage
// (ENTRYPOINT the binary, CMD its arguments, both in JSON form), with
// what must hold of the image: built in stages, static, run as a user
// other than root.
func dockerCommand(text string) (commandLine, error) {
	var entry, cmd []string
	var user string
	froms := 0
	cgoOff := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n") {
		word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToUpper(word) {
		case "FROM":
			froms++
			user = ""
		case "USER":
			user = strings.TrimSpace(rest)
		case "ENTRYPOINT", "CMD":
			var v []string
			if err := json.Unmarshal([]byte(rest), &v); err != nil {
				return commandLine{}, fmt.Errorf("%s %s: not the JSON form (the shell form needs a shell the image does not have): %v", word, rest, err)
			}
			if strings.EqualFold(word, "CMD") {
				cmd = v
			} else {
				entry = v
			}
		case "RUN":
			cgoOff = cgoOff || strings.Contains(rest, "CGO_ENABLED=0") && strings.Contains(rest, "go build")
		}
	}
	switch {
	case froms < 2:
		return commandLine{}, errors.New("one stage: the image would hold the Go toolchain")
	case !cgoOff:
		return commandLine{}, errors.New("no RUN CGO_ENABLED=0 go build: the binary would not be static")
	case user == "" || user == "root" || user == "0" || strings.HasPrefix(user, "0:") || strings.HasPrefix(user, "root:"):
		return commandLine{}, fmt.Errorf("the last stage runs as %q: want a user other than root", user)
	case len(entry) != 1 || filepath.Base(entry[0]) != "allot":
		return commandLine{}, fmt.Errorf("ENTRYPOINT %q: want the allot binary alone", entry)
	}
	return commandLine{where: "Dockerfile: CMD", args: cmd}, nil
}

// unitCommands are the allot command lines of a systemd unit's
// ExecStart, with ${VAR} from env (an unknown one is left as it is,
// which the flags then refuse).
func unitCommands(name, text string, env map[string]string) ([]commandLine, error) {
	var out []commandLine
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "ExecStart=")
		if !ok {
			continue
		}
		v = strings.TrimLeft(v, "-@:+!") // systemd's prefixes
		v = os.Expand(v, func(k string) string {
			if s, ok := env[k]; ok {
				return s
			}
			return "${" + k + "}"
		})
		f := strings.Fields(v)
		if len(f) == 0 || filepath.Base(f[0]) != "allot" {
			return nil, fmt.Errorf("%s: ExecStart %q does not run allot", name, v)
		}
		out = append(out, commandLine{where: name + ": ExecStart", args: f[1:]})
	}
	return out, sc.Err()
}

// shellDefault is a shell parameter with a default, "${1:-rhee}".
var shellDefault = regexp.MustCompile(`\$\{[A-Za-z0-9_]+:-([^}]*)\}`)

// scriptCommands are the allot command lines of a shell script (a Slurm
// batch file): each line that is not a comment and runs allot, its words
// split at spaces, quotes dropped, ${N:-DEFAULT} its default.
func scriptCommands(name, text string) []commandLine {
	var out []commandLine
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(strings.NewReplacer(`"`, "", "'", "").Replace(shellDefault.ReplaceAllString(line, "$1")))
		for k, w := range f {
			if w == "allot" || strings.HasSuffix(w, "/allot") {
				out = append(out, commandLine{where: fmt.Sprintf("%s:%d", name, i+1), args: f[k+1:]})
				break
			}
		}
	}
	return out
}

// TestDeployFiles checks the packaging files under deploy/ as far as this
// machine allows (it has no Docker and no Kubernetes): every YAML file
// parses; every allot command line they hold — the Kubernetes manifests'
// and jobs' args, the compose services' commands, the Dockerfile's
// ENTRYPOINT and CMD, the systemd unit's ExecStart, the Slurm batch
// file's — passes the
// command's own flag parsing and checks; the Dockerfile builds in stages,
// static, and runs as a user other than root; systemd-analyze verifies
// the unit and promtool the alert rules (check and unit tests), where
// they are installed; the Grafana dashboard is JSON with a query in
// every panel; and every allot metric the rules and the dashboard name is
// one the service exports.
func TestDeployFiles(t *testing.T) {
	var all []commandLine
	want := map[string]int{} // command lines expected per file
	err := filepath.WalkDir(deployDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(deployDir, path)
		switch ext := filepath.Ext(path); {
		case ext == ".yaml" || ext == ".yml":
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			docs, err := readYAML(f)
			f.Close()
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				return nil
			}
			cl, err := yamlCommands(rel, docs)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
			}
			all = append(all, cl...)
			want[rel] = len(cl)
		case d.Name() == "Dockerfile":
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			c, err := dockerCommand(string(b))
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				return nil
			}
			all = append(all, c)
			want[rel] = 1
		case ext == ".sbatch" || ext == ".sh":
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			cl := scriptCommands(rel, string(b))
			all = append(all, cl...)
			want[rel] = len(cl)
		case ext == ".service":
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			cl, err := unitCommands(rel, string(b), map[string]string{"ALLOT_NODE": "0"})
			if err != nil {
				t.Errorf("%v", err)
			}
			all = append(all, cl...)
			want[rel] = len(cl)
			verifyUnit(t, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A file whose commands were not found would pass unchecked.
	for f, n := range map[string]int{"compose.yaml": 3, "kubernetes/allot.yaml": 3, "Dockerfile": 1, "systemd/allot.service": 1, "repro-job.yaml": 1, "repro-merge.yaml": 1, "repro.sbatch": 1} {
		if want[f] != n {
			t.Errorf("%s: %d allot command lines found, want %d", f, want[f], n)
		}
	}
	for _, c := range all {
		if err := checkAllotArgs(c.args); err != nil {
			t.Errorf("%s: allot %s: %v", c.where, strings.Join(c.args, " "), err)
		} else {
			t.Logf("%s: allot %s", c.where, strings.Join(c.args, " "))
		}
	}
	promRules(t)
	dashboard(t)
}

// TestDeployChecksRefuse: the checks of TestDeployFiles refuse what they
// are there to refuse.
func TestDeployChecksRefuse(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--nodes", "a:1,b:2,c:3", "--node", "3"},
		{"serve", "--nodes", "a:1,b:2,c:3", "--node", "$(POD_INDEX)"},
		{"serve", "--suspec", "1s"},
		{"serve", "--suspect", "0s", "--data-dir", "/d"},
		{"serve", "--log-format", "xml", "--data-dir", "/d"},
		{"serve", "--cluster", "/etc/allot/cluster.yaml", "--node", "7"},
		{"repro", "rhee", "--outt", "/results"},
		{"lock", "x", "--", "true"},
	} {
		if err := checkAllotArgs(args); err == nil {
			t.Errorf("allot %s: passed", strings.Join(args, " "))
		}
	}
	k8s := `
kind: StatefulSet
spec:
  replicas: 2
  template:
    spec:
      containers:
        - image: allot:latest
          args: ["serve", "--nodes", "a:1,b:1", "--node", "$(POD_INDEX)", "--suspect", "1x"]
          env:
            - name: POD_INDEX
              valueFrom: { fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" } }
`
	docs, err := readYAML(strings.NewReader(k8s))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := yamlCommands("k8s", docs)
	if err != nil || len(cl) != 2 || cl[1].args[4] != "1" {
		t.Fatalf("yamlCommands: %v, %v", cl, err)
	}
	if err := checkAllotArgs(cl[0].args); err == nil {
		t.Errorf("--suspect 1x passed")
	}
	if _, err := readYAML(strings.NewReader("a: [1, 2\nb: 3\n")); err == nil {
		t.Errorf("a broken YAML file parsed")
	}
	for _, df := range []string{
		"FROM golang AS b\nRUN CGO_ENABLED=0 go build -o /a ./cmd/allot\nFROM scratch\nENTRYPOINT [\"/allot\"]\n",                       // root
		"FROM golang\nRUN CGO_ENABLED=0 go build -o /a ./cmd/allot\nUSER 1000\nENTRYPOINT [\"/allot\"]\n",                               // one stage
		"FROM golang AS b\nRUN go build -o /a ./cmd/allot\nFROM scratch\nUSER 1000\nENTRYPOINT [\"/allot\"]\n",                          // cgo
		"FROM golang AS b\nRUN CGO_ENABLED=0 go build -o /a ./cmd/allot\nFROM scratch\nUSER 1000\nENTRYPOINT /allot serve\n",            // shell form
		"FROM golang AS b\nRUN CGO_ENABLED=0 go build -o /a ./cmd/allot\nFROM scratch\nUSER 1000\nENTRYPOINT [\"/allot\"]\nUSER root\n", // root again
	} {
		if _, err := dockerCommand(df); err == nil {
			t.Errorf("Dockerfile passed:\n%s", df)
		}
	}
	if sc := scriptCommands("s", "# allot repro x\nexec allot repro \"${1:-nosuch}\" --out r\n"); len(sc) != 1 || checkAllotArgs(sc[0].args) == nil {
		t.Errorf("a batch file's allot repro of an unknown reproduction passed: %v", sc)
	}
	cl, err = unitCommands("u", "ExecStart=/usr/bin/allot serve --node ${NODE} --nodes a:1\n", nil)
	if err != nil || checkAllotArgs(cl[0].args) == nil {
		t.Errorf("an ExecStart with an unknown variable passed: %v", err)
	}
	if unknown := unknownMetrics("sum(allot_sessions) + allot_sesions_total + rate(allot_acquire_seconds_bucket[1m])"); !slices.Equal(unknown, []string{"allot_sesions_total"}) {
		t.Errorf("unknown metrics: %q, want the misspelt one", unknown)
	}
	if _, err := exec.LookPath("promtool"); err == nil {
		bad := filepath.Join(t.TempDir(), "bad.yaml")
		os.WriteFile(bad, []byte("groups:\n  - name: x\n    rules:\n      - alert: A\n        expr: sum(allot_serving\n"), 0o644)
		if out, err := exec.Command("promtool", "check", "rules", bad).CombinedOutput(); err == nil {
			t.Errorf("promtool passed a rule that does not parse:\n%s", out)
		}
	}
}

// verifyUnit runs systemd-analyze verify on the unit, its binary the
// test's (which exists), where systemd-analyze is installed: anything it
// says of the unit (an unknown key, a value it cannot parse) fails.
func verifyUnit(t *testing.T, path string) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Logf("systemd-analyze not installed: %s not verified", path)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), filepath.Base(path))
	os.WriteFile(unit, []byte(strings.ReplaceAll(string(b), "/usr/local/bin/allot", os.Args[0])), 0o644)
	out, _ := exec.Command("systemd-analyze", "verify", unit).CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, filepath.Base(path)) {
			t.Errorf("systemd-analyze verify %s: %s", path, l)
		}
	}
}

// promRules lints the alert rules with promtool and runs their unit
// tests, where promtool is installed (.ci/run installs it), and checks
// the metrics they name.
func promRules(t *testing.T) {
	rules := filepath.Join(deployDir, "prometheus", "allot-rules.yaml")
	b, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if u := unknownMetrics(string(b)); len(u) > 0 {
		t.Errorf("%s names metrics the service does not export: %q", rules, u)
	}
	if _, err := exec.LookPath("promtool"); err != nil {
		t.Logf("promtool not installed (Debian: apt-get install prometheus): %s not linted", rules)
		return
	}
	for _, args := range [][]string{{"check", "rules", rules}, {"test", "rules", filepath.Join(deployDir, "prometheus", "allot-rules.test.yaml")}} {
		if out, err := exec.Command("promtool", args...).CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// dashboard checks the Grafana dashboard: JSON, panels each with a query,
// and the metrics it names.
func dashboard(t *testing.T) {
	path := filepath.Join(deployDir, "grafana", "allot-dashboard.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if d.Title == "" || len(d.Panels) == 0 {
		t.Errorf("%s: no title or no panels", path)
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("%s: panel %q has no query", path, p.Title)
		}
		for _, q := range p.Targets {
			if u := unknownMetrics(q.Expr); q.Expr == "" || len(u) > 0 {
				t.Errorf("%s: panel %q: query %q: empty, or names metrics the service does not export: %q", path, p.Title, q.Expr, u)
			}
		}
	}
}

var metricName = regexp.MustCompile(`\ballot_[a-z_]+\b`)

// unknownMetrics are the allot_ metrics expr names that the service's
// code does not define (a histogram's series by their base name).
func unknownMetrics(expr string) []string {
	var src strings.Builder
	files, _ := filepath.Glob(filepath.Join("..", "..", "service", "*.go"))
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			b, _ := os.ReadFile(f)
			src.Write(b)
		}
	}
	var unknown []string
	for _, m := range metricName.FindAllString(expr, -1) {
		base := m
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			base = strings.TrimSuffix(base, suf)
		}
		if !strings.Contains(src.String(), `"`+base+`"`) && !slices.Contains(unknown, m) {
			unknown = append(unknown, m)
		}
	}
	return unknown
}
