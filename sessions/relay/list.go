package relay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// probeTimeout bounds how long List waits for one socket's hello (a loaded machine can be
// slow to schedule a busy trainer's server).
const probeTimeout = 5 * time.Second

// staleAge is how old a socket nobody answers on must be before List removes it (younger
// ones may belong to a run that is starting).
const staleAge = 10 * time.Second

// Run is a live run found in a socket directory.
type Run struct {
	// Socket is the run's control socket.
	Socket string `json:"socket"`
	// Hello is what the run said about itself.
	Hello Hello `json:"hello"`
}

// Name is the run's session file name without its extension.
func (r Run) Name() string {
	p := r.Hello.Meta.Path
	if p == "" {
		p = r.Socket
	}
	return strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
}

// List returns the live runs whose sockets are in dir (SocketDir), ordered by session
// path; a missing dir has none. Sockets nobody answers on (left by a run that was killed)
// are removed; those that answer with something else are skipped.
func List(ctx context.Context, dir string) ([]Run, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("relay: list %s: %w", dir, err)
	}
	var (
		mu   sync.Mutex
		runs []Run
		wg   sync.WaitGroup
	)
	for _, e := range ents {
		if e.Type()&os.ModeSocket == 0 || !strings.HasSuffix(e.Name(), ".sock") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			h, err := Probe(pctx, path)
			if err != nil {
				if errors.Is(err, errNoRun) {
					if fi, serr := os.Lstat(path); serr == nil && time.Since(fi.ModTime()) > staleAge {
						os.Remove(path)
					}
				}
				return
			}
			mu.Lock()
			runs = append(runs, Run{Socket: path, Hello: h})
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(runs, func(i, j int) bool { return runs[i].Hello.Meta.Path < runs[j].Hello.Meta.Path })
	return runs, nil
}

// Select returns the runs a query names: the run whose session file or socket is the
// query's path when there is one, else those whose name (Run.Name) starts with the query,
// else those whose name contains it. An empty query selects every run.
func Select(runs []Run, query string) []Run {
	if query == "" {
		return runs
	}
	if abs, err := filepath.Abs(query); err == nil {
		for _, r := range runs {
			if r.Hello.Meta.Path == abs || r.Socket == abs {
				return []Run{r}
			}
		}
	}
	var pre, sub []Run
	for _, r := range runs {
		switch n := r.Name(); {
		case strings.HasPrefix(n, query):
			pre = append(pre, r)
		case strings.Contains(n, query):
			sub = append(sub, r)
		}
	}
	if len(pre) > 0 {
		return pre
	}
	return sub
}
