package reports

import (
	"strings"
	"testing"
)

// TestReportConfigurationsApart: one 3,000-step run and three 300-step seeds of the
// transformer on bijection are two configurations: two rows, each with its own n and pass
// count, naming what differs; nothing pools the four.
func TestReportConfigurationsApart(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []fixture{
		{task: "bijection", model: "transformer", seed: 1, bitA: 0.05, bitB: 0.05, acc: 1},
		{task: "bijection", model: "transformer", seed: 1, bitA: 0.9, bitB: 0.9, acc: 1, steps: 300},
		{task: "bijection", model: "transformer", seed: 2, bitA: 1.0, bitB: 1.0, acc: 1, steps: 300},
		{task: "bijection", model: "transformer", seed: 3, bitA: 0.1, bitB: 0.1, acc: 1, steps: 300},
	} {
		writeFixture(t, dir, f)
	}
	runs, skipped, err := Load([]string{dir})
	if err != nil || len(runs) != 4 || len(skipped) != 0 {
		t.Fatalf("Load: %d runs, skipped %q, %v", len(runs), skipped, err)
	}
	var rows []Row
	for _, r := range Build(runs, nil).Rows {
		if strings.HasPrefix(r.Claim, "transformer learns belief accumulation (bijection)") {
			rows = append(rows, r)
		}
	}
	if len(rows) != 2 {
		t.Fatalf("%d architecture rows for the transformer on bijection, want 2: %+v", len(rows), rows)
	}
	want := []struct{ claim, n, pass, differs string }{ // in the order of the files' names
		{"[steps 300]", "(n=3)", "1/3 seeds pass", "steps: 300 vs 3000"},
		{"[steps 3000]", "(n=1)", "1/1 seeds pass", "steps: 3000 vs 300"},
	}
	for i, w := range want {
		r := rows[i]
		if !strings.HasSuffix(r.Claim, w.claim) || !strings.Contains(r.Measured, w.n) || !strings.Contains(r.Reason, w.pass) || !strings.Contains(r.Reason, w.differs) {
			t.Errorf("row %d: claim %q, measured %q, reason %q; want %q, %q, %q, %q", i, r.Claim, r.Measured, r.Reason, w.claim, w.n, w.pass, w.differs)
		}
	}
	if rows[0].Verdict != NotReproduced || rows[1].Verdict != Reproduced {
		t.Errorf("verdicts %q, %q; want the 3,000-step run reproduced, the 300-step seeds not", rows[0].Verdict, rows[1].Verdict)
	}
}
