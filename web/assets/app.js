// email-mcp web inbox: vanilla JS, no framework. Every string from a
// message is set with textContent, never as HTML; the message's own HTML is
// only shown inside the sandboxed iframe, served under its own CSP.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const st = { csrf: "", canChange: false, folder: "INBOX", to: "", title: "INBOX", q: "", cursor: "", uid: "", events: null, folders: [] };

  async function api(path, opts) {
    opts = opts || {};
    const init = { method: opts.method || "GET", headers: {}, credentials: "same-origin" };
    if (opts.body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(opts.body);
    }
    if (init.method !== "GET") init.headers["X-CSRF-Token"] = st.csrf;
    const r = await fetch(path, init);
    const data = await r.json().catch(() => ({}));
    if (r.status === 401) { showLogin(); throw new Error("sign in first"); }
    if (!r.ok || data.error) throw new Error((data.error && (data.error.code + ": " + data.error.message)) || ("HTTP " + r.status));
    return data;
  }
  const q = (o) => new URLSearchParams(o).toString();
  function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function button(text, f, cls) { const b = el("button", cls, text); b.type = "button"; b.addEventListener("click", f); return b; }

  function showLogin() { $("app").hidden = true; $("login").hidden = false; if (st.events) { st.events.close(); st.events = null; } $("key").focus(); }

  $("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("login-error").textContent = "";
    const r = await fetch("/ui/login", { method: "POST", body: new URLSearchParams({ key: $("key").value }), credentials: "same-origin" });
    if (!r.ok) { $("login-error").textContent = "That key was refused."; return; }
    $("key").value = "";
    start();
  });
  $("logout").addEventListener("click", async () => { await api("/ui/logout", { method: "POST" }).catch(() => {}); showLogin(); });
  $("menu").addEventListener("click", () => $("side").classList.toggle("open"));
  $("back").addEventListener("click", () => { $("view").hidden = true; st.uid = ""; });
  $("search").addEventListener("submit", (ev) => { ev.preventDefault(); st.q = $("q").value.trim(); loadList(); });
  $("more").addEventListener("click", () => loadList(true));

  async function start() {
    let s;
    try { s = await fetch("/ui/api/session", { credentials: "same-origin" }); } catch (e) { showLogin(); return; }
    if (!s.ok) { showLogin(); return; }
    s = await s.json();
    st.csrf = s.csrf; st.canChange = s.can_change;
    $("title").textContent = s.name;
    $("new-inbox").hidden = !(s.inboxes && s.can_change);
    $("login").hidden = true; $("app").hidden = false;
    await loadFolders();
    await loadInboxes();
    openFolder("INBOX", "", "INBOX");
  }

  async function loadFolders() {
    const d = await api("/ui/api/folders").catch((e) => ({ folders: [], err: e }));
    st.folders = d.folders || [];
    const ul = $("folders"); ul.replaceChildren();
    for (const f of st.folders) {
      if (f.name === "email-mcp-inboxes") continue;
      const li = el("li"); li.dataset.folder = f.name;
      const count = el("span", "count", f.unseen ? f.unseen + " / " + f.messages : String(f.messages ?? ""));
      count.title = "unread / messages";
      li.append(el("span", "", f.name), count);
      li.addEventListener("click", () => openFolder(f.name, "", f.name));
      ul.append(li);
    }
    mark();
  }

  async function loadInboxes() {
    const d = await api("/ui/api/inboxes").catch(() => ({ inboxes: [] }));
    const ul = $("inboxes"); ul.replaceChildren();
    for (const ib of d.inboxes || []) {
      const li = el("li"); li.dataset.to = ib.address;
      li.append(el("span", "", ib.address));
      if (st.canChange) li.append(button("×", async (ev) => {
        ev.stopPropagation();
        if (!confirm("Delete the inbox " + ib.address + "? Its mail moves to Trash.")) return;
        await api("/ui/api/inboxes/delete", { method: "POST", body: { inbox_id: ib.inbox_id } }).catch(alertErr);
        loadInboxes(); loadList();
      }));
      li.addEventListener("click", () => openFolder("INBOX", ib.address, ib.address));
      ul.append(li);
    }
    mark();
  }
  $("new-inbox").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const label = $("inbox-label").value.trim();
    const r = await api("/ui/api/inboxes", { method: "POST", body: { label } }).catch(alertErr);
    $("inbox-label").value = "";
    await loadInboxes();
    if (r && r.address) openFolder("INBOX", r.address, r.address);
  });
  function alertErr(e) { alert(e.message); }

  function mark() {
    for (const li of $("folders").children) li.classList.toggle("on", !st.to && li.dataset.folder === st.folder);
    for (const li of $("inboxes").children) li.classList.toggle("on", li.dataset.to === st.to);
  }

  function openFolder(folder, to, title) {
    const changed = folder !== st.folder || !st.events;
    st.folder = folder; st.to = to; st.title = title; st.q = ""; $("q").value = "";
    $("list-title").textContent = title; $("side").classList.remove("open");
    $("view").hidden = true; mark(); loadList();
    if (changed) watch();
  }

  // watch follows new mail in the folder: server-sent events pushed by the
  // server's IMAP watcher; nothing here polls.
  function watch() {
    if (st.events) st.events.close();
    const es = new EventSource("/ui/api/events?" + q({ folder: st.folder }));
    st.events = es;
    // Once subscribed, load the list again: mail that came before is in it.
    es.onopen = () => { $("live").classList.remove("off"); loadList(); };
    es.onerror = () => $("live").classList.add("off");
    // A burst of mail is one refresh: the page's calls count against the
    // key's rate limit, as the agent's do.
    es.addEventListener("mail", () => {
      if (st.refresh) return;
      st.refresh = setTimeout(() => { st.refresh = 0; loadList(); loadFolders(); }, 400);
    });
  }

  let listSeq = 0;
  async function loadList(more, quiet) {
    const seq = ++listSeq;
    const params = { folder: st.folder };
    if (st.q) params.q = st.q;
    if (st.to) params.to = st.to;
    if (more && st.cursor) params.cursor = st.cursor;
    $("list-error").textContent = "";
    let d;
    try { d = await api("/ui/api/messages?" + q(params)); } catch (e) { $("list-error").textContent = e.message; return; }
    if (seq !== listSeq) return;
    const ul = $("messages");
    if (!more) ul.replaceChildren();
    for (const m of d.messages || []) {
      const li = el("li", m.unread ? "unread" : ""); li.dataset.uid = m.id || String(m.uid);
      const from = el("div", "from"); from.append(el("span", "", m.from || ""), el("span", "", (m.date || "").replace("T", " ").slice(0, 16)));
      li.append(from, el("div", "subj", m.subject || "(no subject)"));
      if (m.has_attachments) li.querySelector(".subj").prepend(el("span", "att", "att"), " ");
      li.addEventListener("click", () => openMessage(li.dataset.uid));
      if (li.dataset.uid === st.uid) li.classList.add("on");
      ul.append(li);
    }
    if (!ul.children.length) ul.append(el("li", "empty", st.q ? "Nothing matches." : "No mail yet: it appears here as it arrives."));
    st.cursor = d.next_cursor || "";
    $("more").hidden = !st.cursor;
    void quiet;
  }

  function copyChip(label, value, conf, extra) {
    const c = el("div", "chip");
    c.append(el("small", "", label), el("code", "", value));
    if (conf !== undefined) c.append(el("small", "", "confidence " + Number(conf).toFixed(2) + (extra ? " · " + extra : "")));
    c.append(button("Copy", async (ev) => {
      try { await navigator.clipboard.writeText(value); ev.target.textContent = "Copied"; } catch (e) { ev.target.textContent = "Select & copy"; }
    }));
    return c;
  }

  async function openMessage(uid) {
    st.uid = uid;
    for (const li of $("messages").children) li.classList.toggle("on", li.dataset.uid === uid);
    $("view-error").textContent = "";
    let m;
    try { m = await api("/ui/api/message?" + q({ folder: st.folder, uid })); } catch (e) { $("view-error").textContent = e.message; $("view").hidden = false; return; }
    $("view").hidden = false;
    $("v-subject").textContent = m.subject || "(no subject)";
    $("v-from").textContent = m.from || ""; $("v-to").textContent = (m.to || []).join ? (m.to || []).join(", ") : String(m.to || "");
    $("v-date").textContent = m.date || "";
    const found = $("found"); found.replaceChildren();
    const f = m.found || {};
    if (f.otp) found.append(copyChip("Code", f.otp, f.otp_confidence));
    if (f.link) found.append(copyChip("Link", f.link, f.link_confidence, f.link_kind));
    const acts = $("actions"); acts.replaceChildren();
    if (st.canChange) {
      const unread = !(m.flags || []).includes("\\Seen");
      acts.append(button(unread ? "Mark read" : "Mark unread", () => act("/ui/api/mark", { folder: st.folder, uid, read: unread }, true)));
      const sel = el("select"); sel.setAttribute("aria-label", "Move to");
      sel.append(new Option("Move to…", ""));
      for (const fo of st.folders) if (fo.name !== st.folder && fo.name !== "email-mcp-inboxes") sel.append(new Option(fo.name, fo.name));
      sel.addEventListener("change", () => sel.value && act("/ui/api/move", { folder: st.folder, uid, to: sel.value }));
      acts.append(sel, button("Delete", () => act("/ui/api/delete", { folder: st.folder, uid }), "danger"));
    }
    $("tab-text").textContent = m.body_text || "";
    $("tab-headers").textContent = m.headers || "";
    const base = q({ folder: st.folder, uid });
    $("raw-link").href = "/ui/raw?" + base;
    $("raw").textContent = "";
    $("frame").src = "/ui/html?" + base;
    $("remote").hidden = false;
    $("remote").onclick = () => { $("frame").src = "/ui/html?" + base + "&remote=1"; $("remote").hidden = true; };
    const atts = $("attachments"); atts.replaceChildren();
    $("att-title").hidden = !(m.attachments || []).length;
    for (const a of m.attachments || []) {
      const li = el("li"); const link = el("a", "", a.filename || ("attachment " + a.index));
      link.href = "/ui/attachment?" + base + "&index=" + a.index; link.download = a.filename || "";
      li.append(link, el("small", "", "  " + (a.content_type || "") + ", " + a.size_bytes + " bytes"));
      atts.append(li);
    }
    tab(m.has_html ? "html" : "text");
  }

  async function act(path, body, stay) {
    try { await api(path, { method: "POST", body }); } catch (e) { $("view-error").textContent = e.message; return; }
    if (!stay) { $("view").hidden = true; st.uid = ""; }
    await loadList(); loadFolders();
    if (stay) openMessage(body.uid);
  }

  function tab(name) {
    for (const b of $("tabs").children) b.classList.toggle("on", b.dataset.tab === name);
    for (const t of ["html", "text", "headers", "raw"]) $("tab-" + t).hidden = t !== name;
    if (name === "raw" && !$("raw").textContent) fetch($("raw-link").href, { credentials: "same-origin" }).then((r) => r.text()).then((t) => { $("raw").textContent = t; });
  }
  for (const b of $("tabs").children) b.addEventListener("click", () => tab(b.dataset.tab));

  start();
})();
