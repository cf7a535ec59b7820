package extract

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/message"
)

// Link is an action link found in a message: a magic link, an e-mail
// verification, a password reset. It is never fetched.
type Link struct {
	URL   string  // entities decoded; a click-tracking wrapper unwrapped when its target is inside
	Text  string  // anchor text; for a URL in plain text, the text before it
	Score float64 // in [0,1]; the same message always gives the same value
	Kind  string  // KindVerify, KindLogin, KindReset, KindConfirm, KindMagic or KindOther
}

// Links returns the action links of a message, best first, those scoring
// at least FoundThreshold. It reads <a href> links of the HTML body and
// bare URLs of the text body, and never returns unsubscribe, privacy,
// preferences, help, social, app store, image, mailto: or tel: links, nor
// any target of the List-Unsubscribe header.
func Links(m Message) []Link {
	cands := collectLinks(m)
	subject := actionWeight(linkIndex.find(normalizeRunes([]rune(m.Subject))))
	unsub := unsubscribeTargets(m)
	merged := mergeLinks(cands, unsub, subject)
	var out []Link
	for _, l := range merged {
		if l.Score >= FoundThreshold {
			out = append(out, l)
		}
	}
	return out
}

// BestLink returns the most likely action link of a message.
func BestLink(m Message) (Link, bool) {
	all := Links(m)
	if len(all) == 0 {
		return Link{}, false
	}
	return all[0], true
}

// linkCand is one occurrence of a URL in a message.
type linkCand struct {
	raw     string // as written (entities decoded)
	target  string // raw, unwrapped
	own     string // anchor text, or the text beside a bare URL on its line
	near    string // the words that may exclude it: the anchor text, or a bare URL's sentence
	context string // the text around it: the rest of its line, or the line before
	image   bool   // an image link without text
	button  bool   // styled as a button
	inline  bool   // an anchor inside a sentence, words on its line before and after it
}

// maxLinks bounds the link occurrences read from one message. Newsletters
// hold a few hundred; the bound keeps crafted input from costing more.
const maxLinks = 1000

// collectLinks returns the http(s) URLs of the HTML and text bodies, in
// document order, HTML first, at most maxLinks of them.
func collectLinks(m Message) []linkCand {
	var out []linkCand
	if m.HTML != "" {
		r := render(m.HTML)
		for _, a := range r.anchors {
			if len(out) == maxLinks {
				return out
			}
			if isHTTP(a.Href) {
				out = append(out, linkCand{
					raw: a.Href, target: unwrap(a.Href), own: a.Text, near: a.Text,
					context: contextOf(r.text, a.Start, a.Outer, r.anchors),
					image:   a.Image, button: a.Button, inline: inlineAnchor(r.text, a.Start, a.Outer, r.anchors),
				})
			}
		}
		out = textLinks(out, r.text, r.anchors)
	}
	return textLinks(out, m.Text, nil)
}

// textLinks appends the bare URLs of a text to out, up to maxLinks in all,
// skipping those that render an anchor's target. A URL's own words are
// those on its line since the URL before it, and after it only when no
// other URL follows on the line: in "sign in: URL1 or unsubscribe at URL2"
// the words before a URL label it, so "unsubscribe" belongs to URL2 only.
func textLinks(out []linkCand, text string, anchors []message.HTMLLink) []linkCand {
	urls := findURLs(text)
	quotes := quotedLines(text)
	for i, u := range urls {
		if len(out) >= maxLinks {
			break
		}
		if inAnchor(u.start, anchors) || inRanges(u.start, quotes) {
			continue
		}
		left, right := lineStart(text, u.start), lineEnd(text, u.end)
		if i > 0 && urls[i-1].end > left && urls[i-1].end <= u.start {
			left = urls[i-1].end
		}
		if i+1 < len(urls) && urls[i+1].start < right && urls[i+1].start >= u.end {
			right = u.end
		}
		before, after := stripRanges(text, left, u.start, anchors), stripRanges(text, u.end, right, anchors)
		own := label(before + " " + after)
		if !hasLetter(own) {
			own = ""
		}
		ctx := own
		if ctx == "" {
			ctx = prevLine(text, lineStart(text, u.start), anchors)
		}
		near := own
		if nb, na := lastSentence(before), firstSentence(after); len(nb) < len(before) || len(na) < len(after) {
			near = label(nb + " " + na)
		}
		// "&amp;" in a URL of plain text is an ampersand escaped for HTML
		// (Moodle sends its HTML as the text part too, Matomo escapes it).
		raw := strings.ReplaceAll(u.url, "&amp;", "&")
		out = append(out, linkCand{raw: raw, target: unwrap(raw), own: own, near: near, context: ctx})
	}
	return out
}

// lastSentence returns the end of s after its last sentence end, and
// firstSentence the start of s up to its first: on a long line (HTML
// textified into one line) the words that may exclude a bare URL are those
// of its own sentence, not "please contact us" two sentences on.
func lastSentence(s string) string {
	for i := len(s) - 1; i > 0; i-- {
		if unicode.IsSpace(rune(s[i])) && isSentenceEnd(rune(s[i-1])) {
			return s[i:]
		}
	}
	return s
}

func firstSentence(s string) string {
	for i := 1; i < len(s); i++ {
		if unicode.IsSpace(rune(s[i])) && isSentenceEnd(rune(s[i-1])) {
			return s[:i]
		}
	}
	return s
}

// inRanges reports whether pos falls in one of the sorted ranges rs.
func inRanges(pos int, rs []runeRange) bool {
	i, _ := slices.BinarySearchFunc(rs, pos+1, func(r runeRange, p int) int { return cmp.Compare(r.e, p) })
	return i < len(rs) && rs[i].s <= pos
}

func inAnchor(pos int, anchors []message.HTMLLink) bool {
	i := firstAnchorAfter(pos, anchors)
	return i < len(anchors) && anchors[i].Start <= pos
}

// firstAnchorAfter returns the index of the first anchor that ends after
// byte offset pos; anchors are in text order and do not overlap.
func firstAnchorAfter(pos int, anchors []message.HTMLLink) int {
	i, _ := slices.BinarySearchFunc(anchors, pos+1, func(a message.HTMLLink, p int) int { return cmp.Compare(a.Outer, p) })
	return i
}

// contextOf returns the text on the line of [s, e) without any link text,
// or the line before when the link stands alone on its line.
func contextOf(text string, s, e int, anchors []message.HTMLLink) string {
	ctx := label(stripRanges(text, lineStart(text, s), s, anchors) + " " +
		stripRanges(text, e, lineEnd(text, e), anchors))
	if hasLetter(ctx) {
		return ctx
	}
	return prevLine(text, lineStart(text, s), anchors)
}

// inlineAnchor reports an anchor with words before and after it on its
// line: a reference inside a sentence ("Carol mentioned you in <a>SSO
// login for contractors</a> on <a>Ops</a>"), whose text names a thing,
// where an action link stands as a line or a button of its own.
func inlineAnchor(text string, s, e int, anchors []message.HTMLLink) bool {
	return hasLetter(stripRanges(text, lineStart(text, s), s, anchors)) &&
		hasLetter(stripRanges(text, e, lineEnd(text, e), anchors))
}

// maxContext bounds the bytes of context taken on each side of a link.
const maxContext = 200

// lineStart returns the start of the line holding byte offset i, looking
// back maxContext bytes at most.
func lineStart(text string, i int) int {
	lo := runeStart(text, i-maxContext)
	return lo + strings.LastIndexByte(text[lo:i], '\n') + 1
}

// lineEnd returns the end of the line holding byte offset i, looking ahead
// maxContext bytes at most.
func lineEnd(text string, i int) int {
	hi := max(i, runeStart(text, min(len(text), i+maxContext)))
	if le := strings.IndexByte(text[i:hi], '\n'); le >= 0 {
		return i + le
	}
	return hi
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(text string, i int) int {
	i = max(0, i)
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}

// maxPrevLines bounds how many lines prevLine looks back.
const maxPrevLines = 4

// prevLine returns the last line with letters before offset ls, looking
// back a few lines at most.
func prevLine(text string, ls int, anchors []message.HTMLLink) string {
	for i, end := 0, ls-1; end > 0 && i < maxPrevLines; i++ {
		start := lineStart(text, end)
		if line := label(stripRanges(text, start, end, anchors)); hasLetter(line) {
			// Its paragraph: a text wrapped at 72 columns puts "cancel" one
			// line above "this request, visit the following link:".
			for start >= 2 && text[start-2] != '\n' && text[start-2] != '\r' && end-start < maxContext {
				start = lineStart(text, start-1)
			}
			return label(lastSentence(label(stripRanges(text, start, end, anchors))))
		}
		end = start - 1
	}
	return ""
}

// stripRanges returns text[s:e] without the anchors' text and targets.
func stripRanges(text string, s, e int, anchors []message.HTMLLink) string {
	var b strings.Builder
	for _, a := range anchors[firstAnchorAfter(s, anchors):] {
		if a.Start >= e {
			break
		}
		if a.Start > s {
			b.WriteString(text[s:a.Start])
		}
		s = max(s, a.Outer)
	}
	if s < e {
		b.WriteString(text[s:e])
	}
	return b.String()
}

// label collapses the whitespace of a text around a link and trims the
// punctuation that led to the link or followed it.
func label(s string) string {
	return strings.Trim(strings.Join(strings.Fields(s), " "), " :.,;!?-–—|·•()<>[]")
}

func hasLetter(s string) bool {
	return strings.ContainsFunc(s, unicode.IsLetter)
}

// unsubscribeTargets returns the URLs of the List-Unsubscribe header.
func unsubscribeTargets(m Message) map[string]bool {
	out := map[string]bool{}
	for _, v := range m.header("List-Unsubscribe") {
		for part := range strings.SplitSeq(v, ",") {
			part = strings.TrimSpace(part)
			part = strings.TrimSuffix(strings.TrimPrefix(part, "<"), ">")
			if part = cleanHref(part); part != "" {
				out[part] = true
			}
		}
	}
	return out
}

// scoredLink is one target with its best occurrence.
type scoredLink struct {
	link  Link
	score float64 // score sum of the best occurrence
	count int     // occurrences
}

// mergeLinks scores the candidates and lists each target once, best first.
// A target excluded anywhere (say, also named by List-Unsubscribe, or also
// the target of an "Unsubscribe" anchor) is excluded everywhere.
func mergeLinks(cands []linkCand, unsub map[string]bool, subject float64) []Link {
	excluded := map[string]bool{}
	for _, c := range cands {
		if excludedLink(c, unsub) {
			excluded[sameTarget(c.target)] = true
		}
	}
	byURL := map[string]*scoredLink{}
	var order []*scoredLink
	for _, c := range cands {
		key := sameTarget(c.target)
		if excluded[key] {
			continue
		}
		s, l := scoreLink(c, subject)
		e, ok := byURL[key]
		if !ok {
			e = &scoredLink{link: l, score: s}
			byURL[key] = e
			order = append(order, e)
		} else if s > e.score {
			first := e.link.URL // the HTML's href, which a click follows, before the text's copy
			e.link, e.score = l, s
			e.link.URL = first
		}
		e.count++
	}
	return rank(dropPrefixes(order))
}

// sameTarget returns the form two occurrences of one link share: the query
// with the percent-escapes of characters a query may hold as they are
// decoded, and the others in upper case. HumHub's HTML writes
// "?r=user%2Fpassword-recovery%2Freset&token=…", its text part
// "?r=user/password-recovery/reset&token=…": one link, not two.
func sameTarget(s string) string {
	i := strings.IndexByte(s, '?')
	if i < 0 || !strings.Contains(s[i:], "%") {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for q, j := s[i:], 0; j < len(q); j++ {
		c, ok := escapedByte(q, j)
		switch {
		case !ok:
			b.WriteByte(q[j])
			continue
		case c < 0x80 && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || strings.IndexByte("-._~/:@!$'()*,;", c) >= 0):
			b.WriteByte(c)
		default:
			b.WriteString(strings.ToUpper(q[j : j+3]))
		}
		j += 2
	}
	return b.String()
}

// escapedByte returns the byte that a percent-escape at q[j] stands for.
func escapedByte(q string, j int) (byte, bool) {
	if q[j] != '%' || j+2 >= len(q) {
		return 0, false
	}
	n, err := strconv.ParseUint(q[j+1:j+3], 16, 8)
	return byte(n), err == nil
}

// dropPrefixes removes the links whose URL another link's URL extends by
// more path or parameters: "index.php?action=activate;u=73" is the form
// where the code is typed in, "…;u=73;code=8f3a1c9e2b" the action (SMF),
// "/reset" the page that asks for the token "/reset?token=…" carries. In
// sorted order the URLs that extend one follow it at once.
func dropPrefixes(links []*scoredLink) []*scoredLink {
	sorted := slices.Clone(links)
	slices.SortFunc(sorted, func(a, b *scoredLink) int { return strings.Compare(a.link.URL, b.link.URL) })
	shorter := map[*scoredLink]bool{}
	for i := 0; i+1 < len(sorted); i++ {
		p, next := sorted[i].link.URL, sorted[i+1].link.URL
		if len(next) > len(p) && strings.HasPrefix(next, p) && strings.ContainsRune(";&?/#", rune(next[len(p)])) {
			shorter[sorted[i]] = true
		}
	}
	return slices.DeleteFunc(links, func(l *scoredLink) bool { return shorter[l] })
}

// rank adds the bonuses that depend on the whole message, maps the sums to
// scores and sorts best first, keeping document order between equals.
func rank(targets []*scoredLink) []Link {
	out := make([]Link, 0, len(targets))
	for _, e := range targets {
		s := e.score
		if e.count > 1 {
			s += wLinkRepeated
		}
		if len(targets) == 1 {
			s += wLinkSole
			if u, err := url.Parse(e.link.URL); err == nil && hasTokenParam(u) {
				s += wLinkSole // the one link a mail offers, and it carries a token
			}
		}
		e.link.Score = linkScore(s)
		out = append(out, e.link)
	}
	slices.SortStableFunc(out, func(a, b Link) int { return cmp.Compare(b.Score, a.Score) })
	return out
}
