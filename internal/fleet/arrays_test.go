package fleet

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/pgtest"
)

// TestBinaryArrays: the arrays a push sends read back in PostgreSQL as
// the values they were made of, empty ones included.
func TestBinaryArrays(t *testing.T) {
	c := pgtest.Shared(t)
	conn := connectAs(t, c.URL(c.NewDB(t), pgtest.Superuser, ""))
	texts := []string{"", "a", "ünï\ncode", "/p/--x--/a b.jsonl"}
	raw := [][]byte{{}, {0, 1, 255}, []byte(`{"type":"x"}`)}
	ints := []int32{0, -1, math.MaxInt32}
	longs := []int64{0, -1, 1796378460000}
	floats := []float64{0, -1.5, math.Inf(1), 1e-300}
	bools := []bool{true, false}
	vals, oids, formats := params(param{oidTextArray, textArray(texts)}, param{oidByteaArray, byteaArray(raw)},
		param{oidInt4Array, int4Array(ints)}, param{oidInt8Array, int8Array(longs)},
		param{oidFloat8Array, float8Array(floats)}, param{oidBoolArray, boolArray(bools)},
		param{oidTextArray, textArray(nil)}, param{oidText, []byte("m")})
	res := conn.PgConn().ExecParams(t.Context(), `SELECT array_to_json($1::text[])::text, array_to_string(ARRAY(SELECT '-' || encode(x, 'hex') FROM unnest($2::bytea[]) x), ','),
		array_to_string($3::integer[], ','), array_to_string($4::bigint[], ','), array_to_string($5::float8[], ','),
		array_to_string($6::boolean[], ','), cardinality($7::text[]), $8::text`, vals, oids, formats, nil).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var got []string
	for _, v := range res.Rows[0] {
		got = append(got, string(v))
	}
	want := []string{`["","a","ünï\ncode","/p/--x--/a b.jsonl"]`, "-,-0001ff,-7b2274797065223a2278227d",
		"0,-1,2147483647", "0,-1,1796378460000", "0,-1.5,Infinity,1e-300", "t,f", "0", "m"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("arrays read back (-want +got):\n%s", diff)
	}
}
