package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestProfileHandlers reads the profiles a node serves with --metrics: the
// block and mutex profiles hold the waits this test makes once the rates
// are on, and the CPU profile and trace endpoints answer.
func TestProfileHandlers(t *testing.T) {
	p := profileOpts{blockRate: 1, mutexFraction: 1}
	if got := p.args(); !slices.Equal(got, []string{"--block-profile-rate", "1", "--mutex-profile-fraction", "1"}) {
		t.Errorf("args %q", got)
	}
	p.start()
	// The rates are the process's: put them back for the other tests.
	defer runtime.SetBlockProfileRate(0)
	defer runtime.SetMutexProfileFraction(0)

	blockedOnChannel()
	contendedMutex()

	mux := http.NewServeMux()
	profileHandlers(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return string(b)
	}
	// The memory given back on a POST only: a GET (a crawler, a
	// browser) changes nothing.
	resp, err := http.Post(srv.URL+"/debug/free-os-memory", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "returned to the kernel") {
		t.Errorf("POST /debug/free-os-memory: %d %q", resp.StatusCode, b)
	}
	if resp, err := http.Get(srv.URL + "/debug/free-os-memory"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /debug/free-os-memory: %v %v, want 405", resp.StatusCode, err)
	}
	if b := get("/debug/pprof/block?debug=1"); !strings.Contains(b, "blockedOnChannel") {
		t.Errorf("block profile without the test's wait:\n%.2000s", b)
	}
	if b := get("/debug/pprof/mutex?debug=1"); !strings.Contains(b, "contendedMutex") {
		t.Errorf("mutex profile without the test's contention:\n%.2000s", b)
	}
	if b := get("/debug/pprof/"); !strings.Contains(b, "mutex") || !strings.Contains(b, "block") {
		t.Errorf("index:\n%s", b)
	}
	if b := get("/debug/pprof/profile?seconds=1"); len(b) == 0 {
		t.Error("empty CPU profile")
	}
	if b := get("/debug/pprof/cmdline"); len(b) == 0 {
		t.Error("empty command line")
	}
}

func blockedOnChannel() {
	c := make(chan int)
	go func() {
		time.Sleep(5 * time.Millisecond)
		c <- 1
	}()
	<-c
}

func contendedMutex() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	mu.Lock()
	for range 4 {
		wg.Go(func() {
			mu.Lock()
			time.Sleep(time.Millisecond)
			mu.Unlock()
		})
	}
	time.Sleep(5 * time.Millisecond)
	mu.Unlock()
	wg.Wait()
}
