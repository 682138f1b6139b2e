package sessions

import "sync"

// snapCache keeps the last few decoded snapshots by record sequence number.
type snapCache struct {
	mu   sync.Mutex
	keys []int64
	vals map[int64]*Snapshot
}

const snapCacheSize = 8

func (c *snapCache) get(seq int64) *Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.vals[seq]
}

func (c *snapCache) put(seq int64, s *Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vals == nil {
		c.vals = map[int64]*Snapshot{}
	}
	if _, ok := c.vals[seq]; ok {
		return
	}
	if len(c.keys) == snapCacheSize {
		delete(c.vals, c.keys[0])
		c.keys = c.keys[1:]
	}
	c.keys = append(c.keys, seq)
	c.vals[seq] = s
}
