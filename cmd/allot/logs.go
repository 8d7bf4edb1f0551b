package main

import (
	"io"
	"log/slog"
	"reflect"
	"strings"

	"github.com/allot-dev/allot/service"
)

// newLogger is the node's logger: format text or json, at level.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, badf("--log-level: %v", err)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, badf("--log-format %q: want text or json", format)
}

// clusterFields names every field of a cluster file, from the YAML tags
// of service.Cluster and service.QuotaSpec: --help cannot fall behind a
// field added to them.
var clusterFields = yamlFields(reflect.TypeFor[service.Cluster](), "")

func yamlFields(t reflect.Type, prefix string) string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Map && f.Type.Elem().Kind() == reflect.Struct {
			out = append(out, prefix+name+" (NAME: "+yamlFields(f.Type.Elem(), "")+")")
			continue
		}
		out = append(out, prefix+name)
	}
	return strings.Join(out, ", ")
}
