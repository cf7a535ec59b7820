#!/usr/bin/env node
// key-proxy: a tiny reverse proxy, loopback only, that adds the X-API-Key
// header to every request and forwards it to email-mcp. It exists for
// clients that cannot send a header, such as the MCP conformance suite.
//
//   MCP_API_KEY=... node key-proxy.mjs --target http://127.0.0.1:8420 [--port 0]
//
// It prints one line, "key-proxy listening http://127.0.0.1:PORT", when it is
// ready, and runs until SIGTERM/SIGINT. The key comes from the environment
// (never the command line, which other users can read in ps). Everything
// else passes through untouched, the Host and Origin headers included (the
// server's DNS-rebinding checks see what the client sent), and responses
// stream (SSE) as they come. The target must be a loopback address.
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    target: { type: 'string' },
    port: { type: 'string', default: '0' },
    'key-env': { type: 'string', default: 'MCP_API_KEY' },
  },
});

function fail(msg) {
  process.stderr.write(`key-proxy: ${msg}\n`);
  process.exit(2);
}

const key = process.env[values['key-env']];
if (!key) fail(`the environment variable ${values['key-env']} is empty`);
if (!values.target) fail('--target http://127.0.0.1:PORT is required');
const target = new URL(values.target);
if (target.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
  fail('--target must be http:// on a loopback address');
}

// Hop-by-hop headers are not forwarded (RFC 9110 section 7.6.1).
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function forwardHeaders(raw) {
  const out = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!hopByHop.has(name)) out[name] = value;
  }
  out['x-api-key'] = key;
  return out;
}

const server = http.createServer((req, res) => {
  const upstream = http.request(
    {
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || 80,
      method: req.method,
      path: req.url,
      headers: forwardHeaders(req.headers),
    },
    (up) => {
      const headers = {};
      for (const [name, value] of Object.entries(up.headers)) {
        if (!hopByHop.has(name)) headers[name] = value;
      }
      res.writeHead(up.statusCode ?? 502, headers);
      res.flushHeaders();
      up.pipe(res);
      up.on('error', () => res.destroy());
    },
  );
  upstream.on('error', (err) => {
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'BAD_GATEWAY', message: `key-proxy: ${err.code ?? err.message}` } }));
    } else {
      res.destroy();
    }
  });
  // A client that goes away (an aborted call, a closed SSE stream) ends the
  // upstream request too, so the server sees the cancellation.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
});

server.listen(Number(values.port), '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`key-proxy listening http://127.0.0.1:${port}\n`);
});

for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
