package untrusted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxDepth is the deepest nesting of arrays and objects CheckJSON accepts (the project's
// files nest a few levels; tokenizer.json's pre-tokenizer sequences under ten).
const MaxDepth = 64

// DuplicateKeyError is the error for an object that holds a key twice.
type DuplicateKeyError struct {
	// Key is the repeated key, Path where its object is ("$" the document, "$.a[3]" …).
	Key, Path string
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("key %s appears twice in the object at %s", quote(e.Key), e.Path)
}

// quote is a key for a message: quoted, at most 100 bytes of it.
func quote(s string) string {
	if len(s) > 100 {
		return strconv.Quote(s[:100]) + "…"
	}
	return strconv.Quote(s)
}

// Unmarshal decodes the JSON document data into v as json.Unmarshal does, after CheckJSON.
func Unmarshal(data []byte, v any) error {
	if err := CheckJSON(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// UnmarshalKnown is Unmarshal refusing, as json.Decoder.DisallowUnknownFields does, an
// object key that names no field of the struct it decodes into.
func UnmarshalKnown(data []byte, v any) error {
	if err := CheckJSON(data); err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	return d.Decode(v) // CheckJSON refused data after the document
}

// frame is one open array or object of CheckJSON's walk.
type frame struct {
	object  bool
	keys    map[string]struct{}
	wantKey bool   // an object's next string is a key
	key     string // an object's current key
	index   int    // an array's current element
}

// CheckJSON returns an error when data is not one JSON document (json.Valid), nests deeper
// than MaxDepth, or holds an object with a key twice (a *DuplicateKeyError; keys compared
// after unescaping, as encoding/json compares them). It reads 8 MB of tokenizer.json in
// about a tenth of a second: a byte scan of the valid document, not json.Decoder's tokens
// (ten times slower).
func CheckJSON(data []byte) error {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // says where, for the message (Valid does not)
		if err == nil {
			err = errors.New("invalid document")
		}
		return fmt.Errorf("json: %w", err)
	}
	var stack []frame
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			end := stringEnd(data, i)
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				top := &stack[n-1]
				raw := data[i : end+1]
				var k string
				if bytes.IndexByte(raw, '\\') < 0 {
					k = string(raw[1 : len(raw)-1])
				} else if err := json.Unmarshal(raw, &k); err != nil {
					return fmt.Errorf("json: key at %s: %w", path(stack), err)
				}
				if _, dup := top.keys[k]; dup {
					return &DuplicateKeyError{Key: k, Path: path(stack)}
				}
				top.keys[k] = struct{}{}
				top.key, top.wantKey = k, false
			}
			i = end
		case '{', '[':
			if len(stack) >= MaxDepth {
				return fmt.Errorf("json: nested deeper than %d (at %s)", MaxDepth, path(stack))
			}
			f := frame{object: c == '{', wantKey: c == '{'}
			if f.object {
				f.keys = map[string]struct{}{}
			}
			stack = append(stack, f)
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				top.wantKey = true
			} else {
				top.index++
			}
		}
	}
	return nil
}

// stringEnd returns the index of the quote closing the string that opens at data[i] (data
// is valid JSON).
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(data) - 1
}

// path writes where the walk is, "$.a[3].b", for a message (keys of over 100 bytes cut).
func path(stack []frame) string {
	var b strings.Builder
	b.WriteString("$")
	for _, f := range stack {
		switch {
		case f.object && f.key != "" && !f.wantKey:
			k := f.key
			if len(k) > 100 {
				k = k[:100] + "…"
			}
			b.WriteString("." + k)
		case !f.object:
			fmt.Fprintf(&b, "[%d]", f.index)
		}
		if b.Len() > 400 {
			b.WriteString("…")
			break
		}
	}
	return b.String()
}
