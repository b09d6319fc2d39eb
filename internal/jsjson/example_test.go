package jsjson_test

import (
	"fmt"

	"piweb/internal/jsjson"
)

func ExampleObject() {
	var o jsjson.Object
	o.Set("type", jsjson.String("label"))
	o.Set("id", jsjson.String("a1b2c3d4"))
	o.Set("parentId", jsjson.Null())
	o.Set("label", jsjson.Value{}) // undefined: left out, as JSON.stringify does
	o.SetCanonical("targetId", []byte(`"e5f6a7b8"`))
	if err := o.SetRaw("details", []byte(`{ "b": 1.0, "10": "<&>", "2": "\u00e9" }`)); err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", o.AppendJSON(nil))
	// Output: {"type":"label","id":"a1b2c3d4","parentId":null,"targetId":"e5f6a7b8","details":{"2":"é","10":"<&>","b":1}}
}

func ExampleCanonical() {
	out, err := jsjson.Canonical([]byte(`{"n": 1e21, "m": -0, "s": "\u00e9\/", "n": 1.50}`))
	fmt.Printf("%s %v\n", out, err)
	// Output: {"n":1.5,"m":0,"s":"é/"} <nil>
}
