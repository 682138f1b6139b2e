package sweep

import (
	"encoding/json"
	"fmt"

	"windtunnel/sessions/runconfig"
)

// CheckPoints builds every point's configuration with build (run's flags: the one path,
// runconfig.Build) and sets the point's planned steps from it. A point build refuses, or
// two points that train the same run (the same configuration but for the BLAS and the
// worker count, which change only speed), are an error naming them.
func CheckPoints(points []Point, build func(args []string) (runconfig.Config, error)) ([]Point, error) {
	seen := map[string]string{}
	for i, p := range points {
		cfg, err := build(p.Args)
		if err != nil {
			return nil, fmt.Errorf("sweep: point %s: %v", p.Name, err)
		}
		points[i].Steps = cfg.Steps
		cfg.BLAS, cfg.Workers = "", 0
		key, err := json.Marshal(cfg)
		if err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		if other, dup := seen[string(key)]; dup {
			return nil, fmt.Errorf("sweep: points %s and %s train the same run", other, p.Name)
		}
		seen[string(key)] = p.Name
	}
	return points, nil
}
