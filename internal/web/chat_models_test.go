package web

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// testModelsEditor: the models.json editor never shows a stored key,
// refuses what pi would (a model without an id), and saves a new model
// that a new pi then offers, keeping the stored key and the members it
// does not edit.
func testModelsEditor(t *testing.T, r *chatRig) {
	file := filepath.Join(r.agentDir, "models.json")
	before := testkit.ReadFile(t, file)
	defer os.WriteFile(file, before, 0o644)                                      // other tests use the fake's two models
	if !eval[bool](t, r.browser, `!!document.querySelector('.chat-controls')`) { // else the last test's session serves
		r.startAnswered(t, "models base", "Models base.")
	}

	r.click(t, ".chat-controls .act-models")
	r.waitJS(t, `document.querySelectorAll('.models-dialog .models-table tbody tr').length === 2`)
	if eval[bool](t, r.browser, fmt.Sprintf(`document.querySelector('.models-dialog').outerHTML.includes(%q) || [...document.querySelectorAll('.models-dialog input')].some((i) => i.value.includes(%q))`, fakellm.APIKey, fakellm.APIKey)) {
		t.Fatal("the stored API key reached the page")
	}
	r.waitJS(t, `document.querySelector('.models-dialog [name=apiKey]').placeholder.includes('stored')`)
	setField := func(sel, v string) {
		eval[bool](t, r.browser, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`, sel, v))
		r.waitJS(t, fmt.Sprintf(`document.querySelector(%q).value === %q`, sel, v))
	}
	// A key typed in is masked as it is typed; taken out again, the field
	// keeps the stored key (the file check below).
	setField(".models-dialog [name=apiKey]", "sk-typed-secret")
	r.waitJS(t, `document.querySelector('.models-dialog [name=apiKey]').type === 'password'`)
	setField(".models-dialog [name=apiKey]", "")
	r.waitJS(t, `document.querySelector('.models-dialog [name=apiKey]').placeholder.includes('stored')`)
	// On a phone the editor fits and its fields can be touched.
	r.run(t, chromedp.EmulateViewport(375, 800))
	fitsPhone(t, r.browser, "models editor")
	if small := eval[string](t, r.browser, smallTargetsJS); small != "" {
		t.Errorf("models editor: touch targets under 32 px high: %s", small)
	}
	r.run(t, chromedp.EmulateViewport(1280, 800))

	r.click(t, ".models-dialog .add-model")
	r.waitJS(t, `document.querySelectorAll('.models-dialog .models-table tbody tr').length === 3`)
	r.click(t, ".models-dialog .save-models")
	r.waitJS(t, `document.querySelector('.models-errors')?.innerText.includes('model 3 needs an id')`)
	if b, _ := os.ReadFile(file); string(b) != string(before) {
		t.Fatal("an invalid config was written")
	}

	row := `.models-dialog .models-table tbody tr:nth-child(3) `
	setField(row+"[name=id]", "fake-extra")
	setField(row+"[name=name]", "Fake Extra")
	setField(row+"[name=contextWindow]", "32000")
	r.click(t, ".models-dialog .save-models")
	r.waitJS(t, `!document.querySelector('.models-dialog')`)

	var cfg struct {
		Providers map[string]struct {
			APIKey string           `json:"apiKey"`
			Compat map[string]any   `json:"compat"`
			Models []map[string]any `json:"models"`
		} `json:"providers"`
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("saved models.json: %v\n%s", err, b)
	}
	p := cfg.Providers[fakellm.Provider]
	if p.APIKey != fakellm.APIKey || p.Compat == nil || len(p.Models) != 3 || p.Models[2]["id"] != "fake-extra" || p.Models[2]["contextWindow"] != 32000.0 {
		t.Errorf("saved models.json:\n%s", b)
	}
	// A new pi offers it (a running one keeps the models it started with).
	r.open(t, "/")
	r.click(t, ".new-session")
	r.waitJS(t, `document.querySelector('.new-session-dialog [name=model] option[value="fake/fake-extra"]')?.textContent === 'Fake Extra'`)
	r.key(t, kb.Escape)
	r.waitJS(t, `!document.querySelector('.new-session-dialog')`)
}
