package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

type sessionKey struct{}

func withSession(ctx context.Context, s *session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// api mounts the page's endpoints; each needs a session.
func (h *Handler) api(m *http.ServeMux) {
	read := func(pattern string, f http.HandlerFunc) { m.Handle(pattern, h.signedIn(false, f)) }
	write := func(pattern string, f http.HandlerFunc) { m.Handle(pattern, h.signedIn(true, f)) }
	read("GET /ui/api/session", h.sessionInfo)
	read("GET /ui/api/folders", h.folders)
	read("GET /ui/api/inboxes", h.inboxes)
	read("GET /ui/api/messages", h.messages)
	read("GET /ui/api/message", h.message)
	read("GET /ui/api/events", h.events)
	read("GET /ui/html", h.html)
	read("GET /ui/raw", h.raw)
	read("GET /ui/attachment", h.attachment)
	write("POST /ui/api/inboxes", h.createInbox)
	write("POST /ui/api/inboxes/delete", h.deleteInbox)
	write("POST /ui/api/mark", h.mark)
	write("POST /ui/api/move", h.move)
	write("POST /ui/api/delete", h.remove)
}

// call runs a tool and answers its result; an error result gets the HTTP
// status of its code.
func (h *Handler) call(w http.ResponseWriter, r *http.Request, name string, args map[string]any) {
	res, isErr, err := h.opts.Tools.Call(r.Context(), name, args)
	switch {
	case err != nil:
		h.log.WarnContext(r.Context(), "web: tool call failed", "tool", name, "err", err)
		fail(w, http.StatusBadGateway, "INTERNAL", "the call failed")
	case isErr:
		writeJSON(w, errorStatus(res), res)
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

// errorStatus maps a tool error result to an HTTP status.
func errorStatus(res json.RawMessage) int {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(res, &e)
	switch c := e.Error.Code; {
	case c == "INVALID_ARGUMENT":
		return http.StatusBadRequest
	case c == "READ_ONLY" || c == "RECIPIENT_NOT_ALLOWED":
		return http.StatusForbidden
	case c == "RATE_LIMITED":
		return http.StatusTooManyRequests
	case strings.HasSuffix(c, "_NOT_FOUND"):
		return http.StatusNotFound
	}
	return http.StatusBadGateway
}

func (h *Handler) served(name string) bool { return slices.Contains(h.opts.Tools.ToolNames(), name) }

func (h *Handler) sessionInfo(w http.ResponseWriter, r *http.Request) {
	s, _ := r.Context().Value(sessionKey{}).(*session)
	writeJSON(w, http.StatusOK, map[string]any{
		"name": h.opts.Name, "csrf": s.csrf, "tools": h.opts.Tools.ToolNames(),
		"can_change": h.served("mark_email") && h.served("move_email"),
		"inboxes":    h.served("create_inbox"),
	})
}

func (h *Handler) folders(w http.ResponseWriter, r *http.Request) {
	h.call(w, r, "list_folders", map[string]any{"include_counts": true})
}

func (h *Handler) inboxes(w http.ResponseWriter, r *http.Request) {
	if !h.served("list_inboxes") {
		writeJSON(w, http.StatusOK, map[string]any{"inboxes": []any{}})
		return
	}
	h.call(w, r, "list_inboxes", map[string]any{"limit": 100})
}

// pageSize is the message list's page: one search_emails page, so a
// folder of any size costs one SEARCH and a FETCH of this many.
const pageSize = 50

func (h *Handler) messages(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	args := map[string]any{"folder": folderArg(q.Get("folder")), "limit": pageSize}
	if v := q.Get("q"); v != "" {
		args["text"] = v
	}
	if v := q.Get("to"); v != "" {
		args["to"] = v
	}
	if v := q.Get("cursor"); v != "" {
		args["cursor"] = v
	}
	h.call(w, r, "search_emails", args)
}

func folderArg(f string) string {
	if f == "" {
		return "INBOX"
	}
	return f
}

// sourceForView is how much of the raw message the view reads for its
// headers and for the code and link (the waits read as much).
const sourceForView = 1 << 20

// message answers read_email's result plus the header section, and what
// the waits would find (otp, link, with their confidence).
func (h *Handler) message(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	folder, uid := folderArg(q.Get("folder")), q.Get("uid")
	res, isErr, err := h.opts.Tools.Call(r.Context(), "read_email",
		map[string]any{"folder": folder, "uid": uid, "format": "text", "max_chars": 200000})
	if err != nil || isErr {
		h.callResult(w, r, res, err)
		return
	}
	raw, _, err := h.opts.Tools.Source(r.Context(), folder, uid, sourceForView)
	if err != nil {
		fail(w, http.StatusBadGateway, "INTERNAL", "cannot read the message source")
		return
	}
	var out map[string]any
	if err := json.Unmarshal(res, &out); err != nil {
		fail(w, http.StatusBadGateway, "INTERNAL", "bad read_email result")
		return
	}
	out["headers"] = headerSection(raw)
	out["found"] = h.opts.Tools.Find(raw)
	out["has_html"] = bytes.Contains(bytes.ToLower(raw), []byte("text/html"))
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) callResult(w http.ResponseWriter, r *http.Request, res json.RawMessage, err error) {
	if err != nil {
		h.log.WarnContext(r.Context(), "web: tool call failed", "err", err)
		fail(w, http.StatusBadGateway, "INTERNAL", "the call failed")
		return
	}
	writeJSON(w, errorStatus(res), res)
}

// headerSection is the raw header fields of a message, as text.
func headerSection(raw []byte) string {
	for _, sep := range []string{"\r\n\r\n", "\n\n"} {
		if i := bytes.Index(raw, []byte(sep)); i >= 0 {
			return strings.ToValidUTF8(string(raw[:i]), "\uFFFD")
		}
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}

// mailCSP is the policy of a message's HTML: no script, no form, no
// request anywhere except, once asked, images.
const mailCSP = "default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data: cid:; " +
	"form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox"

const mailCSPRemote = "default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data: cid: http: https:; " +
	"form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox"

// html serves a message's HTML body for the sandboxed iframe.
func (h *Handler) html(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	res, isErr, err := h.opts.Tools.Call(r.Context(), "read_email",
		map[string]any{"folder": folderArg(q.Get("folder")), "uid": q.Get("uid"), "format": "html", "max_chars": 500000})
	if err != nil || isErr {
		h.callResult(w, r, res, err)
		return
	}
	var m struct {
		HTML string `json:"body_html"`
		Text string `json:"body_text"`
	}
	_ = json.Unmarshal(res, &m)
	body := m.HTML
	if body == "" {
		body = "<pre style=\"white-space:pre-wrap\">" + htmlEscape(m.Text) + "</pre>"
	}
	csp := mailCSP
	if q.Get("remote") == "1" {
		csp = mailCSPRemote
	}
	w.Header().Set("Content-Security-Policy", csp)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(body))
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// rawLimit bounds the raw source the page shows.
const rawLimit = 32 << 20

func (h *Handler) raw(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	raw, cut, err := h.opts.Tools.Source(r.Context(), folderArg(q.Get("folder")), q.Get("uid"), rawLimit)
	if err != nil {
		h.toolError(w, err)
		return
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(raw)
	if cut {
		_, _ = fmt.Fprintf(w, "\n\n[cut at %d bytes]\n", rawLimit)
	}
}

// toolError answers an error of the extra methods (a *mcpkit.Error: its
// text is "CODE: message", safe to show).
func (h *Handler) toolError(w http.ResponseWriter, err error) {
	code, msg, _ := strings.Cut(err.Error(), ": ")
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": msg}})
	writeJSON(w, errorStatus(b), json.RawMessage(b))
}

func (h *Handler) attachment(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	index, err := strconv.Atoi(q.Get("index"))
	if err != nil || index < 0 {
		fail(w, http.StatusBadRequest, "INVALID_ARGUMENT", "index must be an attachment index")
		return
	}
	started := false
	err = h.opts.Tools.Attachment(r.Context(), folderArg(q.Get("folder")), q.Get("uid"), index, w, func(name, ctype string) {
		started = true
		w.Header().Set("Content-Type", "application/octet-stream") // never rendered here
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
		w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
		w.Header().Set("X-Media-Type", ctype)
	})
	if err != nil && !started {
		h.toolError(w, err)
	}
}

// decode reads a small JSON body into v.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		fail(w, http.StatusBadRequest, "INVALID_ARGUMENT", "the body must be JSON")
		return false
	}
	return true
}

type target struct {
	Folder string `json:"folder"`
	UID    string `json:"uid"`
	Read   *bool  `json:"read,omitempty"`
	To     string `json:"to,omitempty"`
}

func (h *Handler) mark(w http.ResponseWriter, r *http.Request) {
	var t target
	if !decode(w, r, &t) {
		return
	}
	args := map[string]any{"folder": folderArg(t.Folder), "uid": t.UID}
	if t.Read != nil {
		args["read"] = *t.Read
	}
	h.call(w, r, "mark_email", args)
}

func (h *Handler) move(w http.ResponseWriter, r *http.Request) {
	var t target
	if !decode(w, r, &t) {
		return
	}
	h.call(w, r, "move_email", map[string]any{"from_folder": folderArg(t.Folder), "uid": t.UID, "to_folder": t.To})
}

// remove moves a message to the Trash folder (special-use \Trash, else
// one named Trash).
func (h *Handler) remove(w http.ResponseWriter, r *http.Request) {
	var t target
	if !decode(w, r, &t) {
		return
	}
	res, isErr, err := h.opts.Tools.Call(r.Context(), "list_folders", map[string]any{})
	if err != nil || isErr {
		h.callResult(w, r, res, err)
		return
	}
	var lf struct {
		Folders []struct {
			Name       string  `json:"name"`
			SpecialUse *string `json:"special_use"`
		} `json:"folders"`
	}
	_ = json.Unmarshal(res, &lf)
	trash := ""
	for _, f := range lf.Folders {
		if f.SpecialUse != nil && *f.SpecialUse == "trash" || trash == "" && strings.EqualFold(f.Name, "Trash") {
			trash = f.Name
		}
	}
	if trash == "" {
		fail(w, http.StatusConflict, "FOLDER_NOT_FOUND", "this account has no Trash folder")
		return
	}
	h.call(w, r, "move_email", map[string]any{"from_folder": folderArg(t.Folder), "uid": t.UID, "to_folder": trash})
}

func (h *Handler) createInbox(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Label string `json:"label"`
	}
	if !decode(w, r, &b) {
		return
	}
	args := map[string]any{}
	if b.Label != "" {
		args["label"] = b.Label
	}
	h.call(w, r, "create_inbox", args)
}

func (h *Handler) deleteInbox(w http.ResponseWriter, r *http.Request) {
	var b struct {
		ID string `json:"inbox_id"`
	}
	if !decode(w, r, &b) {
		return
	}
	h.call(w, r, "delete_inbox", map[string]any{"inbox_id": b.ID})
}

// keepAlive is how often an idle event stream gets a comment line.
const keepAlive = 15 * time.Second

// events streams "mail" events (data: the new message's UID) for a folder,
// pushed by the IMAP watcher, until the page goes away.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		fail(w, http.StatusInternalServerError, "INTERNAL", "no streaming")
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if h.opts.Stop != nil {
		go func() {
			select {
			case <-h.opts.Stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	uids := make(chan uint32, 64)
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- h.opts.Tools.Watch(ctx, folderArg(r.URL.Query().Get("folder")), func() { close(ready) }, func(uid uint32) {
			select {
			case uids <- uid:
			case <-ctx.Done():
			}
		})
	}()
	select { // the stream opens once subscribed: mail from then on is pushed
	case <-ready:
	case err := <-errc:
		if err == nil {
			return // the page went away
		}
		h.toolError(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, ": watching\n\n")
	fl.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case uid := <-uids:
			_, _ = fmt.Fprintf(w, "event: mail\ndata: %d\n\n", uid)
		case err := <-errc:
			if err != nil {
				_, _ = fmt.Fprintf(w, "event: failed\ndata: %q\n\n", err.Error())
			}
			fl.Flush()
			return
		case <-tick.C:
			_, _ = fmt.Fprint(w, ": keep-alive\n\n")
		case <-ctx.Done():
			return
		}
		fl.Flush()
	}
}
