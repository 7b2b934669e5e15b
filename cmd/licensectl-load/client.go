package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
)

// conn is one keep-alive HTTP/1.1 connection.
type conn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	body bytes.Buffer
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
	res, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, nil, err
	}
	c.body.Reset()
	_, err = io.Copy(&c.body, res.Body)
	res.Body.Close()
	if err != nil {
		return 0, nil, fmt.Errorf("read body: %w", err)
	}
	return res.StatusCode, c.body.Bytes(), nil
}

func (c *conn) close() { c.c.Close() }
