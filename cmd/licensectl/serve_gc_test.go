package main

import (
	"runtime/debug"
	"testing"
)

func TestApplyGCPercent(t *testing.T) {
	t.Parallel()
	orig := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(orig) })
	env := func(vars map[string]string) *env {
		return &env{getenv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	}
	tests := []struct {
		name    string
		percent int
		vars    map[string]string
		want    int
	}{
		{"FromConfig", 400, nil, 400},
		{"ZeroKeepsCurrent", 0, nil, 100},
		{"GOGCWins", 400, map[string]string{"GOGC": "150"}, 100},
		{"EmptyGOGCIgnored", 250, map[string]string{"GOGC": ""}, 250},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			if got := applyGCPercent(tt.percent, env(tt.vars)); got != tt.want {
				t.Fatalf("applyGCPercent = %d, want %d", got, tt.want)
			}
			if cur := debug.SetGCPercent(100); cur != tt.want {
				t.Fatalf("runtime GC percent = %d, want %d", cur, tt.want)
			}
		})
	}
}
