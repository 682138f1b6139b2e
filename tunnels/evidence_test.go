package tunnels

import "testing"

func TestEvidence(t *testing.T) {
	for _, name := range Names() {
		tn := must(New(name, Config{}))
		ev, ok := tn.(Evidencer)
		if !ok {
			t.Fatalf("%s: no Evidence", name)
		}
		b := NewBatch(tn, 4)
		b.Fill(tn, ProbeStream(1), 0)
		mark := make([]bool, tn.SeqLen())
		for s := 0; s < b.N; s++ {
			toks := b.Tokens[s*b.T : (s+1)*b.T]
			for p, pos := range tn.Positions() {
				ev.Evidence(toks, pos, mark)
				n := 0
				for i := 0; i <= pos; i++ {
					if mark[i] {
						n++
					}
				}
				switch name {
				case "bijection":
					// Before the p-th key, the p values revealed so far.
					if n != p {
						t.Errorf("bijection seq %d position %d: %d evidence tokens, want %d", s, pos, n, p)
					}
				case "recall":
					// Exactly the stored value of the queried key.
					if n != 1 {
						t.Fatalf("recall seq %d position %d: %d evidence tokens, want 1", s, pos, n)
					}
					for i := 0; i < pos; i++ {
						if mark[i] && (toks[i-2] != toks[pos] || toks[i]-RecallKeyBase-tn.(*Recall).kv != b.Targets[s*b.P+p]) {
							t.Errorf("recall seq %d position %d: marked token %d is not the stored value %d", s, pos, toks[i], b.Targets[s*b.P+p])
						}
					}
				case "hmm":
					if n == 0 || n > pos {
						t.Errorf("hmm seq %d position %d: %d evidence tokens", s, pos, n)
					}
				}
			}
		}
	}
}
