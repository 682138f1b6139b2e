package untrusted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCheckJSON(t *testing.T) {
	for _, c := range []struct {
		name, doc, want string // want "" accepts
	}{
		{"object", `{"a":1,"b":[1,{"a":2}],"c":{"a":3}}`, ""},
		{"same key in sibling objects", `[{"a":1},{"a":2}]`, ""},
		{"scalar", ` 3 `, ""},
		{"empty key once", `{"":1}`, ""},
		{"top-level duplicate", `{"a":1,"a":2}`, `key "a" appears twice in the object at $`},
		{"nested duplicate", `{"x":{"y":[0,{"k":1,"k":1}]}}`, `key "k" appears twice in the object at $.x.y[1]`},
		{"escaped duplicate", `{"a":1,"\u0061":2}`, `key "a" appears twice`},
		{"duplicate null", `{"a":null,"a":null}`, `key "a" appears twice`},
		{"too deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), "nested deeper than 64"},
		{"at the depth", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), ""},
		{"trailing", `{"a":1} {"a":1}`, "after top-level value"},
		{"truncated", `{"a":[1,2`, "unexpected end"},
		{"empty", ``, "unexpected end"},
		{"broken", `{"a" 1}`, "json: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckJSON([]byte(c.doc))
			if c.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	var v map[string]int
	var de *DuplicateKeyError
	if err := Unmarshal([]byte(`{"n":1,"n":2}`), &v); !errors.As(err, &de) || de.Key != "n" {
		t.Errorf("Unmarshal: %v, want a *DuplicateKeyError for n", err)
	}
	var s struct{ A int }
	if err := UnmarshalKnown([]byte(`{"A":1,"B":2}`), &s); err == nil || !strings.Contains(err.Error(), `unknown field "B"`) {
		t.Errorf("UnmarshalKnown: %v", err)
	}
}

// TestCheckJSONLargeDocument checks a document of the shape and size of a large
// tokenizer.json (a 128k-key object, 280k two-string arrays: 8 MB) within two seconds
// (0.4 s on a loaded 2-core machine; json.Decoder's tokens took 2.6 s).
func TestCheckJSONLargeDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("an 8 MB document")
	}
	var b strings.Builder
	b.WriteString(`{"model":{"vocab":{`)
	for i := range 128000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"tok%d":%d`, i, i)
	}
	b.WriteString(`},"merges":[`)
	for i := range 280000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["a%d","b%d"]`, i, i)
	}
	b.WriteString(`]}}`)
	start := time.Now()
	if err := CheckJSON([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("%d bytes took %v", b.Len(), d)
	}
	t.Logf("%d bytes in %v", b.Len(), time.Since(start))
}

func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[{"k":"\"","k\\":1}]`, `{"a":{"b":[1,{"c":"}"}]}}`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := CheckJSON(b); err == nil {
			var v any
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber() // 1e700 is valid JSON, not a float64
			if err := d.Decode(&v); err != nil {
				t.Fatalf("accepted %q, which json.Unmarshal refuses: %v", b, err)
			}
		}
	})
}
