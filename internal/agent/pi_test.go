package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeInstall lays out an npm install of pi under the package name with
// the given version and engines.node, and a node beside it that reports
// nodeVersion ("" for no node beside pi). It returns node_modules/.bin/pi.
func fakeInstall(t *testing.T, name, version, engines, nodeVersion string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "node_modules")
	pkg := filepath.Join(root, filepath.FromSlash(name))
	bin := filepath.Join(root, ".bin")
	for _, d := range []string{filepath.Join(pkg, "dist", "bundle"), bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pj := `{"name":"` + name + `","version":"` + version + `"`
	if engines != "" {
		pj += `,"engines":{"node":"` + engines + `"}`
	}
	write := func(path, content string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(pkg, "package.json"), pj+"}", 0o644)
	cli := filepath.Join(pkg, "dist", "bundle", "cli.js")
	write(cli, "#!/usr/bin/env node\n", 0o755)
	if err := os.Symlink(cli, filepath.Join(bin, "pi")); err != nil {
		t.Fatal(err)
	}
	if nodeVersion != "" {
		write(filepath.Join(bin, "node"), "#!/bin/sh\necho "+nodeVersion+"\n", 0o755)
	}
	return filepath.Join(bin, "pi")
}

func TestFindPackages(t *testing.T) {
	tests := []struct {
		name, pkg, version, engines, node string
		want                              Version
		wantNode                          bool
		err                               string // substring of the error
	}{
		{name: "old name", pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", want: Version{0, 73, 1}},
		{name: "new name", pkg: "@earendil-works/pi-coding-agent", version: "1.6.0", engines: ">=22.19.0",
			node: "v22.19.0", want: Version{1, 6, 0}, wantNode: true},
		{name: "newer node", pkg: "@earendil-works/pi-coding-agent", version: "1.6.0", engines: ">=22.19.0",
			node: "v24.1.0", want: Version{1, 6, 0}, wantNode: true},
		{name: "node too old", pkg: "@earendil-works/pi-coding-agent", version: "1.6.0", engines: ">=22.19.0",
			node: "v22.18.9", err: "pi 1.6.0 needs Node >=22.19.0, but"},
		{name: "pi too old", pkg: "@mariozechner/pi-coding-agent", version: "0.60.0", err: "too old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exe := fakeInstall(t, tt.pkg, tt.version, tt.engines, tt.node)
			pi, err := Find(context.Background(), exe)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Find = %v, %v; want error containing %q", pi, err, tt.err)
				}
				if !errors.Is(err, ErrPiMissing) {
					t.Errorf("error %v is not ErrPiMissing: the UI would not explain it", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pi.Version != tt.want {
				t.Errorf("version %v, want %v", pi.Version, tt.want)
			}
			if got := pi.Node != ""; got != tt.wantNode {
				t.Errorf("node %q, want one: %v", pi.Node, tt.wantNode)
			}
			if tt.wantNode && !strings.HasSuffix(pi.Script, filepath.Join("dist", "bundle", "cli.js")) {
				t.Errorf("script %q", pi.Script)
			}
		})
	}
}

// TestFindPinnedPi finds the pinned pi and starts it as Find says.
func TestFindPinnedPi(t *testing.T) {
	pi := testPi(t)
	if pi.Version.Less(MinVersion) {
		t.Fatalf("pinned pi %v", pi.Version)
	}
}
