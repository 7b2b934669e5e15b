package tui

import (
	"fmt"
	"strconv"
	"time"
)

// when formats a time relative to now ("3d ago", "in 27d"), or absolute
// after T.
func (c *ctx) when(t *time.Time) string {
	if t == nil || t.IsZero() {
		return c.g.dash
	}
	if c.absTimes {
		return t.Local().Format("2006-01-02 15:04")
	}
	d := c.now().Sub(*t)
	if d < 0 {
		return "in " + span(-d)
	}
	return span(d) + " ago"
}

func (c *ctx) at(t time.Time) string { return c.when(&t) }

func span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	case d < 730*24*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return strconv.Itoa(int(d/(365*24*time.Hour))) + "y"
}

// tail is the end of an id: UUIDv7 ids made together share their start.
func tail(id string) string {
	if len(id) <= 12 {
		return id
	}
	return id[len(id)-12:]
}

// count formats n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// shortKey abbreviates a license key for messages: 7KQ2M-…-C5VYE.
func (c *ctx) shortKey(k string) string {
	if len(k) != 29 {
		return k
	}
	return fmt.Sprintf("%s-%s-%s", k[:5], c.g.ellipsis, k[24:])
}
