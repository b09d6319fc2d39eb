// Seeded randomness and awkward values for generated sessions.

/** Rng is mulberry32: tiny, fast, and the same sequence for the same seed. */
export class Rng {
	constructor(seed) {
		this.s = seed >>> 0;
	}
	next() {
		this.s = (this.s + 0x6d2b79f5) >>> 0;
		let t = this.s;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}
	int(n) {
		return Math.floor(this.next() * n);
	}
	chance(p) {
		return this.next() < p;
	}
	pick(arr) {
		return arr[this.int(arr.length)];
	}
	/** weighted picks a key of {key: weight}. */
	weighted(table) {
		const total = Object.values(table).reduce((a, b) => a + b, 0);
		let r = this.next() * total;
		for (const [k, w] of Object.entries(table)) {
			if ((r -= w) < 0) return k;
		}
		return Object.keys(table)[0];
	}
}

// Pieces that trip encoders, decoders and HTML: JS line separators (valid in
// JSON, not in old JS), markup, astral emoji, control characters, lone
// surrogates (JSON.stringify writes them as \udXXX escapes), combining marks,
// right-to-left text, quotes and backslashes.
const TRAPS = [
	"\u2028", "\u2029", "<&>", "</script>", "<b>bold</b>", "😀", "👩🏽‍💻", "\u0000", "\u0007", "\u001f",
	"\u007f", "\t", "\r", "\n", "\r\n", "\ud800", "\udfff", "e\u0301", "שלום", '"', "\\", "\\u0041", "{\"}", "\ufeff",
];
const WORDS = [
	"read", "the", "file", "src/main.go", "fix", "bug", "please", "why", "does", "this", "fail", "test", "ok",
	"function", "return", "error", "naïve", "café", "日本語", "Ωmega", "x", "0.1", "1e21", "null",
];

/** text builds a sentence of n-ish words, with traps mixed in. */
export function text(rng, n = 8) {
	const parts = [];
	const count = 1 + rng.int(n);
	for (let i = 0; i < count; i++) {
		parts.push(rng.chance(0.15) ? rng.pick(TRAPS) : rng.pick(WORDS));
	}
	if (rng.chance(0.03)) parts.push("long ".repeat(500 + rng.int(1500)));
	return parts.join(rng.chance(0.9) ? " " : "");
}

// Numbers whose shortest round-trip text differs between encoders.
export const NUMBERS = [0, 1, -1, 0.1, 0.2 + 0.1, 1e21, 1e-7, 123456789012, 2 ** 53, 2 ** 53 + 2, 5e-324, 1.7976931348623157e308, -0, 1.5, 100];

/** value builds a random JSON value of bounded depth and size. */
export function value(rng, depth = 3) {
	const kind = depth <= 0 ? rng.int(4) : rng.int(6);
	switch (kind) {
		case 0:
			return rng.pick(NUMBERS);
		case 1:
			return text(rng, 4);
		case 2:
			return rng.pick([true, false, null]);
		case 3:
			return rng.int(1000);
		case 4: {
			const arr = [];
			for (let i = rng.int(4); i > 0; i--) arr.push(value(rng, depth - 1));
			return arr;
		}
		default:
			return object(rng, depth - 1);
	}
}

// Keys include integer-like ones (JS objects put those first, whatever the
// insertion order), "__proto__" (an ordinary own key when parsed or defined),
// and the empty key.
const KEYS = ["a", "b", "count", "path", "10", "2", "__proto__", "", "ключ", "k😀", "a b", "constructor"];

/** object builds a random object with awkward keys. */
export function object(rng, depth = 2) {
	const obj = {};
	for (let i = 1 + rng.int(4); i > 0; i--) {
		Object.defineProperty(obj, rng.pick(KEYS), { value: value(rng, depth), enumerable: true, writable: true, configurable: true });
	}
	return obj;
}

/** base64 encodes n random bytes (an "image" payload). */
export function base64(rng, n) {
	const bytes = new Uint8Array(n);
	for (let i = 0; i < n; i++) bytes[i] = rng.int(256);
	return Buffer.from(bytes).toString("base64");
}

/**
 * installClock replaces the global Date so `new Date()` and `Date.now()`
 * (which pi uses for timestamps, file names and uuidv7 session ids) follow a
 * seeded clock. Call restore() when done.
 */
export function installClock(startMs) {
	const RealDate = globalThis.Date;
	let now = startMs;
	class SeededDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(now);
			else super(...args);
		}
		static now() {
			return now;
		}
	}
	globalThis.Date = SeededDate;
	return {
		tick(ms) {
			now += ms;
		},
		now: () => now,
		restore() {
			globalThis.Date = RealDate;
		},
	};
}
