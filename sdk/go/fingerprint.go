package licensing

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
)

// Fingerprint is a stable id of this machine for the application appID:
// SHA-256 of the operating system's machine id (Linux /etc/machine-id,
// macOS IOPlatformUUID, Windows MachineGuid) with appID, in hex. Two
// applications get unrelated ids on one machine, so vendors cannot
// correlate a user; the raw machine id never leaves it. An application may
// pass its own fingerprint to Activate instead.
func Fingerprint(appID string) (string, error) {
	id, err := machineID()
	if err != nil {
		return "", err
	}
	return fingerprintOf(appID, id), nil
}

func fingerprintOf(appID, machineID string) string {
	sum := sha256.Sum256([]byte("licensectl-fingerprint\x00" + appID + "\x00" + machineID))
	return hex.EncodeToString(sum[:])
}

// machineIDFiles are where Linux and the BSDs keep the machine id.
var machineIDFiles = []string{"/etc/machine-id", "/var/lib/dbus/machine-id"}

var (
	platformUUID = regexp.MustCompile(`"IOPlatformUUID"\s*=\s*"([^"]+)"`)
	machineGUID  = regexp.MustCompile(`MachineGuid\s+REG_SZ\s+(\S+)`)
)

func machineID() (string, error) {
	switch runtime.GOOS {
	case "darwin":
		out, err := exec.Command("ioreg", "-rd1", "-c", "IOPlatformExpertDevice").Output()
		if err != nil {
			return "", fmt.Errorf("licensing: machine id: %w", err)
		}
		if m := platformUUID.FindSubmatch(out); m != nil {
			return string(m[1]), nil
		}
	case "windows":
		out, err := exec.Command("reg", "query", `HKLM\SOFTWARE\Microsoft\Cryptography`, "/v", "MachineGuid").Output()
		if err != nil {
			return "", fmt.Errorf("licensing: machine id: %w", err)
		}
		if m := machineGUID.FindSubmatch(out); m != nil {
			return string(m[1]), nil
		}
	default:
		for _, p := range machineIDFiles {
			if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) != "" {
				return strings.TrimSpace(string(b)), nil
			}
		}
	}
	return "", errors.New("licensing: this machine has no machine id: pass a fingerprint of your own")
}
