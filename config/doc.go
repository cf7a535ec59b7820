// Package config loads the configuration of email-mcp from the environment
// and a .env file: defaults, validation and secret redaction. Only cmd
// imports it; every other package takes its own Options struct.
//
// # Loading
//
//	cfg, err := config.Load(config.LoadOptions{EnvFile: flagEnvFile, EnvFileExplicit: flagEnvFile != ""})
//	if err != nil {
//		fmt.Fprintln(os.Stderr, err) // one line per bad variable, naming it
//		os.Exit(2)                   // errors.Is(err, config.ErrInvalid)
//	}
//	for _, w := range cfg.Warnings() {
//		logger.Warn(w)
//	}
//	logger.Info("configuration", "config", cfg) // secrets print as [redacted]
//
// Load reads the .env file into a map and never changes the
// process environment. A variable present in the environment wins over the
// file, even when it is empty; an empty value counts as unset, so the default
// applies (`IMAP_HOST= email-mcp` runs the sandbox whatever the file says).
// Tests pass LoadOptions.Environ instead of the real environment.
//
// The Config struct carries envconfig-style tags (`envconfig:"IMAP_PORT"
// default:"993" desc:"…"`, no prefix) and [Usage] prints them with envconfig.
// Load does not call envconfig.Process: that reads only the real environment,
// stops at the first bad variable, and would also read unprefixed names.
// Types with a Decode method (envconfig.Decoder) decode themselves.
//
// # Variables
//
// The variables of DESIGN.md ("Configuration"), with their defaults:
//
//	IMAP_HOST                   empty: run the embedded sandbox (DEV_SMTP_ADDR, DEV_IMAP_ADDR, EMAIL_DATA_DIR)
//	IMAP_PORT=993 (143 when IMAP_SSL=false) IMAP_USER IMAP_PASSWORD IMAP_SSL=true IMAP_STARTTLS=true IMAP_POOL_SIZE=3 (1..64)
//	SMTP_HOST SMTP_PORT=587 SMTP_USER SMTP_PASSWORD SMTP_STARTTLS=true
//	SMTP_SSL                    implicit TLS; default true when SMTP_PORT=465, else false
//	TLS_CA_FILE                 extra CA certificates (PEM) to trust besides the system roots
//	IMAP_TLS_SKIP_VERIFY=false SMTP_TLS_SKIP_VERIFY=false   (insecure; see Warnings)
//	MCP_API_KEY MCP_HOST=127.0.0.1 MCP_PORT=8420 MCP_SERVER_NAME=email-mcp MCP_BASE_URL
//	MCP_ALLOWED_ORIGINS         comma list of scheme://host[:port]
//	MCP_READ_ONLY=false MCP_TOOLSETS=mail,inbox
//	DEFAULT_FROM_NAME INBOX_ADDRESS MAX_SEARCH_RESULTS=50 (1..200) MAX_ATTACHMENT_SIZE_MB=50 (1..1024)
//	EMAIL_BASE_DIR SAVE_SENT=auto SENT_FOLDER WAIT_MAX_SECONDS=120 (1..3600)
//	LOG_LEVEL=info LOG_FORMAT=text DEV_SMTP_ADDR=127.0.0.1:2525 DEV_IMAP_ADDR=127.0.0.1:1143 EMAIL_DATA_DIR
//
// Additions decided for this package, not in DESIGN.md's list:
//
//	IMAP_ALLOW_PLAINTEXT=false  allow the IMAP password in clear text to a host that is not loopback (STARTTLS false, or none without STARTTLS)
//	SMTP_ALLOW_PLAINTEXT=false  allow the SMTP password in clear text to a host that is not loopback (STARTTLS false, or none without STARTTLS)
//	RATE_LIMIT_PER_MINUTE=1200  tool calls per minute per API key, bursts of half that (0..100000; 0 turns it off)
//	MCP_ALLOWED_HOSTS           Host header names accepted besides IP literals, localhost and MCP_BASE_URL's host
//	MCP_MAX_CONNECTIONS=1024    open HTTP connections at once; beyond it unauthenticated, then idle ones are closed, else 503
//	SEND_ALLOWED_RECIPIENTS     addresses and domains the send tools may mail (empty: anyone)
//	SEND_MAX_PER_HOUR=100       messages the send tools may send per hour (0: no cap)
//	WAIT_PROGRESS_SECONDS=10    how often a wait sends a progress notification (1..60)
//	WAIT_POLL_MS                while a wait is active, check the folder every N ms (25 for a loopback IMAP_HOST, else 0)
//
// Booleans accept true/false, 1/0 and yes/no in any case. STARTTLS modes are
// true (required), none (used when offered: weaker, and a warning) and false
// (plain text). SAVE_SENT is auto, true or false; LOG_LEVEL debug, info, warn
// or error; LOG_FORMAT text or json. Ports are 1..65535. EMAIL_BASE_DIR and
// EMAIL_DATA_DIR are made absolute. IMAP_HOST, SMTP_HOST and MCP_HOST take a
// host name or IP address without scheme or port.
//
// # Rules between variables
//
// With IMAP_HOST set (a real account), IMAP_USER and IMAP_PASSWORD are
// required, and SMTP_HOST too unless MCP_READ_ONLY=true. SMTP_USER and
// SMTP_PASSWORD default to IMAP_USER and IMAP_PASSWORD; INBOX_ADDRESS
// defaults to IMAP_USER when that is an email address.
//
// Plain-text logins are refused: IMAP_SSL=false with IMAP_STARTTLS=false to a
// host other than localhost, 127.0.0.0/8 or ::1 is an error on IMAP_STARTTLS
// that names IMAP_ALLOW_PLAINTEXT; the same holds for SMTP. Under implicit TLS
// (SMTP_SSL=true) SMTP_STARTTLS is ignored, whatever its value.
//
// # .env files
//
// The file holds NAME=value lines, `export` prefixes, # comment lines and
// blank lines (envfile.go). Single-quoted values are verbatim (no escapes:
// a trailing backslash is fine); double-quoted ones take \n \t \" \\ \$
// escapes; both may span lines. Unquoted and double-quoted values expand
// $NAME and ${NAME} from earlier lines of the same file, and the first " #"
// in an unquoted value starts a comment: put a password with $, # or spaces
// in single quotes. A byte order mark and CRLF line ends are fine. A syntax
// error names the file and the line but not the text, which could hold a
// secret. Names in the file that are not ours become warnings.
//
// # Secrets
//
// IMAP_PASSWORD, SMTP_PASSWORD and MCP_API_KEY are of type [Secret], which
// prints as [Redacted] through fmt, slog and encoding/json; Reveal returns
// the value. Errors never carry a secret's value.
package config
