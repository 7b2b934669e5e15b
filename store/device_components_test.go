package store

import (
	"strings"
	"testing"
)

func comps(pairs ...string) []DeviceComponent {
	var out []DeviceComponent
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, DeviceComponent{Name: pairs[i], Hash: pairs[i+1]})
	}
	return out
}

func TestCheckDeviceComponents(t *testing.T) {
	seventeen := make([]DeviceComponent, 17)
	for i := range seventeen {
		seventeen[i] = DeviceComponent{Name: "c" + strings.Repeat("x", i), Hash: "h"}
	}
	for _, tc := range []struct {
		name  string
		in    []DeviceComponent
		field string // "" means valid
	}{
		{"none", nil, ""},
		{"sixteen", seventeen[:16], ""},
		{"seventeen", seventeen, "device_components"},
		{"empty name", comps("", "h"), "device_components[0].name"},
		{"long name", comps(strings.Repeat("n", 33), "h"), "device_components[0].name"},
		{"name of 32", comps(strings.Repeat("n", 32), "h"), ""},
		{"blank name", comps("\u3164", "h"), "device_components[0].name"},
		{"control in name", comps("mac\x1b", "h"), "device_components[0].name"},
		{"empty hash", comps("mac", ""), "device_components[0].hash"},
		{"hash of 128", comps("mac", strings.Repeat("a", 128)), ""},
		{"long hash", comps("mac", strings.Repeat("a", 129)), "device_components[0].hash"},
		{"invalid utf-8 hash", comps("mac", "\xff"), "device_components[0].hash"},
		{"duplicate name", comps("mac", "a", "disk", "b", "mac", "c"), "device_components[2].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckDeviceComponents(tc.in)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			e := AsError(err)
			if e == nil || e.Code != ECodeValidation || e.Field != tc.field {
				t.Fatalf("want validation_failed on %s, got %v (field %q)", tc.field, err, fieldOf(e))
			}
		})
	}
}

func TestComponentsMatchMost(t *testing.T) {
	bound := comps("machine", "m1", "disk", "d1", "mac", "a1", "os", "o1")
	for _, tc := range []struct {
		name     string
		bound    []DeviceComponent
		arriving []DeviceComponent
		want     bool
	}{
		{"all four", bound, bound, true},
		{"three of four", bound, comps("machine", "m1", "disk", "d1", "mac", "a2", "os", "o1"), true},
		{"half is not most", bound, comps("machine", "m1", "disk", "d1", "mac", "a2", "os", "o2"), false},
		{"names must agree", bound, comps("disk", "m1", "machine", "d1", "mac", "a1"), false},
		{"two of three", comps("machine", "m1", "disk", "d1", "mac", "a1"), comps("machine", "m1", "disk", "d1"), true},
		{"one of one is not enough", comps("machine", "m1"), comps("machine", "m1", "disk", "d1"), false},
		{"one of two is half", comps("machine", "m1", "disk", "d1"), comps("machine", "m1", "disk", "d2"), false},
		{"two of two", comps("machine", "m1", "disk", "d1"), comps("machine", "m1", "disk", "d1", "mac", "x"), true},
		{"bound device without components", nil, bound, false},
		{"arriving without components", bound, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ComponentsMatchMost(tc.bound, tc.arriving); got != tc.want {
				t.Fatalf("ComponentsMatchMost = %v, want %v", got, tc.want)
			}
		})
	}
}
