// Package ui is allot's browser view: a local web page that shows a run
// (a trace) as a time-space diagram with a time cursor, the resources'
// state at the cursor (forks, queues, units, permits) from the events
// alone, the run's figures for the part in view, a counterexample with its
// violating step marked, and a live cluster (its nodes' status, polled).
//
// The page is plain JavaScript built by esbuild from web/src into dist/
// and embedded, so that the allot binary serves it without Node. The
// build is `npm --prefix ui/web run build`; dist/manifest.json records the
// hash of the sources it was built from, which a test compares.
//
// The server reads everything the page shows: a trace through Load
// (which refuses bad input with a typed error), a cluster through each
// node's read-only /status endpoint. It holds no global state; its clock
// and HTTP client are injected.
package ui

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
)

//go:embed dist
var dist embed.FS

// Server serves the page and what it shows: one run, or one cluster.
type Server struct {
	mux *http.ServeMux
	// what the page shows; exactly one of run, loadErr, cluster is set.
	run     []byte // the run, encoded once
	loadErr error
	cluster *Cluster
}

// info is what the page asks first.
type info struct {
	Mode  string `json:"mode"` // "run", "cluster" or "error"
	Error string `json:"error,omitempty"`
}

// NewRunServer serves a run.
func NewRunServer(r *Run) (*Server, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return newServer(&Server{run: b}), nil
}

// NewErrorServer serves a page that says why nothing can be shown.
func NewErrorServer(err error) *Server { return newServer(&Server{loadErr: err}) }

// NewClusterServer serves the live view of a cluster.
func NewClusterServer(c *Cluster) *Server { return newServer(&Server{cluster: c}) }

func newServer(s *Server) *Server {
	s.mux = http.NewServeMux()
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embedded tree always has dist
	}
	s.mux.Handle("GET /", http.FileServerFS(sub))
	s.mux.HandleFunc("GET /api/info", s.info)
	s.mux.HandleFunc("GET /api/run", s.serveRun)
	s.mux.HandleFunc("GET /api/cluster", s.serveCluster)
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) info(w http.ResponseWriter, _ *http.Request) {
	i := info{Mode: "run"}
	switch {
	case s.loadErr != nil:
		i = info{Mode: "error", Error: s.loadErr.Error()}
	case s.cluster != nil:
		i.Mode = "cluster"
	}
	writeJSON(w, i)
}

func (s *Server) serveRun(w http.ResponseWriter, _ *http.Request) {
	if s.run == nil {
		http.Error(w, "no run loaded", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.run)
}

func (s *Server) serveCluster(w http.ResponseWriter, r *http.Request) {
	if s.cluster == nil {
		http.Error(w, "no cluster", http.StatusNotFound)
		return
	}
	writeJSON(w, s.cluster.Poll(r.Context()))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}
