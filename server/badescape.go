package server

import (
	"bytes"
	"net"
	"sync/atomic"
)

// net/http refuses a request line whose target holds a malformed
// percent-escape (`/v1/mgmt/applications/%zz`) before any handler runs: it
// answers a plain-text 400 and closes the connection without reading the
// body, which the client sees as a reset. escapeConn repairs such a target
// on the way in — a lone "%" becomes "%25" — so the request reaches the
// router and gets the API's JSON answer (the id names nothing: 404). It
// looks only at the start of a read that begins a request: the first read
// of the connection, or the first after a response was written (sequential
// keep-alive); anything else passes untouched, and a request it cannot
// repair still gets net/http's answer.
type escapeConn struct {
	net.Conn
	wrote   atomic.Bool // a response was written since the last request began
	started bool
	pending []byte // repaired bytes that did not fit the caller's buffer
}

func (c *escapeConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	n, err := c.Conn.Read(p)
	if n == 0 || (c.started && !c.wrote.Load()) {
		return n, err
	}
	c.started = true
	c.wrote.Store(false)
	fixed, ok := repairRequestLine(p[:n])
	if !ok {
		return n, err
	}
	k := copy(p, fixed)
	c.pending = append(c.pending[:0], fixed[k:]...)
	return k, err
}

func (c *escapeConn) Write(p []byte) (int, error) {
	c.wrote.Store(true)
	return c.Conn.Write(p)
}

// repairRequestLine escapes the lone "%" signs of the request target in b,
// when b starts with a whole request line; ok is false when nothing changed.
func repairRequestLine(b []byte) ([]byte, bool) {
	end := bytes.IndexByte(b, '\n')
	if end < 0 {
		return nil, false
	}
	line := b[:end]
	sp1 := bytes.IndexByte(line, ' ')
	sp2 := bytes.LastIndexByte(line, ' ')
	if sp1 <= 0 || sp2 <= sp1 || !bytes.HasPrefix(line[sp2+1:], []byte("HTTP/1.")) {
		return nil, false
	}
	target := line[sp1+1 : sp2]
	var out []byte
	for i := 0; i < len(target); i++ {
		if target[i] == '%' && (i+2 >= len(target) || !isHex(target[i+1]) || !isHex(target[i+2])) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+8), b[:sp1+1]...)
				out = append(out, target[:i]...)
			}
			out = append(out, "%25"...)
			continue
		}
		if out != nil {
			out = append(out, target[i])
		}
	}
	if out == nil {
		return nil, false
	}
	return append(out, b[sp2:]...), true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// escapeListener wraps each accepted connection in an escapeConn.
type escapeListener struct{ net.Listener }

func (l escapeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &escapeConn{Conn: c}, nil
}

// CloseWrite keeps net/http's lingering close working through the wrapper.
func (c *escapeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
