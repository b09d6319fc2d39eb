package agent

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	_ "embed"

	"piweb/internal/errs"
)

// The bridge is a small pi extension (ext/piweb-bridge.ts) that adds what
// RPC lacks: in-place tree navigation (the TUI's /tree, optionally with a
// branch summary), labels, and reading the leaf. Its commands are prefixed
// "piweb-" and located through get_commands by their file path, so a user
// command of the same name (which pi would rename to name:N) cannot be hit
// by mistake, and a pi without the bridge is never sent "/piweb-…" as a
// plain prompt for the LLM.

//go:embed ext/piweb-bridge.ts
var bridgeSource []byte

// bridgeStatusPrefix marks the bridge's answers (setStatus keys).
const bridgeStatusPrefix = "piweb-bridge:"

// WriteBridge writes the bridge extension into dir (created private) and
// returns its path, to be passed with -e (Options.Extensions). The file
// name carries a hash of the content, so concurrent piweb versions never
// overwrite each other's bridge under a running pi.
//
// pi runs whatever file it is given, so the folder must be the user's
// alone: dir is refused unless it is a real directory (not a symlink)
// owned by the user with no access for anyone else, inside a parent owned
// by the user or by root (a shared temp dir is root's, sticky), so that no
// other user can replace the file or the folder.
func WriteBridge(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("bridge dir: %w", err)
	}
	if err := checkPrivateDir(dir); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bridgeSource)
	path := filepath.Join(dir, "piweb-bridge-"+hex.EncodeToString(sum[:6])+".ts")
	if b, err := os.ReadFile(path); err == nil && string(b) == string(bridgeSource) {
		return path, nil
	}
	tmp, err := os.CreateTemp(dir, ".bridge-*.ts")
	if err != nil {
		return "", fmt.Errorf("write bridge: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(bridgeSource); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write bridge: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write bridge: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("install bridge: %w", err)
	}
	return path, nil
}

// DefaultBridgeDir is where piweb keeps the bridge: the user cache dir, or
// without one (no HOME, no XDG_CACHE_HOME) a folder named for the user in
// the temp dir, which WriteBridge refuses unless it is the user's alone.
func DefaultBridgeDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "piweb", "pi-extension")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("piweb-%d", os.Getuid()), "pi-extension")
}

// ErrUnsafeDir is a bridge folder another user could write to.
var ErrUnsafeDir = errors.New("folder is not private to this user")

// checkPrivateDir refuses dir unless it and its parent are safe (see
// WriteBridge).
func checkPrivateDir(dir string) error {
	uid := uint32(os.Getuid())
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("bridge dir: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return nil // no owner to check on this system
	case !fi.IsDir():
		return fmt.Errorf("bridge dir %s is not a directory: %w", dir, ErrUnsafeDir)
	case st.Uid != uid:
		return fmt.Errorf("bridge dir %s is owned by uid %d: %w", dir, st.Uid, ErrUnsafeDir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("bridge dir %s has mode %v, want 0700: %w", dir, fi.Mode().Perm(), ErrUnsafeDir)
	}
	pfi, err := os.Stat(filepath.Dir(dir))
	if err != nil {
		return fmt.Errorf("bridge dir: %w", err)
	}
	pst, _ := pfi.Sys().(*syscall.Stat_t)
	if pst != nil && pst.Uid != uid && pst.Uid != 0 {
		return fmt.Errorf("bridge dir's parent %s is owned by uid %d: %w", filepath.Dir(dir), pst.Uid, ErrUnsafeDir)
	}
	if pst != nil && pst.Uid == 0 && uid != 0 && pfi.Mode().Perm()&0o002 != 0 && pfi.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("bridge dir's parent %s is world-writable without the sticky bit: %w", filepath.Dir(dir), ErrUnsafeDir)
	}
	return nil
}

// ErrNoBridge is a bridge command on a pi that did not load the bridge.
var ErrNoBridge = errs.New(errs.Invalid, "this pi cannot navigate the tree (the piweb bridge extension is not loaded)", "piweb bridge extension not loaded in this pi")

// bridge holds a worker's pending bridge calls and resolved command names.
type bridge struct {
	mu      sync.Mutex
	names   map[string]string // piweb-tree → its invocation name
	waiting map[string]chan bridgeReply
}

type bridgeReply struct {
	OK         bool    `json:"ok"`
	Error      string  `json:"error"`
	Leaf       *string `json:"leaf"`
	Cancelled  bool    `json:"cancelled"`
	EditorText string  `json:"editorText"`
}

// intercept takes a bridge answer out of the event stream; it reports
// whether e was one.
func (b *bridge) intercept(e Event) bool {
	if e.Type != EvExtensionUIRequest || fieldString(e.Raw, "method") != "setStatus" {
		return false
	}
	key := fieldString(e.Raw, "statusKey")
	nonce, ok := strings.CutPrefix(key, bridgeStatusPrefix)
	if !ok {
		return false
	}
	var r bridgeReply
	if err := json.Unmarshal([]byte(fieldString(e.Raw, "statusText")), &r); err != nil {
		r = bridgeReply{Error: "bad bridge answer: " + err.Error()}
	}
	b.mu.Lock()
	ch := b.waiting[nonce]
	delete(b.waiting, nonce)
	b.mu.Unlock()
	if ch != nil {
		ch <- r
	}
	return true
}

// resolve finds the invocation names of the bridge's commands.
func (w *Worker) bridgeName(ctx context.Context, name string) (string, error) {
	b := &w.bridge
	b.mu.Lock()
	names := b.names
	b.mu.Unlock()
	if names == nil {
		cmds, err := w.client.GetCommands(ctx)
		if err != nil {
			return "", err
		}
		names = map[string]string{}
		for _, c := range cmds {
			var si struct{ Path string }
			_ = json.Unmarshal(c.SourceInfo, &si)
			if c.Source == "extension" && strings.HasPrefix(filepath.Base(si.Path), "piweb-bridge-") {
				base, _, _ := strings.Cut(c.Name, ":")
				names[base] = c.Name
			}
		}
		b.mu.Lock()
		b.names = names
		b.mu.Unlock()
	}
	if n, ok := names[name]; ok {
		return n, nil
	}
	return "", ErrNoBridge
}

// bridgeCall runs one bridge command and waits for its answer.
func (w *Worker) bridgeCall(ctx context.Context, name string, args map[string]any) (bridgeReply, error) {
	inv, err := w.bridgeName(ctx, name)
	if err != nil {
		return bridgeReply{}, err
	}
	nonce := rand.Text()
	args["nonce"] = nonce
	js, err := json.Marshal(args)
	if err != nil {
		return bridgeReply{}, err
	}
	ch := make(chan bridgeReply, 1)
	b := &w.bridge
	b.mu.Lock()
	if b.waiting == nil {
		b.waiting = map[string]chan bridgeReply{}
	}
	b.waiting[nonce] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waiting, nonce)
		b.mu.Unlock()
	}()
	w.begin()
	defer w.end()
	// The prompt response of an extension command comes after its handler,
	// so the answer is normally already there.
	if err := w.client.Prompt(ctx, "/"+inv+" "+string(js), nil, ""); err != nil {
		return bridgeReply{}, err
	}
	select {
	case r := <-ch:
		if !r.OK {
			return r, fmt.Errorf("pi %s: %s", name, r.Error)
		}
		return r, nil
	case <-ctx.Done():
		return bridgeReply{}, ctx.Err()
	case <-w.client.Done():
		return bridgeReply{}, w.client.Exit()
	}
}

// TreeOptions qualify NavigateTree.
type TreeOptions struct {
	Summarize           bool   // summarize the branch being left (an LLM call)
	CustomInstructions  string // for the summary
	ReplaceInstructions bool   // CustomInstructions replace pi's prompt
	Label               string // label the target (or the summary entry)
}

// TreeResult is where navigation left the session.
type TreeResult struct {
	Leaf       string // new leaf id ("" at the root)
	Cancelled  bool   // an extension cancelled the navigation
	EditorText string // the user message's text when navigating to one
}

// NavigateTree moves the session's leaf to entry target in place (same
// file), as the TUI's /tree does: to a user message, the leaf becomes its
// parent and its text is returned for editing. Without a summary pi only
// moves its in-memory leaf: the file changes with the next entry.
func (w *Worker) NavigateTree(ctx context.Context, target string, o TreeOptions) (TreeResult, error) {
	if err := w.waitNotBusy(ctx); err != nil {
		return TreeResult{}, err
	}
	args := map[string]any{"target": target, "summarize": o.Summarize}
	if o.CustomInstructions != "" {
		args["customInstructions"] = o.CustomInstructions
		args["replaceInstructions"] = o.ReplaceInstructions
	}
	if o.Label != "" {
		args["label"] = o.Label
	}
	// Foreign appends must be seen before the bridge's own (branching)
	// writes are trusted.
	if err := w.CheckOutside(); err != nil {
		return TreeResult{}, err
	}
	// Until the navigation's writes (a branch summary, a label) are taken
	// in as pi's, no scan may judge them: they do not chain from the old
	// leaf, and a summary would be taken for an outside change.
	w.beginTrust()
	defer w.endTrust()
	r, err := w.bridgeCall(ctx, "piweb-tree", args)
	res := TreeResult{Cancelled: r.Cancelled, EditorText: r.EditorText}
	if r.Leaf != nil {
		res.Leaf = *r.Leaf
	}
	if err != nil {
		w.noteOwnWrite(w.leafAfterError(ctx))
		return TreeResult{}, err
	}
	w.noteOwnWrite(res.Leaf)
	return res, nil
}

// leafAfterError asks pi for its leaf after a failed navigation, which may
// have written part of its work; "" when pi cannot say.
func (w *Worker) leafAfterError(ctx context.Context) string {
	leaf, _ := w.Leaf(ctx)
	return leaf
}

// SetLabel sets (or, with "", clears) the label of an entry.
func (w *Worker) SetLabel(ctx context.Context, entryID, label string) error {
	_, err := w.bridgeCall(ctx, "piweb-label", map[string]any{"target": entryID, "label": label})
	return err
}

// Leaf returns pi's in-memory leaf entry id ("" for an empty session):
// from get_entries on pi >= 0.80.3 (asking only for the entries after the
// last one piweb knows, so the answer stays small), through the bridge
// before.
func (w *Worker) Leaf(ctx context.Context) (string, error) {
	if !w.client.Has(VersionEntries) {
		r, err := w.bridgeCall(ctx, "piweb-leaf", map[string]any{})
		if err != nil || r.Leaf == nil {
			return "", err
		}
		return *r.Leaf, nil
	}
	var since string
	if t := w.fileTracker(); t != nil {
		t.mu.Lock()
		since = t.leaf
		t.mu.Unlock()
	}
	leaf, err := w.entriesLeaf(ctx, since)
	var ce *CommandError
	if since != "" && errors.As(err, &ce) {
		leaf, err = w.entriesLeaf(ctx, "") // pi does not know that entry
	}
	return leaf, err
}

func (w *Worker) entriesLeaf(ctx context.Context, since string) (string, error) {
	var args any
	if since != "" {
		args = struct {
			Since string `json:"since"`
		}{since}
	}
	var out struct {
		LeafID *string `json:"leafId"`
	}
	err := w.Do(func(c *Client) error { return c.decode(ctx, "get_entries", args, &out) })
	if err != nil || out.LeafID == nil {
		return "", err
	}
	return *out.LeafID, nil
}
