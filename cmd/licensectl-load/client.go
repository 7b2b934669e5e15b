package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// conn is one keep-alive HTTP/1.1 connection.
type conn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	body bytes.Buffer
	// signed: the last answer carried a Signature header (an answer to
	// Accept-Signature, docs/design.md §15).
	signed bool
	// retryAfter is the last response's Retry-After, "" when it had none.
	retryAfter string
}

func dial(addr string) (*conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &conn{addr: addr, c: c, br: bufio.NewReaderSize(c, 16<<10), bw: bufio.NewWriterSize(c, 8<<10)}, nil
}

// request is one request to send: the headers are pre-rendered lines.
type request struct {
	method  string
	path    string
	headers []string // "Name: value"
	body    []byte
}

// do sends req and reads the whole response; the body is valid until the
// next call. A broken connection is redialled once.
func (c *conn) do(req *request) (int, []byte, error) {
	status, body, err := c.roundTrip(req)
	if err != nil {
		c.c.Close()
		nc, derr := dial(c.addr)
		if derr != nil {
			return 0, nil, err
		}
		*c = *nc
		return c.roundTrip(req)
	}
	return status, body, nil
}

func (c *conn) roundTrip(req *request) (int, []byte, error) {
	w := c.bw
	w.WriteString(req.method)
	w.WriteByte(' ')
	w.WriteString(req.path)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(c.addr)
	w.WriteString("\r\n")
	for _, h := range req.headers {
		w.WriteString(h)
		w.WriteString("\r\n")
	}
	if req.body != nil {
		w.WriteString("Content-Type: application/json\r\nContent-Length: ")
		w.WriteString(strconv.Itoa(len(req.body)))
		w.WriteString("\r\n\r\n")
		w.Write(req.body)
	} else {
		w.WriteString("\r\n")
	}
	if err := w.Flush(); err != nil {
		return 0, nil, err
	}
	return c.readResponse()
}

// readResponse reads a status line, headers and a Content-Length or
// chunked body; a hand-rolled reader allocates far less than
// http.ReadResponse, leaving the shared cores to the server.
func (c *conn) readResponse() (int, []byte, error) {
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return 0, nil, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, nil, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := -1, false
	c.signed = false
	c.retryAfter = ""
	for {
		h, err := c.br.ReadSlice('\n')
		if err != nil {
			return 0, nil, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, nil, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Retry-After")):
			c.retryAfter = string(value)
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Signature")):
			c.signed = len(value) > 0
		}
	}
	c.body.Reset()
	switch {
	case chunked:
		res, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), c.br)), nil)
		if err != nil {
			return 0, nil, err
		}
		_, err = io.Copy(&c.body, res.Body)
		res.Body.Close()
		if err != nil {
			return 0, nil, err
		}
	case length >= 0:
		if _, err := io.CopyN(&c.body, c.br, int64(length)); err != nil {
			return 0, nil, err
		}
	default:
		return 0, nil, fmt.Errorf("response without length")
	}
	return status, c.body.Bytes(), nil
}

func (c *conn) close() { c.c.Close() }
