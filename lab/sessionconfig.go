package lab

import (
	"encoding/json"
	"fmt"

	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// SessionConfig decodes the configuration a session stores (Meta.Config) for probing,
// resuming or comparing it. A session file is untrusted: every size the configuration
// gives (the model's, the tunnel's, batch, probe set, lengths, steps) is checked here,
// before any model is built from it, and a configuration that does not decode or names a
// size out of range is an error wrapping sessions.ErrNotSession and the *FieldError. The
// settings that size nothing (cadences, learning rates) are left to Validate, which New
// runs after the caller's changes (a resumed run's --steps, a probe's geometry size).
func SessionConfig(m sessions.Meta) (Config, error) {
	var c Config
	if err := json.Unmarshal(m.Config, &c); err != nil {
		return Config{}, fmt.Errorf("lab: %s: config: %w: %v", m.Path, sessions.ErrNotSession, err)
	}
	if err := c.validateSizes(); err != nil {
		return Config{}, fmt.Errorf("lab: %s: config: %w: %w", m.Path, sessions.ErrNotSession, err)
	}
	return c, nil
}

// validateSizes is the part of Validate that bounds what a run allocates.
func (c Config) validateSizes() error {
	bad := func(field string, v any, want string) error {
		return &FieldError{Field: field, Value: v, Reason: "want " + want}
	}
	switch {
	case c.Steps < 1 || c.Steps > maxSteps:
		return bad("Steps", c.Steps, "1..100000000")
	case c.Batch < 1 || c.Batch > maxBatch:
		return bad("Batch", c.Batch, "1..65536")
	case c.ProbeSize < 1 || c.ProbeSize > maxProbe:
		return bad("ProbeSize", c.ProbeSize, "1..1048576")
	case c.GeometryN < 0 || c.GeometryN > maxGeometryN:
		return bad("GeometryN", c.GeometryN, "0..4096")
	case c.Workers < 0 || c.Workers > maxWorkers:
		return bad("Workers", c.Workers, "0..1024")
	}
	if _, err := tunnels.New(c.Task, c.Tunnel); err != nil {
		return bad("Tunnel", c.Tunnel, err.Error())
	}
	if err := c.validateEvalK(); err != nil {
		return err
	}
	return c.Spec().Validate()
}
