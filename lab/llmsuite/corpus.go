package llmsuite

import (
	"windtunnel/tunnels/prompts"
	"windtunnel/tunnels/sula"
)

// Corpus is text to train a synthesized tokenizer on (bpe.Synthesize) so that the suite's
// prompts tokenize into about as many tokens as a real tokenizer gives them: every shipped
// prompt, and SULA's carrier words and candidate labels in SULA's layout.
func Corpus() []string {
	var out []string
	for _, name := range append(prompts.Domains(), prompts.Mixed) {
		ps, err := prompts.Set(name)
		if err != nil {
			panic(err) // the sets are embedded
		}
		out = append(out, ps...)
	}
	for _, w := range sula.Carriers {
		for _, l := range sula.Candidates {
			out = append(out, w+": "+l+", "+l+". "+w+":")
		}
	}
	return out
}
