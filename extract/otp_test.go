package extract_test

import (
	"reflect"
	"testing"

	"github.com/email-mcp/email-mcp/extract"
)

func TestBestOTP(t *testing.T) {
	tests := []struct {
		name      string
		m         extract.Message
		code, raw string // code "" means none found
	}{
		{"plain", extract.Message{Text: "Your code is 482913"}, "482913", "482913"},
		{"dash groups", extract.Message{Text: "Security code: 12-34-56"}, "123456", "12-34-56"},
		{"nbsp groups", extract.Message{Text: "Passcode: 739\u00a0204"}, "739204", "739\u00a0204"},
		{"arabic-indic digits", extract.Message{Text: "رمز التحقق: ٤٨٢٩١٣"}, "482913", "٤٨٢٩١٣"},
		{"devanagari digits", extract.Message{Text: "OTP: ४८२९१३"}, "482913", "४८२९१३"},
		{"sender prefix", extract.Message{Text: "G-551203 is your verification code"}, "551203", "551203"},
		{"subject only", extract.Message{Subject: "Your login code is 304957"}, "304957", "304957"},
		{"keyword after", extract.Message{Text: "839201 is your Acme verification code."}, "839201", "839201"},
		{"html styled", extract.Message{Subject: "Sign in to Acme", HTML: `<p>Hello!</p><p style="font-size:28px;letter-spacing:4px"><b>620 419</b></p>`}, "620419", "620 419"},
		{"nearest keyword wins", extract.Message{Text: "Order 556677, verification code 112233."}, "112233", "112233"},
		{"no keyword", extract.Message{Text: "Hello 482913"}, "", ""},
		// django-allauth's German login code: the keyword opens a long
		// paragraph, the code stands alone after it.
		{"introduced by a long paragraph", extract.Message{Text: "Ihr Anmeldecode ist unten aufgeführt. Bitte geben Sie ihn in Ihrem geöffneten Browserfenster ein.\n\nVWJY-QTVZ\n\nDiese E-Mail kann ignoriert werden."}, "VWJYQTVZ", "VWJY-QTVZ"},
		{"a paragraph before the intro labels nothing", extract.Message{Text: "Your code is below.\n\nWe have moved offices. Our new building opens next week and the front desk moved too.\n\nQHTR-MWZK\n"}, "", ""},
		// Plane's login code: three dashed groups of lowercase letters.
		{"lowercase dashed groups", extract.Message{Subject: "Your unique Plane login code is ejzh-lquo-kthn", Text: "Your login code for Plane\n\nejzh-lquo-kthn\n\nThis code is valid for the next 10 minutes."}, "ejzhlquokthn", "ejzh-lquo-kthn"},
		{"lowercase dashed words", extract.Message{Text: "Your code runs in real-time on a pay-per-use plan with one-two-six steps."}, "", ""},
		{"two lowercase groups are words", extract.Message{Text: "Your login code: long-term"}, "", ""},
		{"lowercase letters and digits", extract.Message{Text: "Here is your code:\n\nx7k2p9\n"}, "x7k2p9", "x7k2p9"},
		{"lowercase word and version", extract.Message{Text: "Your code must run on python311 or node18x."}, "", ""},
		// Quoted history without '>' marks: Outlook's plain text replies.
		{"after original message", extract.Message{Subject: "RE: access", Text: "Thanks, done.\n\n-----Original Message-----\nFrom: Acme\nSent: Monday\n\nYour verification code is 482913\n"}, "", ""},
		{"after outlook underscores", extract.Message{Subject: "RE: access", Text: "Thanks, done.\n\n________________________________\nFrom: Acme\nSent: Monday\n\nYour verification code is 482913\n"}, "", ""},
		{"new code before original message", extract.Message{Text: "Your verification code is 482913\n\n-----Ursprüngliche Nachricht-----\nVon: x\n\nCode 111222\n"}, "482913", "482913"},
		// Bluesky's reset code: the paragraph after the code speaks of it.
		{"labelled by the paragraph after", extract.Message{Subject: "Password Reset Requested", Text: "We received a request to reset the password for the account @alice.bsky.social.\n\nN3WJA-5TRKE\n\nTo choose a new password, please enter the code above in the app along with your\nnew password.\n"}, "N3WJA5TRKE", "N3WJA-5TRKE"},
		{"meeting passcode", extract.Message{Text: "Join the call. Meeting passcode: 482913"}, "", ""},
		// Blind batch 13: Notion's and Linear's codes, Wekan's invitation code.
		{"four dashed groups of five letters", extract.Message{Text: "Click here to log in with this magic link\n\nOr, copy and paste this temporary login code:\n\nbrasl-ontex-ivund-akope\n\nIf you didn't try to login, you can safely ignore this email."}, "braslontexivundakope", "brasl-ontex-ivund-akope"},
		{"dashed groups of lowercase letters and digits", extract.Message{Text: "If the link does not work, you can use the login verification code directly:\n\nkq481-7203m\n"}, "kq4817203m", "kq481-7203m"},
		{"invitation code", extract.Message{Text: "Please follow the link below:\nhttps://a.test/sign-up\n\nAnd your invitation code is: rV3kQ8xZ2mW7pL5nT1bY9g\n\nThanks."}, "rV3kQ8xZ2mW7pL5nT1bY9g", "rV3kQ8xZ2mW7pL5nT1bY9g"},
		{"lowercase alphanumeric groups without a code keyword", extract.Message{Text: "Your order ships with part kq481-7203m and the manual."}, "", ""},
		{"referral code stays no code", extract.Message{Text: "Share your referral code with friends:\n\nkq481-7203m\n"}, "", ""},
		// Blind batches 21-23 (Statamic, Psono, MediaWiki).
		{"long token alone on its line", extract.Message{Text: "Copy and paste the code shown below to verify your identity.\n\n**`Qm7vT2xKp9RzL4wNb8Hc`**\n\nRegards"}, "Qm7vT2xKp9RzL4wNb8Hc", "Qm7vT2xKp9RzL4wNb8Hc"},
		{"seconds are no code", extract.Message{Text: "One of your emergency codes has been armed.\n\nThe code will grant access to your account in:\n86400 sec\n"}, "", ""},
		{"a temporary password is no code", extract.Message{Text: "Someone requested a new password.\n\nUsername: Jane\nTemporary password: 7kq2mzr9xw\n"}, "", ""},
		// OpenCart's security code: short, mixed case, alone on its line.
		{"short mixed case code alone", extract.Message{Text: "You must enter the security code in the admin security check.\n\nhT7x2Q\n\nIP: 198.51.100.23\n"}, "hT7x2Q", "hT7x2Q"},
		{"short mixed case name inline", extract.Message{Text: "Your code must run on iOS17x and WiFi6E devices."}, "", ""},
		// Self Service Password's code, mailed to an SMS gateway.
		{"password reset token", extract.Message{Subject: "Provider code", Text: "Your password reset token is: 482913\r\n"}, "482913", "482913"},
		{"a spent token", extract.Message{Subject: "Token cancelled", Text: "A token was cancelled from 203.0.113.9. Token: mB4zR8vT1c\n"}, "", ""},
		// Firezone's sign-in token, Joomla's reset code.
		{"sign-in token", extract.Message{Subject: "Firezone sign in token", Text: "Copy and paste the following token into the Sign In form\n\nk7mdtq\n\nor click on the link."}, "k7mdtq", "k7mdtq"},
		{"long token bound by its keyword", extract.Message{Text: "To reset your password, submit this verification code.\n\nThe verification code is 9f3b7c1e5a2d48f6b0c4e8a1d7f5b3c9\n"}, "9f3b7c1e5a2d48f6b0c4e8a1d7f5b3c9", "9f3b7c1e5a2d48f6b0c4e8a1d7f5b3c9"},
		{"long token labelled on its line", extract.Message{Text: "You will need to enter the following:\nUsername: alice\nActivation Code: Hx4bNe9PqT2mWz7Lk0cRv5YsJd8Gf3\n"}, "Hx4bNe9PqT2mWz7Lk0cRv5YsJd8Gf3", "Hx4bNe9PqT2mWz7Lk0cRv5YsJd8Gf3"},
		{"long token without its keyword", extract.Message{Text: "Your code review: commit 9f3b7c1e5a2d48f6b0c4e8a1d7f5b3c9 was merged."}, "", ""},
		{"three letter groups of four", extract.Message{Text: "Your recovery code:\n\nQHTR-MWZK-XPLA\n"}, "QHTRMWZKXPLA", "QHTR-MWZK-XPLA"},
		{"url digits", extract.Message{Text: "Your code: https://x.test/c/482913"}, "", ""},
		{"email digits", extract.Message{Text: "Your code was sent to user482913@example.test"}, "", ""},
		{"price", extract.Message{Text: "Your code price: $4829"}, "", ""},
		{"time", extract.Message{Text: "Code valid until 10:45:30"}, "", ""},
		{"decimal", extract.Message{Text: "Code 4829.13"}, "", ""},
		{"long digit run", extract.Message{Text: "Code 4829 1313 9999 0000"}, "", ""},
		{"css colour", extract.Message{Text: "code color: #A1B2C3"}, "", ""},
		{"date", extract.Message{Text: "Code generated 20240229"}, "", ""},
		{"year after copyright", extract.Message{Text: "Your code\n© 2024 Acme"}, "", ""},
		{"percent", extract.Message{Text: "Discount code gives 2500 % off"}, "", ""},
		{"promo code", extract.Message{Text: "Promo code: SAVE2025X"}, "", ""},
		{"postal code es", extract.Message{Text: "Código postal 28013"}, "", ""},
		{"postal code fr", extract.Message{Text: "Code postal 75011"}, "", ""},
		{"zip code", extract.Message{Text: "ZIP code 94105"}, "", ""},
		// Issue 13, batch 5: Pocket ID's 6-character login code; a short
		// mixed-case name near "code" stays no code.
		{"mixed case six", extract.Message{Subject: "Login Code", Text: "Or visit https://id.test/lc and enter the code h4TzQ9."}, "h4TzQ9", "h4TzQ9"},
		{"mixed-case name", extract.Message{Text: "Your code runs on iOS17x now."}, "", ""},
		{"qr code", extract.Message{Text: "Show the QR code 7781 at the door"}, "", ""},
		{"empty", extract.Message{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := extract.BestOTP(tt.m)
			if found != (tt.code != "") || got.Code != tt.code || found && got.Raw != tt.raw {
				t.Errorf("BestOTP() = %+v, %v; want code %q raw %q (all: %+v)", got, found, tt.code, tt.raw, extract.OTPs(tt.m))
			}
			if found && (got.Confidence < extract.FoundThreshold || got.Confidence > 1) {
				t.Errorf("BestOTP().Confidence = %v, want in [%v, 1]", got.Confidence, extract.FoundThreshold)
			}
		})
	}
}

func TestOTPsOrderAndMerge(t *testing.T) {
	m := extract.Message{
		Subject: "Your code 739201",
		Text:    "Use 739201 to sign in. Reference 55443322.",
		HTML:    "<p>Use <b>739201</b> to sign in.</p>",
	}
	got := extract.OTPs(m)
	if len(got) != 2 || got[0].Code != "739201" || got[1].Code != "55443322" {
		t.Fatalf("OTPs() = %+v, want 739201 (listed once) then 55443322", got)
	}
	if got[0].Confidence <= got[1].Confidence {
		t.Errorf("OTPs() confidences %v <= %v, want best first", got[0].Confidence, got[1].Confidence)
	}
}

func TestDeterminism(t *testing.T) {
	var msgs []extract.Message
	for _, pattern := range []string{"otp*.json", "links*.json"} {
		for _, f := range loadCorpus(t, pattern) {
			for _, c := range f.cases {
				msgs = append(msgs, c.message(t))
			}
		}
	}
	msgs = append(msgs, marketingMail(20_000))
	for i, m := range msgs {
		o1, o2 := extract.OTPs(m), extract.OTPs(m)
		l1, l2 := extract.Links(m), extract.Links(m)
		if !reflect.DeepEqual(o1, o2) || !reflect.DeepEqual(l1, l2) {
			t.Errorf("message %d: two calls differ: %+v / %+v, %+v / %+v", i, o1, o2, l1, l2)
		}
		if h1, h2 := extract.HTMLToText(m.HTML), extract.HTMLToText(m.HTML); h1 != h2 {
			t.Errorf("message %d: HTMLToText differs between calls", i)
		}
	}
}

// TestOTPKeywordForms: Turkish writes its code words with suffixes
// ("kodunuz" = your code), Japanese "コード" (code) stands alone or in
// compounds ("セキュリティ コード", "ログインコード"); a QR code or a postal
// code is still no OTP.
func TestOTPKeywordForms(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"Doğrulama kodunuz: 583920", "583920"},
		{"セキュリティ コード: 5839201", "5839201"},
		{"ログインコード：583920", "583920"},
	} {
		t.Run(tt.text, func(t *testing.T) {
			m := extract.Message{Text: tt.text}
			if got, ok := extract.BestOTP(m); !ok || got.Code != tt.want {
				t.Errorf("BestOTP(%q) = %+v, %v; want %s (all: %+v)", tt.text, got, ok, tt.want, extract.OTPs(m))
			}
		})
	}
}

func TestOTPKeywordFormsNotCodes(t *testing.T) {
	for _, text := range []string{"QRコード 5839201 を読み取ってください", "郵便番号 1500041"} {
		if got, ok := extract.BestOTP(extract.Message{Text: text}); ok {
			t.Errorf("BestOTP(%q) = %+v, want none", text, got)
		}
	}
}
