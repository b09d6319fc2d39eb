package jsjson_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"piweb/internal/jsjson"
	"piweb/internal/pitest"
)

// oracleScript answers one request per stdin line with real JavaScript:
//
//	P <base64 bytes>  -> JSON.stringify(JSON.parse(utf8 text)) or ERR
//	S <base64 bytes>  -> JSON.stringify(utf8 text)
//	N <16 hex digits> -> JSON.stringify(the float64 with these bits)
//	O <base64 JSON>   -> JSON.stringify of an object after the definitions
//	                     and deletions [[key, json-or-null], [key], ...]
//	                     (defineProperty, so "__proto__" is a plain key)
//
// Answers are "OK <base64 of the UTF-8 result>" or "ERR".
const oracleScript = `
const rl = require("readline").createInterface({input: process.stdin});
const out = [];
const f64 = new Float64Array(1), u64 = new BigUint64Array(f64.buffer);
rl.on("line", (line) => {
  const arg = line.slice(2);
  let r;
  try {
    switch (line[0]) {
    case "P": r = JSON.stringify(JSON.parse(Buffer.from(arg, "base64").toString("utf8"))); break;
    case "S": r = JSON.stringify(Buffer.from(arg, "base64").toString("utf8")); break;
    case "N": u64[0] = BigInt("0x" + arg); r = JSON.stringify(f64[0]); break;
    case "O": {
      const o = {};
      for (const [k, v] of JSON.parse(Buffer.from(arg, "base64").toString("utf8"))) {
        if (v === undefined) { delete o[k]; continue; }
        const value = v === null ? undefined : JSON.parse(v);
        Object.defineProperty(o, k, {value, writable: true, enumerable: true, configurable: true});
      }
      r = JSON.stringify(o);
      break;
    }
    }
    out.push("OK " + Buffer.from(r, "utf8").toString("base64"));
  } catch (e) {
    out.push("ERR");
  }
});
rl.on("close", () => process.stdout.write(out.join("\n") + "\n"));
`

type oracleAnswer struct {
	ok  bool
	out []byte
}

// askNode sends all requests to one node process and returns its answers.
func askNode(t *testing.T, reqs []string) []oracleAnswer {
	t.Helper()
	cmd := exec.Command(pitest.Node(t), "-e", oracleScript)
	cmd.Stdin = strings.NewReader(strings.Join(reqs, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var answers []oracleAnswer
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "ERR" {
			answers = append(answers, oracleAnswer{})
			continue
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(line, "OK "))
		if err != nil {
			t.Fatalf("bad oracle answer %q: %v", line, err)
		}
		answers = append(answers, oracleAnswer{ok: true, out: b})
	}
	if len(answers) != len(reqs) {
		t.Fatalf("node answered %d of %d requests", len(answers), len(reqs))
	}
	return answers
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestOracleParse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for range 4000 {
		doc := genText(r)
		inputs = append(inputs, doc)
		for range 3 {
			inputs = append(inputs, mutate(r, doc))
		}
	}
	for range 300 {
		doc := genBigObject(r)
		c, _ := jsjson.Canonical(doc)
		inputs = append(inputs, doc, c, mutate(r, doc))
	}
	inputs = append(inputs, trickyInputs()...)
	reqs := make([]string, len(inputs))
	for i, in := range inputs {
		reqs[i] = "P " + b64(in)
	}
	answers := askNode(t, reqs)
	var accepted int
	for i, in := range inputs {
		want := answers[i]
		got, err := jsjson.Canonical(in)
		if want.ok {
			accepted++
		}
		switch {
		case want.ok != (err == nil):
			t.Errorf("Canonical(%q): err = %v, node accepts = %v", in, err, want.ok)
		case want.ok && !bytes.Equal(got, want.out):
			t.Errorf("Canonical(%q)\n got %q\nnode %q", in, got, want.out)
		}
		if jsjson.Valid(in) != want.ok {
			t.Errorf("Valid(%q) = %v, node accepts = %v", in, !want.ok, want.ok)
		}
		if c := want.ok && bytes.Equal(in, want.out); jsjson.IsCanonical(in) != c {
			t.Errorf("IsCanonical(%q) = %v, want %v", in, !c, c)
		}
	}
	t.Logf("%d inputs, %d accepted by JSON.parse", len(inputs), accepted)
}

func TestOracleString(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var inputs []string
	for range 5000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = byte(r.IntN(0x80))
			case 1:
				b[i] = byte(0x80 + r.IntN(0x40)) // continuation byte
			default:
				b[i] = byte(r.IntN(256))
			}
		}
		inputs = append(inputs, string(b))
	}
	inputs = append(inputs, "\u2028\u2029<>&/\x7f😀", "\xed\xa0\x80\xed\xb0\x80", "\xf4\x8f\xbf\xbf\xf4\x90")
	reqs := make([]string, len(inputs))
	for i, in := range inputs {
		reqs[i] = "S " + b64([]byte(in))
	}
	for i, a := range askNode(t, reqs) {
		if got := jsjson.AppendString(nil, inputs[i]); !bytes.Equal(got, a.out) {
			t.Errorf("AppendString(%q)\n got %q\nnode %q", inputs[i], got, a.out)
		}
	}
}

func TestOracleNumber(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var fs []float64
	for range 20000 {
		fs = append(fs, math.Float64frombits(r.Uint64()))
	}
	for e := -330; e <= 310; e++ {
		p := math.Pow(10, float64(e))
		fs = append(fs, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), 1.5*p, -p*r.Float64())
	}
	for range 5000 {
		fs = append(fs, float64(r.Int64N(1<<62))*math.Pow(2, float64(r.IntN(40)-20)), r.Float64()*1e-6, float64(r.Int64()))
	}
	fs = append(fs, 0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1<<53, 1<<53+2, 1e21, 5e-324, math.MaxFloat64)
	reqs := make([]string, len(fs))
	for i, f := range fs {
		reqs[i] = fmt.Sprintf("N %016x", math.Float64bits(f))
	}
	for i, a := range askNode(t, reqs) {
		if got := jsjson.AppendNumber(nil, fs[i]); !bytes.Equal(got, a.out) {
			t.Errorf("AppendNumber(%v) = %s, node %s", fs[i], got, a.out)
		}
	}
}

func TestOracleObject(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	keys := []string{"a", "b", "type", "0", "1", "7", "10", "01", "4294967294", "4294967295", "__proto__", ""}
	type op struct {
		key string
		val []byte // nil: delete; "": set undefined
		del bool
	}
	var scripts [][]op
	var reqs []string
	for range 2000 {
		var ops []op
		js := []any{}
		for range r.IntN(12) {
			k := keys[r.IntN(len(keys))]
			switch r.IntN(5) {
			case 0:
				ops = append(ops, op{key: k, del: true})
				js = append(js, []any{k})
			case 1:
				ops = append(ops, op{key: k})
				js = append(js, []any{k, nil})
			default:
				v := genValue(r, nil, 3)
				c, err := jsjson.Canonical(v)
				if err != nil {
					continue
				}
				ops = append(ops, op{key: k, val: c})
				js = append(js, []any{k, string(c)})
			}
		}
		data, err := json.Marshal(js)
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, ops)
		reqs = append(reqs, "O "+b64(data))
	}
	for i, a := range askNode(t, reqs) {
		var o jsjson.Object
		for _, op := range scripts[i] {
			switch {
			case op.del:
				o.Delete(op.key)
			case op.val == nil:
				o.Set(op.key, jsjson.Value{})
			default:
				o.SetCanonical(op.key, op.val)
			}
		}
		if got := o.AppendJSON(nil); !bytes.Equal(got, a.out) {
			t.Errorf("ops %+v\n got %s\nnode %s", scripts[i], got, a.out)
		}
	}
}

// trickyInputs are hand-picked texts around JSON.parse's edges.
func trickyInputs() [][]byte {
	var out [][]byte
	for _, s := range []string{
		"\xef\xbb\xbf{}", "\u00a0{}", "\u2028[]", "[]\u2029", "[1,]", "{\"a\":1,}", "01", "-0", "1.", ".1",
		"\"\x1f\"", "\"\x7f\"", "\"\\u000G\"", "\"\\ud800\"", "\"\\udfff\\ud800\"", "\"\\uD83D\\uDE00\"", "\"\\'\"",
		"\"\\a\"", "\"\xff\"", "\"\xed\xa0\x80\"", "[\xff]", "\f[]", "\v[]", "[]\x00", "nulll", "[1e+]", "[1E5]",
		"{\"10\":1,\"9\":2,\"a\":3,\"1\":4}", "{\"a\":1,\"a\":{\"b\":2},\"a\":[3]}", "  \r\n\t  7  ", "",
		"{\"4294967294\":0,\"4294967295\":1,\"4294967296\":2,\"00\":3}", "[1e999,-1e999,1e-999]",
		"[9007199254740993,9007199254740995,2.4703282292062327e-324,2.4703282292062328e-324]",
		"[0.1000000000000000055511151231257827021181583404541015625,0.1000000000000000055511151231257827021181583404541015626]",
		"[1.00000000000000011102230246251565404236316680908203125,1.00000000000000011102230246251565404236316680908203124]",
		"[123456789012345678901234567890e-10,0.000000000000000000000000000001e30]",
		"[1e99999999999999999999,0e99999999999999999999,-1e-99999999999999999999,-0.0e-0]",
		"[0." + strings.Repeat("0", 400) + "1e400," + strings.Repeat("9", 400) + "e-400," + strings.Repeat("1", 800) + "]",
		"[4.4501477170144023e-308,2.2250738585072011e-308,2.2250738585072012e-308,1e23,8.41e21,5e-7]",
	} {
		out = append(out, []byte(s))
	}
	return out
}

// genBigObject returns an object with up to 60 members drawn from 40
// names, so that duplicates are common and the parser's and IsCanonical's
// large-object paths are taken.
func genBigObject(r *rand.Rand) []byte {
	b := []byte{'{'}
	for i := range r.IntN(60) {
		if i > 0 {
			b = append(b, ',')
		}
		k := r.IntN(40)
		if k < 10 {
			b = strconv.AppendQuote(b, strconv.Itoa(k*k))
		} else {
			b = strconv.AppendQuote(b, fmt.Sprintf("key%d", k))
		}
		b = append(b, ':')
		b = genValue(r, b, 4)
	}
	return append(b, '}')
}

var genKeys = []string{"a", "b", "type", "id", "0", "1", "2", "10", "01", "-1", "1.5", "4294967294",
	"4294967295", "99999999999", "__proto__", "constructor", "", "é", "\\u0030", "\\u00e9", "k\\n"}

// genText returns a random JSON text (with random whitespace and
// non-canonical spellings) that JSON.parse accepts.
func genText(r *rand.Rand) []byte {
	var b []byte
	b = genWS(r, b)
	b = genValue(r, b, 0)
	return genWS(r, b)
}

func genWS(r *rand.Rand, b []byte) []byte {
	if r.IntN(4) != 0 {
		return b
	}
	for range r.IntN(3) + 1 {
		b = append(b, " \t\n\r"[r.IntN(4)])
	}
	return b
}

func genValue(r *rand.Rand, b []byte, depth int) []byte {
	k := r.IntN(10)
	if depth > 5 && k >= 8 {
		k = r.IntN(8)
	}
	switch k {
	case 0:
		return append(b, []string{"null", "true", "false"}[r.IntN(3)]...)
	case 1, 2, 3:
		return genNumber(r, b)
	case 4, 5, 6, 7:
		return genString(r, b)
	case 8:
		b = append(b, '[')
		for i := range r.IntN(4) {
			if i > 0 {
				b = append(genWS(r, b), ',')
			}
			b = genValue(r, genWS(r, b), depth+1)
		}
		return append(genWS(r, b), ']')
	}
	b = append(b, '{')
	for i := range r.IntN(6) {
		if i > 0 {
			b = append(genWS(r, b), ',')
		}
		b = genWS(r, b)
		if r.IntN(3) == 0 {
			b = genString(r, b)
		} else {
			b = append(append(append(b, '"'), genKeys[r.IntN(len(genKeys))]...), '"')
		}
		b = append(genWS(r, b), ':')
		b = genValue(r, genWS(r, b), depth+1)
	}
	return append(genWS(r, b), '}')
}

func genNumber(r *rand.Rand, b []byte) []byte {
	if r.IntN(2) == 0 {
		b = append(b, '-')
	}
	switch r.IntN(6) {
	case 0:
		return strconv.AppendInt(b, r.Int64N(1000), 10)
	case 1:
		return strconv.AppendUint(b, r.Uint64()>>r.IntN(64), 10)
	case 2:
		f := math.Float64frombits(r.Uint64() &^ (1 << 63))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 1.5
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	}
	if r.IntN(3) == 0 {
		b = append(b, '0')
	} else {
		b = strconv.AppendInt(b, 1+r.Int64N(1e12), 10)
	}
	if r.IntN(2) == 0 {
		b = append(b, '.')
		for range 1 + r.IntN(20) {
			b = append(b, byte('0'+r.IntN(10)))
		}
	}
	if r.IntN(2) == 0 {
		b = append(b, "eE"[r.IntN(2)])
		b = append(b, []string{"", "+", "-"}[r.IntN(3)]...)
		b = strconv.AppendInt(b, int64(r.IntN(400)), 10)
	}
	return b
}

var genPieces = []string{"a", "Z", " ", "é", "😀", "\u2028", "\u2029", "<", ">", "&", "/", "\x7f", "\uFFFD",
	"\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0000", "\\u001F", "\\u001f", "\\u0041",
	"\\u00E9", "\\u2028", "\\ud800", "\\uDBFF", "\\udc00", "\\uDFFF", "\\ud83d\\ude00", "\\uD83D\\uDE00",
	"\\ud83d", "\\ude00", "\xff", "\xe2\x82", "\xed\xa0\x80", "\xc0\xaf", "\xf0\x9f\x98"}

func genString(r *rand.Rand, b []byte) []byte {
	b = append(b, '"')
	for range r.IntN(8) {
		b = append(b, genPieces[r.IntN(len(genPieces))]...)
	}
	return append(b, '"')
}

var mutations = []string{",", "]", "}", "[", "{", "\"", "\\", ":", "0", "-", ".", "e", " ", "\x00", "\x1f",
	"\t", "\xef\xbb\xbf", "\u00a0", "\u2028", "\u2029", "\f", "\v", "x", "\\u", "\\x", "\xff"}

// mutate returns doc with one random edit: truncation, insertion, deletion
// or replacement, which JSON.parse mostly rejects.
func mutate(r *rand.Rand, doc []byte) []byte {
	if len(doc) == 0 {
		return []byte(mutations[r.IntN(len(mutations))])
	}
	i := r.IntN(len(doc))
	m := mutations[r.IntN(len(mutations))]
	out := append([]byte(nil), doc[:i]...)
	switch r.IntN(4) {
	case 0:
		return out
	case 1:
		return append(append(out, m...), doc[i:]...)
	case 2:
		return append(out, doc[i+1:]...)
	}
	return append(append(out, m...), doc[i+1:]...)
}
