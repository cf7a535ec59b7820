#!/usr/bin/env node
// smtp-relay: a minimal SMTP submission server, loopback only, that delivers
// every accepted message through LMTP (Dovecot's delivery protocol). The test
// Dovecot of scripts/dovecot/ has IMAP and LMTP but no submission service;
// this relay stands in for the MTA so that email-mcp's send tools run against
// it for real: EHLO, AUTH PLAIN/LOGIN (required, any user of the account's
// domain with the password in the environment), MAIL, RCPT, DATA, QUIT.
//
//   RELAY_PASSWORD=... node smtp-relay.mjs --lmtp 127.0.0.1:LMTP_PORT [--port 0]
//
// It prints "smtp-relay listening 127.0.0.1:PORT" when ready and runs until
// SIGTERM/SIGINT. Plaintext only: email-mcp allows SMTP_STARTTLS=false to a
// loopback host. A recipient that LMTP refuses is refused at RCPT, as a real
// submission server would for an unknown local user.
import net from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    lmtp: { type: 'string' },
    port: { type: 'string', default: '0' },
  },
});
const password = process.env.RELAY_PASSWORD;
if (!values.lmtp || !password) {
  process.stderr.write('usage: RELAY_PASSWORD=... smtp-relay.mjs --lmtp HOST:PORT [--port N]\n');
  process.exit(2);
}
const [lmtpHost, lmtpPort] = [values.lmtp.replace(/:\d+$/, ''), Number(values.lmtp.split(':').pop())];
const MAX_MESSAGE = 60 << 20;
const TIMEOUT = 30_000;

// lineReader turns a socket into an async line source (CRLF-terminated).
function lineReader(sock) {
  let buf = Buffer.alloc(0);
  const waiting = [];
  const lines = [];
  let closed = false;
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(buf.subarray(0, i + 1));
      buf = buf.subarray(i + 1);
    }
    while (waiting.length && lines.length) waiting.shift().resolve(lines.shift());
  });
  const end = () => {
    closed = true;
    while (waiting.length) waiting.shift().resolve(null);
  };
  sock.on('close', end);
  sock.on('error', end);
  return () =>
    new Promise((resolve) => {
      if (lines.length) return resolve(lines.shift());
      if (closed) return resolve(null);
      waiting.push({ resolve });
    });
}

// lmtpDeliver sends one message; it answers one reply per recipient.
async function lmtpSession() {
  const sock = net.connect({ host: lmtpHost, port: lmtpPort });
  sock.setTimeout(TIMEOUT, () => sock.destroy(new Error('lmtp timeout')));
  await new Promise((res, rej) => {
    sock.once('connect', res);
    sock.once('error', rej);
  });
  const next = lineReader(sock);
  const reply = async () => {
    let code = 0;
    const text = [];
    for (;;) {
      const l = await next();
      if (l === null) throw new Error('lmtp: connection closed');
      const s = l.toString('latin1').trimEnd();
      code = Number(s.slice(0, 3));
      text.push(s.slice(4));
      if (s[3] !== '-') return { code, text: text.join(' ') };
    }
  };
  const cmd = async (line) => {
    sock.write(`${line}\r\n`);
    return reply();
  };
  return { sock, reply, cmd };
}

async function deliver(from, rcpts, data) {
  const s = await lmtpSession();
  try {
    if ((await s.reply()).code !== 220) throw new Error('lmtp greeting');
    if ((await s.cmd('LHLO localhost')).code !== 250) throw new Error('lmtp LHLO');
    if ((await s.cmd(`MAIL FROM:<${from}>`)).code !== 250) throw new Error('lmtp MAIL');
    const ok = [];
    for (const r of rcpts) if ((await s.cmd(`RCPT TO:<${r}>`)).code === 250) ok.push(r);
    if (!ok.length) throw new Error('lmtp: every recipient refused');
    if ((await s.cmd('DATA')).code !== 354) throw new Error('lmtp DATA');
    s.sock.write(data); // still dot-stuffed, ends with CRLF.CRLF
    for (const r of ok) {
      const res = await s.reply();
      if (res.code !== 250) throw new Error(`lmtp: ${r}: ${res.code}`);
    }
    await s.cmd('QUIT').catch(() => {});
  } finally {
    s.sock.destroy();
  }
}

// lmtpAccepts asks LMTP whether it would take rcpt (RCPT, then RSET).
async function lmtpAccepts(rcpt) {
  const s = await lmtpSession();
  try {
    await s.reply();
    await s.cmd('LHLO localhost');
    await s.cmd('MAIL FROM:<>');
    return (await s.cmd(`RCPT TO:<${rcpt}>`)).code === 250;
  } finally {
    s.sock.destroy();
  }
}

function checkPlain(b64) {
  const parts = Buffer.from(b64, 'base64').toString('utf8').split('\0');
  return parts.length === 3 && parts[2] === password;
}

async function session(sock) {
  sock.setTimeout(TIMEOUT, () => sock.destroy());
  const next = lineReader(sock);
  const say = (s) => sock.write(`${s}\r\n`);
  let authed = false;
  let from = null;
  let rcpts = [];
  say('220 localhost e2e smtp-relay ESMTP');
  for (;;) {
    const raw = await next();
    if (raw === null) return;
    const line = raw.toString('utf8').replace(/\r?\n$/, '');
    const [verb, ...rest] = line.split(' ');
    const arg = rest.join(' ');
    switch (verb.toUpperCase()) {
      case 'EHLO':
        say('250-localhost');
        say(`250-SIZE ${MAX_MESSAGE}`);
        say('250-8BITMIME');
        say('250-SMTPUTF8');
        say('250 AUTH PLAIN LOGIN');
        break;
      case 'HELO':
        say('250 localhost');
        break;
      case 'AUTH': {
        const [mech, initial] = arg.split(' ');
        if (mech.toUpperCase() === 'PLAIN') {
          let resp = initial;
          if (!resp) {
            say('334 ');
            resp = (await next())?.toString().trim();
          }
          authed = !!resp && checkPlain(resp);
        } else if (mech.toUpperCase() === 'LOGIN') {
          say('334 VXNlcm5hbWU6');
          await next();
          say('334 UGFzc3dvcmQ6');
          const pw = (await next())?.toString().trim() ?? '';
          authed = Buffer.from(pw, 'base64').toString('utf8') === password;
        }
        say(authed ? '235 2.7.0 authenticated' : '535 5.7.8 authentication failed');
        break;
      }
      case 'MAIL': {
        if (!authed) {
          say('530 5.7.0 authentication required');
          break;
        }
        const m = /^FROM:\s*<([^>]*)>/i.exec(arg);
        if (!m) {
          say('501 5.5.4 syntax: MAIL FROM:<address>');
          break;
        }
        from = m[1];
        rcpts = [];
        say('250 2.1.0 ok');
        break;
      }
      case 'RCPT': {
        const m = /^TO:\s*<([^>]+)>/i.exec(arg);
        if (from === null || !m) {
          say('503 5.5.1 MAIL first, then RCPT TO:<address>');
          break;
        }
        if (await lmtpAccepts(m[1]).catch(() => false)) {
          rcpts.push(m[1]);
          say('250 2.1.5 ok');
        } else {
          say('550 5.1.1 no such user here');
        }
        break;
      }
      case 'DATA': {
        if (!rcpts.length) {
          say('503 5.5.1 no valid recipients');
          break;
        }
        say('354 end with <CRLF>.<CRLF>');
        const chunks = [];
        let size = 0;
        for (;;) {
          const l = await next();
          if (l === null) return;
          chunks.push(l);
          size += l.length;
          if (l.toString('latin1') === '.\r\n' || l.toString('latin1') === '.\n') break;
        }
        if (size > MAX_MESSAGE) {
          say('552 5.3.4 message too big');
        } else {
          try {
            await deliver(from, rcpts, Buffer.concat(chunks));
            say('250 2.0.0 delivered');
          } catch (err) {
            process.stderr.write(`smtp-relay: ${err.message}\n`);
            say('451 4.3.0 delivery failed');
          }
        }
        from = null;
        rcpts = [];
        break;
      }
      case 'RSET':
        from = null;
        rcpts = [];
        say('250 2.0.0 ok');
        break;
      case 'NOOP':
        say('250 2.0.0 ok');
        break;
      case 'QUIT':
        say('221 2.0.0 bye');
        sock.end();
        return;
      default:
        say('502 5.5.2 command not implemented');
    }
  }
}

const server = net.createServer((sock) => {
  session(sock).catch(() => sock.destroy());
});
server.listen(Number(values.port), '127.0.0.1', () => {
  process.stdout.write(`smtp-relay listening 127.0.0.1:${server.address().port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    server.close();
    process.exit(0);
  });
}
