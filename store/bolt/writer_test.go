package bolt

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"licensectl/store"
)

// TestWriterGateSheds holds the writer and shows that a write of either
// path (a plain update, a group commit) waiting past MaxQueueWait is
// refused as overloaded without running, and that the writer serves again
// once free (docs/design.md §14).
func TestWriterGateSheds(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"), Options{Policies: store.Policies{MaxQueueWait: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.update(ctx, func(t *txn) error {
			close(holding)
			<-release
			return t.tx.Bucket(bMeta).Put([]byte("holder"), []byte{1})
		})
	}()
	<-holding
	ran := map[string]bool{}
	put := func(k string) func(t *txn) error {
		return func(t *txn) error {
			ran[k] = true
			return t.tx.Bucket(bMeta).Put([]byte(k), []byte{1})
		}
	}
	g := &groupCommit{db: db}
	grouped := make(chan error, 1)
	go func() { grouped <- g.do(ctx, put("grouped")) }()
	if err := db.update(ctx, put("plain")); store.ErrorCode(err) != store.ECodeOverloaded {
		t.Fatalf("update while the writer is held = %v, want overloaded", err)
	}
	if e := store.AsError(db.update(ctx, put("plain"))); e == nil || e.RetryAfter != 1 {
		t.Fatalf("overloaded error = %+v, want Retry-After 1", e)
	}
	time.Sleep(30 * time.Millisecond) // the grouped call is now past its wait too
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-grouped; store.ErrorCode(err) != store.ECodeOverloaded {
		t.Fatalf("group commit past its wait = %v, want overloaded", err)
	}
	if ran["plain"] || ran["grouped"] {
		t.Fatalf("a shed write ran: %v", ran)
	}
	if err := db.update(ctx, put("after")); err != nil {
		t.Fatalf("update once the writer is free: %v", err)
	}
	if err := g.do(ctx, put("after-grouped")); err != nil {
		t.Fatalf("group commit once the writer is free: %v", err)
	}
	err = db.view(ctx, func(t *txn) error {
		for k, want := range map[string]bool{"holder": true, "after": true, "after-grouped": true, "plain": false, "grouped": false} {
			if got := t.tx.Bucket(bMeta).Get([]byte(k)) != nil; got != want {
				return store.Errorf(store.ECodeInternal, "key %s stored = %v, want %v", k, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriterGateCountsAdmissionWait: a write whose request already waited
// at the server's admission has only what is left of MaxQueueWait for the
// writer: with the writer held and the budget spent it is refused at once,
// unrun, while a free writer still takes it.
func TestWriterGateCountsAdmissionWait(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"), Options{Policies: store.Policies{MaxQueueWait: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	spent := store.WithWriteWaitSince(context.Background(), time.Now().Add(-2*time.Hour))
	ran := false
	put := func(t *txn) error { ran = true; return t.tx.Bucket(bMeta).Put([]byte("k"), []byte{1}) }
	db.writer.hold()
	done := make(chan error, 1)
	go func() { done <- db.update(spent, put) }()
	select {
	case err := <-done:
		if store.ErrorCode(err) != store.ECodeOverloaded || ran {
			t.Fatalf("spent budget, writer held: %v (ran %v), want overloaded unrun", err, ran)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write with its budget spent waited for the writer")
	}
	db.writer.release()
	if err := db.update(spent, put); err != nil || !ran {
		t.Fatalf("spent budget, writer free: %v (ran %v), want it run", err, ran)
	}
}
