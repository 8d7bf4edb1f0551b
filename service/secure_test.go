package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func TestReadTokens(t *testing.T) {
	dir := t.TempDir()
	const good = "0123456789abcdef"
	for _, c := range []struct {
		name, file string
		tokens     int
		bad        string // in the error; "" reads
	}{
		{"tokens and names", "# clients\n\n" + good + "\nalice " + good + "x\n  bob\t" + good + "y  \n", 3, ""},
		{"empty", "# nothing\n\n", 0, "no token in it"},
		{"short", "alice short\n", 0, ":1: a token needs at least 16"},
		{"three fields", "alice " + good + " extra\n", 0, ":1: want TOKEN or NAME TOKEN"},
		{"twice", "alice " + good + "\n# again\nbob " + good + "\n", 0, ":3: the token of alice again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			os.WriteFile(path, []byte(c.file), 0o600)
			tk, err := ReadTokens(path)
			if c.bad != "" {
				if !errors.Is(err, ErrTokens) || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("%v, want ErrTokens saying %q", err, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tk.Len() != c.tokens {
				t.Errorf("%d tokens, want %d", tk.Len(), c.tokens)
			}
		})
	}
	if _, err := ReadTokens(filepath.Join(dir, "missing")); !errors.Is(err, ErrTokens) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestTokenCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(path, []byte("alice 0123456789abcdef\n"), 0o600)
	tk, err := ReadTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		md   []string
		want codes.Code
	}{
		{nil, codes.Unauthenticated},
		{[]string{"authorization", "Bearer 0123456789abcdef"}, codes.OK},
		{[]string{"authorization", "Bearer 0123456789abcdeF"}, codes.Unauthenticated},
		{[]string{"authorization", "0123456789abcdef"}, codes.Unauthenticated},
		{[]string{"authorization", "Bearer alice"}, codes.Unauthenticated},
	} {
		ctx := context.Background()
		if c.md != nil {
			ctx = metadata.NewIncomingContext(ctx, metadata.Pairs(c.md...))
		}
		if got := status.Code(tk.check(ctx)); got != c.want {
			t.Errorf("%q: %v, want %v", c.md, got, c.want)
		}
	}
}
