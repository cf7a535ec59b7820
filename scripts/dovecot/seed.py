#!/usr/bin/env python3
"""Seed COUNT realistic messages into FOLDER of the tier's Dovecot.

usage: scripts/dovecot/seed.py DIR FOLDER COUNT [--user2] [--batch N] [--seed S]

DIR is the directory given to start.sh; its env file names the IMAPS address,
the users and the CA. The folder is created (and subscribed) when missing.

One APPEND costs Dovecot about 3 ms (each transaction rewrites
dovecot-uidlist), so messages go in MULTIAPPEND batches (RFC 3502: many
messages in one APPEND command) sent as LITERAL+ non-synchronizing literals,
without waiting for a continuation between them: 10,000 messages seed in a
few seconds. Python 3 standard library only. The messages are deterministic
for a given --seed and COUNT: plain text, HTML alternatives, attachments,
RFC 2047 UTF-8 subjects, replies with In-Reply-To, varied flags and internal
dates spread over the past year.
"""

import argparse
import base64
import datetime
import os
import random
import shlex
import socket
import ssl
import sys
import time

NAMES = [
    ("Alice Martin", "alice@example.test"),
    ("Bob Durand", "bob@example.test"),
    ("Chloé Bernard", "chloe@example.org"),
    ("David Okafor", "david@example.net"),
    ("Eva Nowak", "eva@example.com"),
    ("Fatima Haddad", "fatima@example.org"),
    ("GitHub", "notifications@example.com"),
    ("Billing", "billing@shop.example"),
]
SUBJECTS = [
    "Quarterly report draft",
    "Re: lunch on Thursday?",
    "Your invoice #{n}",
    "Meeting notes {n}",
    "Verification code: {code}",
    "Réunion de l'équipe — ordre du jour",
    "Build #{n} failed on main",
    "Photos from the trip",
    "Contract renewal {n}",
    "Weekly digest",
]
WORDS = ("the report is attached please review numbers before Friday thanks for "
         "the update we should meet next week to discuss plan budget release "
         "customer feedback invoice deadline project status").split()


class IMAPError(Exception):
    """An IMAP command answered NO or BAD."""


class Conn:
    """A minimal IMAP client over implicit TLS: enough for LOGIN, CREATE,
    SUBSCRIBE and MULTIAPPEND with LITERAL+."""

    def __init__(self, addr, cafile, timeout=60):
        host, port = addr.rsplit(":", 1)
        ctx = ssl.create_default_context(cafile=cafile)
        raw = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock = ctx.wrap_socket(raw, server_hostname=host)
        self.rfile = self.sock.makefile("rb")
        self.tag = 0
        greeting = self.rfile.readline()
        if not greeting.startswith(b"* OK"):
            raise IMAPError("greeting: %r" % greeting)

    def command(self, *parts):
        """Send one command made of bytes parts (literals included) and
        return the tagged OK line; raise IMAPError on NO/BAD."""
        self.tag += 1
        tag = b"s%d" % self.tag
        self.sock.sendall(b"".join([tag, b" "] + list(parts) + [b"\r\n"]))
        while True:
            line = self.rfile.readline()
            if not line:
                raise IMAPError("connection closed")
            if line.startswith(tag + b" "):
                status = line[len(tag) + 1:]
                if not status.startswith(b"OK"):
                    raise IMAPError(status.decode("utf-8", "replace").strip())
                return status

    def close(self):
        try:
            self.command(b"LOGOUT")
        except (IMAPError, OSError):
            pass
        self.sock.close()


def quote(s):
    return b'"' + s.replace("\\", "\\\\").replace('"', '\\"').encode() + b'"'


def mutf7(name):
    """Encode a folder name in modified UTF-7 (RFC 3501 section 5.1.3)."""
    out, pending = [], []

    def flush():
        if pending:
            b = base64.b64encode("".join(pending).encode("utf-16-be")).decode()
            out.append("&" + b.rstrip("=").replace("/", ",") + "-")
            pending.clear()

    for ch in name:
        if 0x20 <= ord(ch) <= 0x7E:
            flush()
            out.append("&-" if ch == "&" else ch)
        else:
            pending.append(ch)
    flush()
    return "".join(out)


def encode_word(s):
    """RFC 2047 B-encoding for a non-ASCII header value."""
    if s.isascii():
        return s
    return "=?UTF-8?B?" + base64.b64encode(s.encode()).decode() + "?="


def mailbox(name, addr):
    """A From/To address; an encoded word may not sit inside quotes."""
    if name.isascii():
        return '"%s" <%s>' % (name, addr)
    return "%s <%s>" % (encode_word(name), addr)


def make_message(rnd, i, date):
    """Return (raw bytes, flags) of message i."""
    frm = rnd.choice(NAMES)
    to = NAMES[0] if frm != NAMES[0] else NAMES[1]
    subject = rnd.choice(SUBJECTS).format(n=1000 + i, code=rnd.randint(100000, 999999))
    body = "\r\n".join(
        " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(6, 14))) for _ in range(rnd.randint(2, 12)))
    msgid = "<seed-%d-%d@example.test>" % (i, rnd.randint(0, 1 << 30))
    hdr = [
        "Return-Path: <%s>" % frm[1],
        "From: %s" % mailbox(*frm),
        "To: %s" % mailbox(*to),
        "Subject: %s" % encode_word(subject),
        "Date: %s" % date.strftime("%a, %d %b %Y %H:%M:%S +0000"),
        "Message-ID: %s" % msgid,
        "MIME-Version: 1.0",
    ]
    if subject.startswith("Re:"):
        hdr.append("In-Reply-To: <seed-%d@example.test>" % max(0, i - 1))
    kind = rnd.random()
    if kind < 0.6:
        hdr.append("Content-Type: text/plain; charset=utf-8")
        hdr.append("Content-Transfer-Encoding: 8bit")
        content = body + "\r\n"
    elif kind < 0.85:
        b = "alt-%d" % i
        hdr.append('Content-Type: multipart/alternative; boundary="%s"' % b)
        html = "<html><body><p>" + body.replace("\r\n", "</p><p>") + "</p></body></html>"
        content = ("--{b}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{t}\r\n"
                   "--{b}\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{h}\r\n--{b}--\r\n").format(b=b, t=body, h=html)
    else:
        b = "mix-%d" % i
        hdr.append('Content-Type: multipart/mixed; boundary="%s"' % b)
        data = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(200, 4000)))
        att = base64.encodebytes(data).decode().replace("\n", "\r\n")
        content = ("--{b}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{t}\r\n"
                   "--{b}\r\nContent-Type: application/pdf; name=\"report-{i}.pdf\"\r\n"
                   "Content-Disposition: attachment; filename=\"report-{i}.pdf\"\r\n"
                   "Content-Transfer-Encoding: base64\r\n\r\n{a}--{b}--\r\n").format(b=b, t=body, i=i, a=att)
    flags = []
    if rnd.random() < 0.7:
        flags.append("\\Seen")
    if rnd.random() < 0.1:
        flags.append("\\Flagged")
    if rnd.random() < 0.05:
        flags.append("\\Answered")
    raw = ("\r\n".join(hdr) + "\r\n\r\n" + content).encode()
    return raw, flags


def append_item(raw, flags, date):
    idate = date.strftime('"%d-%b-%Y %H:%M:%S +0000"').encode()
    return b" (" + " ".join(flags).encode() + b") " + idate + b" {%d+}\r\n" % len(raw) + raw


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and "=" in line:
                k, v = line.split("=", 1)
                env[k] = " ".join(shlex.split(v))
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("folder")
    ap.add_argument("count", type=int)
    ap.add_argument("--user2", action="store_true", help="seed bob@ instead of alice@")
    ap.add_argument("--batch", type=int, default=500, help="messages per APPEND command")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.count < 0 or args.batch < 1:
        ap.error("count must be >= 0 and batch >= 1")

    env = read_env(os.path.join(args.dir, "env"))
    user = env["DOVECOT_USER2" if args.user2 else "DOVECOT_USER"]
    password = env["DOVECOT_PASSWORD2" if args.user2 else "DOVECOT_PASSWORD"]
    conn = Conn(env["DOVECOT_IMAPS_ADDR"], env["DOVECOT_CA_FILE"])
    start = time.monotonic()
    try:
        conn.command(b"LOGIN ", quote(user), b" ", quote(password))
        if args.folder.upper() != "INBOX":
            try:
                conn.command(b"CREATE ", quote(mutf7(args.folder)))
            except IMAPError as e:
                if "ALREADYEXISTS" not in str(e):
                    raise
            conn.command(b"SUBSCRIBE ", quote(mutf7(args.folder)))
        rnd = random.Random(args.seed)
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        done = 0
        while done < args.count:
            n = min(args.batch, args.count - done)
            items = []
            for i in range(done, done + n):
                # Oldest first, so that UID order follows date order.
                date = now - datetime.timedelta(seconds=(args.count - i) * 3000 + rnd.randint(0, 2000))
                raw, flags = make_message(rnd, i, date)
                items.append(append_item(raw, flags, date))
            conn.command(b"APPEND ", quote(mutf7(args.folder)), *items)
            done += n
    finally:
        conn.close()
    print("seeded %d messages into %s of %s in %.2f s" % (args.count, args.folder, user, time.monotonic() - start))


if __name__ == "__main__":
    try:
        main()
    except (IMAPError, OSError, KeyError) as e:
        print("seed.py: %s" % e, file=sys.stderr)
        sys.exit(1)
