package bolt

import "time"

// sessionRecord is a runtime session as stored. Tokens are kept only as
// SHA-256 hashes; RetiredRefresh holds the hashes of rotated-out refresh
// tokens so that presenting one again is detected as reuse.
type sessionRecord struct {
	ID               string
	AppID            string
	EnvID            string
	LicenseID        string
	UserID           string
	DeviceID         string
	AccessHash       string
	RefreshHash      string
	RetiredRefresh   []string
	AccessExpiresAt  time.Time
	RefreshExpiresAt time.Time
	AbsoluteExpires  time.Time
	RevokedAt        *time.Time
	RevokeReason     string
	CreatedAt        time.Time
	LastSeenAt       *time.Time
}
