package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// withMethod finishes a W&B sweep file's grid: a random search (method random) needs
// run_cap, the number of configurations to draw; a grid takes no run_cap, random_seed or
// distribution.
func withMethod(g Grid, method string, rnd Random, keys map[string]tree) (Grid, error) {
	_, hasCap := keys["run_cap"]
	if _, ok := keys["count"]; ok {
		hasCap = true
	}
	_, hasSeed := keys["random_seed"]
	switch {
	case method == "random" && !hasCap:
		return Grid{}, fmt.Errorf("method random: give run_cap, the number of configurations to draw (run_cap: 20)")
	case method == "random":
		g.Random = &rnd
	case hasCap || hasSeed:
		return Grid{}, fmt.Errorf("run_cap and random_seed apply to method random only")
	default:
		for _, a := range g.Axes {
			if a.Dist != nil || a.Probabilities != nil {
				return Grid{}, fmt.Errorf("parameters.%s: a distribution or probabilities in a grid sweep: only method random draws (method: random, run_cap: N)", a.Flag)
			}
		}
	}
	return g, nil
}

// wholeNumber reads a key's whole number ≥ 0.
func wholeNumber(key string, v tree) (uint64, error) {
	if v.kind != 's' {
		return 0, fmt.Errorf("%s: want a whole number", key)
	}
	n, err := strconv.ParseUint(v.scalar, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a whole number ≥ 0", key, v.scalar)
	}
	return n, nil
}

// number reads a parameter's number key (min, max, mu, sigma, q).
func number(flag, key string, v tree) (float64, error) {
	if v.kind != 's' {
		return 0, fmt.Errorf("parameters.%s.%s: want a number", flag, key)
	}
	x, err := strconv.ParseFloat(v.scalar, 64)
	if err != nil {
		return 0, fmt.Errorf("parameters.%s.%s %q: want a number", flag, key, v.scalar)
	}
	return x, nil
}

// wandbDist reads a W&B parameter's distribution into a: distribution (categorical and
// constant mean its values or value; without one, min and max of whole numbers are
// int_uniform, other numbers uniform, mu and sigma normal) with min, max, mu, sigma and q,
// and probabilities of categorical values.
func wandbDist(flag string, v tree, a *Axis) error {
	d := Distribution{}
	given := map[string]bool{}
	for _, k := range []string{"min", "max", "mu", "sigma", "q"} {
		x, ok := v.vals[k]
		if !ok {
			continue
		}
		f, err := number(flag, k, x)
		if err != nil {
			return err
		}
		given[k] = true
		switch k {
		case "min":
			d.Min = f
		case "max":
			d.Max = f
		case "mu":
			d.Mu = f
		case "sigma":
			d.Sigma = f
		case "q":
			d.Q = f
		}
	}
	if p, ok := v.vals["probabilities"]; ok {
		if p.kind != 'l' {
			return fmt.Errorf("parameters.%s.probabilities: want a list", flag)
		}
		for _, e := range p.list {
			f, err := number(flag, "probabilities", e)
			if err != nil {
				return err
			}
			a.Probabilities = append(a.Probabilities, f)
		}
	}
	kind := ""
	if k, ok := v.vals["distribution"]; ok {
		if k.kind != 's' {
			return fmt.Errorf("parameters.%s.distribution: want a name", flag)
		}
		kind = k.scalar
	}
	switch {
	case kind == "categorical" || kind == "constant":
		if len(a.Values) == 0 {
			return fmt.Errorf("parameters.%s: %s wants values (or value)", flag, kind)
		}
		return nil
	case kind == "" && len(given) == 0:
		return nil // values or value
	case len(a.Values) > 0:
		return fmt.Errorf("parameters.%s: values and a distribution: give one", flag)
	case kind == "" && given["min"] && given["max"]:
		kind = "uniform"
		if isWhole(v.vals["min"].scalar) && isWhole(v.vals["max"].scalar) {
			kind = "int_uniform"
		}
	case kind == "" && given["mu"] && given["sigma"]:
		kind = "normal"
	case kind == "":
		return fmt.Errorf("parameters.%s: give min and max, or mu and sigma, with a distribution", flag)
	}
	d.Kind = kind
	for _, k := range distKinds[kind] {
		if !given[k] {
			return fmt.Errorf("parameters.%s: distribution %s needs %s", flag, kind, strings.Join(distKinds[kind], " and "))
		}
	}
	if err := d.check(); err != nil {
		return fmt.Errorf("parameters.%s: %w", flag, err)
	}
	a.Dist = &d
	return nil
}

// isWhole reports whether a number is written as a whole number.
func isWhole(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// hydraRandom reads the random search of Hydra's Optuna sweeper from hydra.sweeper: its
// sampler (optuna.samplers.RandomSampler, with its seed) and n_trials; nil for Hydra's basic
// sweeper (params only). direction and _target_ are Optuna's own and left to it.
func hydraRandom(s tree) (*Random, error) {
	var r *Random
	get := func() *Random {
		if r == nil {
			r = &Random{Seed: 1}
		}
		return r
	}
	for _, k := range s.keys {
		v := s.vals[k]
		switch k {
		case "params", "_target_", "direction":
		case "n_trials":
			n, err := wholeNumber("hydra.sweeper.n_trials", v)
			if err != nil {
				return nil, err
			}
			if n < 1 || n > MaxPoints {
				return nil, fmt.Errorf("hydra.sweeper.n_trials %d: want 1..%d", n, MaxPoints)
			}
			get().Count = int(n)
		case "sampler":
			if v.kind != 'm' {
				return nil, fmt.Errorf("hydra.sweeper.sampler: want _target_ and seed")
			}
			for _, sk := range v.keys {
				x := v.vals[sk]
				switch sk {
				case "_target_":
					if x.scalar != "optuna.samplers.RandomSampler" {
						return nil, fmt.Errorf("hydra.sweeper.sampler._target_ %q: only optuna.samplers.RandomSampler (a random search)", x.scalar)
					}
				case "seed":
					n, err := wholeNumber("hydra.sweeper.sampler.seed", x)
					if err != nil {
						return nil, err
					}
					get().Seed = n
				default:
					return nil, fmt.Errorf("hydra.sweeper.sampler.%s: not read (only _target_ and seed)", sk)
				}
			}
			get()
		default:
			return nil, fmt.Errorf("hydra.sweeper.%s: not read (params; for a random search sampler and n_trials)", k)
		}
	}
	if r != nil && r.Count == 0 {
		return nil, fmt.Errorf("hydra.sweeper: a random search needs n_trials, the number of configurations to draw")
	}
	return r, nil
}

// hydraDist reads the Optuna sweeper's distributions: interval(a, b) (uniform), int(interval(a,
// b)) (whole numbers), tag(log, interval(a, b)) (log-uniform) and int(tag(log, interval(a,
// b))); false for anything else (a list, choice(...), range(...): values).
func hydraDist(s string) (Distribution, bool, error) {
	s = strings.ReplaceAll(s, " ", "")
	in := func(s, pre string) (string, bool) {
		if strings.HasPrefix(s, pre+"(") && strings.HasSuffix(s, ")") {
			return s[len(pre)+1 : len(s)-1], true
		}
		return s, false
	}
	body, isInt := in(s, "int")
	body, isLog := in(body, "tag")
	if isLog {
		var ok bool
		if body, ok = strings.CutPrefix(body, "log,"); !ok {
			return Distribution{}, false, fmt.Errorf("%s: only tag(log, interval(a, b))", s)
		}
	}
	body, isInterval := in(body, "interval")
	if !isInterval {
		if isInt || isLog {
			return Distribution{}, false, fmt.Errorf("%s: want interval(a, b) inside", s)
		}
		return Distribution{}, false, nil
	}
	lo, hi, ok := strings.Cut(body, ",")
	a, errA := strconv.ParseFloat(lo, 64)
	b, errB := strconv.ParseFloat(hi, 64)
	if !ok || errA != nil || errB != nil {
		return Distribution{}, false, fmt.Errorf("%s: want interval(a, b) of two numbers", s)
	}
	d := Distribution{Kind: "uniform", Min: a, Max: b}
	switch {
	case isInt && isLog:
		d.Kind, d.Q = "q_log_uniform_values", 1
	case isInt:
		d.Kind = "int_uniform"
	case isLog:
		d.Kind = "log_uniform_values"
	}
	if err := d.check(); err != nil {
		return Distribution{}, false, fmt.Errorf("%s: %w", s, err)
	}
	return d, true, nil
}
