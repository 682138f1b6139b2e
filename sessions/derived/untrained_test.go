package derived

import "testing"

// TestUntrainedCells: a partial table names the planned cells with no finished run, a task
// none of whose models has one once.
func TestUntrainedCells(t *testing.T) {
	cell := func(task, model string) PrimitiveCell {
		return PrimitiveCell{Cell: Cell{Task: task, Model: model}}
	}
	tasks, models := []string{"bijection", "hmm", "recall"}, []string{"transformer", "mamba", "lstm"}
	for _, c := range []struct {
		name   string
		cells  []PrimitiveCell
		models []string
		want   string
	}{
		{"whole", []PrimitiveCell{cell("bijection", "transformer"), cell("bijection", "mamba"), cell("bijection", "lstm"),
			cell("hmm", "transformer"), cell("hmm", "mamba"), cell("hmm", "lstm"), cell("recall", "transformer"), cell("recall", "mamba"), cell("recall", "lstm")}, models, ""},
		{"a row begun, a task untouched", []PrimitiveCell{cell("bijection", "transformer"), cell("hmm", "transformer"),
			cell("hmm", "mamba"), cell("hmm", "lstm")}, models, "bijection mamba, bijection lstm, recall (every model)"},
		{"one model planned", []PrimitiveCell{cell("hmm", "mamba")}, []string{"mamba"}, "bijection mamba, recall mamba"},
	} {
		if got := UntrainedCells(c.cells, tasks, c.models); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
