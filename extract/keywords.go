package extract

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// kwClass says what a keyword near a number tells about it.
type kwClass uint8

const (
	kwCode    kwClass = iota + 1 // the number is a one-time code: "verification code"
	kwOther                      // the number is something else: "order", "postal code"
	kwDate                       // the number is (part of) a date: month names, "©"
	kwUnit                       // the number counts something: "USD", "points"
	kwNeutral                    // says nothing of a number, and keeps a shorter keyword from matching: "email address"
)

// keyword is one entry of a keyword table, lowercase, with '-' for every dash
// and ' ' for every space.
type keyword struct {
	word     []rune
	class    kwClass
	weight   float64 // 0 < weight <= 1: how strongly the keyword speaks
	compound bool    // may end a longer word, as German "Bestätigungs|code"
	kind     string  // for link keywords: the Link.Kind they suggest
}

// kwGroup lists keywords of one class and weight, separated by '|'. A word
// with a leading '~' may end a compound word.
type kwGroup struct {
	class  kwClass
	weight float64
	words  string
	kind   string
}

// otpKeywords are the words around a number that tell whether it is a code,
// in English, Spanish, German, French, Portuguese, Italian and a few more.
// Compounds that name other codes ("postal code", "código promocional") are
// listed as kwOther: the longest match wins, so they override "code".
var otpKeywords = []kwGroup{
	{class: kwCode, weight: 1, words: "verification code|verify code|security code|login code|log-in code|log in code|sign-in code|" +
		"sign in code|signin code|confirmation code|access code|authentication code|auth code|one-time|one time|" +
		"otp|passcode|pin|pin code|2fa|mfa|two-factor|two factor|2-step|two-step|temporary code|" +
		"single-use code|your code|this code|the code|sign in token|sign-in token|" +
		"login token|log-in token|the following token|this token|your token"},
	{class: kwCode, weight: 0.9, words: "invitation code|invite code|~einladungscode|code d'invitation|" +
		"código de invitación|código de convite|codice di invito|~code|codes|código|codigo|códigos|codice|kode|kod|код|verification|verificación|verificação|" +
		"vérification|verifica|verificatie|~bestätigungscode|~sicherheitscode|~verifizierungscode|~anmeldecode|" +
		"~zugangscode|~einmalcode|~prüfcode|einmalpasswort|einmal-passwort|einmalkennwort|tan|clave|" +
		"contraseña de un solo uso|mot de passe à usage unique|senha de uso único|~verificatiecode|~beveiligingscode|~inlogcode|" +
		"验证码|驗證碼|校验码|校驗碼|动态码|動態碼|确认码|確認碼|登录码|安全码|認証コード|確認コード|" +
		"ワンタイムパスワード|ワンタイムコード|セキュリティコード|認証番号|인증번호|인증 번호|인증코드|인증 코드|" +
		"확인 코드|확인코드|보안 코드|보안코드|일회용 비밀번호|رمز التحقق|رمز التأكيد|رمز الأمان|رمز الدخول|" +
		"رمز التفعيل|كود التفعيل|رمز|код подтверждения|проверочный код|одноразовый пароль|doğrulama kodu|" +
		"doğrulama kodunuz|kodunuz|onay kodu|onay kodunuz|güvenlik kodu|güvenlik kodunuz|giriş kodu|giriş kodunuz|" +
		"tek kullanımlık şifre|kod weryfikacyjny|コード|ログインコード|セキュリティ コード"},
	{class: kwCode, weight: 0.6, words: "verify|sign in|sign-in|log in|log-in|login|authenticate|authentication|verificar|" +
		"iniciar sesión|anmelden|anmeldung|bestätigen|vérifier|connexion|se connecter|entrar|acessar|accedi|" +
		"enter|introduce|ingresa|eingeben|saisissez|digite|insira|inserisci"},
	{class: kwCode, weight: 0.9, words: "reset token|password reset token|your reset token|votre jeton|jeton de réinitialisation|" +
		"リセット用のトークン|パスワードリセット用のトークン|token de restablecimiento|token de redefinição"},
	{class: kwCode, weight: 0.5, words: "expires|expire|expira|expiran|caduca|gültig|valid for|valable|válido|valido|有效|유효"},
	{class: kwOther, weight: 1, words: "temporary password|contraseña temporal|mot de passe temporaire|" +
		"senha temporária|temporäres passwort|order|order number|order no|invoice|inv|receipt|reference|ref|ticket|case|claim|tracking|" +
		"tracking number|shipment|parcel|package|account number|account no|account id|acct|customer|" +
		"customer number|customer id|member|member id|membership|user id|login id|id|flight|gate|seat|row|room|" +
		"booking|reservation|confirmation number|itinerary|zip|zip code|~zipcode|postal code|~postcode|" +
		"post code|address|street|st|ave|avenue|road|rd|suite|apt|ship to|phone|tel|telephone|call|fax|mobile|" +
		"build|version|release|status code|error code|error|http|port|ending in|ends in|card|visa|" +
		"mastercard|amex|iban|sku|item|model|serial|isbn|issue|pull request|commit|page|no.|nr.|qr code|" +
		"qr-code|qr|bar code|~barcode|promo code|~promocode|promo|promotion code|discount code|coupon|" +
		"coupon code|voucher|gift card|referral code|referral|country code|" +
		"area code|source code|dress code|meeting passcode|meeting password|meeting code|webinar passcode|" +
		"wifi password|wi-fi password|door code|gate code|tracking code|product code|booking code|sort code|customer code|" +
		"client code|branch code|bank code|swift code|bic|routing number|tax code|account code|course code|" +
		"total|amount|price|" +
		"balance|step|bestellung|~bestellnummer|rechnung|~rechnungsnummer|~kundennummer|~auftragsnummer|" +
		"auftrag|~sendungsnummer|~vorgangsnummer|~buchungsnummer|telefon|tel.|straße|str.|postleitzahl|plz|" +
		"gutschein|~gutscheincode|~rabattcode|~aktionscode|~fehlercode|~statuscode|~kontonummer|" +
		"betrag|summe|pedido|número de pedido|factura|recibo|referencia|teléfono|dirección|calle|" +
		"código postal|codigo postal|código promocional|código de descuento|código de barras|" +
		"código de referido|cupón|número de cuenta|importe|commande|numéro de commande|facture|reçu|référence|" +
		"téléphone|tél|adresse|rue|code postal|code promo|code de réduction|code de parrainage|code-barres|" +
		"numéro de compte|montant|encomenda|fatura|nota fiscal|referência|telefone|endereço|rua|cep|" +
		"código de desconto|código de indicação|cupom|número da conta|ordine|fattura|riferimento|telefono|indirizzo|" +
		"codice postale|codice sconto|codice promozionale|importo|qrコード|バーコード|クーポンコード|" +
		"プロモーションコード|郵便番号|注文番号"},
	{class: kwOther, weight: 0.5, words: "number|no|nummer|número|numéro|numero|nº|n°"},
	{class: kwNeutral, weight: 1, words: "email address|e-mail address|mail address|email-adresse|e-mail-adresse|" +
		"adresse e-mail|adresse email|adresse électronique|dirección de correo|endereço de e-mail|endereço de email"},
	{class: kwDate, weight: 1, words: "©|(c)|copyright|since|year|years|january|february|march|april|may|june|july|august|" +
		"september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|enero|febrero|" +
		"marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|januar|februar|märz|" +
		"juni|juli|oktober|dezember|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|" +
		"novembre|décembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro|" +
		"año|jahr|année|ano"},
	{class: kwUnit, weight: 1, words: "usd|eur|gbp|chf|jpy|brl|mxn|dollars|euros|euro|reais|pesos|points|pts|miles|km|kg|lbs|" +
		"items|people|users|members|subscribers|downloads|views|followers|features|%|percent|" +
		"sec|secs|seconds|ms|milliseconds|minutes|mins|hours|hrs|days|segundos|minutos|sekunden|minuten|secondes"},
}

// keywordIndex finds keywords in a lowercase rune text. Keywords are kept
// by first rune, longest first.
type keywordIndex struct {
	ascii [utf8.RuneSelf][]keyword
	other map[rune][]keyword
}

var otpIndex = buildIndex(otpKeywords)

func buildIndex(groups []kwGroup) *keywordIndex {
	idx := &keywordIndex{other: map[rune][]keyword{}}
	for _, g := range groups {
		for w := range strings.SplitSeq(g.words, "|") {
			compound := strings.HasPrefix(w, "~")
			rs := []rune(normalizeText(strings.TrimPrefix(w, "~")))
			kw := keyword{word: rs, class: g.class, weight: g.weight, compound: compound, kind: g.kind}
			if r := rs[0]; r < utf8.RuneSelf {
				idx.ascii[r] = append(idx.ascii[r], kw)
			} else {
				idx.other[r] = append(idx.other[r], kw)
			}
		}
	}
	byLength := func(a, b keyword) int { return cmp.Compare(len(b.word), len(a.word)) }
	for i := range idx.ascii {
		slices.SortStableFunc(idx.ascii[i], byLength)
	}
	for r := range idx.other {
		slices.SortStableFunc(idx.other[r], byLength)
	}
	return idx
}

// starting returns the keywords that start with r.
func (idx *keywordIndex) starting(r rune) []keyword {
	if r < utf8.RuneSelf {
		return idx.ascii[r]
	}
	if len(idx.other) == 0 || !unicode.IsLetter(r) && !unicode.IsSymbol(r) && !unicode.IsPunct(r) {
		return nil
	}
	return idx.other[r]
}

// hit is one keyword found in a text, by rune range.
type hit struct {
	start, end int
	kw         *keyword
}

// find returns the keywords of a lowercase text, left to right. Where
// matches overlap, the one that starts first wins, and at one start the
// longest; a match inside an earlier one is dropped.
func (idx *keywordIndex) find(lower []rune) []hit {
	var hits []hit
	covered := 0
	for i, r := range lower {
		list := idx.starting(r)
		for k := range list {
			kw := &list[k]
			end := i + len(kw.word)
			if end <= covered || !matchAt(lower, i, kw) {
				continue
			}
			hits = append(hits, hit{start: i, end: end, kw: kw})
			covered = end
			break
		}
	}
	return hits
}

// matchAt reports whether kw occurs at lower[i:] as a word of its own (or as
// the end of a compound word, where allowed). Word boundaries count only
// between letters of scripts that separate words with spaces.
func matchAt(lower []rune, i int, kw *keyword) bool {
	end := i + len(kw.word)
	if end > len(lower) || !slices.Equal(lower[i:end], kw.word) {
		return false
	}
	if !kw.compound && i > 0 && spacedScript(kw.word[0]) && isWordRune(lower[i-1]) {
		return false
	}
	return end == len(lower) || !spacedScript(kw.word[len(kw.word)-1]) || !isWordRune(lower[end])
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// spacedScript reports runes of scripts that separate words by spaces, where
// a keyword must stand as a word of its own.
func spacedScript(r rune) bool {
	return r < 0x80 && isWordRune(r) || unicode.In(r, unicode.Latin, unicode.Cyrillic, unicode.Greek)
}

// normalizeText lowercases s and writes every dash as '-' and every space as
// ' ', rune for rune, so that rune offsets stay the same.
func normalizeText(s string) string {
	return string(normalizeRunes([]rune(s)))
}

func normalizeRunes(rs []rune) []rune {
	out := make([]rune, len(rs))
	for i, r := range rs {
		out[i] = normalizeRune(r)
	}
	return out
}

func normalizeRune(r rune) rune {
	switch {
	case isDash(r):
		return '-'
	case unicode.IsSpace(r):
		return ' '
	case r == '’':
		return '\''
	}
	return unicode.ToLower(r)
}

func isDash(r rune) bool {
	switch r {
	case '-', '\u2010', '\u2011', '\u2012', '\u2013', '\u2212':
		return true
	}
	return false
}
