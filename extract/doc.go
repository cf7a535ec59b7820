// Package extract finds the one-time code (OTP) and the action link (magic
// link, e-mail verification, password reset) in an e-mail message.
//
// It backs the wait_for_otp and wait_for_link tools of the inbox toolset and
// the otp/magic_link fields of list_messages. Everything here is a pure
// function of a [Message]: no I/O, no clock, no randomness, and above all no
// network. A link is never fetched, not even to follow a redirect, because
// the first GET of a one-time link spends its token.
//
// # What is read
//
// The text/html body is read as read_email shows it: the rendering of
// [message.RenderHTML] ([HTMLToText] is its text), with its links and their
// anchor text, and its short and emphasized elements, at their offsets in
// that text. So what a person cannot see (hidden preheaders, scripts,
// tracking pixels) the extractors do not read either, and what a person
// reads they read too. Only the quoted reply history is left out
// ([message.RenderOptions.OmitQuoted]).
//
// # Codes
//
// [OTPs] scans the subject, the text/plain body and the readable text of the
// text/html body for code-shaped runs: 4–8 digits, digits split
// by spaces or dashes ("739 204", "7 4 1 9 0 2"), uppercase alphanumeric
// codes ("A7K-92Q", "XK49PTQ2"), letters in equal dashed groups ("QHTR-MWZK")
// and mixed-case codes with digits ("K7EqTEcCtR"). Quoted reply history
// ("> " lines, <blockquote type=cite>, Gmail's quote) is not read: an old
// code there is not the one awaited. Runs that are parts of something else are
// rejected outright: numbers inside URLs and e-mail addresses, decimals,
// prices, times, dates, versions, phone numbers, CSS colours, hex ids and
// parts of longer digit runs. Each remaining candidate gets a score from its
// shape and its context — the nearest keyword before and after it in English,
// Spanish, German, French, Portuguese (and a few more languages): "code",
// "código", "Bestätigungscode", "code de vérification" speak for it; "order",
// "invoice", "postal code", "referral code", "sort code", "customer code",
// "account number" against it —
// plus keywords in the subject and prominent HTML styling (large, bold,
// letter-spaced or monospace text alone in its element). The score goes
// through a logistic curve into a [OTP.Confidence] in [0,1]; [BestOTP] reports
// the top candidate when it reaches [FoundThreshold].
//
// # Links
//
// [Links] collects <a href> targets with their anchor text from the HTML body
// and bare URLs from the text body (an angle-bracketed URL wrapped over lines
// is joined), outside quoted reply history, decodes HTML entities, unwraps
// click-tracking redirects whose target is a query parameter or a
// percent-encoded path segment (Amazon SES), drops unsubscribe, privacy,
// help, social, app store and List-Unsubscribe targets and the pages that
// name no request (the home page, a sign-in or settings page without any
// id or token, as welcome and alert mails link), and scores the rest by the
// action words of their anchor text, URL (a single-page app's route in the
// fragment included) and surrounding text. Only links whose
// [Link.Score] reaches [FoundThreshold] are returned; [BestLink] is the first.
package extract
