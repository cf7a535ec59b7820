// Package faultproxy is a loopback TCP proxy for tests that breaks the
// network on demand between a client under test and a real server
// (imapmemserver, go-smtp, Dovecot).
//
// A Proxy listens on 127.0.0.1:0 and forwards every connection to its
// Target, chunk by chunk (at most Options.ChunkSize bytes at a time). While
// it forwards, a test can:
//
//   - cut every live connection now (CutAll), as a server restart or a
//     NAT timeout does: both sides get a reset;
//   - take the server "down": new connections are accepted and reset at
//     once (Down), or refused because nothing listens on the port any more
//     (Refuse); Up ends either;
//   - stall: stop forwarding bytes in both directions without closing
//     anything (Stall), as a hung server or a black-holed route does, until
//     Resume;
//   - slow every chunk down (SetDelay) or cap the bandwidth (SetRate);
//   - cut each connection once it has forwarded n bytes (SetCutAfter), or
//     only the next one accepted (CutNextAfter), or
//     at random with probability p per chunk (SetCutProbability), after a
//     random part of that chunk, with a rand seeded by Options.Seed;
//   - decide per chunk in a Hook (cut when the client sends QUIT, say),
//     or hold a command back from the server while its client is cut, and
//     deliver it later (Hold, Release): a command the server runs after
//     its client gave up;
//   - rewrite the server's lines (Options.RewriteDownstream: hide an IMAP
//     capability, for one).
//
// Stats counts the connections accepted and rejected, the cuts injected and
// the bytes forwarded, so a test can log how many faults it survived.
//
// Close cuts every connection and returns once every goroutine of the proxy
// has ended. Start is New plus t.Cleanup(Close) for tests.
//
// For the tests that use it, the package also has the rest of a fault
// test: Load runs concurrent calls, each under a deadline and a hang
// watchdog (deadline + HangMargin), and counts their outcomes in a Tally;
// Once does that for one call and Recover retries a call until it
// succeeds after a fault; CheckLeaks fails a test that leaves goroutines
// behind.
//
//	p := faultproxy.Start(t, faultproxy.Options{Target: serverAddr, Seed: 1})
//	client := dial(p.Host(), p.Port())
//	p.SetCutProbability(0.05) // a connection dies in one chunk out of 20
//	...
//	p.Heal()
//	t.Logf("FAULTS: injected=%d", p.Stats().Cuts)
package faultproxy
