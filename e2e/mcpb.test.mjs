// The packed MCPB bundle, started the way a bundle host (Claude Desktop)
// starts it: mcp_config of the unpacked manifest with ${__dirname} and the
// user_config values substituted by the mcpb library's own
// getMcpConfigForManifest, spawned over stdio with the official SDK client.
//
//   E2E_MCPB_DIR   the unpacked bundle (mcpb unpack FILE DIR)
//   E2E_TMP        a scratch folder (HOME of the child, the attachments folder)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const dir = process.env.E2E_MCPB_DIR;
const tmp = process.env.E2E_TMP;
const TIMEOUT = 30_000;
// The tool names of the golden tools/list: all of them are served by default.
const GOLDEN_TOOLS = JSON.parse(
  await readFile(new URL('../tools/testdata/tools_list.golden.json', import.meta.url), 'utf8'),
).tools.map((t) => t.name).sort();

async function start(userConfig) {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
  const cfg = await getMcpConfigForManifest({
    manifest,
    extensionPath: dir,
    systemDirs: { HOME: tmp },
    userConfig,
    pathSeparator: path.sep,
  });
  assert.ok(cfg, 'the manifest gives an MCP config');
  for (const [k, v] of Object.entries(cfg.env ?? {})) {
    assert.ok(!v.includes('${'), `${k} is left unsubstituted: ${v}`);
  }
  const client = new Client({ name: 'email-mcp-e2e-mcpb', version: '1.0.0' });
  // A host passes the substituted env (plus its own PATH/HOME).
  const transport = new StdioClientTransport({
    command: cfg.command,
    args: cfg.args,
    env: { PATH: process.env.PATH, HOME: tmp, ...cfg.env },
    stderr: 'ignore',
  });
  await client.connect(transport, { timeout: TIMEOUT });
  return { client, cfg };
}

describe('MCPB bundle started as a bundle host starts it', { timeout: 60_000 }, () => {
  test("defaults: the sandbox, the golden's tools, a tool call works", async () => {
    const { client, cfg } = await start({});
    try {
      assert.equal(cfg.command, path.join(dir, 'server', 'email-mcp'));
      assert.deepEqual(cfg.args, ['stdio']);
      const { tools } = await client.listTools(undefined, { timeout: TIMEOUT });
      assert.deepEqual(tools.map((t) => t.name).sort(), GOLDEN_TOOLS);
      const res = await client.callTool({ name: 'list_folders', arguments: {} }, undefined, { timeout: TIMEOUT });
      assert.ok(!res.isError);
      assert.ok(res.structuredContent.folders.some((f) => f.name === 'INBOX'));
    } finally {
      await client.close();
    }
  });

  test('user_config reaches the server: read-only hides the tools that change mail, the attachments folder is used', async () => {
    const base = path.join(tmp, 'mcpb-base');
    await mkdir(base, { recursive: true });
    const { client, cfg } = await start({ read_only: true, email_base_dir: base, toolsets: 'mail' });
    try {
      assert.equal(cfg.env.MCP_READ_ONLY, 'true');
      const { tools } = await client.listTools(undefined, { timeout: TIMEOUT });
      const names = tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['download_attachment', 'get_thread', 'list_folders', 'read_email', 'search_emails']);
      const res = await client.callTool({ name: 'search_emails', arguments: {} }, undefined, { timeout: TIMEOUT });
      assert.ok(!res.isError);
      // EMAIL_BASE_DIR made the workspace.
      assert.ok((await stat(path.join(base, 'attachments', 'email', 'uploads'))).isDirectory());
    } finally {
      await client.close();
    }
  });
});
