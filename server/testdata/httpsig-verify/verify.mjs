// An independent check of licensectl's signed answers (docs/design.md §15):
// RFC 9421 verification by the http-message-signatures package, the
// request as the ;req context, and the RFC 9530 digest of the body checked
// with node:crypto (the package checks signatures, not bodies).
//
// stdin: {"jwks": <the environment's JWKS>, "cases": [{"name", "request":
// {"method", "url", "headers"}, "response": {"status", "headers",
// "body_base64"}}]}. stdout: one JSON line per case, {"name", "verified",
// "error"}.
import { createHash, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { httpbis, createVerifier } from 'http-message-signatures';

const input = JSON.parse(readFileSync(0, 'utf8'));
const keys = new Map(input.jwks.keys.map((k) => [k.kid, createPublicKey({ key: k, format: 'jwk' })]));

function header(headers, name) {
  const v = Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v.join(', ') : v;
}

async function check(c) {
  const body = Buffer.from(c.response.body_base64, 'base64');
  const digest = 'sha-256=:' + createHash('sha256').update(body).digest('base64') + ':';
  if (header(c.response.headers, 'content-digest') !== digest) {
    throw new Error('Content-Digest does not match the body');
  }
  const nonce = /nonce="([^"]*)"/.exec(header(c.request.headers, 'accept-signature') ?? '')?.[1];
  const ok = await httpbis.verifyMessage({
    // The test server's clock is not this machine's: created is checked
    // by the Go side, against the server's clock.
    notAfter: new Date(8.64e15),
    requiredParams: ['created', 'keyid', 'alg', 'nonce', 'tag'],
    requiredFields: ['@status', 'content-digest', 'content-type', '@method', '@path', '@query', '@authority', 'accept-signature'],
    keyLookup: async (params) => {
      if (params.nonce !== nonce) throw new Error(`nonce ${params.nonce}, the request sent ${nonce}`);
      if (params.tag !== 'licensectl') throw new Error(`tag ${params.tag}`);
      const key = keys.get(params.keyid);
      if (!key) throw new Error(`unknown keyid ${params.keyid}`);
      return { id: params.keyid, algs: ['ed25519'], verify: createVerifier(key, 'ed25519') };
    },
  }, c.response, c.request);
  if (ok !== true) throw new Error(`verifyMessage answered ${ok}`);
}

for (const c of input.cases) {
  try {
    await check(c);
    console.log(JSON.stringify({ name: c.name, verified: true }));
  } catch (e) {
    console.log(JSON.stringify({ name: c.name, verified: false, error: String(e?.message ?? e) }));
  }
}
