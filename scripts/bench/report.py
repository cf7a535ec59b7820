#!/usr/bin/env python3
"""Write BENCHMARKS.md from the JSON results of scripts/bench/run.sh.

usage: scripts/bench/report.py RESULTS_DIR OUTPUT.md

Each figure is checked against the targets of issue 7; a figure whose
measurement failed is reported as such, never as a pass. Python 3 standard
library only.
"""

import json
import os
import sys

POOL = 3  # IMAP_POOL_SIZE of the run


class Results:
    """The run's JSON files, by name (without .json)."""

    def __init__(self, d):
        self.d = d

    def get(self, name):
        path = os.path.join(self.d, name + ".json")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            v = json.load(f)
        return None if isinstance(v, dict) and v.get("failed") else v

    def side(self, name, which):
        """One side (mcp or raw) of a comparison."""
        v = self.get(name)
        return None if v is None else v.get(which)

    def text(self, name, default=""):
        path = os.path.join(self.d, name)
        if not os.path.exists(path):
            return default
        with open(path) as f:
            return f.read().strip()


def fmt(v, unit="", nd=1):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        v = round(v, nd)
        if nd == 0:
            v = int(v)
    return "%s%s" % (v, unit)


def mb(kb):
    return None if kb is None else kb / 1024


def dig(obj, *keys):
    for k in keys:
        if obj is None:
            return None
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj


class Targets:
    """Rows of the targets table."""

    def __init__(self):
        self.rows = []

    def add(self, what, target, measured, value, limit, lower_is_better=True, extra_ok=True):
        """value vs limit; vs is value/limit (how far from the target)."""
        if value is None:
            self.rows.append((what, target, measured, "n/a", "NOT MEASURED"))
            return
        ok = (value <= limit if lower_is_better else value >= limit) and extra_ok
        vs = "%.2f× the limit" % (value / limit) if limit else "-"
        self.rows.append((what, target, measured, vs, "PASS" if ok else "**MISS**"))

    def table(self):
        out = ["| figure | target | measured | vs target | result |", "|---|---|---|---|---|"]
        out += ["| %s |" % " | ".join(r) for r in self.rows]
        return out


def compare_targets(r, t):
    for op, tool in (("search", "search_emails (limit 50)"), ("read", "read_email")):
        c = r.get("compare_" + op)
        p = dig(c, "ratio_mcp_over_raw", "p50")
        m = "MCP %s ms / raw %s ms = **%s×**" % (fmt(dig(c, "mcp", "latency_ms", "p50"), nd=2),
                                                  fmt(dig(c, "raw", "latency_ms", "p50"), nd=2), fmt(p, nd=2))
        t.add("%s p50, 1 client" % tool, "≤ 1.3× raw", m, p, 1.3)


def concurrency_targets(r, t):
    m, w = r.side("curve_32", "mcp"), r.side("curve_32", "raw")
    errs = None if m is None else sum(m["errors"].values())
    t.add("32 clients, pool 3: errors", "0", fmt(errs), errs, 0)
    tp = None
    if m and w and w["throughput_per_s"]:
        tp = m["throughput_per_s"] / w["throughput_per_s"]
    meas = "MCP %s/s vs raw (3 conns) %s/s = **%s%%**" % (fmt(dig(m, "throughput_per_s")), fmt(dig(w, "throughput_per_s")),
                                                          fmt(None if tp is None else tp * 100, nd=0))
    t.add("32 clients, pool 3: throughput", "≥ 80% of raw with 3 connections", meas, tp, 0.8, lower_is_better=False)


def wait_targets(r, t):
    for name, label in (("wait_sandbox", "sandbox"), ("wait_dovecot", "Dovecot")):
        w = r.get(name)
        p50 = dig(w, "latency_ms", "p50")
        meas = "p50 %s ms, p95 %s ms" % (fmt(p50, nd=2), fmt(dig(w, "latency_ms", "p95"), nd=2))
        if name == "wait_dovecot":
            meas += " (raw IDLE floor p50 %s ms)" % fmt(dig(r.get("wait_floor"), "latency_ms", "p50"), nd=0)
        t.add("wait_for_otp, end of DATA → result, %s" % label, "p50 < 50 ms", meas, p50, 50)
    floor = dig(r.get("wait_floor"), "latency_ms", "p50")
    push = dig(r.get("wait_dovecot_idle"), "latency_ms", "p50")
    above = None if floor is None or push is None else push - floor
    t.add("wait_for_otp, Dovecot, IDLE push only (WAIT_POLL_MS=0): above the bare IDLE client", "p50 < 50 ms",
          "%s − %s ms = %s ms" % (fmt(push, nd=1), fmt(floor, nd=1), fmt(above, nd=1)), above, 50)
    for name, label, conns in (("waiters1000", "Dovecot", "watcher_connects.txt"),
                               ("waiters1000_sandbox", "sandbox", "watcher_connects_sandbox.txt")):
        w = r.get(name)
        logged = r.text(conns)
        watch = int(logged) if logged.isdigit() else None
        total = dig(w, "imap_conns", "waiting")
        errs = None if w is None else sum(w["errors"].values())
        meas = "%s watcher connects logged; %s IMAP connections in all while waiting (pool ≤ %d); %s/%s waits answered" % (
            fmt(watch), fmt(total), POOL, fmt(dig(w, "ok")), fmt(dig(w, "calls")))
        t.add("1,000 waiters, %s: IMAP watch connections" % label, "≤ 2", meas, watch, 2, extra_ok=errs == 0)
        peak = mb(dig(w, "rss", "peak_kb"))
        meas = "peak %s MB (%s), %s MB while all wait" % (fmt(peak), dig(w, "rss", "peak_source") or "?",
                                                          fmt(mb(dig(w, "rss_while_waiting_kb", "vm_rss"))))
        t.add("1,000 waiters, %s: RSS" % label, "< 150 MB", meas, peak, 150)


def memory_targets(r, t):
    for name, label in (("sandbox_idle", "sandbox, just started"), ("dovecot_idle", "Dovecot account, just started")):
        v = mb(dig(r.get(name), "vm_rss_kb"))
        t.add("idle RSS, %s" % label, "< 30 MB", fmt(v, " MB"), v, 30)
    for name, label in (("download50", "download_attachment"), ("send50", "send_email_with_attachments")):
        s = r.get(name)
        g = mb(dig(s, "rss", "growth_kb"))
        ok = s is not None and s["ok"] == s["calls"] and s["calls"] > 0
        meas = "+%s MB (%s → %s MB, %s; %s ms)" % (fmt(g), fmt(mb(dig(s, "rss", "before_kb"))), fmt(mb(dig(s, "rss", "peak_kb"))),
                                                   dig(s, "rss", "peak_source") or "?", fmt(dig(s, "latency_ms", "p50"), nd=0))
        if s is not None and not ok:
            meas += "; errors %s" % s["errors"]
        t.add("50 MB attachment, %s: peak RSS growth" % label, "< 32 MB", meas, g, 32, extra_ok=ok)
    st = r.get("startup")
    best = dig(st, "best_ms")
    t.add("start to /health, sandbox (best of 5)", "< 100 ms",
          "%s ms (runs: %s)" % (fmt(best), ", ".join(fmt(x) for x in (dig(st, "runs_ms") or []))), best, 100)


def lat_row(s):
    l = s["latency_ms"] if s else {}
    return [fmt(l.get("p50"), nd=2), fmt(l.get("p95"), nd=2), fmt(l.get("p99"), nd=2)]


def compare_table(r):
    out = ["| operation (1 client) | MCP p50 / p95 / p99 ms | raw p50 / p95 / p99 ms | p50 ratio | throughput ratio | CPU ms per call: server (MCP) / raw client |",
           "|---|---|---|---|---|---|"]
    for op, label in (("search", "search_emails limit 50 · UID SEARCH + UID FETCH of 50"),
                      ("read", "read_email uid 9990 · UID FETCH BODYSTRUCTURE BODY.PEEK[]<0.1M>")):
        c = r.get("compare_" + op)
        if not c:
            out.append("| %s | failed | | | | |" % label)
            continue
        out.append("| %s | %s | %s | %s× | %s× | %s / %s |" % (
            label, " / ".join(lat_row(c["mcp"])), " / ".join(lat_row(c["raw"])), fmt(c["ratio_mcp_over_raw"]["p50"], nd=2),
            fmt(c["ratio_mcp_over_raw"]["throughput"], nd=2), fmt(dig(c, "mcp", "cpu", "server_ms_per_call"), nd=2),
            fmt(dig(c, "raw", "cpu", "client_ms_per_call"), nd=2)))
    f = r.get("floor_mcp")
    if f:
        out.append("| a call that does no IMAP (read_email with a bad uid: HTTP, auth, JSON-RPC, arguments, log) | %s | – | – | – | %s / – |"
                   % (" / ".join(lat_row(f)), fmt(dig(f, "cpu", "server_ms_per_call"), nd=2)))
    for op, label in (("read", "2.4 KB"), ("search", "35 KB")):
        f = r.get("floor_http_" + op)
        if f:
            out.append("| floor: `email-mcp-bench echo`, an HTTP server that answers at once with a %s answer, as %s's | %s | – | – | – | – |"
                       % (label, "read_email" if op == "read" else "search_emails", " / ".join(lat_row(f))))
    return out


def procs_table(r):
    """The default server against the same with GOMAXPROCS=1."""
    out = ["| figure | default (GOMAXPROCS = cores) | GOMAXPROCS=1 |", "|---|---|---|"]
    for op, label in (("search", "search_emails limit 50, 1 client: p50 ratio to raw · server CPU ms per call"),
                      ("read", "read_email, 1 client: p50 ratio to raw · server CPU ms per call")):
        cells = []
        for name in ("compare_" + op, "p1_compare_" + op):
            c = r.get(name)
            cells.append("%s× · %s ms" % (fmt(dig(c, "ratio_mcp_over_raw", "p50"), nd=2), fmt(dig(c, "mcp", "cpu", "server_ms_per_call"), nd=2))
                         if c else "failed")
        out.append("| %s | %s |" % (label, " | ".join(cells)))
    cells = []
    for name in ("curve_32", "p1_curve_32"):
        m, w = r.side(name, "mcp"), r.side(name, "raw")
        if m and w and w["throughput_per_s"]:
            cells.append("%s%% of raw · %s ms · errors %s" % (fmt(100 * m["throughput_per_s"] / w["throughput_per_s"], nd=0),
                                                              fmt(dig(m, "cpu", "server_ms_per_call"), nd=2), sum(m["errors"].values())))
        else:
            cells.append("failed")
    out.append("| 32 clients, pool 3: throughput · server CPU ms per call | %s |" % " | ".join(cells))
    return out


def floor_lines(r):
    """What the HTTP floor makes of the 1.3x targets."""
    out = []
    for op, tool in (("read", "read_email"), ("search", "search_emails")):
        f = dig(r.get("floor_http_" + op), "latency_ms", "p50")
        raw = dig(r.get("compare_" + op), "raw", "latency_ms", "p50")
        if f is None or raw is None:
            continue
        out.append("- %s: raw IMAP p50 %s ms; an HTTP server that does nothing answers the same client in %s ms p50, "
                   "so no MCP server over HTTP can go below (%s + %s) / %s = **%s×** of raw here, before any work of its own."
                   % (tool, fmt(raw, nd=2), fmt(f, nd=2), fmt(raw, nd=2), fmt(f, nd=2), fmt(raw, nd=2), fmt((raw + f) / raw, nd=2)))
    return out


def curve_table(r):
    out = ["| clients | MCP p50 / p95 ms | MCP calls/s | MCP errors | raw p50 / p95 ms | raw calls/s | throughput MCP/raw | MCP server CPU ms/call |",
           "|---|---|---|---|---|---|---|---|"]
    for c in (1, 2, 4, 8, 16, 32):
        m, w = r.side("curve_%d" % c, "mcp"), r.side("curve_%d" % c, "raw")
        ratio = None
        if m and w and w["throughput_per_s"]:
            ratio = m["throughput_per_s"] / w["throughput_per_s"]
        out.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
            c, " / ".join(lat_row(m)[:2]) if m else "failed", fmt(dig(m, "throughput_per_s")),
            fmt(None if m is None else sum(m["errors"].values())) + ("" if not m or not m["errors"] else " %s" % m["errors"]),
            " / ".join(lat_row(w)[:2]) if w else "failed", fmt(dig(w, "throughput_per_s")),
            fmt(None if ratio is None else ratio * 100, "%", nd=0), fmt(dig(m, "cpu", "server_ms_per_call"), nd=2)))
    return out


def wait_table(r):
    out = ["| wait | rounds × waiters | p50 ms | p95 ms | max ms | errors |", "|---|---|---|---|---|---|"]
    for name, label in (("wait_sandbox", "wait_for_otp, sandbox (SMTP to DEV_SMTP_ADDR)"),
                        ("wait_dovecot", "wait_for_otp, Dovecot (LMTP delivery; NOOP every WAIT_POLL_MS=25 ms while waiting, the loopback default)"),
                        ("wait_dovecot_idle", "wait_for_otp, Dovecot, IDLE push only (WAIT_POLL_MS=0)"),
                        ("wait_floor", "floor: bare go-imap IDLE on Dovecot, end of LMTP DATA → untagged EXISTS"),
                        ("waiters1000_sandbox", "1,000 concurrent wait_for_otp, sandbox"),
                        ("waiters1000", "1,000 concurrent wait_for_otp, Dovecot")):
        w = r.get(name)
        if not w:
            out.append("| %s | not measured (failed or skipped) | | | | |" % label)
            continue
        out.append("| %s | %d × %d | %s | %s | %s | %s |" % (label, w["rounds"], w["concurrency"], fmt(w["latency_ms"]["p50"], nd=2),
                                                          fmt(w["latency_ms"]["p95"], nd=2), fmt(w["latency_ms"]["max"], nd=2),
                                                          w["errors"] or 0))
    return out


def machine_lines(r):
    m, e = r.get("machine_start") or {}, r.get("machine_end") or {}
    return ["| | |", "|---|---|",
            "| CPU | %s, %s cores (shared with other jobs while measured) |" % (m.get("cpu", "?"), m.get("cores", "?")),
            "| kernel | %s |" % m.get("kernel", "?"),
            "| Go | %s |" % m.get("go", "?"),
            "| Dovecot | %s |" % m.get("dovecot", "?"),
            "| load average (1, 5, 15 min) | %s at the start, %s at the end |" % (
                " ".join(m.get("loadavg", [])), " ".join(e.get("loadavg", [])))]


def optimizations():
    """The hand-kept Optimizations section: scripts/bench/optimizations.md."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optimizations.md")
    with open(path, encoding="utf-8") as f:
        return f.read()


METHOD = """## How it is measured

- `scripts/bench/run.sh` starts its own Dovecot 2.3 on loopback
  (`scripts/dovecot/start.sh`), seeds a 10,000-message INBOX
  (`scripts/dovecot/seed.py`: plain, alternative and multipart/mixed mail of
  1–6 KB), builds both binaries and runs email-mcp against it over IMAPS
  with `IMAP_POOL_SIZE=3` and `RATE_LIMIT_PER_MINUTE=0`.
- `email-mcp-bench` drives the server over MCP Streamable HTTP (stateless:
  one POST of a JSON-RPC `tools/call` per call, keep-alive connections, no
  initialize), and does the same IMAP work with a bare go-imap v2 client
  (`raw`): EXAMINE once per connection, then for search `UID SEARCH RETURN
  (ALL) ALL` + `UID FETCH` of the 50 newest (`UID FLAGS ENVELOPE RFC822.SIZE
  INTERNALDATE BODYSTRUCTURE`), for read `UID FETCH` of `UID FLAGS
  INTERNALDATE RFC822.SIZE BODYSTRUCTURE BODY.PEEK[]<0.1048576>`, exactly what
  `imap/search.go` and `imap/fetch.go` send. Both sides use TLS and the same
  RFC 2047 word decoder.
- Latency is per call, percentiles by nearest rank over the successful
  calls; throughput is successful calls per second of the measured phase,
  after an unmeasured warm-up. The one-client comparisons alternate MCP and
  raw in 20 slices each (1,000 searches, 2,000 reads a side), so that a
  burst of load from other jobs falls on both sides alike. CPU per call is user + system time
  (`getrusage` for the bench client, `/proc/PID/stat` for the server) over
  the measured phase divided by the successful calls: it is less disturbed
  by other jobs on the machine than latency is.
- wait_for_otp: each waiter creates its own inbox, calls wait_for_otp (no
  `since`: mail after the call starts), the bench pauses until every call
  blocks, then delivers one mail per inbox (SMTP to the sandbox, LMTP to
  Dovecot) and times the server's reply to the end of DATA → the tool
  result. In the sandbox the tool result can arrive before the bench has
  read the 250: such a latency counts as 0.
- RSS: `/proc/PID/status`; for a run the kernel's high-water mark VmHWM is
  reset first (`/proc/PID/clear_refs`), so the peak is exact. IMAP
  connections are the server's established sockets to the IMAP port
  (`/proc/PID/fd` matched against `/proc/PID/net/tcp`); watcher connects
  are counted in the server's debug log.
- The machine is shared: on 2 cores the bench client, the server, Dovecot
  and other jobs compete, which inflates latencies and the MCP/raw ratios
  (the MCP path has one more process on the critical path). Compare CPU per
  call when in doubt, and run again before drawing conclusions.
"""


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    r = Results(sys.argv[1])
    t = Targets()
    compare_targets(r, t)
    concurrency_targets(r, t)
    wait_targets(r, t)
    memory_targets(r, t)
    floor = dig(r.get("wait_floor"), "latency_ms", "p50")
    lines = ["# Benchmarks", "",
             "Generated by `scripts/bench/run.sh` (issue 7: performance measured side by side",
             "with the raw IMAP protocol). Do not edit by hand, except the Optimizations table.",
             "Results as JSON: `scripts/bench/results/`.", "",
             "## Machine", ""] + machine_lines(r) + ["", "## Targets", ""] + t.table() + [
             "", "On Dovecot a new message reaches an IDLE client about %s ms after delivery" % fmt(floor, nd=0),
             "(the floor row below: a bare go-imap client, nothing of ours): on the first",
             "inotify event of a mailbox, Dovecot 2.3 arms a 500 ms timer before it tells an",
             "IDLE session (`NOTIFY_DELAY_MSECS` in `src/lib-storage/mailbox-watch.c`,",
             "`notify_callback`; `index-mailbox-check.c` in older versions).",
             "With IDLE push alone wait_for_otp cannot go below that floor; while a wait is",
             "active, email-mcp also sends a NOOP every `WAIT_POLL_MS` (25 ms by default for a",
             "loopback IMAP server), which answers with the new message at once.", "",
             "## MCP against raw IMAP, one client", ""] + compare_table(r) + [
             "", "The floor under the 1.3× targets on this machine:", ""] + floor_lines(r) + [
             "", "### The same server with GOMAXPROCS=1", "",
             "Measured right after the rows above against the same Dovecot, the server started",
             "with `GOMAXPROCS=1`. On two cores shared with Dovecot and the client, an idle P",
             "makes the Go runtime wake and spin a thread on nearly every goroutine wake-up",
             "(`runtime.futex` alone was 7–15% of the server's CPU profile under load);",
             "one P spends less CPU per call. A deployment tuning, not the default: on a",
             "larger machine, or with the mail server elsewhere, the default uses the cores.", ""] + procs_table(r) + [
             "", "## Latency and throughput against concurrency", "",
             "search_emails limit 50 on the 10,000-message INBOX: email-mcp with a pool of 3",
             "IMAP connections against the bare client sharing 3 connections among the same",
             "number of clients; 4 s per point, MCP and raw alternating in 4 slices of 1 s.", "",
             "![latency and throughput against concurrency](scripts/bench/results/latency-vs-concurrency.svg)", ""] + curve_table(r) + [
             "", "## Waiting for mail", ""] + wait_table(r) + ["", METHOD, optimizations(),
             "## Command lines", "",
             "`$WORK` is the run's temporary directory; secrets are passed in the environment",
             "(`MCP_API_KEY`, `IMAP_PASSWORD`), never on a command line.", "", "```sh"] + r.text("commands.txt").splitlines() + ["```", ""]
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
