package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// manifest is dist/manifest.json, written by web/build.mjs.
type manifest struct {
	Sources string            `json:"sources"`
	Files   map[string]string `json:"files"`
}

// sourcesHash hashes the page's sources as build.mjs does: every file of
// src and the build's own files, by path relative to web, in byte order.
func sourcesHash(t *testing.T, web string) string {
	t.Helper()
	names := []string{"build.mjs", "package.json", "package-lock.json"}
	src, err := os.ReadDir(filepath.Join(web, "src"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range src {
		names = append(names, "src/"+e.Name())
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(web, n))
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(n + "\x00"))
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func readManifest(t *testing.T) manifest {
	t.Helper()
	b, err := dist.ReadFile("dist/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The embedded page is the build of the sources beside it: rebuild with
// `npm --prefix ui/web run build` after changing them (and commit dist).
func TestBundleMatchesSources(t *testing.T) {
	m := readManifest(t)
	if got := sourcesHash(t, "web"); got != m.Sources {
		t.Errorf("ui/web's sources hash to %s, the embedded bundle was built from %s: run npm --prefix ui/web run build", got, m.Sources)
	}
	if len(m.Files) == 0 {
		t.Fatal("the manifest lists no built file")
	}
	for name, want := range m.Files {
		b, err := dist.ReadFile("dist/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			t.Errorf("dist/%s is not the file the build wrote (edited by hand?): rebuild", name)
		}
	}
}

// The check sees a changed source: one byte more in a copy of the sources
// changes the hash.
func TestBundleCheckSeesAChange(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	for _, n := range []string{"build.mjs", "package.json", "package-lock.json"} {
		copyFile(t, filepath.Join("web", n), filepath.Join(dir, n))
	}
	src, _ := os.ReadDir(filepath.Join("web", "src"))
	for _, e := range src {
		copyFile(t, filepath.Join("web", "src", e.Name()), filepath.Join(dir, "src", e.Name()))
	}
	m := readManifest(t)
	if got := sourcesHash(t, dir); got != m.Sources {
		t.Fatalf("a faithful copy hashes to %s, want %s", got, m.Sources)
	}
	f, err := os.OpenFile(filepath.Join(dir, "src", "main.js"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n")
	f.Close()
	if sourcesHash(t, dir) == m.Sources {
		t.Error("a changed main.js hashes as the built one")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
