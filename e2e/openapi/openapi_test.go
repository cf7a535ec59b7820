package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

const key = "e2e-openapi-key-0123456789abcdef"

// freePort asks the kernel for a free loopback port.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// binary is E2E_BIN, or the server built from this checkout.
func binary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("E2E_BIN"); b != "" {
		return b
	}
	out := filepath.Join(t.TempDir(), "email-mcp")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/email-mcp")
	cmd.Dir = filepath.Join("..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// start runs the binary on its sandbox with free loopback ports and returns
// its URL.
func start(t *testing.T) string {
	t.Helper()
	mcpPort, smtpPort, imapPort := freePort(t), freePort(t), freePort(t)
	cmd := exec.Command(binary(t))
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + cmd.Dir, "MCP_API_KEY=" + key,
		"EMAIL_BASE_DIR=" + cmd.Dir,
		fmt.Sprintf("MCP_PORT=%d", mcpPort),
		fmt.Sprintf("DEV_SMTP_ADDR=127.0.0.1:%d", smtpPort),
		fmt.Sprintf("DEV_IMAP_ADDR=127.0.0.1:%d", imapPort)}
	logs, err := os.Create(filepath.Join(cmd.Dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logs.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("server log:\n%s", b)
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", mcpPort)
	for range 200 {
		if r, err := http.Get(url + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return url
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the server did not answer /health within 10 s")
	return ""
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	r, err := http.Get(url) // no key: the documentation is open
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 {
		t.Fatalf("GET %s = %d %s", url, r.StatusCode, b)
	}
	return b
}

// goldenNames are the tool names of tools/testdata/tools_list.golden.json.
func goldenNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "tools", "testdata", "tools_list.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range g.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// spec is the parts of /openapi.json the test walks.
type spec struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]struct {
		Post struct {
			RequestBody struct {
				Content map[string]struct {
					Examples map[string]struct {
						Value json.RawMessage `json:"value"`
					} `json:"examples"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"post"`
	} `json:"paths"`
}

// TestOpenAPIDocument: /openapi.json is a valid OpenAPI 3.1 document to
// libopenapi-validator, it describes every tool of the golden tool list,
// and every tool's example request, and the sandbox's answer to it, are
// valid by the document (request body, response body with the tool's
// output schema).
func TestOpenAPIDocument(t *testing.T) {
	url := start(t)
	raw := get(t, url+"/openapi.json")
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatalf("libopenapi.NewDocument() = %v", err)
	}
	if v := doc.GetVersion(); v != "3.1.0" {
		t.Errorf("openapi version = %q, want 3.1.0", v)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("NewValidator() = %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("ValidateDocument: %s", e.Error())
		}
		t.FailNow()
	}
	var s spec
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	examples := s.Paths["/mcp/call"].Post.RequestBody.Content["application/json"].Examples
	var names []string
	for name := range examples {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := goldenNames(t); !slices.Equal(names, want) {
		t.Fatalf("tools in /openapi.json = %v,\nwant the golden's %v", names, want)
	}
	for _, name := range names {
		if strings.HasPrefix(name, "wait_for_") {
			continue // a wait with an unknown inbox answers at once, but keep the run short anyway
		}
		checkExample(t, v, url, name, examples[name].Value)
	}
}

// checkExample posts one example body and validates request and response.
func checkExample(t *testing.T, v validator.Validator, url, name string, body []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp/call", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	if ok, errs := v.ValidateHttpRequest(req); !ok {
		t.Errorf("%s: example request %s is not valid by the document: %v", name, body, errs)
	}
	req.Body = io.NopCloser(bytes.NewReader(body)) // the validator read it
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: POST /mcp/call: %v", name, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("%s: POST /mcp/call = %d %s", name, resp.StatusCode, b)
		return
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
		t.Errorf("%s: answer %s is not valid by the document: %v", name, b, errs)
	}
}

// TestOpenAPIValidatorCatchesABadDocument: the validator refuses a copy of
// the served document that breaks the OpenAPI schema, and an answer that
// breaks the document, so a pass above means something.
func TestOpenAPIValidatorCatchesABadDocument(t *testing.T) {
	url := start(t)
	raw := get(t, url+"/openapi.json")
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m["info"].(map[string]any), "version") // required by OpenAPI 3.1
	bad, _ := json.Marshal(m)
	doc, err := libopenapi.NewDocument(bad)
	if err != nil {
		t.Fatalf("libopenapi.NewDocument(without info.version) = %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("NewValidator() = %v", errs)
	}
	if ok, _ := v.ValidateDocument(); ok {
		t.Error("ValidateDocument() accepted a document whose info has no version")
	}

	doc, err = libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	v, _ = validator.NewValidator(doc)
	body := []byte(`{"method":"tools/call","params":{"name":"list_folders","arguments":{}}}`)
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp/call", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"content":"not a list","structuredContent":{"folders":7}}`)), Request: req}
	if ok, _ := v.ValidateHttpResponse(req, resp); ok {
		t.Error("ValidateHttpResponse() accepted an answer whose content is no list")
	}
	req, _ = http.NewRequest(http.MethodPost, url+"/mcp/call", strings.NewReader(`{"params":{"name":"list_folders","arguments":{"include_counts":"yes"}}}`))
	req.Header.Set("Content-Type", "application/json")
	if ok, _ := v.ValidateHttpRequest(req); ok {
		t.Error("ValidateHttpRequest() accepted include_counts \"yes\"")
	}
}
