package extract

import "strings"

// Link keyword classes, in the same tables as the code keywords.
const (
	lkAction  kwClass = iota + 10 // an action the user is asked to take: "Verify email"
	lkAgainst                     // an action that is not the one awaited: "Sign out"
	lkExclude                     // a link that is never the answer: "Unsubscribe"
)

// Kinds of links, the values of Link.Kind.
const (
	KindVerify  = "verify"
	KindLogin   = "login"
	KindReset   = "reset"
	KindConfirm = "confirm"
	KindMagic   = "magic"
	KindOther   = "other"
)

// linkKeywords are the words of anchor texts and of the text around links,
// in English, Spanish, German, French, Portuguese and Italian.
var linkKeywords = []kwGroup{
	{class: lkAction, weight: 1, kind: KindVerify, words: "verify|verification|verify email|verify my email|" +
		"validate|activate|activation|activate account|verificar|verificación|validar|activar|verifizieren|" +
		"aktivieren|freischalten|vérifier|valider|activer|ativar|verificação|verifica|attiva|convalida"},
	{class: lkAction, weight: 0.8, kind: KindConfirm, words: "subscribe me|yes, subscribe me|abonniere mich|inscrivez-moi|suscríbeme"},
	{class: lkAction, weight: 1, kind: KindConfirm, words: "confirm|confirmation|confirmar|confirmer|conferma|" +
		"bestätigen|bestätigung|~bestätigen"},
	{class: lkAction, weight: 1, kind: KindLogin, words: "log in|login|log-in|sign in|sign-in|signin|log me in|" +
		"sign me in|iniciar sesión|inicia sesión|acceder|anmelden|einloggen|se connecter|connexion|" +
		"fazer login|acessar|entrar|accedi"},
	{class: lkAction, weight: 1, kind: KindMagic, words: "magic link|magic-link|magiclink|one-click login|" +
		"passwordless|enlace mágico|lien magique|link mágico"},
	{class: lkAction, weight: 1, kind: KindReset, words: "reset password|reset your password|reset|" +
		"set password|set a password|choose a password|create password|new password|restablecer|" +
		"restablecer contraseña|contraseña|passwort zurücksetzen|zurücksetzen|passwort|réinitialiser|" +
		"mot de passe|redefinir|redefinir senha|senha|reimposta|password"},
	{class: lkAction, weight: 0.8, kind: KindVerify, words: "sign up|sign-up|signup|complete signup|complete the signup|" +
		"complete your sign up|complete registration|complete your registration|finish signing up|" +
		"registrierung abschließen|finalizar registro|terminer l'inscription|set up your account|" +
		"set up my account|setup your account|complete setup|complete your setup|finish setting up|" +
		"konto einrichten|configurer votre compte|configurar tu cuenta"},
	{class: lkAction, weight: 0.8, kind: KindConfirm, words: "renew|renew your account|renew my account|" +
		"extend the validity|extend your account|keep your account|keep my account|reactivate|" +
		"reactivate your account|verlängern|renouveler|renovar|rinnova"},
	{class: lkAction, weight: 1, kind: KindOther, words: "unlock|unlock account|unlock my account|" +
		"unlock your account|entsperren|konto entsperren|débloquer|desbloquear|sblocca"},
	{class: lkAction, weight: 0.7, kind: KindOther, words: "redeem|redeemed|accept invitation|accept invite|accept the invitation|" +
		"view invitation|view the invitation|view your invitation|enroll|enrol|" +
		"take the survey|do the survey|start the survey|begin the survey|complete the survey|fill out the survey|" +
		"join|aceptar invitación|einladung annehmen|accepter l'invitation|aceitar convite|accetta invito"},
	{class: lkAction, weight: 0.8, kind: KindOther, words: "sign|review and sign|sign the document|sign document|" +
		"sign now|sign here|start signing|unterschreiben|unterzeichnen|signer|firmar|assinar|firmare|" +
		"approve|approve request|approve the request|genehmigen|approuver|aprobar|aprovar|approva"},
	{class: lkAction, weight: 0.5, kind: KindOther, words: "the following link|the link below|the following url|" +
		"the url below|folgenden link|den link unten|le lien suivant|le lien ci-dessous|el siguiente enlace|" +
		"el enlace de abajo|o seguinte link|o link abaixo|il seguente link|il link qui sotto"},
	{class: lkAction, weight: 0.5, kind: KindOther, words: "link is valid|link is only valid|valid for one hour|" +
		"link expires|link will expire|expires in|will expire in|der link ist|link ist gültig|le lien est valable|" +
		"el enlace caduca|el enlace es válido|o link expira|il link scade"},
	{class: lkAction, weight: 0.3, kind: KindOther, words: "continue|click here|continuar|weiter|continuer|" +
		"get started|open|haga clic aquí|hier klicken|cliquez ici|clique aqui|clicca qui"},
	{class: lkAgainst, weight: 0.7, words: "view it|view them|view the|to view|view on|view in|view more|" +
		"see it|see them|ansehen|voir|ver el|ver a"},
	{class: lkAgainst, weight: 1, words: "log out|logout|sign out|signout|this wasn't me|wasn't you|not you|" +
		"secure your account|report|deny|block|cancel|revoke|revoke access|revoke it|widerrufen|révoquer|revocar"},
	{class: lkExclude, weight: 1, words: "enter code|enter the code|enter your code|enter verification code|" +
		"enter the verification code|enter your verification code|code eingeben|saisir le code|introducir el código"},
	{class: lkExclude, weight: 1, words: "turn notifications off|turn off notifications|notifications off|" +
		"disable notifications|stop notifications|stop receiving|mute|unwatch|unfollow|" +
		"benachrichtigungen deaktivieren|benachrichtigungen abschalten|désactiver les notifications|" +
		"desactivar notificaciones|desativar notificações|disattiva notifiche"},
	{class: lkExclude, weight: 1, words: "unsubscribe|unsub|opt out|opt-out|manage preferences|preferences|" +
		"email preferences|notification settings|manage subscription|manage subscriptions|privacy|" +
		"privacy policy|terms|terms of service|terms of use|conditions|cookie|cookies|legal|imprint|" +
		"impressum|help|help center|support|contact|contact us|faq|view in browser|view online|" +
		"view as a web page|view this email|web version|online version|view it online|forward to a friend|" +
		"add us to your address book|report spam|report abuse|app store|google play|get it on|" +
		"download on the|twitter|facebook|instagram|linkedin|youtube|tiktok|pinterest|abbestellen|" +
		"abmelden|datenschutz|datenschutzerklärung|agb|nutzungsbedingungen|hilfe|kontakt|" +
		"im browser anzeigen|online ansehen|darse de baja|dar de baja|cancelar suscripción|privacidad|" +
		"política de privacidad|términos|ayuda|contacto|ver en el navegador|se désabonner|désabonner|" +
		"désinscription|se désinscrire|désinscrire|confidentialité|conditions générales|" +
		"mentions légales|aide|nous contacter|afficher dans le navigateur|version en ligne|descadastrar|" +
		"cancelar inscrição|privacidade|termos|ajuda|contato|fale conosco|ver no navegador|" +
		"disiscriviti|annulla iscrizione"},
}

var linkIndex = buildIndex(linkKeywords)

// urlWords maps words of a URL's path and query (lowercase, and pairs of
// neighbours joined, so "sign-in" gives "signin") to the kind they suggest.
var urlWords = map[string]string{
	"verify": KindVerify, "verification": KindVerify, "validate": KindVerify, "validation": KindVerify,
	"activate": KindVerify, "activation": KindVerify, "verifizieren": KindVerify, "verificar": KindVerify,
	"confirm": KindConfirm, "confirmation": KindConfirm, "confirmar": KindConfirm, "confirmer": KindConfirm,
	"bestaetigen": KindConfirm, "login": KindLogin, "signin": KindLogin, "auth": KindLogin,
	"authenticate": KindLogin, "authorize": KindLogin, "sso": KindLogin, "session": KindLogin,
	"magic": KindMagic, "magiclink": KindMagic, "passwordless": KindMagic, "emaillink": KindMagic,
	"reset": KindReset, "password": KindReset, "passwordreset": KindReset, "forgot": KindReset,
	"recover": KindReset, "recovery": KindReset, "unlock": KindOther,
	"signup": KindVerify, "register": KindVerify, "registration": KindVerify,
	"invite": KindOther, "invitation": KindOther, "join": KindOther, "invites": KindOther,
	"invitations": KindOther, "invitee": KindOther,
	"setup": KindVerify, "approve": KindConfirm, "enroll": KindVerify, "enrollment": KindVerify, "renew": KindConfirm, "renewal": KindConfirm, "reactivate": KindVerify,
}

// tokenParams are query keys that carry a one-time secret.
var tokenParams = map[string]bool{
	"token": true, "code": true, "key": true, "oobcode": true, "otp": true, "hash": true, "sig": true,
	"signature": true, "ticket": true, "nonce": true,
}

// excludedURLWords are path fragments of links that are never the answer.
var excludedURLWords = []string{
	"unsubscribe", "optout", "opt-out", "opt_out", "preferences", "preference-center", "privacy",
	"cookie", "view-in-browser", "viewinbrowser", "view_in_browser", "webversion", "web-version",
	"viewonline", "view-online", "abmelden", "abbestellen", "datenschutz", "impressum", "desuscribir",
	"desinscri", "désinscri", "desabonn", "désabonn", "descadastr", "disable-notifications",
	"disable_notifications", "notifications/off", "unwatch", "unfollow", "/mute",
}

// excludedSegments are whole path segments of such links.
var excludedSegments = map[string]bool{
	"terms": true, "tos": true, "legal": true, "help": true, "support": true, "faq": true,
	"contact": true, "imprint": true, "agb": true, "moderation": true,
}

// excludedHosts are social networks, app stores and maps: never the answer.
var excludedHosts = []string{
	"twitter.com", "x.com", "facebook.com", "fb.com", "instagram.com", "linkedin.com", "youtube.com",
	"youtu.be", "tiktok.com", "pinterest.com", "threads.net", "reddit.com", "t.me", "wa.me",
	"apps.apple.com", "itunes.apple.com", "play.google.com", "appgallery.huawei.com",
	"maps.google.com", "maps.apple.com", "goo.gl",
}

// excludedHostPrefixes are subdomains of help and legal sites.
var excludedHostPrefixes = []string{"help.", "support.", "privacy.", "legal."}

// imageExts end the paths of images, which are never action links.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".ico", ".bmp"}

// hostIs reports whether host is domain or a subdomain of it.
func hostIs(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}
