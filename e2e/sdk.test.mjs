// End-to-end test of the email-mcp binary with the official MCP TypeScript
// SDK client, over one transport against one running backend. scripts/e2e.sh
// starts the binary and runs this file once per transport and backend:
//
//   E2E_TRANSPORT   http (Streamable HTTP at /mcp) | sse (legacy /sse + /message) | stdio
//   E2E_BACKEND     sandbox | dovecot (a label: the tests are the same on both)
//   E2E_URL         http://127.0.0.1:PORT of the serving binary (http, sse)
//   E2E_API_KEY     its MCP_API_KEY (http, sse)
//   E2E_SERVER_LOG  the file its stderr goes to (http, sse): the cancellation test reads it
//   E2E_BIN         the binary (stdio: spawned as `email-mcp stdio --env-file E2E_STDIO_ENV_FILE`)
//   E2E_STDIO_ENV_FILE  the .env file of the stdio child
//   E2E_BASE_DIR    EMAIL_BASE_DIR of the server under test (uploads and downloads are checked on disk)
//   E2E_SELF_ADDRESS  an address whose mail lands in the account's INBOX
//
// Every call has a bounded timeout; every test has one too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const env = process.env;
const cfg = {
  transport: env.E2E_TRANSPORT ?? 'http',
  backend: env.E2E_BACKEND ?? 'sandbox',
  url: env.E2E_URL,
  key: env.E2E_API_KEY,
  serverLog: env.E2E_SERVER_LOG,
  bin: env.E2E_BIN,
  stdioEnvFile: env.E2E_STDIO_ENV_FILE,
  baseDir: env.E2E_BASE_DIR,
  self: env.E2E_SELF_ADDRESS ?? 'e2e@example.test',
};
const isHTTP = cfg.transport === 'http' || cfg.transport === 'sse';
const token = `${cfg.transport}-${cfg.backend}-${randomBytes(4).toString('hex')}`;
const CALL_TIMEOUT = 30_000;

// Server bugs found by this suite that wait for a fix in the Go code. The
// test of each checks that the bug still shows (and says so in a diagnostic);
// once the fix lands it fails until the entry is removed, like a stale
// conformance baseline entry.
const PENDING = {
  // Fixed in the Go code: error results now match the outputSchema (anyOf
  // result | error), and stateless /mcp drops notifications/cancelled so
  // that one client cannot cancel another's call with the same id.
};

// The tool names of the golden tools/list (tools/testdata), which the Go
// tests keep in step with the registry and with REQUIRED and ARGS below.
const GOLDEN_TOOLS = JSON.parse(
  await readFile(new URL('../tools/testdata/tools_list.golden.json', import.meta.url), 'utf8'),
).tools.map((t) => t.name).sort();

// The contract of DESIGN.md: every tool and its required arguments.
// mark_email takes uid or uids, which a JSON schema "required" cannot say.
const REQUIRED = {
  list_folders: [],
  search_emails: [],
  read_email: ['uid'],
  mark_email: [],
  move_email: ['uid', 'to_folder'],
  delete_email: [],
  create_folder: ['name'],
  rename_folder: ['from', 'to'],
  delete_folder: ['name'],
  send_email: ['to', 'subject', 'body'],
  reply_email: ['uid', 'body'],
  get_thread: ['uid'],
  forward_email: ['uid', 'to'],
  download_attachment: ['uid', 'attachment_index'],
  send_email_with_attachments: ['to', 'subject', 'body', 'attachment_paths'],
  save_draft: [],
  update_draft: ['draft_id'],
  send_draft: ['draft_id'],
  delete_draft: ['draft_id'],
  create_inbox: [],
  list_inboxes: [],
  list_messages: ['inbox_id'],
  get_latest: ['inbox_id'],
  wait_for_email: ['inbox_id'],
  wait_for_otp: ['inbox_id'],
  wait_for_link: ['inbox_id'],
  send_test_code: ['inbox_id'],
  delete_inbox: ['inbox_id'],
};
// Argument names DESIGN.md lists per tool (all must be in the input schema).
const ARGS = {
  list_folders: ['include_counts'],
  search_emails: ['folder', 'from', 'to', 'subject', 'body', 'text', 'since', 'before', 'unread', 'flagged', 'has_attachments', 'limit', 'cursor'],
  read_email: ['uid', 'folder', 'format', 'max_chars', 'offset', 'mark_read'],
  mark_email: ['uid', 'uids', 'folder', 'read', 'flagged', 'answered'],
  move_email: ['uid', 'from_folder', 'to_folder'],
  delete_email: ['uid', 'uids', 'folder', 'permanent', 'dry_run'],
  create_folder: ['name', 'parent'],
  rename_folder: ['from', 'to'],
  delete_folder: ['name', 'force'],
  send_email: ['to', 'cc', 'bcc', 'subject', 'body', 'body_html', 'from_name', 'reply_to'],
  reply_email: ['uid', 'folder', 'body', 'body_html', 'reply_all', 'quote', 'draft'],
  get_thread: ['uid', 'folder', 'limit'],
  forward_email: ['uid', 'folder', 'to', 'cc', 'bcc', 'body', 'mode', 'draft'],
  download_attachment: ['uid', 'folder', 'attachment_index', 'filename_override'],
  send_email_with_attachments: ['to', 'cc', 'bcc', 'subject', 'body', 'body_html', 'from_name', 'reply_to', 'attachment_paths'],
  save_draft: ['to', 'cc', 'bcc', 'subject', 'body', 'body_html', 'from_name', 'reply_to', 'attachment_paths', 'reply_to_uid', 'folder'],
  update_draft: ['draft_id', 'to', 'cc', 'bcc', 'subject', 'body', 'body_html', 'from_name', 'reply_to', 'attachment_paths', 'reply_to_uid', 'folder'],
  send_draft: ['draft_id', 'idempotency_key'],
  delete_draft: ['draft_id'],
  create_inbox: ['label'],
  list_inboxes: ['limit', 'cursor'],
  list_messages: ['inbox_id', 'has_otp', 'subject_contains', 'sender', 'limit', 'cursor'],
  get_latest: ['inbox_id'],
  wait_for_email: ['inbox_id', 'subject_contains', 'sender', 'timeout', 'since'],
  wait_for_otp: ['inbox_id', 'timeout', 'min_confidence', 'since'],
  wait_for_link: ['inbox_id', 'timeout', 'since'],
  send_test_code: ['inbox_id'],
  delete_inbox: ['inbox_id'],
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// eventually retries fn until it returns a truthy value or ms pass.
async function eventually(what, fn, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) assert.fail(`${what}: not within ${ms} ms`);
    await sleep(200);
  }
}

// --- connecting -----------------------------------------------------------

let stdioLog = '';

function makeTransport(key = cfg.key) {
  switch (cfg.transport) {
    case 'http':
      return new StreamableHTTPClientTransport(new URL('/mcp', cfg.url), {
        requestInit: { headers: { 'X-API-Key': key } },
      });
    case 'sse':
      // The other header form the server accepts.
      return new SSEClientTransport(new URL('/sse', cfg.url), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      });
    case 'stdio': {
      const t = new StdioClientTransport({
        command: cfg.bin,
        args: ['stdio', '--env-file', cfg.stdioEnvFile],
        env: { PATH: env.PATH, HOME: env.HOME ?? '/tmp' },
        stderr: 'pipe',
      });
      t.stderr?.on('data', (d) => {
        stdioLog += d.toString();
      });
      return t;
    }
    default:
      throw new Error(`E2E_TRANSPORT must be http, sse or stdio (got ${cfg.transport})`);
  }
}

async function connect(key) {
  const client = new Client({ name: 'email-mcp-e2e', version: '1.0.0' });
  const transport = makeTransport(key);
  await client.connect(transport, { timeout: CALL_TIMEOUT });
  return { client, transport };
}

// serverLog is what the server under test has logged so far.
async function serverLog() {
  if (cfg.transport === 'stdio') return stdioLog;
  return readFile(cfg.serverLog, 'utf8');
}

function countLines(log, re) {
  return log.split('\n').filter((l) => re.test(l)).length;
}

// --- calling --------------------------------------------------------------

let client;
let transport;

// call runs a tool through Client.callTool (which also validates
// structuredContent against the tool's outputSchema), expects success and
// checks that the JSON text content says the same as structuredContent.
async function call(name, args = {}, opts = {}) {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT, ...opts });
  assert.ok(!res.isError, `${name}: unexpected error ${JSON.stringify(res.content)}`);
  assertTextMatchesStructured(name, res);
  return res.structuredContent;
}

function assertTextMatchesStructured(name, res) {
  assert.ok(res.structuredContent && typeof res.structuredContent === 'object', `${name}: no structuredContent`);
  const texts = res.content.filter((c) => c.type === 'text');
  assert.equal(texts.length, 1, `${name}: want one text content`);
  assert.deepEqual(JSON.parse(texts[0].text), res.structuredContent, `${name}: text and structuredContent differ`);
}

// callErr runs a tool that must fail with code. It sends tools/call through
// the protocol layer without callTool's outputSchema check (see
// PENDING.sdkCallToolOnError) and checks the error contract of DESIGN.md.
async function callErr(name, args, code) {
  const res = await client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, {
    timeout: CALL_TIMEOUT,
  });
  assert.equal(res.isError, true, `${name}(${JSON.stringify(args)}): want isError, got ${JSON.stringify(res)}`);
  const err = res.structuredContent?.error;
  assert.ok(err, `${name}: no structuredContent.error in ${JSON.stringify(res)}`);
  assert.equal(err.code, code, `${name}(${JSON.stringify(args)}): ${err.code}: ${err.message}`);
  assert.equal(typeof err.message, 'string');
  assert.equal(typeof err.retryable, 'boolean');
  assert.equal(res.content[0].type, 'text');
  assert.equal(res.content[0].text, `${err.code}: ${err.message}`);
  return err;
}

// --- the suite ------------------------------------------------------------

describe(`email-mcp over ${cfg.transport} on ${cfg.backend}`, { timeout: 170_000 }, () => {
  const state = {};

  before(async () => {
    ({ client, transport } = await connect());
  });

  after(async () => {
    await client?.close();
  });

  test('initialize: server info, protocol version, tools capability', () => {
    const info = client.getServerVersion();
    assert.equal(info.name, 'email-mcp');
    assert.equal(typeof info.version, 'string');
    assert.ok(client.getServerCapabilities()?.tools, 'tools capability');
    if (cfg.transport === 'http') {
      assert.equal(transport.sessionId, undefined, '/mcp is stateless: no Mcp-Session-Id');
    }
  });

  test("tools/list: the golden's tools with annotations, schemas and the required arguments of DESIGN.md", async () => {
    const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT });
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, GOLDEN_TOOLS);
    assert.deepEqual(names, Object.keys(REQUIRED).sort());
    for (const t of tools) {
      const a = t.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        assert.equal(typeof a[hint], 'boolean', `${t.name}.annotations.${hint}`);
      }
      assert.equal(t.inputSchema.type, 'object', `${t.name}.inputSchema.type`);
      assert.deepEqual([...(t.inputSchema.required ?? [])].sort(), [...REQUIRED[t.name]].sort(), `${t.name} required`);
      for (const arg of ARGS[t.name]) {
        assert.ok(t.inputSchema.properties?.[arg], `${t.name} has no argument ${arg}`);
      }
      assert.ok(t.outputSchema, `${t.name} declares no outputSchema`);
      assert.equal(t.outputSchema.type, 'object', `${t.name}.outputSchema.type`);
      assert.ok(t.description?.length > 20, `${t.name} description`);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.equal(byName.search_emails.annotations.readOnlyHint, true);
    assert.equal(byName.delete_inbox.annotations.destructiveHint, true);
    assert.equal(byName.delete_email.annotations.destructiveHint, true);
    assert.equal(byName.delete_folder.annotations.destructiveHint, true);
    assert.equal(byName.send_email.annotations.readOnlyHint, false);
  });

  test('mail tools: send, search, read, mark, reply, send with attachment, download, move', async () => {
    const folders = await call('list_folders', { include_counts: true });
    const names = folders.folders.map((f) => f.name);
    assert.ok(names.includes('INBOX'), `folders: ${names}`);
    const archive = folders.folders.find((f) => f.special_use === 'archive');
    assert.ok(archive, 'an archive folder');
    state.trash = folders.folders.find((f) => f.special_use === 'trash')?.name;
    assert.ok(state.trash, 'a trash folder');

    const subject = `e2e ${token} mail`;
    const sent = await call('send_email', { to: [cfg.self], subject, body: `hello ${token}\nsecond line` });
    assert.equal(sent.success, true);
    assert.deepEqual(sent.accepted, [cfg.self]);
    assert.deepEqual(sent.rejected, []);

    const found = await eventually('the sent mail in INBOX', async () => {
      const r = await call('search_emails', { subject, limit: 5 });
      return r.total >= 1 && r;
    });
    const msg = found.messages[0];
    assert.equal(msg.subject, subject);
    assert.match(msg.id, /^msg_\d+_\d+$/);
    assert.equal(msg.unread, true);

    const read = await call('read_email', { uid: msg.id });
    assert.equal(read.subject, subject);
    assert.match(read.body_text, new RegExp(`hello ${token}`));
    assert.ok(!read.flags.includes('\\Seen'), 'read_email must not mark mail read');

    const marked = await call('mark_email', { uid: msg.uid, read: true, flagged: true });
    assert.equal(marked.success, true);
    const flagged = await call('search_emails', { subject, flagged: true, unread: false });
    assert.equal(flagged.total, 1);

    const reply = await call('reply_email', { uid: String(msg.uid), body: `reply ${token}` });
    assert.equal(reply.success, true);
    assert.match(reply.subject, /^Re: /);

    const thread = await eventually('the reply in the thread', async () => {
      const t = await call('get_thread', { uid: msg.id });
      return t.messages.some((m) => m.message_id === reply.message_id) && t;
    });
    assert.equal(thread.messages[0].message_id, read.message_id);
    const fwd = await call('forward_email', { uid: msg.id, to: [cfg.self], body: `fwd ${token}`, mode: 'attachment' });
    assert.equal(fwd.success, true);
    assert.match(fwd.subject, /^Fwd: /);

    const uploads = path.join(cfg.baseDir, 'attachments', 'email', 'uploads');
    await mkdir(uploads, { recursive: true });
    const fileName = `e2e-${token}.txt`;
    const fileBody = `attachment of ${token}\n`;
    await writeFile(path.join(uploads, fileName), fileBody);
    const attSubject = `e2e ${token} attachment`;
    const withAtt = await call('send_email_with_attachments', {
      to: [cfg.self],
      subject: attSubject,
      body: 'see the file',
      attachment_paths: [`uploads/${fileName}`],
    });
    assert.equal(withAtt.success, true);
    assert.equal(withAtt.attachments[0].filename, fileName);

    const attMsg = await eventually('the mail with the attachment', async () => {
      const r = await call('search_emails', { subject: attSubject });
      return r.total >= 1 && r.messages[0];
    });
    assert.equal(attMsg.has_attachments, true);
    const attRead = await call('read_email', { uid: attMsg.uid, max_chars: 100 });
    assert.equal(attRead.attachments[0].index, 0);
    assert.equal(attRead.attachments[0].filename, fileName);
    const dl = await call('download_attachment', { uid: attMsg.uid, attachment_index: 0 });
    assert.match(dl.file_path, /^attachments\/email\/downloads\//);
    assert.equal(await readFile(path.join(cfg.baseDir, dl.file_path), 'utf8'), fileBody);
    state.attUid = attMsg.uid;

    const moved = await call('move_email', { uid: msg.uid, to_folder: archive.name });
    assert.equal(moved.success, true);
    const inArchive = await call('search_emails', { folder: archive.name, subject });
    assert.equal(inArchive.total, 1);
    if (moved.new_uid !== null) assert.equal(inArchive.messages[0].uid, moved.new_uid);
    // The reply ("Re: <subject>") may be in INBOX too: compare whole subjects.
    const leftInInbox = await call('search_emails', { subject });
    assert.ok(!leftInInbox.messages.some((m) => m.subject === subject), 'moved away from INBOX');
  });

  test('delete_email and the folder tools: Trash, dry_run, permanent, non-ASCII folder names', async () => {
    const parent = `e2e Ördner ${token}`;
    const made = await call('create_folder', { name: parent });
    assert.equal(made.name, parent);
    const child = await call('create_folder', { name: '日本語', parent });
    assert.equal(child.name, `${parent}${made.delimiter}日本語`);
    const renamed = await call('rename_folder', { from: child.name, to: `${parent}${made.delimiter}Ärger` });
    const names = (await call('list_folders')).folders.map((f) => f.name);
    assert.ok(names.includes(parent) && names.includes(renamed.to) && !names.includes(child.name), 'list_folders shows the new names');
    await callErr('create_folder', { name: parent }, 'INVALID_ARGUMENT');
    await callErr('delete_folder', { name: 'INBOX' }, 'INVALID_ARGUMENT');
    await callErr('rename_folder', { from: state.trash, to: `x ${token}` }, 'INVALID_ARGUMENT');

    const subject = `e2e ${token} to delete`;
    await call('send_email', { to: [cfg.self], subject, body: 'delete me' });
    const msg = await eventually('the mail to delete', async () => {
      const r = await call('search_emails', { subject });
      return r.total >= 1 && r.messages[0];
    });
    const dry = await call('delete_email', { uid: msg.uid, dry_run: true });
    assert.deepEqual(dry.deleted, [msg.uid]);
    assert.equal(dry.subjects[String(msg.uid)], subject);
    assert.equal((await call('search_emails', { subject })).total, 1, 'a dry run changes nothing');
    const del = await call('delete_email', { uids: [msg.id] });
    assert.equal(del.trash_folder, state.trash);
    assert.equal(del.permanent, false);
    const inTrash = await call('search_emails', { folder: del.trash_folder, subject });
    assert.equal(inTrash.total, 1);
    await callErr('delete_email', { folder: del.trash_folder, uid: inTrash.messages[0].uid }, 'INVALID_ARGUMENT');
    const gone = await call('delete_email', { folder: del.trash_folder, uid: inTrash.messages[0].uid, permanent: true });
    assert.equal(gone.permanent, true);
    assert.equal((await call('search_emails', { folder: del.trash_folder, subject })).total, 0);
    await callErr('delete_email', { uid: msg.uid }, 'MESSAGE_NOT_FOUND');

    await callErr('delete_folder', { name: parent }, 'INVALID_ARGUMENT'); // it has a subfolder
    await call('delete_folder', { name: renamed.to });
    const removed = await call('delete_folder', { name: parent });
    assert.equal(removed.messages_deleted, 0);
    await callErr('delete_folder', { name: parent }, 'FOLDER_NOT_FOUND');
  });

  test('drafts: save_draft, update_draft, send_draft, delete_draft, reply_email draft', async () => {
    const subject = `e2e ${token} draft`;
    const saved = await call('save_draft', { to: [cfg.self], bcc: ['hidden@example.test'], subject, body: 'first' });
    assert.equal(saved.success, true);
    assert.match(saved.draft_id, /^msg_\d+_\d+$/);
    const listed = await call('search_emails', { folder: saved.folder, subject });
    assert.equal(listed.total, 1);
    const updated = await call('update_draft', { draft_id: saved.draft_id, to: [cfg.self], subject, body: 'second' });
    assert.equal(updated.replaced_draft_id, saved.draft_id);
    assert.equal((await call('search_emails', { folder: saved.folder, subject })).total, 1, 'no old copy after update_draft');
    const sent = await call('send_draft', { draft_id: updated.draft_id });
    assert.equal(sent.success, true);
    assert.equal(sent.draft_removed, true);
    assert.equal(sent.message_id, updated.message_id);
    assert.equal((await call('search_emails', { folder: saved.folder, subject })).total, 0, 'no draft after send_draft');
    const arrived = await eventually('the sent draft in INBOX', async () => {
      const r = await call('search_emails', { subject, limit: 5 });
      return r.total >= 1 && r.messages[0];
    });
    const read = await call('read_email', { uid: arrived.uid });
    assert.equal(read.message_id, updated.message_id);
    assert.match(read.body_text, /second/);
    const reply = await call('reply_email', { uid: arrived.uid, body: 'later', draft: true });
    assert.match(reply.draft_id, /^msg_\d+_\d+$/);
    assert.deepEqual(reply.accepted, []);
    const deleted = await call('delete_draft', { draft_id: reply.draft_id });
    assert.equal(deleted.success, true);
    await callErr('delete_draft', { draft_id: reply.draft_id }, 'MESSAGE_NOT_FOUND');
  });

  test('inbox tools: create, send_test_code, wait_for_otp, wait_for_link, wait_for_email, list, get_latest', async () => {
    const created = await call('create_inbox', { label: `e2e ${cfg.transport}` });
    assert.ok(created.inbox_id);
    assert.match(created.address, /@/);
    state.inbox = created;

    // The wait starts before the mail arrives. since (a time before both, on
    // a fresh inbox) makes the test independent of which request the server
    // handles first.
    const since = new Date(Date.now() - 2000).toISOString();
    const otpWait = call('wait_for_otp', { inbox_id: created.inbox_id, timeout: 20, since });
    await sleep(300);
    const code = await call('send_test_code', { inbox_id: created.inbox_id });
    assert.ok(code.message_id);
    const otp = await otpWait;
    assert.match(otp.otp, /^[0-9A-Z-]{4,10}$/);
    assert.equal(typeof otp.confidence, 'number');

    const linkWait = call('wait_for_link', { inbox_id: created.inbox_id, timeout: 20, since: otp.id });
    await sleep(300);
    await call('send_email', {
      to: [created.address],
      subject: `Verify your email ${token}`,
      body: `Welcome! Confirm your address: https://app.example.test/verify?token=${token}\n`,
    });
    const link = await linkWait;
    assert.equal(link.link, `https://app.example.test/verify?token=${token}`);
    assert.ok(link.links.length >= 1);

    const emailWait = call('wait_for_email', {
      inbox_id: created.inbox_id,
      subject_contains: `hello ${token}`,
      timeout: 20,
      since: link.id,
    });
    await sleep(300);
    await call('send_email', { to: [created.address], subject: `hello ${token}`, body: 'Your code is 482913.' });
    const email = await emailWait;
    assert.equal(email.subject, `hello ${token}`);
    assert.equal(email.otp, '482913');
    state.lastId = email.id;

    const list = await call('list_messages', { inbox_id: created.inbox_id });
    assert.equal(list.total, 3);
    assert.equal(list.messages.length, 3);
    const withOtp = await call('list_messages', { inbox_id: created.inbox_id, has_otp: true });
    assert.ok(withOtp.messages.every((m) => m.otp), 'has_otp filter');
    const latest = await call('get_latest', { inbox_id: created.inbox_id });
    assert.equal(latest.message.subject, `hello ${token}`);
    const inboxes = await call('list_inboxes', { limit: 100 });
    assert.ok(inboxes.inboxes.some((i) => i.inbox_id === created.inbox_id), 'list_inboxes has the new inbox');
  });

  test('invalid arguments: isError results with the codes of DESIGN.md', async () => {
    await callErr('read_email', { uid: 987654 }, 'MESSAGE_NOT_FOUND');
    await callErr('read_email', { uid: 'not-a-uid' }, 'INVALID_ARGUMENT');
    await callErr('read_email', {}, 'INVALID_ARGUMENT');
    await callErr('search_emails', { folder: `No such folder ${token}` }, 'FOLDER_NOT_FOUND');
    await callErr('search_emails', { since: 'yesterday-ish' }, 'INVALID_ARGUMENT');
    await callErr('mark_email', { read: true }, 'INVALID_ARGUMENT');
    await callErr('move_email', { uid: 987654, to_folder: state.trash }, 'MESSAGE_NOT_FOUND');
    await callErr('move_email', { uid: state.attUid, to_folder: 'INBOX' }, 'INVALID_ARGUMENT');
    await callErr('move_email', { uid: state.attUid, to_folder: `Nope ${token}` }, 'FOLDER_NOT_FOUND');
    await callErr('send_email', { to: ['not an address'], subject: 's', body: 'b' }, 'INVALID_ARGUMENT');
    await callErr('send_email', { to: [cfg.self], subject: 'a\r\nBcc: x@example.test', body: 'b' }, 'INVALID_ARGUMENT');
    await callErr('reply_email', { uid: 987654, body: 'b' }, 'MESSAGE_NOT_FOUND');
    await callErr('send_email_with_attachments', { to: [cfg.self], subject: 's', body: 'b', attachment_paths: ['../../../etc/passwd'] }, 'PATH_OUTSIDE_WORKSPACE');
    await callErr('send_email_with_attachments', { to: [cfg.self], subject: 's', body: 'b', attachment_paths: ['uploads/missing.txt'] }, 'INVALID_ARGUMENT');
    await callErr('download_attachment', { uid: state.attUid, attachment_index: 7 }, 'ATTACHMENT_NOT_FOUND');
    await callErr('download_attachment', { uid: 987654, attachment_index: 0 }, 'MESSAGE_NOT_FOUND');
    await callErr('wait_for_otp', { inbox_id: state.inbox.inbox_id, since: 'msg_1_999999', timeout: 5 }, 'INVALID_ARGUMENT');
    await callErr('wait_for_email', { inbox_id: state.inbox.inbox_id, timeout: -1 }, 'INVALID_ARGUMENT');
    await callErr('list_messages', {}, 'INVALID_ARGUMENT');
    await callErr('send_test_code', {}, 'INVALID_ARGUMENT');
    const timedOut = await callErr('wait_for_email', { inbox_id: state.inbox.inbox_id, timeout: 1, subject_contains: `never ${token}` }, 'WAIT_TIMEOUT');
    assert.match(timedOut.next_since, /^msg_\d+_\d+$/);
    assert.equal(timedOut.retryable, true);
    // An unknown tool is a protocol error, not a tool result.
    await assert.rejects(client.request({ method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }, CallToolResultSchema, { timeout: CALL_TIMEOUT }), /-32602|not found/i);
  });

  test('Client.callTool returns a tool error as an isError result', async (t) => {
    const run = () => client.callTool({ name: 'read_email', arguments: { uid: 987654 } }, undefined, { timeout: CALL_TIMEOUT });
    if (PENDING.sdkCallToolOnError) {
      // The known bug still shows; when it stops, this fails: remove the entry.
      await assert.rejects(run, /does not match the tool's output schema/, 'fixed: remove PENDING.sdkCallToolOnError');
      t.diagnostic(`known: ${PENDING.sdkCallToolOnError}`);
      return;
    }
    const res = await run();
    assert.equal(res.isError, true);
    assert.equal(res.structuredContent?.error?.code, 'MESSAGE_NOT_FOUND');
  });

  test('wait_for_email with a progress token: progress notifications while it waits', async (t) => {
    const subject = `progress ${token}`;
    const seen = [];
    const start = Date.now();
    let delivered = false;
    const waiting = call(
      'wait_for_email',
      { inbox_id: state.inbox.inbox_id, subject_contains: subject, timeout: 30, since: state.lastId },
      {
        timeout: 60_000,
        onprogress: (p) => {
          seen.push({ ...p, at: Date.now() - start });
          // Deliver after the first notification: the wait has been blocked
          // for one progress interval (10 s; not configurable by a variable).
          if (!delivered) {
            delivered = true;
            call('send_email', { to: [state.inbox.address], subject, body: 'after progress' }).catch(() => {});
          }
        },
      },
    );
    const got = await waiting;
    assert.equal(got.subject, subject);
    assert.ok(seen.length >= 1, 'at least one progress notification before the result');
    assert.equal(seen[0].total, 30);
    assert.equal(typeof seen[0].progress, 'number');
    assert.match(seen[0].message ?? '', /waiting/);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress, 'progress increases');
    t.diagnostic(`progress notifications at ${seen.map((s) => `${s.at} ms (progress ${s.progress}/${s.total})`).join(', ')}; result at ${Date.now() - start} ms`);
    state.lastId = got.id;
  });

  test('a cancelled wait ends promptly on the client and on the server, which keeps working', async () => {
    const waitLines = /tool call.*tool=wait_for_email/;
    // Not on stateless /mcp (see below): there the server's wait runs on.
    const serverEnds = cfg.transport !== 'http';
    const before = serverEnds ? countLines(await serverLog(), waitLines) : 0;
    const ac = new AbortController();
    const t0 = Date.now();
    const waiting = client.request(
      { method: 'tools/call', params: { name: 'wait_for_email', arguments: { inbox_id: state.inbox.inbox_id, timeout: 40, subject_contains: `never ${token}` } } },
      CallToolResultSchema,
      { signal: ac.signal, timeout: 60_000 },
    );
    await sleep(1000);
    ac.abort(new Error('cancelled by the e2e test'));
    await assert.rejects(waiting, /cancelled by the e2e test/);
    const clientMs = Date.now() - t0;
    assert.ok(clientMs < 10_000, `the call ended on the client after ${clientMs} ms`);
    // The server logs every call once when its handler returns: a new
    // wait_for_email line long before the 40 s timeout means it stopped waiting.
    // Not on stateless /mcp: there notifications/cancelled is dropped (it
    // cannot say whose call it means) and the SDK keeps the POST open, so the
    // server's wait runs to its own timeout; SSE and stdio have sessions.
    if (serverEnds) {
      await eventually('the server ends the cancelled wait', async () => countLines(await serverLog(), waitLines) > before, 8_000);
    }
    if (isHTTP) {
      const health = await fetch(new URL('/health', cfg.url), { signal: AbortSignal.timeout(5000) });
      assert.equal(health.status, 200);
    }
    const after = await call('list_inboxes', {});
    assert.ok(after.inboxes.some((i) => i.inbox_id === state.inbox.inbox_id), 'a call after the cancellation works');
  });

  if (cfg.transport === 'http') {
    test('stateless /mcp: a cancellation sent on another connection does not cancel this request', async (t) => {
      const headers = { 'X-API-Key': cfg.key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
      const id = 770000 + Math.floor(Math.random() * 10000);
      const t0 = Date.now();
      const waiting = fetch(new URL('/mcp', cfg.url), {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait_for_email', arguments: { inbox_id: state.inbox.inbox_id, timeout: 3, subject_contains: `never ${token}` } } }),
        signal: AbortSignal.timeout(20_000),
      }).then((r) => r.text());
      await sleep(500);
      // "Another client": its own request, no session, the same JSON-RPC id.
      const other = await fetch(new URL('/mcp', cfg.url), {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'another client' } }),
        signal: AbortSignal.timeout(5000),
      });
      assert.equal(other.status, 202);
      const body = await waiting;
      const ms = Date.now() - t0;
      const code = /"code":"([A-Z_]+)"/.exec(body)?.[1];
      if (PENDING.statelessCrossCancel) {
        assert.ok(code !== 'WAIT_TIMEOUT' && ms < 2900, `fixed? the wait ran to its timeout (${code} after ${ms} ms): remove PENDING.statelessCrossCancel`);
        t.diagnostic(`known: ${PENDING.statelessCrossCancel} (ended after ${ms} ms with ${code})`);
        return;
      }
      assert.equal(code, 'WAIT_TIMEOUT', `the wait must run to its own timeout: ${body.slice(0, 300)}`);
    });
  }

  test('delete_inbox', async () => {
    const del = await call('delete_inbox', { inbox_id: state.inbox.inbox_id });
    assert.equal(del.deleted, 4, 'the inbox\'s four messages went to Trash');
    assert.equal(del.trash, state.trash);
    const inboxes = await call('list_inboxes', { limit: 100 });
    assert.ok(!inboxes.inboxes.some((i) => i.inbox_id === state.inbox.inbox_id), 'deleted inbox is gone');
  });

  if (isHTTP) {
    test('a wrong or missing key gets 401, through the SDK and raw', async () => {
      await assert.rejects(connect('wrong-key'), (err) => {
        assert.match(String(err?.message ?? err) + String(err?.code ?? ''), /401|nauthori/);
        return true;
      });
      const ep = cfg.transport === 'http' ? '/mcp' : '/sse';
      const method = cfg.transport === 'http' ? 'POST' : 'GET';
      for (const headers of [{}, { 'X-API-Key': 'wrong' }, { Authorization: 'Bearer wrong' }]) {
        const res = await fetch(new URL(ep, cfg.url), {
          method,
          headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body: method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : undefined,
          signal: AbortSignal.timeout(5000),
        });
        assert.equal(res.status, 401, `${method} ${ep} with ${JSON.stringify(Object.keys(headers))}`);
        await res.body?.cancel();
      }
    });
  }

  if (cfg.transport === 'http') {
    test('three concurrent POSTs on /mcp are all answered (stateless, no session)', async () => {
      const post = (id) =>
        fetch(new URL('/mcp', cfg.url), {
          method: 'POST',
          headers: { 'X-API-Key': cfg.key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }),
          signal: AbortSignal.timeout(10_000),
        });
      const res = await Promise.all([post(1001), post(1002), post(1003)]);
      for (const r of res) {
        assert.equal(r.status, 200);
        const body = await r.text();
        assert.match(body, /"list_folders"/);
      }
    });
  }
});
