package arch

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSizesJSON: the size structs write snake_case keys, like the rest of a stored
// configuration, and still read the capitalised keys sessions wrote before they had tags.
func TestSizesJSON(t *testing.T) {
	b, err := json.Marshal(Spec{Transformer: TransformerConfig{Layers: 4, Heads: 4, Width: 64}}.Transformer)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"layers":4,"heads":4,"width":64,"mlp":0}`; got != want {
		t.Errorf("transformer JSON %s, want %s", got, want)
	}
	cases := []struct {
		name, in string
		want     MambaConfig
	}{
		{"today's keys", `{"layers":2,"width":32,"state":8,"expand":2,"conv":4}`, MambaConfig{2, 32, 8, 2, 4}},
		{"old capitalised keys", `{"Layers":2,"Width":32,"State":8,"Expand":2,"Conv":4}`, MambaConfig{2, 32, 8, 2, 4}},
	}
	for _, c := range cases {
		var m MambaConfig
		if err := json.Unmarshal([]byte(c.in), &m); err != nil || m != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, m, err, c.want)
		}
	}
	for _, v := range []any{MLPConfig{}, PrefixMLPConfig{}, LSTMConfig{}, MambaConfig{}} {
		b, _ := json.Marshal(v)
		if strings.ContainsAny(string(b), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Errorf("%T writes a capitalised key: %s", v, b)
		}
	}
}

// TestKinds: the paper's rows come first, in the table's order, and every kind is known.
func TestKinds(t *testing.T) {
	if got := strings.Join(PaperKinds(), ","); got != "transformer,mamba,lstm,mlp" {
		t.Errorf("PaperKinds = %s", got)
	}
	for _, k := range Kinds() {
		if !KnownKind(k) {
			t.Errorf("%s not known", k)
		}
	}
	if KnownKind("rnn") {
		t.Error("rnn known")
	}
	if err := (Spec{Kind: "rnn"}).Validate(); err == nil || !strings.Contains(err.Error(), "transformer, mamba, lstm, mlp or mlp-prefix") {
		t.Errorf("unknown kind: %v", err)
	}
}
