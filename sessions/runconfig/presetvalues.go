package runconfig

import (
	"strings"

	"windtunnel/tunnels"
)

// PresetValues describes the presets' value of a tunnel size of task, get(tunnel with its
// defaults) as text: "default 20", or "default: the preset's: quick, laptop, soft and mid 4, paper
// 64" when they differ (the help of the size flags).
func PresetValues(task string, get func(tunnels.Config) string) string {
	var names [][]string
	var values []string
	for _, p := range PresetNames() {
		c, err := Preset(p, task)
		if err != nil {
			continue
		}
		v := get(c.Tunnel.WithDefaults())
		if n := len(values); n > 0 && values[n-1] == v {
			names[n-1] = append(names[n-1], p)
			continue
		}
		names, values = append(names, []string{p}), append(values, v)
	}
	if len(values) == 1 {
		return "default " + values[0]
	}
	parts := make([]string, len(values))
	for i := range values {
		ns := names[i]
		list := ns[len(ns)-1]
		if len(ns) > 1 {
			list = strings.Join(ns[:len(ns)-1], ", ") + " and " + list
		}
		parts[i] = list + " " + values[i]
	}
	return "default: the preset's: " + strings.Join(parts, ", ")
}
