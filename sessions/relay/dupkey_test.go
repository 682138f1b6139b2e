package relay

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestDecodeRefusesDuplicateKeys sends a frame whose object holds a key twice (a peer
// could show one reader one value and another the other): decode refuses it, naming it.
func TestDecodeRefusesDuplicateKeys(t *testing.T) {
	body := []byte(`{"type":"record","type":"event"}`)
	b := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	_, err := decode(bufio.NewReader(bytes.NewReader(append(b, body...))), 1<<20)
	if err == nil || !strings.Contains(err.Error(), `key "type" appears twice`) {
		t.Errorf("error %v, want one naming the key", err)
	}
}
