#!/usr/bin/env python3
"""Append one mail with a large attachment to a folder of the tier's Dovecot
and print its UID.

usage: scripts/bench/bigmail.py DIR FOLDER SIZE_BYTES

DIR is the directory given to scripts/dovecot/start.sh (its env file names
the IMAPS address, the user and the CA). The attachment is SIZE_BYTES of
pseudo-random data, base64-encoded in 76-character lines as mail clients
send it. Python 3 standard library only.
"""

import base64
import imaplib
import os
import random
import re
import ssl
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/dovecot
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dovecot"))
from seed import read_env  # noqa: E402  the account file, read as seed.py reads it


def big_message(size):
    data = random.Random(7).randbytes(size)
    att = base64.encodebytes(data).replace(b"\n", b"\r\n")
    head = (
        "From: Reports <reports@example.test>\r\n"
        "To: alice@example.test\r\n"
        "Subject: Quarterly data export (large attachment)\r\n"
        "Date: Mon, 02 Mar 2026 09:00:00 +0000\r\n"
        "Message-ID: <bench-big@example.test>\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="big-boundary"\r\n\r\n'
        "--big-boundary\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        "The export is attached.\r\n"
        "--big-boundary\r\nContent-Type: application/octet-stream; name=\"export.bin\"\r\n"
        "Content-Disposition: attachment; filename=\"export.bin\"\r\n"
        "Content-Transfer-Encoding: base64\r\n\r\n"
    ).encode()
    return head + att + b"--big-boundary--\r\n"


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    d, folder, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    env = read_env(os.path.join(d, "env"))
    host, port = env["DOVECOT_IMAPS_ADDR"].rsplit(":", 1)
    ctx = ssl.create_default_context(cafile=env["DOVECOT_CA_FILE"])
    m = imaplib.IMAP4_SSL(host, int(port), ssl_context=ctx)
    m.login(env["DOVECOT_USER"], env["DOVECOT_PASSWORD"])
    typ, data = m.append(folder, None, None, big_message(size))
    m.logout()
    found = re.search(rb"APPENDUID \d+ (\d+)", b" ".join(x for x in data if x))
    if typ != "OK" or not found:
        print("bigmail.py: append failed: %r %r" % (typ, data), file=sys.stderr)
        sys.exit(1)
    print(found.group(1).decode())


if __name__ == "__main__":
    main()
