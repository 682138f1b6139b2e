package derived

import (
	"encoding/json"
	"fmt"
)

// ValueLRPair is two configurations that differ only in the value projection's
// learning-rate multiplier: Paper II's baseline (Base, the smaller multiplier) and its
// faster arm (Arm), as indices into the configurations ValueLRPairs was given.
type ValueLRPair struct {
	Base, Arm int
	// Tag names what tells the pair's baseline from the other pairs' (Labels: "init normal,
	// layers 4"); "" when there is one pair.
	Tag string
}

// ValueLRPairs finds the pairs among cfgs (stored configurations of one task and model, one
// per configuration; valueLR[i] is cfgs[i]'s multiplier) that differ in value_lr alone,
// ordered by base then arm, and tags them when there are several. A configuration that
// cannot be read pairs with none.
func ValueLRPairs(cfgs []json.RawMessage, valueLR []float64) []ValueLRPair {
	if len(valueLR) != len(cfgs) {
		panic(fmt.Sprintf("derived: ValueLRPairs: %d configurations, %d multipliers", len(cfgs), len(valueLR)))
	}
	var pairs []ValueLRPair
	for i := range cfgs {
		for j := range cfgs {
			if !(valueLR[i] < valueLR[j]) {
				continue
			}
			ds, err := Differences(cfgs[i], cfgs[j])
			if err == nil && len(ds) == 1 && ds[0].Field == "value_lr" {
				pairs = append(pairs, ValueLRPair{Base: i, Arm: j})
			}
		}
	}
	if len(pairs) < 2 {
		return pairs
	}
	bases := make([]json.RawMessage, len(pairs))
	for k, p := range pairs {
		bases[k] = cfgs[p.Base]
	}
	tags, err := Labels(bases)
	for k := range pairs {
		pairs[k].Tag = fmt.Sprintf("pair %d", k+1)
		if err == nil {
			pairs[k].Tag = tags[k]
		}
	}
	return pairs
}
