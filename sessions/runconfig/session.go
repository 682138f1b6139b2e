package runconfig

import (
	"encoding/json"
	"fmt"

	"windtunnel/backends/untrusted"
	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// Decode reads a stored configuration (a session's Meta.Config, JSON) for probing, resuming
// or comparing it. The JSON may come from someone else: every size it gives (the model's,
// the tunnel's, batch, probe set, lengths, steps) is checked here, before any model is
// built from it; a size out of range is a *arch.FieldError. The settings that size nothing
// (cadences, learning rates) are left to Validate, which lab.New runs after the caller's
// changes (a resumed run's --steps, a probe's geometry size).
func Decode(b json.RawMessage) (Config, error) {
	var c Config
	if err := untrusted.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("runconfig: decode: %w", err)
	}
	if err := c.validateSizes(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// validateSizes is the part of Validate that bounds what a run allocates.
func (c Config) validateSizes() error {
	bad := func(field string, v any, want string) error {
		return &arch.FieldError{Field: field, Value: v, Reason: "want " + want}
	}
	switch {
	case c.Steps < 1 || c.Steps > maxSteps:
		return bad("Steps", c.Steps, "1..100000000")
	case c.Batch < 1 || c.Batch > maxBatch:
		return bad("Batch", c.Batch, "1..65536")
	case c.ProbeSize < 1 || c.ProbeSize > maxProbe:
		return bad("ProbeSize", c.ProbeSize, "1..1048576")
	case c.GeometryN < 0 || c.GeometryN > maxGeometryN:
		if c.ProbeEvery > 0 {
			return bad("GeometryN", c.GeometryN, "3..4096")
		}
		return bad("GeometryN", c.GeometryN, "0..4096")
	case c.JLensN < 0 || c.JLensN > maxGeometryN:
		return bad("JLensN", c.JLensN, "0..4096 (0: the default)")
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
