package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"licensectl/server"
	"licensectl/server/servertest"
	"licensectl/store"
)

func TestBackupLocal(t *testing.T) {
	c := newLocal(t)
	var org server.AdminOrganization
	c.json(&org, "org", "create", "Acme")
	var app server.ApplicationDetail
	c.json(&app, "app", "create", "Studio")

	file := filepath.Join(c.dir, "backup.db")
	var out backupView
	c.json(&out, "backup", file)
	if fi, err := os.Stat(file); err != nil || fi.Size() != out.Bytes || out.Bytes == 0 {
		t.Fatalf("backup wrote %+v, file %v %v", out, fi, err)
	}
	db := openBackup(t, file)
	if _, err := db.FindApplication(context.Background(), store.AppRef{OrgID: org.ID, AppID: app.ID}); err != nil {
		t.Fatalf("application missing from backup: %v", err)
	}

	c.fails(1, args("backup", file), "exists", "--force")
	c.ok("backup", file, "--force")
	c.fails(1, args("backup", filepath.Join(c.dir, "data", "licensectl.db"), "--force"), "the database itself")
	c.fails(1, args("backup", filepath.Join(c.dir, "missing", "b.db")), "does not exist")

	// To stdout, nothing else on it.
	raw := c.ok("backup", "-")
	piped := filepath.Join(c.dir, "piped.db")
	if err := os.WriteFile(piped, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	openBackup(t, piped)
	left, _ := filepath.Glob(filepath.Join(c.dir, ".*tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

// TestBackupRemoteUnderLoad takes a backup through the API while another
// goroutine keeps writing, and checks that the copy is a sound database
// holding everything acknowledged before the backup started.
func TestBackupRemoteUnderLoad(t *testing.T) {
	srv := servertest.New(t)
	org := srv.NewOrg(t)
	c := newRemote(t, srv.URL, srv.OperatorToken())
	app := newRemote(t, srv.URL, org.APIKey)
	var a server.ApplicationDetail
	app.json(&a, "app", "create", "Studio")

	var (
		mu    sync.Mutex
		acked []string
		stop  = make(chan struct{})
		done  = make(chan error, 1)
	)
	go func() {
		client := &http.Client{Timeout: 10 * time.Second}
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			body, _ := json.Marshal(server.CreateSecretRequest{EnvironmentID: a.Environments[0].ID, Label: "load"})
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/mgmt/applications/"+a.ID+"/secrets", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+org.APIKey)
			res, err := client.Do(req)
			if err != nil {
				done <- err
				return
			}
			var out server.SecretCreated
			err = json.NewDecoder(res.Body).Decode(&out)
			res.Body.Close()
			if err != nil || res.StatusCode != http.StatusCreated {
				done <- err
				return
			}
			mu.Lock()
			acked = append(acked, out.SecretID)
			mu.Unlock()
		}
	}()

	// Let the writer get going, then note what is acknowledged.
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 20 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	file := filepath.Join(c.dir, "backup.db")
	c.ok("backup", file)
	mu.Lock()
	during := len(acked) - len(before)
	mu.Unlock()
	close(stop)
	if err := <-done; err != nil {
		t.Fatalf("writer: %v", err)
	}
	t.Logf("%d secrets acknowledged before the backup, %d while it ran", len(before), during)

	db := openBackup(t, file)
	secrets, err := db.ListAppSecrets(context.Background(), store.AppRef{OrgID: org.ID, AppID: a.ID})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, s := range secrets {
		have[s.ID] = true
	}
	for _, id := range before {
		if !have[id] {
			t.Fatalf("secret %s acknowledged before the backup is missing from it", id)
		}
	}

	// A developer API key may not take backups.
	app.fails(1, args("backup", filepath.Join(c.dir, "nope.db")), "Error: forbidden: ")
	if _, err := os.Stat(filepath.Join(c.dir, "nope.db")); !os.IsNotExist(err) {
		t.Fatalf("a refused backup left a file: %v", err)
	}
}
