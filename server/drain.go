package server

import (
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"
)

// drainer lets requests that reached the server just before shutdown be
// answered. http.Server.Shutdown closes every idle keep-alive connection at
// once, and a connection counts as idle until its goroutine has read the
// next request: a request a client sent just before SIGTERM may still wait
// unread in the socket and go down with it; one read after Shutdown began
// is dropped unanswered. So Close stops accepting, then waits (bounded)
// until no idle or new connection has unread bytes in its socket: each such
// connection has by then read its request and is active, and Shutdown
// waits for active connections.
type drainer struct {
	mu    sync.Mutex
	conns map[net.Conn]http.ConnState
}

func newDrainer() *drainer { return &drainer{conns: map[net.Conn]http.ConnState{}} }

// connState is the http.Server's ConnState hook.
func (d *drainer) connState(c net.Conn, st http.ConnState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st == http.StateClosed || st == http.StateHijacked {
		delete(d.conns, c)
		return
	}
	d.conns[c] = st
}

// maxDrainWait bounds the wait for unread requests: a client that keeps
// sending must not hold the shutdown.
const maxDrainWait = 2 * time.Second

// settle is how long no waiting connection may hold unread bytes before
// wait trusts it: a goroutine that has just taken the bytes from the socket
// still has to parse the request before it counts as active.
const settle = 5 * time.Millisecond

// wait returns once no idle or new connection has held unread bytes for
// settle, or at deadline.
func (d *drainer) wait(deadline time.Time) {
	quiet := time.Time{}
	for time.Now().Before(deadline) {
		switch {
		case d.unread():
			quiet = time.Time{}
		case quiet.IsZero():
			quiet = time.Now()
		case time.Since(quiet) >= settle:
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// unread reports whether a connection not yet serving a request has bytes
// waiting in its socket.
func (d *drainer) unread() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for c, st := range d.conns {
		if st != http.StateIdle && st != http.StateNew {
			continue
		}
		if tc, ok := c.(*tls.Conn); ok {
			c = tc.NetConn()
		}
		if unreadBytes(c) > 0 {
			return true
		}
	}
	return false
}

// onceCloseListener closes its listener once: Close stops accepting before
// Shutdown, which closes the listener again.
type onceCloseListener struct {
	net.Listener
	once sync.Once
	err  error
}

func (l *onceCloseListener) Close() error {
	l.once.Do(func() { l.err = l.Listener.Close() })
	return l.err
}
