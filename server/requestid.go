package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"
)

// Request ids: a proxy's X-Request-Id is kept when it is a sane token, so one
// id follows a request through the proxy's log and ours; otherwise the
// server makes one from a per-process random prefix and a counter, which is
// unique without a random read per request.
var (
	requestIDPrefix = func() string {
		var b [6]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:]) + "-"
	}()
	requestIDSeq atomic.Uint64
)

type requestIDKey struct{}

// requestID returns the incoming id when it is 1–128 visible ASCII
// characters, else a new one.
func requestID(incoming string) string {
	if n := len(incoming); n > 0 && n <= 128 {
		ok := true
		for i := 0; i < n; i++ {
			if c := incoming[i]; c <= ' ' || c > '~' {
				ok = false
				break
			}
		}
		if ok {
			return incoming
		}
	}
	return requestIDPrefix + strconv.FormatUint(requestIDSeq.Add(1), 36)
}

// requestIDFrom returns the id of the request ctx belongs to, or "".
func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
