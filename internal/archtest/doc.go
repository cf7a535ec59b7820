// Package archtest holds the checks that span the repository rather than
// one package: the import arrows of docs/ARCHITECTURE.md, and the tool
// table, whose one source is the golden tools/list
// (tools/testdata/tools_list.golden.json) that every hand-written list of
// tool names (the MCPB manifest, the README, the e2e and fuzz tables) must
// match. It has no code of its own: its tests are the package.
package archtest
