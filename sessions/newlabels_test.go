package sessions

import (
	"slices"
	"testing"
)

func TestNewLabels(t *testing.T) {
	l, err := NewLabels("n", "a note", []string{" lr ", "", "lr", "base"})
	if err != nil || l.Name != "n" || l.Note != "a note" || !slices.Equal(l.Tags, []string{"lr", "base"}) {
		t.Fatalf("NewLabels = %+v, %v; want tags trimmed, empty and repeated ones dropped", l, err)
	}
	if _, err := NewLabels("n", "", []string{"a b"}); err == nil {
		t.Error("a tag with a space: accepted")
	}
}
