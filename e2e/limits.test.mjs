// The per-key call limit seen from the official MCP TypeScript SDK client.
// scripts/e2e.sh runs this file against servers of their own (the limit is
// per key, so the other tests must not use up the budget):
//
//   E2E_TRANSPORT  http (Streamable HTTP at /mcp) | sse (legacy /sse + /message)
//   E2E_URL        http://127.0.0.1:PORT of the serving binary
//   E2E_API_KEY    its MCP_API_KEY
//   E2E_LIMIT      default: the server runs with the default configuration
//                  (no RATE_LIMIT_PER_MINUTE): 30 successive calls and 8
//                  parallel workers of 50 calls each, every one with its own
//                  handshake and tools/list, all succeed: no 429, no
//                  transport error, no RATE_LIMITED.
//                  tight: the server runs with RATE_LIMIT_PER_MINUTE=1 (a
//                  burst of 10): many handshakes and tools/list cost
//                  nothing, the 11th call is a RATE_LIMITED tool result with
//                  retry_after_seconds that callTool returns (not throws).
//
// Every call has a bounded timeout; every test has one too.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = process.env;
const transport = env.E2E_TRANSPORT ?? 'http';
const mode = env.E2E_LIMIT ?? 'default';
const CALL_TIMEOUT = 30_000;

// connect makes a client with its own transport and runs the handshake
// (initialize, notifications/initialized) and tools/list, as an SDK user does.
async function connect(name) {
  const headers = { 'X-API-Key': env.E2E_API_KEY };
  const t = transport === 'sse'
    ? new SSEClientTransport(new URL('/sse', env.E2E_URL), { requestInit: { headers } })
    : new StreamableHTTPClientTransport(new URL('/mcp', env.E2E_URL), { requestInit: { headers } });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(t, { timeout: CALL_TIMEOUT });
  const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT });
  assert.ok(tools.some((x) => x.name === 'list_inboxes'), 'tools/list has list_inboxes');
  return client;
}

// call runs one tool call and says how it ended: 'ok', the tool error's
// code, or 'threw: …' (a transport error, a 429, a schema failure).
async function call(client) {
  try {
    const res = await client.callTool({ name: 'list_inboxes', arguments: {} }, undefined, { timeout: CALL_TIMEOUT });
    if (!res.isError) return { outcome: 'ok' };
    return { outcome: res.structuredContent?.error?.code ?? 'isError', res };
  } catch (err) {
    return { outcome: `threw: ${err?.message ?? err}` };
  }
}

function tally(outcomes) {
  const counts = {};
  for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
  return counts;
}

describe(`call limit over ${transport} (${mode})`, { timeout: 180_000 }, () => {
  if (mode === 'default') {
    test('30 successive tool calls with the default configuration all succeed', async () => {
      const client = await connect('limits-successive');
      try {
        const outcomes = [];
        for (let i = 0; i < 30; i++) outcomes.push(await call(client));
        const counts = tally(outcomes);
        console.log(`# ${transport}: 30 successive calls: ${JSON.stringify(counts)}`);
        assert.deepEqual(counts, { ok: 30 });
      } finally {
        await client.close();
      }
    });

    test('8 parallel workers of 50 calls each, each with its own handshake, all succeed', async () => {
      const worker = async (w) => {
        const client = await connect(`limits-worker-${w}`);
        try {
          const outcomes = [];
          for (let i = 0; i < 50; i++) outcomes.push(await call(client));
          return outcomes;
        } finally {
          await client.close();
        }
      };
      const all = (await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)))).flat();
      const counts = tally(all);
      console.log(`# ${transport}: 8 workers x 50 calls: ${JSON.stringify(counts)}`);
      assert.deepEqual(counts, { ok: 400 });
    });
  } else {
    test('handshakes and tools/list are free; beyond the burst a call is a RATE_LIMITED tool result', async () => {
      // 20 handshakes with tools/list each: more than the burst of 10 if
      // they counted.
      for (let i = 0; i < 20; i++) await (await connect(`limits-plumbing-${i}`)).close();
      const client = await connect('limits-tight');
      try {
        const outcomes = [];
        for (let i = 0; i < 15; i++) outcomes.push(await call(client));
        const counts = tally(outcomes);
        console.log(`# ${transport}: 15 calls with a burst of 10: ${JSON.stringify(counts)}`);
        assert.deepEqual(counts, { ok: 10, RATE_LIMITED: 5 });
        const limited = outcomes.find((o) => o.outcome === 'RATE_LIMITED').res;
        const e = limited.structuredContent.error;
        assert.equal(e.retryable, true);
        assert.ok(Number.isInteger(e.retry_after_seconds) && e.retry_after_seconds >= 1, `retry_after_seconds ${e.retry_after_seconds}`);
        assert.match(limited.content[0].text, /^RATE_LIMITED: /);
        // The client is still usable: a ping and tools/list still work.
        await client.ping({ timeout: CALL_TIMEOUT });
        await client.listTools(undefined, { timeout: CALL_TIMEOUT });
      } finally {
        await client.close();
      }
    });
  }
});
