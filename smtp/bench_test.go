package smtp_test

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/smtp"
)

// BenchmarkCompose50MBAttachment composes a message with a 50 MB attachment
// read from a file to io.Discard. Run with -benchmem: B/op shows the
// attachment is streamed (kilobytes, not 50 MB), and peak-heap-B the
// largest live heap seen while composing.
//
//	go test ./smtp -run '^$' -bench Compose50MB -benchmem
func BenchmarkCompose50MBAttachment(b *testing.B) {
	const size = 50 << 20
	path := filepath.Join(b.TempDir(), "big.bin")
	writeRandomFile(b, path, size)
	m := testMessage()
	m.Attachments = []smtp.Attachment{{
		Filename: "big.bin", ContentType: "application/octet-stream", Size: size,
		Open: func() (io.ReadCloser, error) { return os.Open(path) },
	}}
	stop, peak := samplePeakHeap()
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	stop()
	b.ReportMetric(float64(peak()), "peak-heap-B")
}

// writeRandomFile writes size pseudo-random bytes to path, 1 MB at a time.
func writeRandomFile(b *testing.B, path string, size int) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := rand.NewChaCha8([32]byte{1})
	buf := make([]byte, 1<<20)
	for written := 0; written < size; written += len(buf) {
		_, _ = r.Read(buf)
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// samplePeakHeap polls the live heap every millisecond until stop is
// called; peak returns the largest value seen.
func samplePeakHeap() (stop func(), peak func() uint64) {
	done := make(chan struct{})
	result := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var max uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			max = maxU(max, s[0].Value.Uint64())
			select {
			case <-done:
				result <- max
				return
			case <-tick.C:
			}
		}
	}()
	var got uint64
	return func() { close(done); got = <-result }, func() uint64 { return got }
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}
