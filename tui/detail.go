package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// userDetail is an end-user, the licenses assigned to them (server filter
// by user id), with the license keys and actions, and the devices bound to
// those licenses (docs/tui.md §5.6).
type userDetail struct {
	*list
	u    *store.EndUser
	devs []*store.Device // nil until read
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

func (d *userDetail) keys(c *ctx) []*binding { return append(d.list.keys(c), keyHistory) }

func (d *userDetail) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if d.list.editing == nil && c.matches(k.String(), keyHistory) {
		return true, push(newHistory(c, "user "+store.Printable(d.u.Email), d.u.ID))
	}
	return d.list.key(c, k)
}

// init loads the licenses and the devices.
func (d *userDetail) init(c *ctx) tea.Cmd { return tea.Batch(d.list.init(c), d.devices(c)) }

func (d *userDetail) reload(c *ctx) tea.Cmd { return tea.Batch(d.list.reload(c), d.devices(c)) }

// devices reads the devices bound to the user's licenses (their first
// page): devices have no index by user, licenses have one.
func (d *userDetail) devices(c *ctx) tea.Cmd {
	id := d.u.ID
	return c.load(d.ctx, d.sid, d.gen, "devices", func(ctx context.Context) (any, error) {
		lics, err := c.data.ListLicenses(ctx, c.scope(), store.LicenseFilter{UserID: id, PageRequest: store.PageRequest{Page: 1, PerPage: perPage}})
		if err != nil {
			return nil, err
		}
		out := []*store.Device{}
		seen := map[string]bool{}
		for _, l := range lics.Data {
			if l.DevicesCount == 0 {
				continue
			}
			p, err := c.data.ListDevices(ctx, c.scope(), store.StatusFilter{LicenseID: l.ID, PageRequest: store.PageRequest{Page: 1, PerPage: perPage}})
			if err != nil {
				return nil, err
			}
			for _, dv := range p.Data {
				if !seen[dv.ID] {
					seen[dv.ID] = true
					out = append(out, dv)
				}
			}
		}
		return out, nil
	})
}

func (d *userDetail) update(c *ctx, msg tea.Msg) tea.Cmd {
	if m, ok := msg.(loadedMsg); ok && m.kind == "devices" {
		if m.err != nil {
			return readFailed(c, d.sid, m.err)
		}
		d.devs = m.val.([]*store.Device)
		return nil
	}
	return d.list.update(c, msg)
}

func (d *userDetail) view(c *ctx, w, h int) string {
	u := d.u
	roles := strings.Join(u.Roles, ",")
	if roles == "" {
		roles = c.g.dash
	}
	head := strings.Join([]string{"User " + store.Printable(u.Email), u.Status, "roles " + store.Printable(roles),
		"last login " + c.when(u.LastLoginAt), "created " + c.at(u.CreatedAt)}, " "+c.g.dot+" ")
	devs := "Devices  loading" + c.g.ellipsis
	switch {
	case d.devs == nil:
	case len(d.devs) == 0:
		devs = "Devices  none bound to the user's licenses"
	default:
		parts := make([]string, len(d.devs))
		for i, dv := range d.devs {
			parts[i] = fmt.Sprintf("%s %s, seen %s", store.Printable(dv.Fingerprint), dv.Status, c.when(dv.LastSeenAt))
		}
		devs = fmt.Sprintf("Devices (%d)  %s", len(d.devs), strings.Join(parts, " "+c.g.dot+" "))
	}
	return c.g.truncate(head, w) + "\n" + c.g.truncate(devs, w) + "\n" + d.list.view(c, w, h-2)
}

// deviceDetail is a device, its user and the licenses bound to it.
type deviceDetail struct {
	*list
	d     *store.Device
	email string // of the device's user, once read
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

// init loads the licenses and the header's live session count and user.
func (d *deviceDetail) init(c *ctx) tea.Cmd { return tea.Batch(d.list.init(c), d.head(c)) }

func (d *deviceDetail) reload(c *ctx) tea.Cmd { return tea.Batch(d.list.reload(c), d.head(c)) }

// deviceHead is what the device detail's header reads besides the device.
type deviceHead struct {
	sessions int
	email    string // "" when the device has no user or it has no license
}

func (d *deviceDetail) head(c *ctx) tea.Cmd {
	id, user := d.d.ID, d.d.UserID
	return c.load(d.ctx, d.sid, d.gen, "head", func(ctx context.Context) (any, error) {
		var h deviceHead
		var err error
		if h.sessions, err = c.data.CountDeviceSessions(ctx, c.scope(), id); err != nil || user == "" {
			return h, err
		}
		// The admin interface finds no end-user by id; a license assigned
		// to them carries their e-mail.
		p, err := c.data.ListLicenses(ctx, c.scope(), store.LicenseFilter{UserID: user, PageRequest: store.PageRequest{Page: 1, PerPage: 1}})
		if err == nil && len(p.Data) > 0 {
			h.email = p.Data[0].UserEmail
		}
		return h, err
	})
}

func (d *deviceDetail) update(c *ctx, msg tea.Msg) tea.Cmd {
	if m, ok := msg.(loadedMsg); ok && m.kind == "head" {
		if h, ok := m.val.(deviceHead); ok && m.err == nil {
			c.sessions[d.d.ID], d.email = h.sessions, h.email
		}
		return nil
	}
	return d.list.update(c, msg)
}

func (d *deviceDetail) title() string { return store.Printable(d.d.Fingerprint) }

func (d *deviceDetail) keys(c *ctx) []*binding { return append(d.list.keys(c), keyHistory) }

func (d *deviceDetail) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if d.list.editing == nil && c.matches(k.String(), keyHistory) {
		return true, push(newHistory(c, "device "+store.Printable(d.d.Fingerprint), d.d.ID))
	}
	return d.list.key(c, k)
}

func (d *deviceDetail) view(c *ctx, w, h int) string {
	dv := d.d
	parts := []string{"Device " + store.Printable(dv.Fingerprint), dv.Status}
	for _, s := range []string{dv.Name, dv.Platform} {
		if s != "" { // an empty field leaves no gap between the dots
			parts = append(parts, store.Printable(s))
		}
	}
	user := deviceUser(c, dv)
	if d.email != "" {
		user = store.Printable(d.email)
	}
	parts = append(parts, "user "+user, "last seen "+c.when(dv.LastSeenAt))
	if n, ok := c.sessions[dv.ID]; ok {
		parts = append(parts, fmt.Sprintf("live sessions %d", n))
	}
	return c.g.truncate(strings.Join(parts, " "+c.g.dot+" "), w) + "\n" + d.list.view(c, w, h-1)
}
