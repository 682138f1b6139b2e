package derived

import (
	"encoding/json"
	"testing"
)

// TestValueLRPairs: configurations that differ in value_lr alone pair, the smaller
// multiplier the base; two pairs that differ in depth are tagged with it; a configuration
// differing in value_lr and another field, or an unreadable one, pairs with none.
func TestValueLRPairs(t *testing.T) {
	cfg := func(s string) json.RawMessage { return json.RawMessage(s) }
	cfgs := []json.RawMessage{
		cfg(`{"task":"bijection","value_lr":10,"transformer":{"layers":4}}`),
		cfg(`{"task":"bijection","value_lr":1,"transformer":{"layers":4}}`),
		cfg(`{"task":"bijection","value_lr":1,"transformer":{"layers":1}}`),
		cfg(`{"task":"bijection","value_lr":10,"transformer":{"layers":1}}`),
		cfg(`{"task":"bijection","value_lr":10,"lr":3,"transformer":{"layers":1}}`),
		cfg(`not json`),
	}
	vlr := []float64{10, 1, 1, 10, 10, 1}
	got := ValueLRPairs(cfgs, vlr)
	want := []ValueLRPair{{Base: 1, Arm: 0, Tag: "layers 4"}, {Base: 2, Arm: 3, Tag: "layers 1"}}
	if len(got) != len(want) {
		t.Fatalf("pairs %+v, want %+v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("pair %d: %+v, want %+v", k, got[k], want[k])
		}
	}
	if one := ValueLRPairs(cfgs[:2], vlr[:2]); len(one) != 1 || one[0].Tag != "" {
		t.Errorf("one pair: %+v, want one untagged", one)
	}
}
