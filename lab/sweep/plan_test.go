package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestComparePlan(t *testing.T) {
	p, err := ComparePlan("hmm, bijection", "mlp", "quick", 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Points) != 4 || strings.Join(p.Tasks, ",") != "hmm,bijection" || strings.Join(p.Models, ",") != "mlp" || !p.Grid.Has("preset") {
		t.Fatalf("plan %d points, tasks %v, models %v, grid %+v", len(p.Points), p.Tasks, p.Models, p.Grid)
	}
	for _, c := range []struct {
		tasks, models, preset string
		steps, seeds          int
		want                  string
	}{
		{"maze", "mlp", "quick", 0, 1, "--tasks"},
		{"hmm", "rnn", "quick", 0, 1, "--models"},
		{"hmm", "mlp", "quick", 0, 0, "--seeds"},
		{"hmm", "mlp", "huge", 0, 1, "--preset"},
		{"hmm", "mlp", "quick", -1, 1, "--steps -1 out of range"},
	} {
		if _, err := ComparePlan(c.tasks, c.models, c.preset, c.steps, c.seeds); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ComparePlan(%q, %q, %q, %d, %d) = %v, want an error naming %s", c.tasks, c.models, c.preset, c.steps, c.seeds, err, c.want)
		}
	}
}

func TestRequestPlan(t *testing.T) {
	g, points, err := Request{Sets: []string{"steps=5,6"}, Seeds: 2, SeedsGiven: true}.Plan()
	if err != nil || len(points) != 4 || !g.Has("steps") {
		t.Fatalf("--set steps=5,6 --seeds 2: %d points, grid %+v, %v", len(points), g, err)
	}
	for _, c := range []struct {
		r    Request
		want string
	}{
		{Request{}, "sweep: empty grid: give --set"},
		{Request{Dir: t.TempDir()}, "is not a sweep to continue"},
		{Request{Tasks: "", TasksGiven: true}, "--tasks is empty"},
		{Request{Models: "rnn", ModelsGiven: true}, "--models"},
		{Request{Seeds: 0, SeedsGiven: true}, "sweep: --seeds"},
		{Request{Sets: []string{"nope=1"}}, "nope"},
	} {
		if _, _, err := c.r.Plan(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.r, err, c.want)
		}
	}
}

func TestEnded(t *testing.T) {
	boom := errors.New("boom")
	for _, c := range []struct {
		cancelled   bool
		err         error
		done, total int
		all         bool
		want        string
	}{
		{false, nil, 3, 3, true, ""},
		{false, nil, 2, 3, false, ""},
		{false, nil, 2, 3, true, "p: 2 of 3 runs finished"},
		{true, nil, 2, 3, false, "p: interrupted after 2 of 3 runs"},
		{false, fmt.Errorf("x: %w", context.Canceled), 1, 3, true, "p: interrupted after 1 of 3 runs"},
		{false, boom, 1, 3, true, "p: boom"},
	} {
		err := Ended("p", c.cancelled, c.err, c.done, c.total, c.all)
		if got := fmt.Sprint(err); (c.want == "" && err != nil) || (c.want != "" && !strings.HasPrefix(got, c.want)) {
			t.Errorf("Ended(%v, %v, %d, %d, %v) = %v, want %q", c.cancelled, c.err, c.done, c.total, c.all, err, c.want)
		}
	}
}
