// Unit tests for the oracle's own helpers (run by internal/pitest's tests).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { generate } from "../lib/gen.mjs";
import { openCopy } from "../lib/pi.mjs";
import { Rng, value } from "../lib/rand.mjs";
import { deepStringify, encode, flatTree, treeCycle } from "../lib/tree.mjs";

test("deepStringify matches JSON.stringify", () => {
	const rng = new Rng(1);
	const cases = [null, 1, "x", [undefined, () => 1], { a: undefined, b: [1, { c: null }] }, new Date(0), { d: new Date(1) }, [], {}, -0, NaN, "\ud800\u2028"];
	for (let i = 0; i < 500; i++) cases.push(value(rng, 5));
	for (const v of cases) assert.equal(deepStringify(v), JSON.stringify(v) ?? "null");
});

test("encode writes values too deep for JSON.stringify", () => {
	let v = 0;
	for (let i = 0; i < 20000; i++) v = { entry: i, children: [v] };
	const text = encode(v);
	let d = JSON.parse(text);
	let n = 0;
	while (typeof d === "object") (d = d.children[0]), n++;
	assert.equal(n, 20000);
});

test("generated sessions: trees encode identically, no loops", () => {
	const dir = mkdtempSync(join(tmpdir(), "pi-test-"));
	try {
		for (const file of generate(3, dir, 10)) {
			const { sm, done, rewritten } = openCopy(file);
			assert.equal(rewritten, false);
			const roots = sm.getTree();
			assert.equal(deepStringify(roots), JSON.stringify(roots));
			assert.equal(treeCycle(sm.getEntries()), false);
			const flat = flatTree(roots);
			assert.equal(flat.nodes.length, sm.getEntries().length);
			done();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
