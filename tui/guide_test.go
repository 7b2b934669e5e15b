package tui

import (
	"os"
	"strings"
	"testing"
)

// TestGuideNamesEveryKey holds docs/tui-guide.md, the user's guide, to the
// key table: a key added to the TUI and left out of the guide fails here.
func TestGuideNamesEveryKey(t *testing.T) {
	raw, err := os.ReadFile("../docs/tui-guide.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(raw)
	screenKeys := []*binding{
		keyAddRole, keyBanLic, keyBanUser, keyBlock, keyCopyAll, keyDelete, keyDisableApp, keyDisableHook,
		keyDisableUser, keyEditPlan, keyEditPolicies, keyEnableHook, keyGenerate, keyMachineFile, keyNewItem,
		keyOpenDevice, keyOpenTarget, keyPause, keyPing, keyReinstate, keyRemoveRole, keyResetDevice,
		keyRetry, keyRevoke, keyRevokeKey, keySuspend, keyWriteKeys,
	}
	for _, b := range append(append([]*binding{}, globalKeys...), screenKeys...) {
		for _, k := range strings.FieldsFunc(b.label, func(r rune) bool { return r == '/' || r == '…' }) {
			if !strings.Contains(guide, "`"+k+"`") {
				t.Errorf("docs/tui-guide.md does not name the key `%s` (%s)", k, b.help)
			}
		}
	}
}
