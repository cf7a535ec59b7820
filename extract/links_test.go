package extract_test

import (
	"testing"

	"github.com/email-mcp/email-mcp/extract"
)

func TestBestLink(t *testing.T) {
	tests := []struct {
		name string
		m    extract.Message
		url  string // "" means none
		kind string
	}{
		{"verify anchor", htmlMsg(`<a href="https://a.test/v/1">Verify email</a>`), "https://a.test/v/1", extract.KindVerify},
		{"reset anchor", htmlMsg(`<a href="https://a.test/r/1">Reset your password</a>`), "https://a.test/r/1", extract.KindReset},
		{"magic by url", htmlMsg(`<a href="https://a.test/magic-link?token=abc">Go</a>`), "https://a.test/magic-link?token=abc", extract.KindMagic},
		{"login with token is magic", htmlMsg(`<a href="https://a.test/login?token=abc">Log in</a>`), "https://a.test/login?token=abc", extract.KindMagic},
		// Issue 13: a sign-in page without anything that names a request is
		// what welcome and alert mails link to, not an action link.
		{"login page without secret", htmlMsg(`<a href="https://a.test/login">Log in</a>`), "", ""},
		{"login with a key", htmlMsg(`<a href="https://a.test/login?k=7Qx2">Log in</a>`), "https://a.test/login?k=7Qx2", extract.KindLogin},
		{"confirm email is verify", htmlMsg(`<a href="https://a.test/c/1">Confirm your email address</a>`), "https://a.test/c/1", extract.KindVerify},
		{"confirm subscription", htmlMsg(`<a href="https://a.test/c/1">Confirm subscription</a>`), "https://a.test/c/1", extract.KindConfirm},
		{"entities decoded", htmlMsg(`<a href="https://a.test/verify?a=1&amp;b=2&#38;c=3">Verify</a>`), "https://a.test/verify?a=1&b=2&c=3", extract.KindVerify},
		{"href with newline", htmlMsg("<a href=\"https://a.test/verify?t=ab\ncd\">Verify</a>"), "https://a.test/verify?t=abcd", extract.KindVerify},
		{"google redirect", htmlMsg(`<a href="https://www.google.com/url?q=https%3A%2F%2Fa.test%2Fverify%3Ft%3D1&amp;sa=D">Verify</a>`), "https://a.test/verify?t=1", extract.KindVerify},
		{"generic u= redirect", htmlMsg(`<a href="https://trk.test/x?u=https%3A%2F%2Fa.test%2Fconfirm%2F7Qx2">Confirm</a>`), "https://a.test/confirm/7Qx2", extract.KindConfirm},
		{"nested wrappers", htmlMsg(`<a href="https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Fwww.google.com%2Furl%3Fq%3Dhttps%253A%252F%252Fa.test%252Fverify%252F7Qx2&amp;data=1">Verify</a>`), "https://a.test/verify/7Qx2", extract.KindVerify},
		{"opaque wrapper kept", htmlMsg(`<a href="https://click.test/ls/click?upn=AbC123">Verify</a>`), "https://click.test/ls/click?upn=AbC123", extract.KindVerify},
		{"text url", extract.Message{Text: "Verify your address: https://a.test/v?t=1)."}, "https://a.test/v?t=1", extract.KindVerify},
		{"text url in brackets wrapped", extract.Message{Text: "Log in:\n<https://a.test/login?token=ab\r\n  cd>"}, "https://a.test/login?token=abcd", extract.KindMagic},
		{"spanish", htmlMsg(`<a href="https://a.test/r/7Qx2">Restablecer contraseña</a>`), "https://a.test/r/7Qx2", extract.KindReset},
		// A link that names no request, user or secret is a page: the
		// forms of welcome mails (Gitea's "set your password" to
		// /user/forgot_password), a sign-up page (allauth's unknown
		// account), a list of pending items (Lemmy's applications).
		{"reset form without request", htmlMsg(`<p>Please <a href="https://a.test/user/forgot_password">set your password</a> first.</p>`), "", ""},
		{"sign-up page", extract.Message{Text: "If it was you, you can sign up for an account using the link below.\n\nhttps://a.test/accounts/signup/\n"}, "", ""},
		// Rallly's comment notice: the only link with a token turns the
		// notifications off.
		{"notifications off", htmlMsg(`<a href="https://a.test/poll/p7Kq2">View on a.test</a> If you would like to stop receiving updates you can <a href="https://a.test/auth/disable-notifications?token=Zx4cV7bN1mQ8wE3r">turn notifications off</a>.`), "", ""},
		{"link in outlook history", htmlMsg(`<div>Thanks!</div><div id="divRplyFwdMsg"><b>From:</b> Acme</div><div><a href="https://a.test/verify?token=Zx9kQ2">Verify email</a></div>`), "", ""},
		{"link after original message", extract.Message{Text: "Thanks!\n\n-----Original Message-----\nFrom: Acme\n\nVerify: https://a.test/verify?token=Zx9kQ2\n"}, "", ""},
		// Synapse's notice of expiry: renewing the account is the action.
		{"renew the account", extract.Message{Subject: "Renew your Matrix account", Text: "To extend the validity of your account, please click on the link below:\n\nhttps://a.test/_matrix/client/unstable/account_validity/renew?token=bXvPqLrKsTnWmYzJ\n"},
			"https://a.test/_matrix/client/unstable/account_validity/renew?token=bXvPqLrKsTnWmYzJ", extract.KindConfirm},
		// Passbolt's welcome: "Get started" to the account setup is the action.
		{"account setup", htmlMsg(`<p>You just opened an account on <a href="https://a.test/">https://a.test/</a>.</p><a href="https://a.test/setup/start/8e3874ae-4b40-590b/5b7f1e3a-9c2d-4e8f">Get started</a>`),
			"https://a.test/setup/start/8e3874ae-4b40-590b/5b7f1e3a-9c2d-4e8f", extract.KindVerify},
		// Odoo: a settings action, and a sign-in form filled with the address.
		{"settings action of lowercase words", htmlMsg(`<a href="https://a.test/odoo/action-auth_totp_mail.action_activate_two_factor_authentication">Activate my two-factor authentication</a>`), "", ""},
		{"address names no request", htmlMsg(`<p>Your account was created.</p><a href="https://a.test/web/login?auth_login=alice%40a.test">Go to My Account</a>`), "", ""},
		// Lobsters' and Firefly III's invitations.
		{"invitations route", extract.Message{Text: "To accept this invitation and create an account, visit the URL below:\n\nhttps://a.test/invitations/Tb8Kq2WxZr5Nm1L\n"}, "https://a.test/invitations/Tb8Kq2WxZr5Nm1L", extract.KindOther},
		{"invitee route", htmlMsg(`The invitation is valid for 48 hours and can be redeemed by surfing to <a href="https://a.test/invitee/Vb7nQ2xK9mR4tW8pL3cZ6sD1fJ0g">Acme</a>. Enjoy!`), "https://a.test/invitee/Vb7nQ2xK9mR4tW8pL3cZ6sD1fJ0g", extract.KindOther},
		// Firezone: the button leads to the form where the code is typed.
		{"form for the code", htmlMsg(`<p>Your code is 482913.</p><a href="https://a.test/sign_in/verify_identity?pending_identity_id=2e7b9c41-6a3f">Enter Verification Code →</a>`), "", ""},
		// GoToSocial tells its moderators of a sign-up.
		{"moderation page", extract.Message{Text: "To view the sign-up, paste the following link into your browser: https://a.test/settings/moderation/accounts/01JQ8M4ZK7XW2R5N9TBV3CE6HD\n"}, "", ""},
		// SMF: the activation page without the code is where it is typed
		// in; the URL that extends it with the code is the action.
		{"the URL without its code is the form", extract.Message{Text: "Activate your account: https://a.test/index.php?action=activate;u=73;code=8f3a1c9e2b\n\nShould you have any problems with activation, please visit https://a.test/index.php?action=activate;u=73 and use the code \"8f3a1c9e2b\".\n"},
			"https://a.test/index.php?action=activate;u=73;code=8f3a1c9e2b", extract.KindVerify},
		{"a page chosen by action=", extract.Message{Text: "Thank you for registering. If you forget your password, you may change it at https://a.test/index.php?action=reminder\n"}, "", ""},
		// oCIS: a shared space to look at is no action.
		{"a resource to view", extract.Message{Subject: "Alice invited you to join Marketing", Text: "Alice has invited you to join \"Marketing\".\n\nClick here to view it: https://a.test/f/7a3e9c12-5b4d-4f81-a6e0-2d9c8b1f3e57\n"}, "", ""},
		{"list page", htmlMsg(`Please click the link below to view their application.<br><a href="https://a.test/registration_applications">View Applications</a>`), "", ""},
		// Blind batches 13-15 (osTicket, HumHub, Moodle, EspoCRM, Elgg,
		// Meteor, Karakeep, Rauthy, Wekan, Planka).
		{"url as its own anchor text on a help host", htmlMsg(`<p>Follow the link below to change your password.</p><a href="https://help.a.test/pwreset.php?token=k7Qz2Wx9Vb4Nm1Lc">https://help.a.test/pwreset.php?token=k7Qz2Wx9Vb4Nm1Lc</a>`),
			"https://help.a.test/pwreset.php?token=k7Qz2Wx9Vb4Nm1Lc", extract.KindReset},
		{"a route in the query names no request", extract.Message{Text: "Did you forget your password?\n\nPassword recovery: https://a.test/index.php?r=user%2Fpassword-recovery\n"}, "", ""},
		{"the href, not its decoded copy in the text", extract.Message{
			HTML: `<a href="https://a.test/index.php?r=user%2Freset&amp;token=b7e4c1a9-3d52">Reset Password</a>`,
			Text: "Reset Password: https://a.test/index.php?r=user/reset&token=b7e4c1a9-3d52\n"},
			"https://a.test/index.php?r=user%2Freset&token=b7e4c1a9-3d52", extract.KindReset},
		{"escaped ampersand in a text url", extract.Message{Text: "Use this verification link: https://a.test/email.php?instance=37&amp;secret=582914\n"},
			"https://a.test/email.php?instance=37&secret=582914", extract.KindVerify},
		{"camel case query words", extract.Message{Text: "Username: alice\n\nhttps://a.test/?entryPoint=changePassword&id=3a5c7e9b1d2f4068a1c3e5b7d9f1a2c4\n"},
			"https://a.test/?entryPoint=changePassword&id=3a5c7e9b1d2f4068a1c3e5b7d9f1a2c4", extract.KindReset},
		{"compound path word", extract.Message{Text: "If you requested this, click on the link below.\n\nhttps://a.test/changepassword?u=42&mac=kZ3vQ8mW1xR7tY4uI0oP6aS9\n"},
			"https://a.test/changepassword?u=42&mac=kZ3vQ8mW1xR7tY4uI0oP6aS9", extract.KindReset},
		{"enroll route in the fragment", extract.Message{Text: "To start using the service, simply click the link below.\n\nhttps://a.test/#/enroll-account/M4tYq8Rz1Kw6Xc3Vn9Lb2Hp7\n"},
			"https://a.test/#/enroll-account/M4tYq8Rz1Kw6Xc3Vn9Lb2Hp7", extract.KindVerify},
		{"view invitation", htmlMsg(`<p>Click the link below to view and accept or decline the invitation.</p><a href="https://a.test/lists?pendingInvitation=u8k2m4x7q9w1e3r5t6y0">View Invitation</a>`),
			"https://a.test/lists?pendingInvitation=u8k2m4x7q9w1e3r5t6y0", extract.KindOther},
		{"revoke is against, an api version no id", extract.Message{Subject: "Security Warning", Text: "Login from unknown location\n\nIf this is an invalid login, you should revoke it immediately.\n\nRevoke Access: https://a.test/auth/v1/users/za9Ux/revoke/Tq4Wb8Nz1KxR6cVm3LyH9sPd\n\nAccount Dashboard: https://a.test/auth/v1/account\n"}, "", ""},
		{"only the last sentence of the line before labels a url", extract.Message{Text: "Carol commented: \"Rotated the relay password, the new one is in the vault. Deploy goes out at 16:00.\" at board \"Ops\"\n\nhttps://a.test/b/7kPq2XmZ9wR4tLcN3/ops/Qm4Xz8Rt2Wk6Lp9Nb\n"}, "", ""},
		{"an anchor inside a sentence names a thing", htmlMsg(`<p>Carol mentioned you in <a href="https://a.test/cards/1650239912054281277">SSO login for contractors</a> on <a href="https://a.test/boards/1650237651118376483">Ops</a></p>`), "", ""},
		{"the action the url does is not against it", extract.Message{Text: "A request to cancel your account has been made.\n\nYou may now cancel your account by clicking this link or copying it into your browser:\n\nhttps://a.test/user/42/cancel/confirm/1795860000/Qw3Er6Ty9Ui2Op5As8Df1\n"},
			"https://a.test/user/42/cancel/confirm/1795860000/Qw3Er6Ty9Ui2Op5As8Df1", extract.KindConfirm},
		// Blind batches 16-18 (Huly, LimeSurvey).
		{"an issue key names a thing", htmlMsg(`<p>Login form loses focus after a failed sign-in was assigned to you by Bob</p><p><a href="https://a.test/workbench/acme/tracker/DSGN-142">DSGN-142</a></p>`), "", ""},
		{"take the survey", extract.Message{Text: "Click here to do the survey:\nhttps://a.test/index.php/456789?token=Xk7pR2mQ9sTb4Lw&lang=en\n\n" +
			"If you are blocklisted but want to receive invitations please click the following link:\nhttps://a.test/index.php/optin/tokens?surveyid=456789&token=Xk7pR2mQ9sTb4Lw\n"},
			"https://a.test/index.php/456789?token=Xk7pR2mQ9sTb4Lw&lang=en", extract.KindOther},
		// Blind batches 19-20 (DocuSeal, AppFlowy, Standard Notes).
		{"review and sign", htmlMsg(`<p>You have been invited to sign the "Mutual NDA".</p><a href="https://a.test/s/7Hq2ZfXkR9mWbN?t=Qm3x_A">Review and Sign</a>`),
			"https://a.test/s/7Hq2ZfXkR9mWbN?t=Qm3x_A", extract.KindOther},
		{"approve request", htmlMsg(`<p>Bob asked to join Acme (4 members).</p><a href="https://a.test/app/approve-request?request_id=c41d7e2a-9b53-4f80">Approve request</a>`),
			"https://a.test/app/approve-request?request_id=c41d7e2a-9b53-4f80", extract.KindConfirm},
		{"the one link, with a token", extract.Message{Text: "Link to your subscription dashboard:\nhttps://a.test/dashboard/offline?subscription_token=9f3c1a7e5b2d4068c1e9a7f3b5d20c84\n"},
			"https://a.test/dashboard/offline?subscription_token=9f3c1a7e5b2d4068c1e9a7f3b5d20c84", extract.KindOther},
		// Blind batches 21-23 (Bugzilla, Gerrit, Cachet).
		{"the following link, and the paragraph before it", extract.Message{Text: "If you are not the person who made this request, or you wish to cancel\nthis request, visit the following link:\n\nhttps://a.test/token.cgi?t=pK2wE9fA5u&a=cxlem\n"}, "", ""},
		{"a handler of tokens", extract.Message{Subject: "Bugzilla: confirm account creation", Text: "To continue creating an account using this email address, visit the\nfollowing link by December 4:\n\nhttps://a.test/token.cgi?t=Qw7nX2kLp9&a=request_new_account\n\nIf you do not wish to create an account, or if this request was made in\nerror you can do nothing or visit the following link:\n\nhttps://a.test/token.cgi?t=Qw7nX2kLp9&a=cancel_new_account\n"},
			"https://a.test/token.cgi?t=Qw7nX2kLp9&a=request_new_account", extract.KindOther},
		{"a fragment route after the following link", extract.Message{Subject: "[Gerrit Code Review] Email Verification", Text: "To add a verified email address to your user account, please click on the following link while signed in as jane@a.test:\n\nhttps://a.test/#/VE/Xb3kQ9vL2mTz7RcN0pWfH5dJ8sY1aE4u$MTc2NDc3\n"},
			"https://a.test/#/VE/Xb3kQ9vL2mTz7RcN0pWfH5dJ8sY1aE4u$MTc2NDc3", extract.KindOther},
		{"markdown link text is a url of its own", extract.Message{Text: "Verify your address: [https://a.test/verify/7Qx2Kq9](https://a.test/verify/7Qx2Kq9)\n"},
			"https://a.test/verify/7Qx2Kq9", extract.KindVerify},
		// Blind batches 24-25 (OpenCart, OpenEMR).
		{"a pipe inside a url", extract.Message{Text: "To reset your password click on the link below:\n\nhttps://a.test/index.php?route=account/forgotten|reset&code=Xq7mK2pR9vLw4TzB8nHc\n"},
			"https://a.test/index.php?route=account/forgotten|reset&code=Xq7mK2pR9vLw4TzB8nHc", extract.KindReset},
		{"a link said to expire", extract.Message{HTML: `<p>Below link is only valid for one hour.</p><p><a href="https://a.test/portal?forward=0078D1O7R8pSbPQnSwzB0T01yIa%2FxMnhwLlyVxigbZD&amp;site=default">https://a.test/portal?forward=0078D1O7R8pSbPQnSwzB0T01yIa%2FxMnhwLlyVxigbZD&amp;site=default</a></p>`, Text: "Below link is only valid for one hour.\nhttps://a.test/portal?forward=0078D1O7R8pSbPQnSwzB0T01yIa%2FxMnhwLlyVxigbZD&site=default\n\nBookmark for future logins: https://a.test/portal\n"},
			"https://a.test/portal?forward=0078D1O7R8pSbPQnSwzB0T01yIa%2FxMnhwLlyVxigbZD&site=default", extract.KindOther},
		// Blind batches 26-27 (Mailtrain, Aimeos).
		{"a key of letters in random case", extract.Message{Text: "Please Confirm Subscription\n\nYes, subscribe me to this list: https://a.test/subscription/confirm/subscribe/QwRtYuKpLm?locale=en-US\n"},
			"https://a.test/subscription/confirm/subscribe/QwRtYuKpLm?locale=en-US", extract.KindConfirm},
		{"site= chooses a page", htmlMsg(`<p>Your account has been created.</p><a href="https://a.test/profile?site=default&amp;locale=en">Login</a>`), "", ""},
		{"navigation query names no request", htmlMsg(`<a href="https://a.test/verify?lang=de&amp;utm_source=mail">Verify</a>`), "", ""},
		{"short query value names a request", htmlMsg(`<a href="https://a.test/confirm?t=abcd">Confirm</a>`), "https://a.test/confirm?t=abcd", extract.KindConfirm},
		{"footer word in a nested url", htmlMsg(`<a href="https://a.test/verify?t=1&amp;next=https%3A%2F%2Fa.test%2Fprivacy">Verify</a>`), "https://a.test/verify?t=1&next=https%3A%2F%2Fa.test%2Fprivacy", extract.KindVerify},
		{"unsubscribe in query", htmlMsg(`<a href="https://a.test/email?action=unsubscribe&amp;id=1">Confirm</a>`), "", ""},
		{"unsubscribe excluded", htmlMsg(`<a href="https://a.test/x">Unsubscribe</a>`), "", ""},
		{"unsubscribe word in other language", htmlMsg(`<a href="https://a.test/x">Newsletter abbestellen</a>`), "", ""},
		{"list-unsubscribe excluded", extract.Message{
			HTML:    `<a href="https://a.test/confirm?t=1">Confirm</a>`,
			Headers: map[string][]string{"List-Unsubscribe": {"<https://a.test/confirm?t=1>"}}}, "", ""},
		{"mailto excluded", htmlMsg(`<a href="mailto:a@a.test">Verify</a>`), "", ""},
		{"social excluded", htmlMsg(`<a href="https://www.linkedin.com/in/verify">Verify</a>`), "", ""},
		{"image url excluded", htmlMsg(`<a href="https://a.test/verify.png">Verify</a>`), "", ""},
		{"no action", htmlMsg(`<a href="https://a.test/blog">Read more</a> <a href="https://a.test/shop">Shop</a>`), "", ""},
		{"empty", extract.Message{}, "", ""},
		// Issue 13, batch 5 of testdata/real. A mailer that textifies its
		// HTML into one line (Plausible) puts "please contact" two sentences
		// after the link: only the link's own sentence may exclude it.
		{"footer word in a later sentence", extract.Message{Text: "Bob invited you. Click here (https://a.test/register/invitation/Xq2bK7mZ4rT9) to create your account. If it expired, please contact Bob."},
			"https://a.test/register/invitation/Xq2bK7mZ4rT9", extract.KindVerify},
		{"footer word in the same sentence", extract.Message{Text: "Questions? Contact us at https://a.test/c/Xq2bK7mZ4rT9 today."}, "", ""},
		// "Click here" to a page that names no request is no action link.
		{"vague words to a page", extract.Message{
			Text: "Bob invited you to the site. Click here (https://a.test/sites) to respond.",
			HTML: `Bob invited you to the site. <a href="https://a.test/sites">Click here</a> to respond.`}, "", ""},
		// Redmine's own pages (/my/account, /my/password) are settings pages.
		{"my page", extract.Message{Text: "Password was changed.\n\nhttps://a.test/my/password\n"}, "", ""},
		// Sign-up and invitation routes name what the link does.
		{"signup route in the fragment", extract.Message{Text: "If you did not ask for this, ignore it.\n\nhttps://a.test/#/finish-signup?token=BwOWbQ4Y7vLz&email=a%40a.test\n"},
			"https://a.test/#/finish-signup?token=BwOWbQ4Y7vLz&email=a%40a.test", extract.KindVerify},
		{"signup with invitee ids", htmlMsg(`<p>To accept, click below.</p><a href="https://a.test/signup?inviterId=5b2f7a0c-1d4e&amp;inviteeId=c3e9a1f7-4b2d">Set Up Your Account</a>`),
			"https://a.test/signup?inviterId=5b2f7a0c-1d4e&inviteeId=c3e9a1f7-4b2d", extract.KindVerify},
		// Zammad routes its app in the fragment without a leading slash.
		{"route in a fragment without slash", htmlMsg(`<p>To reset your password, click the link below:</p><a href="https://a.test/#password_reset_verify/kQ7vR2mX9pL4tZ8w">https://a.test/#password_reset_verify/kQ7vR2mX9pL4tZ8w</a>`),
			"https://a.test/#password_reset_verify/kQ7vR2mX9pL4tZ8w", extract.KindReset},
		{"fragment without a route", htmlMsg(`<a href="https://a.test/#top">Reset your password</a>`), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := extract.BestLink(tt.m)
			if found != (tt.url != "") || got.URL != tt.url || found && got.Kind != tt.kind {
				t.Errorf("BestLink() = %+v, %v; want %q kind %q (all: %+v)", got, found, tt.url, tt.kind, extract.Links(tt.m))
			}
		})
	}
}

func TestLinksRanking(t *testing.T) {
	m := htmlMsg(`<p>Welcome!</p><a href="https://a.test/blog">Read our blog</a>
		<p><a href="https://a.test/verify/9f8e7d" style="padding:10px">Verify email</a></p>
		<p>If this wasn't you, <a href="https://a.test/account/secure?token=abc">secure your account</a>.</p>
		<p>Or copy this link: https://a.test/verify/9f8e7d</p>`)
	got := extract.Links(m)
	if len(got) == 0 || got[0].URL != "https://a.test/verify/9f8e7d" || got[0].Text != "Verify email" {
		t.Fatalf("Links() = %+v, want the verify link first, with its anchor text", got)
	}
	for i, l := range got {
		if l.Score < extract.FoundThreshold || l.Score > 1 || i > 0 && l.Score > got[i-1].Score {
			t.Errorf("Links()[%d].Score = %v, want in [%v, 1] and not above the one before", i, l.Score, extract.FoundThreshold)
		}
		if l.URL == "https://a.test/blog" {
			t.Errorf("Links() returned %+v, a link with no action", l)
		}
	}
}

func htmlMsg(s string) extract.Message { return extract.Message{HTML: s} }

// TestLinkQueryValueNotFooter: a verify link whose own query carries a
// relative return path or the user's address is not a footer link (it was:
// only absolute URLs in query values were skipped), while a word value
// (action=unsubscribe) still makes one.
func TestLinkQueryValueNotFooter(t *testing.T) {
	for _, tt := range []struct{ name, href, want string }{
		{"relative next", "https://app.test/verify-email?token=abc123&amp;next=/settings/privacy",
			"https://app.test/verify-email?token=abc123&next=/settings/privacy"},
		{"encoded relative redirect", "https://app.test/verify-email?token=abc123&amp;redirect_to=%2Faccount%2Fpreferences",
			"https://app.test/verify-email?token=abc123&redirect_to=%2Faccount%2Fpreferences"},
		{"email value", "https://app.test/verify-email?token=abc123&amp;email=cookie.lover%40example.test",
			"https://app.test/verify-email?token=abc123&email=cookie.lover%40example.test"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := extract.Message{Subject: "Verify your email",
				HTML: `<p>Thanks for signing up.</p><a href="` + tt.href + `">Verify email</a>`}
			if got, ok := extract.BestLink(m); !ok || got.URL != tt.want {
				t.Errorf("BestLink() = %+v, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

// TestLinkVerifyOnSupportHost: the only link of a "verify your email"
// mail, carrying a token, is the answer even when the app under test is a
// help centre on support.<domain> (Zendesk-style sign-up verification).
func TestLinkVerifyOnSupportHost(t *testing.T) {
	m := extract.Message{Subject: "Please verify your email",
		Text: "Please verify your email address by clicking the link below:\n\nhttps://support.acme.test/verification/email/AbC123XyZ789AbC123\n"}
	want := "https://support.acme.test/verification/email/AbC123XyZ789AbC123"
	if got, ok := extract.BestLink(m); !ok || got.URL != want {
		t.Errorf("BestLink() = %+v, %v; want %q", got, ok, want)
	}
}

// TestLinkWordQueryValueStillFooter: a query value that is a footer word
// keeps the link out.
func TestLinkWordQueryValueStillFooter(t *testing.T) {
	m := extract.Message{Subject: "Your weekly digest",
		HTML: `<a href="https://app.test/email?action=unsubscribe&amp;u=AbC123XyZ789AbC123">Click here</a>`}
	if got, ok := extract.BestLink(m); ok {
		t.Errorf("BestLink() = %+v, want no link (action=unsubscribe)", got)
	}
}

// TestLinkSupportHostPageExcluded: a help-centre page without a secret is
// still a footer link.
func TestLinkSupportHostPageExcluded(t *testing.T) {
	m := extract.Message{Subject: "Verify your email",
		Text: "Questions? See https://support.acme.test/hc/en-us/articles/360001234567\n"}
	if got, ok := extract.BestLink(m); ok {
		t.Errorf("BestLink() = %+v, want no link (a help article)", got)
	}
}
