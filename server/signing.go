package server

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"net/http"
	"strconv"
	"sync"

	"licensectl/server/httpsig"
	"licensectl/store"
)

// Signed runtime answers (docs/design.md §15): a runtime request that sends
// Accept-Signature with a nonce gets its answer signed with the
// environment's JWKS key over RFC 9421's signature base.

// signState is what the signing middleware and the runtime wrapper share
// about one request.
type signState struct {
	accept httpsig.Accept
	// err refuses a malformed Accept-Signature: the runtime wrapper returns
	// it (after the rate limits) and the answer goes unsigned, since it
	// has no nonce to carry.
	err error
	// env is the environment a handler resolved, when it did, so that the
	// middleware need not resolve it again.
	env *store.Environment
}

type signKey struct{}

// noteEnv tells the signing middleware, if the request asked for a
// signature, which environment the answer speaks for.
func noteEnv(ctx context.Context, env *store.Environment) {
	if st, ok := ctx.Value(signKey{}).(*signState); ok {
		st.env = env
	}
}

// signAnswers buffers the answer of a request carrying Accept-Signature and
// signs it once the handler is done. Without the header the request passes
// straight through: clients that do not ask pay one map lookup.
func (s *Server) signAnswers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked := r.Header["Accept-Signature"]
		if len(asked) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		st := new(signState)
		accept, err := httpsig.ParseAccept(asked)
		if err != nil {
			st.err = store.Invalid("accept-signature", "%s", err.Error())
		}
		st.accept = accept
		r = r.WithContext(context.WithValue(r.Context(), signKey{}, st))
		if st.err != nil {
			next.ServeHTTP(w, r)
			return
		}
		sw := &signingWriter{w: w, buf: answerBufs.Get().(*bytes.Buffer)}
		defer sw.release()
		next.ServeHTTP(sw, r)
		s.sign(sw, r, st)
		sw.send()
	})
}

// sign adds the signature headers to sw's answer when its environment is
// known: the one the handler noted, else the one the credential names. An
// answer whose application cannot be resolved (invalid_application, the
// store down) goes unsigned: there is no key to sign it with.
func (s *Server) sign(sw *signingWriter, r *http.Request, st *signState) {
	env := st.env
	if env == nil {
		ra, err := s.rt.store.ResolveApp(r.Context(), runtimeClient(r))
		if err != nil {
			return
		}
		env = ra.Env
	}
	signer, err := s.signers.of(env)
	if err != nil {
		s.logger.Error("sign answer", "request_id", requestIDFrom(r.Context()), "err", err)
		return
	}
	h := sw.Header()
	// A signed answer holds one client's nonce: no cache may keep it.
	h["Cache-Control"] = noStore
	msg := httpsig.RequestMessage(r)
	if err := signer.SignAnswer(h, sw.statusCode(), sw.buf.Bytes(), &msg, st.accept, s.now().Unix()); err != nil {
		s.logger.Error("sign answer", "request_id", requestIDFrom(r.Context()), "err", err)
	}
}

// checkSignRequest refuses, before the handler acts, a malformed
// Accept-Signature and a request Content-Digest that does not match the
// body (then puts the body back for the handler to read).
func checkSignRequest(r *http.Request) error {
	if st, ok := r.Context().Value(signKey{}).(*signState); ok && st.err != nil {
		return st.err
	}
	digest := r.Header["Content-Digest"]
	if len(digest) == 0 {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err // the 1 MiB cap: body_too_large
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := httpsig.CheckDigest(digest, body); err != nil {
		return store.Invalid("content-digest", "%s", err.Error())
	}
	return nil
}

// answerSigners keeps one httpsig.Signer per environment key, so that a key
// is checked and copied once, not on every signed answer.
type answerSigners struct {
	mu sync.RWMutex
	m  map[string]*httpsig.Signer // by key id
}

// maxSigners bounds the cache; past it the cache starts over, which costs
// a rebuild per environment and nothing else.
const maxSigners = 10000

func (a *answerSigners) of(env *store.Environment) (*httpsig.Signer, error) {
	a.mu.RLock()
	sg := a.m[env.KeyID]
	a.mu.RUnlock()
	if sg != nil && len(env.SigningKey) == ed25519.PrivateKeySize && bytes.Equal(sg.Public(), env.SigningKey[32:]) {
		return sg, nil
	}
	sg, err := httpsig.NewSigner(env.SigningKey, env.KeyID)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if a.m == nil || len(a.m) >= maxSigners {
		a.m = make(map[string]*httpsig.Signer)
	}
	a.m[env.KeyID] = sg
	a.mu.Unlock()
	return sg, nil
}

// answerBufs holds the buffers of signed answers. Runtime answers are a few
// hundred bytes; one that grew past maxPooledAnswer is left to the
// collector rather than kept.
var answerBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledAnswer = 64 << 10

// signingWriter holds an answer until it is signed: the digest and the
// signature cover the whole body and must precede it.
type signingWriter struct {
	w      http.ResponseWriter
	status int
	buf    *bytes.Buffer
}

func (sw *signingWriter) Header() http.Header { return sw.w.Header() }

func (sw *signingWriter) WriteHeader(code int) {
	if sw.status == 0 && code >= 200 {
		sw.status = code
	}
}

func (sw *signingWriter) Write(b []byte) (int, error) {
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	return sw.buf.Write(b)
}

// setErrorCode passes the error code on to the request log.
func (sw *signingWriter) setErrorCode(code string) {
	if c, ok := sw.w.(errorCoder); ok {
		c.setErrorCode(code)
	}
}

func (sw *signingWriter) statusCode() int {
	if sw.status == 0 {
		return http.StatusOK
	}
	return sw.status
}

// send writes the held answer out.
func (sw *signingWriter) send() {
	h := sw.w.Header()
	h["Content-Length"] = []string{strconv.Itoa(sw.buf.Len())}
	sw.w.WriteHeader(sw.statusCode())
	_, _ = sw.w.Write(sw.buf.Bytes())
}

func (sw *signingWriter) release() {
	if sw.buf.Cap() <= maxPooledAnswer {
		sw.buf.Reset()
		answerBufs.Put(sw.buf)
	}
	sw.buf = nil
}
