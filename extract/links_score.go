package extract

import (
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Weights of the link score; the score is the logistic of their sum.
const (
	wLinkText     = 3.0 // an action word in the anchor text (times its weight)
	wLinkAgainst  = 2.0 // "Sign out", "This wasn't me" in the anchor text
	wLinkContext  = 1.8 // an action word in the text around the link
	wLinkURL      = 1.5 // an action word in the URL's path or query
	wLinkToken    = 1.0 // a query parameter that carries a secret
	wLinkOpaque   = 0.5 // a long random path segment or value (without a token parameter)
	wLinkButton   = 0.4 // drawn as a button
	wLinkImage    = 0.8 // penalty: an image without text
	wLinkSubject  = 0.5 // an action word in the subject
	wLinkRepeated = 0.3 // the same target more than once
	wLinkSole     = 0.5 // the only link that is not excluded

	minOpaque = 16 // runes of a path segment or value that looks like a token
)

// linkScore maps a score sum to [0,1], rounded to three decimals.
func linkScore(s float64) float64 {
	c := 1 / (1 + math.Exp(-1.5*(s-2)))
	return math.Round(c*1000) / 1000
}

// excludedLink reports links that are never the answer: not http(s),
// images, List-Unsubscribe targets, footer and social links.
func excludedLink(c linkCand, unsub map[string]bool) bool {
	if !isHTTP(c.target) || unsub[c.raw] || unsub[c.target] {
		return true
	}
	for _, h := range linkIndex.find(wordsOf(c.near)) {
		if h.kw.class == lkExclude {
			return true
		}
	}
	return excludedURL(c.target) || c.raw != c.target && excludedURL(c.raw)
}

// pageLink reports a link to a page of the site rather than to a request:
// nothing in it names a user, a request or a secret. Welcome, alert and
// "password changed" mails link to the home page, a sign-in page, a
// settings page or a sign-up page; an action link names its request, as
// every action link of the corpora does (a reset page that asks for the
// address again, "/user/forgot_password", is no reset link).
func pageLink(u *url.URL) bool { return !namesRequest(u) }

// excludedURL reports URLs of footer, social, store, map and image links,
// and links to pages that name no request (pageLink).
func excludedURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return true
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	for _, h := range excludedHosts {
		if hostIs(host, h) {
			return true
		}
	}
	for _, p := range excludedHostPrefixes {
		// A help centre's own sign-up (Zendesk: support.<domain>/
		// verification/email/<token>) carries a secret; its articles do not.
		if strings.HasPrefix(host, p) && !carriesSecret(u) {
			return true
		}
	}
	path := strings.ToLower(u.EscapedPath())
	if isGoogle(host) && strings.HasPrefix(path, "/maps") {
		return true
	}
	for _, ext := range imageExts {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return excludedPath(path+"?"+ownQuery(u)) || pageLink(u)
}

// ownQuery returns a URL's query in lowercase without the values that are
// paths, URLs or addresses themselves: "/verify?next=https://x/privacy",
// "?next=/settings/privacy" and "?email=cookie.lover@x" are no privacy or
// cookie links. Word values (action=unsubscribe) stay.
func ownQuery(u *url.URL) string {
	var b strings.Builder
	for _, p := range rawParams(u.RawQuery) {
		b.WriteString(p.key)
		if v, err := url.QueryUnescape(p.value); err == nil && !strings.ContainsAny(v, "/@") {
			b.WriteString("=" + strings.ToLower(v))
		}
		b.WriteByte('&')
	}
	return b.String()
}

// carriesSecret reports a URL with a token parameter or a long random
// segment or value: a one-time link, not a page.
func carriesSecret(u *url.URL) bool {
	info := urlEvidence(u)
	return info.token || info.opaque
}

func excludedPath(path string) bool {
	for _, w := range excludedURLWords {
		if strings.Contains(path, w) {
			return true
		}
	}
	for seg := range strings.FieldsFuncSeq(path, func(r rune) bool { return r == '/' || r == '?' }) {
		if excludedSegments[seg] {
			return true
		}
	}
	return false
}

// scoreLink returns the score sum of one occurrence and its Link (without
// the final score).
func scoreLink(c linkCand, subject float64) (float64, Link) {
	votes := map[string]float64{}
	own := linkIndex.find(wordsOf(c.own))
	ctx := linkIndex.find(wordsOf(c.context))
	text, around := wLinkText, wLinkContext
	if c.inline {
		text = wLinkContext // a name inside a sentence, not a label
	}
	if referenceLabel(c.own) {
		around = wLinkContext / 2 // "DSGN-142": the words around name the thing it is
	}
	s := text*actionWeight(own) - wLinkAgainst*againstWeight(own) + around*actionWeight(ctx) -
		wLinkContext/2*againstWeight(notInURL(ctx, c.target))
	vote(votes, own, 3)
	vote(votes, ctx, 1)
	info := urlInfo{}
	u, err := url.Parse(c.target)
	if err == nil {
		info = urlEvidence(u)
	}
	for k, n := range info.votes {
		votes[k] += 2 * n
	}
	s += info.score() + subject*wLinkSubject

	if c.button {
		s += wLinkButton
	}
	if c.image {
		s -= wLinkImage
	}
	label := c.own
	if label == "" {
		label = c.context
	}
	return s, Link{URL: c.target, Text: label, Kind: kindOf(votes, info.token || info.opaque, c.own+" "+c.context)}
}

// wordsOf returns the text around a link, normalized, without the URLs in
// it: a URL written as its own anchor text, or beside another, is no
// sentence ("https://help.example.test/pwreset.php?token=…" says neither
// "help" nor "reset" as words do).
func wordsOf(s string) []rune {
	urls := findURLs(s)
	if len(urls) == 0 {
		return normalizeRunes([]rune(s))
	}
	var b strings.Builder
	prev := 0
	for _, u := range urls {
		b.WriteString(s[prev:u.start])
		b.WriteByte(' ')
		prev = u.end
	}
	b.WriteString(s[prev:])
	return normalizeRunes([]rune(b.String()))
}

// actionWeight is the weight of the strongest action word among hits,
// againstWeight that of the strongest word against.
func actionWeight(hits []hit) float64  { return strongest(hits, lkAction) }
func againstWeight(hits []hit) float64 { return strongest(hits, lkAgainst) }

func strongest(hits []hit, class kwClass) float64 {
	best := 0.0
	for _, h := range hits {
		if h.kw.class == class {
			best = max(best, h.kw.weight)
		}
	}
	return best
}

// referenceLabel reports an anchor text that is an identifier: an issue
// or ticket key ("DSGN-142", "ENG-7", "#1234"). Such a link opens the
// thing a notification is about; the title around it ("Login form loses
// focus after a failed sign-in") asks for nothing.
func referenceLabel(s string) bool {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	letters, digits, dash := 0, 0, false
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') && digits == 0 && !dash:
			letters++
		case r == '-' && i > 0 && digits == 0 && !dash:
			dash = true
		default:
			return false
		}
	}
	return digits > 0 && letters <= 10 && (letters == 0) == !dash
}

// notInURL drops the hits whose word the URL itself holds: the text
// around a link that speaks of cancelling, when the link is ".../cancel/
// confirm/…" (Drupal's account cancellation), speaks of what the link
// does, not of another action.
func notInURL(hits []hit, target string) []hit {
	lower := strings.ToLower(target)
	var out []hit
	for _, h := range hits {
		if h.kw.class != lkAgainst || !strings.Contains(lower, "/"+string(h.kw.word)) {
			out = append(out, h)
		}
	}
	return out
}

func vote(votes map[string]float64, hits []hit, w float64) {
	for _, h := range hits {
		if h.kw.class == lkAction && h.kw.kind != KindOther {
			votes[h.kw.kind] += w * h.kw.weight
		}
	}
}

// urlInfo is what a URL says about itself.
type urlInfo struct {
	action string             // kind of the first action word, "" when none
	votes  map[string]float64 // action words by kind
	token  bool               // a query parameter carries a secret
	opaque bool               // a long random-looking segment or value
}

func (i urlInfo) score() float64 {
	s := 0.0
	if i.action != "" {
		s += wLinkURL
	}
	switch {
	case i.token:
		s += wLinkToken
	case i.opaque:
		s += wLinkOpaque
	}
	return s
}

// urlEvidence reads the words of a URL's path, query keys and query values
// that are not URLs themselves.
func urlEvidence(u *url.URL) urlInfo {
	info := urlInfo{votes: map[string]float64{}, token: hasTokenParam(u)}
	parts := []string{u.Path}
	parts = info.queryParts(parts, u.RawQuery)
	if f, ok := fragmentRoute(u); ok {
		// An app route in the fragment: "/#/verify-email/?token=…".
		info.token = info.token || hasTokenParam(f)
		parts = info.queryParts(append(parts, f.Path), f.RawQuery)
	}
	for i, part := range parts {
		info.opaque = info.opaque || opaqueWords(part)
		words := urlWordsOf(part)
		if i == 0 && slices.Contains(words, "token") {
			info.token = true // a handler of tokens: Bugzilla's /token.cgi?t=…
		}
		for i, w := range words {
			info.addWord(w)
			if i > 0 {
				info.addWord(words[i-1] + w)
			}
		}
	}
	return info
}

// urlWordsOf splits a part of a URL into lowercase words: at every
// character that is no ASCII letter or digit, and at a lowercase letter
// followed by a capital ("entryPoint=changePassword",
// "pendingInvitation"). A compound in one word ("/changepassword",
// "/verifyemail") also gives the action word it starts or ends with.
func urlWordsOf(part string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			w := strings.ToLower(part[start:end])
			words = append(words, w)
			if a := compoundAction(w); a != "" {
				words = append(words, a)
			}
		}
		start = -1
	}
	for i := 0; i < len(part); i++ {
		c := part[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case !alnum:
			flush(i)
		case start < 0:
			start = i
		case c >= 'A' && c <= 'Z' && part[i-1] >= 'a' && part[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(part))
	return words
}

// compoundActions are the action words a compound of a URL may start or
// end with.
var compoundActions = []string{"password", "verification", "verify", "confirmation", "confirm",
	"activation", "activate", "reset", "login", "signin", "recovery", "recover", "unlock", "enroll"}

// compoundAction returns the action word that a word of nine letters or
// more, itself no URL word, starts or ends with, or "".
func compoundAction(w string) string {
	if len(w) < 9 || urlWords[w] != "" {
		return ""
	}
	for _, a := range compoundActions {
		if strings.HasPrefix(w, a) || strings.HasSuffix(w, a) {
			return a
		}
	}
	return ""
}

// queryParts appends the keys of a raw query, and its values that are not
// URLs themselves.
func (i *urlInfo) queryParts(parts []string, rawQuery string) []string {
	for _, p := range rawParams(rawQuery) {
		parts = append(parts, p.key)
		if v, err := url.QueryUnescape(p.value); err == nil && !strings.Contains(v, "://") {
			parts = append(parts, v)
		}
	}
	return parts
}

// fragmentRoute returns the route of a single-page app that a URL holds in
// its fragment ("#/auth/confirm/<token>", "#/verify?token=…", and without
// the leading slash "#password_reset_verify/<token>" as Zammad writes it),
// if any. A fragment without a slash ("#section-2") is no route.
func fragmentRoute(u *url.URL) (*url.URL, bool) {
	route := strings.TrimPrefix(u.Fragment, "!")
	switch {
	case strings.HasPrefix(route, "/"):
	case route != "" && unicode.IsLetter(rune(route[0])) && strings.Contains(route, "/"):
		route = "/" + route
	default:
		return nil, false
	}
	f, err := url.Parse(route)
	if err != nil {
		return nil, false
	}
	return f, true
}

func (i *urlInfo) addWord(w string) {
	if k, ok := urlWords[w]; ok {
		if i.action == "" {
			i.action = k
		}
		i.votes[k]++
	}
}

// namesRequest reports a URL that names a user, a request or a secret: a
// token parameter, a path segment or query value (other than utm_*) with
// a digit or of 16 bytes or more, as ids, keys and tokens are, or a query
// value of three runes or more that is no path, of a key that does more
// than steer the page (navigationParam). An e-mail address names no
// request: Odoo's "/web/login?auth_login=alice@…" is a sign-in page.
func namesRequest(u *url.URL) bool {
	if f, ok := fragmentRoute(u); ok && namesRequest(f) {
		return true
	}
	for seg := range strings.SplitSeq(u.EscapedPath(), "/") {
		if idLike(seg) {
			return true
		}
	}
	for _, p := range rawParams(u.RawQuery) {
		k := strings.ToLower(p.key)
		if tokenParams[k] || strings.Contains(k, "token") {
			return true
		}
		if p.value == "" || strings.HasPrefix(k, "utm_") {
			continue
		}
		v, err := url.QueryUnescape(p.value)
		if err == nil && strings.Contains(v, "@") {
			continue // an address names the user, not a request: a sign-in form filled in
		}
		if err != nil {
			v = p.value
		}
		if idLike(v) { // decoded: the digits of "%2F" are no id ("?r=user%2Fpassword-recovery")
			return true
		}
		if err == nil && !navigationParam(k) && !strings.Contains(v, "/") && utf8.RuneCountInString(v) >= 3 {
			return true
		}
	}
	return false
}

// idLike reports a path segment or query value with a digit, or of 16
// bytes or more that are not lowercase words joined by dashes, dots or
// underscores ("registration_applications" and Odoo's
// "action-auth_totp_mail.action_activate_two_factor_authentication" are
// pages, "kQvRmXpLtZwBnYcD" is a key).
func idLike(p string) bool {
	if strings.ContainsAny(p, "0123456789") {
		return !routeWord(p)
	}
	if randomCase(p) {
		return true // Mailtrain's ".../subscribe/QwRtYuKpLm"
	}
	if len(p) < minOpaque {
		return false
	}
	words := strings.FieldsFunc(p, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	if len(words) < 2 {
		return true
	}
	for _, w := range words {
		if len(w) > 16 || strings.ToLower(w) != w {
			return true
		}
	}
	return false
}

// randomCase reports a segment of 8 letters or more with three capitals
// or more and three small letters or more: a key in letters only, where
// a camel-case name ("changePassword") has one or two capitals.
func randomCase(p string) bool {
	upper, lower := 0, 0
	for _, r := range p {
		switch {
		case r >= 'A' && r <= 'Z':
			upper++
		case r >= 'a' && r <= 'z':
			lower++
		default:
			return false
		}
	}
	return upper+lower >= 8 && upper >= 3 && lower >= 3
}

// routeWord reports the segments with digits that name a route, not a
// request: an API version ("/auth/v1/account", "v2.1") or a word such as
// "2fa" and "oauth2".
func routeWord(p string) bool {
	switch strings.ToLower(p) {
	case "2fa", "oauth2":
		return true
	}
	if len(p) < 2 || p[0] != 'v' && p[0] != 'V' {
		return false
	}
	for _, r := range p[1:] {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return p[1] != '.'
}

// navigationParam reports query keys that choose a page, how it shows,
// where it leads next or where the visit came from: "?action=reminder",
// "?lang=de", "?tab=security", "?next=/inbox", "?utm_source=mail". Their
// values name no request.
func navigationParam(k string) bool {
	if strings.HasPrefix(k, "utm_") || strings.HasPrefix(k, "mc_") {
		return true
	}
	switch k {
	case "lang", "locale", "hl", "language", "next", "redirect", "redirect_to", "redirect_uri", "return",
		"return_to", "returnto", "returnurl", "continue", "ref", "source", "src", "from", "tab", "view",
		"page", "sort", "order", "filter", "q", "theme", "mode", "section", "campaign", "medium",
		"action", "do", "cmd", "op", "route", "controller", "module", "task", "option", "layout", "site":
		return true
	}
	return false
}

// opaqueWords reports a run of letters and digits long and mixed enough to
// be a token.
func opaqueWords(s string) bool {
	for w := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '/' || r == '.' || r == '=' }) {
		if len(w) >= minOpaque && strings.ContainsAny(w, "0123456789") &&
			strings.ContainsFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) {
			return true
		}
	}
	return false
}

// kindOf picks the kind with the most votes. "magic" wins when named, a
// login link that carries a secret (a token parameter or a long random
// value) is a magic link, and a confirmation of an e-mail address is a
// verification.
func kindOf(votes map[string]float64, secret bool, text string) string {
	if votes[KindMagic] > 0 {
		return KindMagic
	}
	best, kind := 0.0, KindOther
	for _, k := range []string{KindReset, KindLogin, KindVerify, KindConfirm} {
		if votes[k] > best {
			best, kind = votes[k], k
		}
	}
	switch {
	case kind == KindLogin && secret:
		return KindMagic
	case kind == KindConfirm && mentionsEmail(text):
		return KindVerify
	}
	return kind
}

func mentionsEmail(text string) bool {
	t := strings.ToLower(text)
	for _, w := range []string{"email", "e-mail", "adresse", "address", "correo", "courriel", "endereço"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}
