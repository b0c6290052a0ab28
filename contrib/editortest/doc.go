// Package editortest holds the end-to-end tests of the editor integrations
// in contrib/nvim, contrib/emacs and contrib/vscode: `go test
// ./contrib/editortest` builds ragd, serves testdata/vault on a temp
// socket and runs each editor's own test suite headlessly against it.
// Suites whose editor is not installed are skipped unless
// RAGD_REQUIRE_EDITORS=1.
package editortest
