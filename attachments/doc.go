// Package attachments is the file workspace of email-mcp: the only place where
// the server reads files to attach and writes attachments it downloads.
//
// The workspace is EMAIL_BASE_DIR/attachments/email/ with two folders:
//
//	uploads/    files the operator puts there for send_email_with_attachments
//	downloads/  attachments saved by download_attachment
//
// Nothing outside those two folders is ever read or written. A workspace is
// opened once at start-up and shared by all tools:
//
//	ws, err := attachments.Open(attachments.Options{BaseDir: "/srv/mail", MaxFileSize: 50 << 20})
//	if err != nil { ... }
//	defer ws.Close()
//
// # Reading: Stat and Open
//
// Paths given by an agent are relative to EMAIL_BASE_DIR
// ("attachments/email/uploads/report.pdf"); the short form relative to the
// workspace ("uploads/report.pdf") and an absolute path inside uploads/ or
// downloads/ are accepted too. Every path is checked before the file system is
// touched, then opened through an [os.Root] of its folder:
//
//   - control characters (C0, DEL, C1), invalid UTF-8 and invisible or bidi
//     format characters give [ErrInvalidPath];
//   - "\" counts as a separator, so "..\..\x" is "../../x";
//   - any ".." element, anything outside uploads/ and downloads/ (".env",
//     "attachments/email/x", "/etc/passwd") gives [ErrOutsideWorkspace];
//   - dotfiles and dot-folders anywhere in the path (".env", "uploads/.env",
//     "downloads/.ssh/id_rsa") give [ErrOutsideWorkspace]: hidden files are
//     never part of the workspace, and partial downloads are dotfiles;
//   - percent-encoding is never decoded: "uploads/%2e%2e" names a file called
//     "%2e%2e", and a top-level "%2e%2e/x" is outside the workspace;
//   - relative symlinks are followed while they stay inside their folder
//     (uploads/ or downloads/) and lead through no hidden name; one that
//     points out, to a file or a folder, one that leads to a dotfile (an
//     ordinary name linked to ".env", ".git" or a partial download), any
//     absolute symlink (even one pointing back inside) and a symlink loop
//     give [ErrOutsideWorkspace]. The link targets are read and checked
//     first, then the file is opened and must be the one checked;
//   - only regular files are opened: a directory, FIFO, socket or device gives
//     [ErrNotRegularFile], and a FIFO is opened non-blocking so it cannot hang;
//   - a hard link cannot be told from its original, so a regular file with more
//     than one link (Nlink > 1) is refused with [ErrOutsideWorkspace]: it may
//     share its bytes with a file outside the workspace;
//   - a file larger than MaxFileSize gives [ErrTooLarge]; a missing one
//     [ErrNotFound].
//
// [Workspace.Open] streams: the returned reader never holds the whole file.
//
// # Writing: Create
//
// [Workspace.Create] reduces the attachment's name to one safe file name with
// [SanitizeFilename], writes to a hidden temporary file in downloads/ and, on
// Commit, links it to its final name without ever replacing a file:
// "report.pdf", then "report (1).pdf", "report (2).pdf" and so on.
//
// # Errors
//
// The sentinels map to the stable codes of the tools layer:
// [ErrOutsideWorkspace] is PATH_OUTSIDE_WORKSPACE, [ErrTooLarge] is
// ATTACHMENT_TOO_LARGE, [ErrInvalidPath] and [ErrNotRegularFile] are
// INVALID_ARGUMENT, and [ErrNotFound] is ATTACHMENT_NOT_FOUND (or
// INVALID_ARGUMENT, as the tool sees fit). Error texts never name BaseDir
// unless the caller passed it.
package attachments
