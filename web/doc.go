// Package web is the web inbox at /ui: a page for people who test apps
// against the sandbox (or any account) and want to see what their app sent,
// as Mailpit or MailHog show it.
//
// It is a sibling of the MCP transports over the same tools: every list,
// read, mark, move, delete and test-inbox action is a tool call run
// in-process through the registry ([Tools.Call]), so read-only mode, the
// per-key rate limit, the audit log and the cleaning of results apply to the
// page as they do to /mcp. What no tool returns to a browser (raw source,
// attachment bytes, new-mail events) comes from the few extra methods of
// [Tools]; new mail is pushed by the same IMAP watcher the waits use.
//
// Sign-in: the API key, typed once into a form, or a one-time login link
// ([Handler.LoginLink], printed by the sandbox banner), gives an HttpOnly,
// SameSite=Strict session cookie; every request of the page then passes
// through the API's own auth middleware (key, Host and Origin rules) with
// the session's key. Requests that change something carry the session's
// CSRF token in X-CSRF-Token.
//
// A message's HTML is served by its own endpoint under a Content-Security-
// Policy that runs no script and loads no remote image until asked, shown in
// an iframe whose sandbox attribute has no allow-scripts.
package web
