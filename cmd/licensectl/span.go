package main

import (
	"strconv"
	"strings"
	"time"
)

// span is a flag holding a length of time written as a Go duration ("15m",
// "1h30m") or in days with a d suffix ("30d"); a bare number is days, as the
// plan fields that take one count days.
type span struct {
	d   time.Duration
	raw string
}

func (s *span) String() string { return s.raw }

func (s *span) Type() string { return "duration" }

// Set implements pflag.Value.
func (s *span) Set(v string) error {
	v = strings.TrimSpace(v)
	days, isDays := strings.CutSuffix(v, "d")
	if n, err := strconv.Atoi(days); err == nil && (isDays || days == v) {
		if n < 0 || n > 100_000 {
			return usageErrorf("%q: days out of range", v)
		}
		s.d, s.raw = time.Duration(n)*24*time.Hour, v
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return usageErrorf("%q is not a length of time (e.g. 15m, 12h, 30d)", v)
	}
	s.d, s.raw = d, v
	return nil
}

// days is the span in whole days; flag names it in the error.
func (s *span) days(flag string) (int, error) {
	if s.d%(24*time.Hour) != 0 {
		return 0, usageErrorf("%s must be whole days, e.g. 30d", flag)
	}
	return int(s.d / (24 * time.Hour)), nil
}

// seconds is the span in whole seconds; flag names it in the error.
func (s *span) seconds(flag string) (int, error) {
	if s.d%time.Second != 0 {
		return 0, usageErrorf("%s must be whole seconds", flag)
	}
	return int(s.d / time.Second), nil
}
