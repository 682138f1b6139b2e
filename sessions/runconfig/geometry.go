package runconfig

import "windtunnel/tunnels"

// GeometryBatch is the batch of tunnel tn that a run with configuration c measures its
// geometry on (its snapshots' diagnostics, the belief simplex among them): the first
// min(GeometryN, ProbeSize) sequences of the seed's held-out probe stream.
func (c Config) GeometryBatch(tn tunnels.Tunnel) *tunnels.Batch {
	b := tunnels.NewBatch(tn, min(c.GeometryN, c.ProbeSize))
	b.Fill(tn, tunnels.ProbeStream(c.Seed), 0)
	return b
}
