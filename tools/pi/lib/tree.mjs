// Safe answers about pi's getTree(): pi builds the tree recursively-free, but
// two things still go wrong on real files. Duplicate ids can link nodes into
// a loop (getTree's sort loop then never ends), and JSON.stringify overflows
// the stack on linear sessions longer than ~2000 entries. These helpers find
// the first and serialise without recursion to avoid the second.

/** treeCycle mirrors getTree's linking and reports a loop among its nodes. */
export function treeCycle(entries) {
	const nodes = new Map();
	for (const e of entries) nodes.set(e?.id, { children: [] });
	const roots = [];
	for (const e of entries) {
		const node = nodes.get(e?.id);
		const parent = e?.parentId === null || e?.parentId === e?.id ? undefined : nodes.get(e?.parentId);
		if (parent) parent.children.push(node);
		else roots.push(node);
	}
	return hasLoop(roots);
}

/** hasLoop is an iterative depth-first search for a node on its own path. */
function hasLoop(roots) {
	const state = new Map(); // node → 1 on the path, 2 finished
	for (const root of roots) {
		if (state.has(root)) continue;
		const stack = [[root, 0]];
		state.set(root, 1);
		while (stack.length) {
			const top = stack[stack.length - 1];
			const [node, i] = top;
			if (i === node.children.length) {
				state.set(node, 2);
				stack.pop();
				continue;
			}
			top[1]++;
			const child = node.children[i];
			const s = state.get(child);
			if (s === 1) return true;
			if (s === undefined) {
				state.set(child, 1);
				stack.push([child, 0]);
			}
		}
	}
	return false;
}

/**
 * flatTree lists getTree()'s nodes in depth-first pre-order; children and
 * roots refer to node indexes. Easy to decode at any depth.
 */
export function flatTree(roots) {
	const nodes = [];
	const index = new Map();
	const stack = [...roots].reverse();
	while (stack.length) {
		const node = stack.pop();
		if (index.has(node)) {
			// pi repeats a node object when a line is duplicated; list it once.
			continue;
		}
		index.set(node, nodes.length);
		nodes.push(node);
		for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
	}
	return {
		roots: roots.map((n) => index.get(n)),
		nodes: nodes.map((n) => ({ entry: n.entry, label: n.label, labelTimestamp: n.labelTimestamp, children: n.children.map((c) => index.get(c)) })),
	};
}

/**
 * encode is JSON.stringify, except that values nested deeper than V8's
 * recursive stringify allows (~4000 levels; ~2000 entries of a linear
 * getTree()) are written by an iterative encoder with the same output.
 */
export function encode(v) {
	try {
		return JSON.stringify(v) ?? "null";
	} catch (err) {
		if (!(err instanceof RangeError)) throw err;
		return deepStringify(v);
	}
}

/** jsonValue applies toJSON and maps what JSON.stringify drops to undefined. */
function jsonValue(v, key) {
	if (v !== null && typeof v === "object" && typeof v.toJSON === "function") v = v.toJSON(key);
	if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
	if (typeof v === "function" || typeof v === "symbol" || typeof v === "undefined") return undefined;
	if (typeof v === "bigint") throw new TypeError("Do not know how to serialize a BigInt");
	return v;
}

/** deepStringify is an iterative JSON.stringify without replacer or indent. */
export function deepStringify(root) {
	const out = [];
	const work = [{ v: jsonValue(root, "") }];
	while (work.length) {
		const w = work.pop();
		if (typeof w === "string") {
			out.push(w);
			continue;
		}
		const v = w.v;
		if (v === null || typeof v !== "object") {
			out.push(v === undefined ? "null" : JSON.stringify(v));
			continue;
		}
		const items = [];
		if (Array.isArray(v)) {
			v.forEach((x, i) => items.push({ v: jsonValue(x, String(i)) ?? null }));
			queue(work, "[", items, "]");
			continue;
		}
		for (const k of Object.keys(v)) {
			const x = jsonValue(v[k], k);
			if (x !== undefined) items.push(`${JSON.stringify(k)}:`, { v: x });
		}
		queue(work, "{", items, "}", 2);
	}
	return out.join("");
}

/** queue pushes open, items (grouped by step, comma-separated) and close so they pop in order. */
function queue(work, open, items, close, step = 1) {
	work.push(close);
	for (let i = items.length - step; i >= 0; i -= step) {
		for (let j = step - 1; j >= 0; j--) work.push(items[i + j]);
		if (i > 0) work.push(",");
	}
	work.push(open);
}
