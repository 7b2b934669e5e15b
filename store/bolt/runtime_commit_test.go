package bolt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

func TestGroupCommitIsolatesFailures(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g := &groupCommit{db: db}
	ctx := context.Background()
	boom := errors.New("boom")
	var wg sync.WaitGroup
	errs := make([]error, 60)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = g.do(ctx, func(t *txn) error {
				if err := t.tx.Bucket(bMeta).Put([]byte(fmt.Sprintf("k%02d", i)), []byte{1}); err != nil {
					return err
				}
				switch i % 20 {
				case 7:
					return boom
				case 13:
					panic("closure panicked")
				}
				return nil
			})
		}(i)
	}
	wg.Wait()
	err = db.view(ctx, func(tx *txn) error {
		for i, e := range errs {
			got := tx.tx.Bucket(bMeta).Get([]byte(fmt.Sprintf("k%02d", i))) != nil
			switch i % 20 {
			case 7:
				if !errors.Is(e, boom) || got {
					t.Errorf("call %d: err %v, written %v; want boom, nothing written", i, e, got)
				}
			case 13:
				if e == nil || got {
					t.Errorf("call %d: err %v, written %v; want an error, nothing written", i, e, got)
				}
			default:
				if e != nil || !got {
					t.Errorf("call %d: err %v, written %v; want committed", i, e, got)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
