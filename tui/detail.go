package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// userDetail is an end-user and the licenses assigned to them (server
// filter by user id), with the license keys and actions.
type userDetail struct {
	*list
	u *store.EndUser
}

func newUserDetail(c *ctx, u *store.EndUser) screen {
	spec := *licensesSpec
	spec.name, spec.create = "Licenses of "+store.Printable(u.Email), nil
	spec.empty = "No licenses are assigned to this user."
	spec.fetch = withDeviceLimits(func(ctx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error) {
		p, err := c.data.ListLicenses(ctx, c.scope(), store.LicenseFilter{UserID: u.ID, Status: q.status, PageRequest: page})
		return pageItems(p, err)
	})
	return &userDetail{list: newList(c, &spec), u: u}
}

func (d *userDetail) title() string { return store.Printable(d.u.Email) }

func (d *userDetail) view(c *ctx, w, h int) string {
	u := d.u
	head := fmt.Sprintf("User %s %s %s %s roles %s %s last login %s %s created %s", store.Printable(u.Email), c.g.dot, u.Status, c.g.dot,
		strings.Join(u.Roles, ","), c.g.dot, c.when(u.LastLoginAt), c.g.dot, c.at(u.CreatedAt))
	return c.g.truncate(head, w) + "\n" + d.list.view(c, w, h-1)
}

// deviceDetail is a device and the licenses bound to it.
type deviceDetail struct {
	*list
	d *store.Device
}

func newDeviceDetail(c *ctx, dv *store.Device) screen {
	spec := *licensesSpec
	spec.name, spec.create, spec.paged = "Licenses on "+store.Printable(dv.Fingerprint), nil, false
	spec.empty = "No license is bound to this device."
	ids := dv.LicenseIDs
	spec.fetch = withDeviceLimits(whole(func(ctx context.Context, c *ctx) ([]*store.LicenseItem, error) {
		var out []*store.LicenseItem
		for _, id := range ids {
			l, err := c.data.FindLicense(ctx, c.scope(), id)
			if err != nil {
				return nil, err
			}
			out = append(out, &l.LicenseItem)
		}
		return out, nil
	}))
	return &deviceDetail{list: newList(c, &spec), d: dv}
}

// init loads the licenses and the device's live session count.
func (d *deviceDetail) init(c *ctx) tea.Cmd { return tea.Batch(d.list.init(c), d.count(c)) }

func (d *deviceDetail) reload(c *ctx) tea.Cmd { return tea.Batch(d.list.reload(c), d.count(c)) }

func (d *deviceDetail) count(c *ctx) tea.Cmd {
	id := d.d.ID
	return c.load(d.ctx, d.sid, d.gen, "sessions", func(ctx context.Context) (any, error) {
		return c.data.CountDeviceSessions(ctx, c.scope(), id)
	})
}

func (d *deviceDetail) update(c *ctx, msg tea.Msg) tea.Cmd {
	if m, ok := msg.(loadedMsg); ok && m.kind == "sessions" {
		if n, ok := m.val.(int); ok && m.err == nil {
			c.sessions[d.d.ID] = n
		}
		return nil
	}
	return d.list.update(c, msg)
}

func (d *deviceDetail) title() string { return store.Printable(d.d.Fingerprint) }

func (d *deviceDetail) view(c *ctx, w, h int) string {
	dv := d.d
	head := fmt.Sprintf("Device %s %s %s %s %s %s %s %s last seen %s", store.Printable(dv.Fingerprint), c.g.dot, dv.Status, c.g.dot,
		store.Printable(dv.Name), c.g.dot, store.Printable(dv.Platform), c.g.dot, c.when(dv.LastSeenAt))
	if n, ok := c.sessions[dv.ID]; ok {
		head += fmt.Sprintf(" %s live sessions %d", c.g.dot, n)
	}
	return c.g.truncate(head, w) + "\n" + d.list.view(c, w, h-1)
}
