package store

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// Limits on the device components a client may send (docs/design.md §17).
const (
	MaxDeviceComponents    = 16
	MaxDeviceComponentName = 32
	MaxDeviceComponentHash = 128
)

// DeviceComponent is one hashed hardware or OS identifier of a device (the
// machine id, a disk serial, a MAC): a fingerprint changes when any part of
// the machine does, the components let the server recognise the same
// machine under a new fingerprint.
type DeviceComponent struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// CheckDeviceComponents validates the device_components of an activation or
// a login: at most MaxDeviceComponents entries, each name 1–32 and each hash
// 1–128 printable characters, names unique. The error names the offending
// entry's field so the caller can tell which one to fix.
func CheckDeviceComponents(in []DeviceComponent) error {
	if len(in) > MaxDeviceComponents {
		return Invalid("device_components", "device_components holds at most %d entries", MaxDeviceComponents)
	}
	seen := make(map[string]bool, len(in))
	for i, c := range in {
		field := fmt.Sprintf("device_components[%d]", i)
		if !componentText(c.Name, MaxDeviceComponentName) {
			return Invalid(field+".name", "%s.name must be 1 to %d printable characters", field, MaxDeviceComponentName)
		}
		if !componentText(c.Hash, MaxDeviceComponentHash) {
			return Invalid(field+".hash", "%s.hash must be 1 to %d printable characters", field, MaxDeviceComponentHash)
		}
		if seen[c.Name] {
			return Invalid(field+".name", "%s.name %q appears twice in device_components", field, c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

func componentText(s string, max int) bool {
	n := utf8.RuneCountInString(s)
	if n == 0 || n > max || !utf8.ValidString(s) || Blank(s) {
		return false
	}
	for _, r := range s {
		if !printableRune(r) {
			return false
		}
	}
	return true
}

// ComponentsMatchMost reports whether the components a new fingerprint
// arrives with match a bound device's on most of the bound device's
// components: more than half of them, and at least two, so a device that
// recorded a single component (or none) is never re-bound on one
// coincidence. A component matches when a component of the same name has
// the same hash.
func ComponentsMatchMost(bound, arriving []DeviceComponent) bool {
	if len(bound) < 2 || len(arriving) < 2 {
		return false
	}
	matched := matchingComponents(bound, arriving)
	return matched >= 2 && matched*2 > len(bound)
}

// matchingComponents counts the components of bound that arriving has
// under the same name with the same hash.
func matchingComponents(bound, arriving []DeviceComponent) int {
	have := make(map[string]string, len(arriving))
	for _, c := range arriving {
		have[c.Name] = c.Hash
	}
	matched := 0
	for _, c := range bound {
		if h, ok := have[c.Name]; ok && h == c.Hash {
			matched++
		}
	}
	return matched
}

// KeepsComponents reports whether components sent with a request leave
// the device's as they are: none sent, or the same.
func (d *Device) KeepsComponents(in []DeviceComponent) bool {
	return len(in) == 0 || slices.Equal(d.Components, in)
}

// RecordComponents stores the components a device sent with an activation
// or a login, in a new slice (d may be a shared copy), and reports whether
// they changed. A request that sent none keeps what the device has: an
// older client says nothing about the machine.
func (d *Device) RecordComponents(in []DeviceComponent) bool {
	if d.KeepsComponents(in) {
		return false
	}
	d.Components = slices.Clone(in)
	return true
}
