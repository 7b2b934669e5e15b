package licensing

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// Component is one identifier of this machine, hashed with the
// application id: what Activate and Login send as device_components, so
// that the server recognises the machine when its fingerprint changes (a
// new disk, a BIOS update) and keeps its seat.
type Component struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// Components are the hashed identifiers of this machine for the
// application appID, those the operating system has: machine_id (Linux
// /etc/machine-id, macOS IOPlatformUUID, Windows MachineGuid), disk_serial
// (Linux: the serial of the first disk that reports one), mac (the primary
// network interface's) and os_install (macOS: the system volume's UUID,
// Windows: the installation's ProductId). Each is SHA-256 of the value with
// appID, so no raw identifier leaves the machine and two applications get
// unrelated hashes. Nothing found is none: the server then matches on what
// there is.
func Components(appID string) []Component {
	var out []Component
	for _, c := range []struct {
		name string
		read func() string
	}{{"machine_id", machineIDValue}, {"disk_serial", diskSerial}, {"mac", primaryMAC}, {"os_install", osInstallID}} {
		if v := strings.TrimSpace(c.read()); v != "" {
			out = append(out, Component{Name: c.name, Hash: componentHash(appID, c.name, v)})
		}
	}
	return out
}

func componentHash(appID, name, value string) string {
	sum := sha256.Sum256([]byte("licensectl-component\x00" + appID + "\x00" + name + "\x00" + value))
	return hex.EncodeToString(sum[:])
}

func machineIDValue() string {
	id, _ := machineID()
	return id
}

// diskSerial is the serial of the first block device (by name) that reports
// one; virtual devices (loop, ram, zram, device-mapper, optical) have none
// worth keeping.
func diskSerial() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	devs, _ := filepath.Glob("/sys/block/*")
	slices.Sort(devs)
	for _, d := range devs {
		base := filepath.Base(d)
		if strings.HasPrefix(base, "loop") || strings.HasPrefix(base, "ram") || strings.HasPrefix(base, "zram") ||
			strings.HasPrefix(base, "dm-") || strings.HasPrefix(base, "sr") {
			continue
		}
		for _, f := range []string{"device/serial", "serial"} {
			if b, err := os.ReadFile(filepath.Join(d, f)); err == nil && strings.TrimSpace(string(b)) != "" {
				return string(b)
			}
		}
	}
	return ""
}

// primaryMAC is the hardware address of the first interface (by index)
// that is up and not a loopback, else of the first that has one at all.
func primaryMAC() string {
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	fallback := ""
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback != 0 || len(i.HardwareAddr) == 0 || allZero(i.HardwareAddr) {
			continue
		}
		if i.Flags&net.FlagUp != 0 {
			return i.HardwareAddr.String()
		}
		if fallback == "" {
			fallback = i.HardwareAddr.String()
		}
	}
	return fallback
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

var (
	volumeUUID = regexp.MustCompile(`Volume UUID:\s+(\S+)`)
	productID  = regexp.MustCompile(`ProductId\s+REG_SZ\s+(\S+)`)
)

// osInstallID names this installation of the operating system where it
// has such an id apart from the machine id (on Linux the machine id is
// already the installation's).
func osInstallID() string {
	switch runtime.GOOS {
	case "darwin":
		if out, err := exec.Command("diskutil", "info", "/").Output(); err == nil {
			if m := volumeUUID.FindSubmatch(out); m != nil {
				return string(m[1])
			}
		}
	case "windows":
		if out, err := exec.Command("reg", "query", `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion`, "/v", "ProductId").Output(); err == nil {
			if m := productID.FindSubmatch(out); m != nil {
				return string(m[1])
			}
		}
	}
	return ""
}
