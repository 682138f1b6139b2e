package models

import (
	"errors"
	"fmt"
)

// Pull copies the device's parameters into the model's (host) parameter values, for an
// evaluation, probe or checkpoint on the CPU path.
func (r *Resident) Pull() error {
	flat := make([]float32, r.total)
	if err := r.d.Do(func() error { return r.d.Read(flat, r.w) }); err != nil {
		return fmt.Errorf("models: resident pull: %w", err)
	}
	for i, p := range r.m.st.params {
		copy(data[float32](p.Value), flat[r.offs[i]:])
	}
	return nil
}

// Push copies the model's host parameter values to the device (after a checkpoint is loaded).
func (r *Resident) Push() error {
	if err := r.d.Do(r.pushLocked); err != nil {
		return fmt.Errorf("models: resident push: %w", err)
	}
	return nil
}

func (r *Resident) pushLocked() error {
	flat := make([]float32, r.total)
	for i, p := range r.m.st.params {
		copy(flat[r.offs[i]:], data[float32](p.Value))
	}
	return r.d.Write(r.w, flat)
}

// OptState returns the update count and AdamW moments, one slice a parameter, as lab's
// AdamW keeps them (for checkpoints).
func (r *Resident) OptState() (t int, m, v [][]float64, err error) {
	fm, fv := make([]float32, r.total), make([]float32, r.total)
	err = r.d.Do(func() error {
		if err := r.d.Read(fm, r.mom); err != nil {
			return err
		}
		return r.d.Read(fv, r.v)
	})
	if err != nil {
		return 0, nil, nil, fmt.Errorf("models: resident optimiser state: %w", err)
	}
	for i, p := range r.m.st.params {
		n := p.Value.Shape().TotalSize()
		m = append(m, widen(fm[r.offs[i]:r.offs[i]+n]))
		v = append(v, widen(fv[r.offs[i]:r.offs[i]+n]))
	}
	return r.t, m, v, nil
}

func widen(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = float64(x)
	}
	return out
}

// SetOptState sets the update count and moments (as OptState returns them).
func (r *Resident) SetOptState(t int, m, v [][]float64) error {
	ps := r.m.st.params
	if len(m) != len(ps) || len(v) != len(ps) {
		return fmt.Errorf("models: resident optimiser state for %d/%d parameters, model has %d", len(m), len(v), len(ps))
	}
	fm, fv := make([]float32, r.total), make([]float32, r.total)
	for i, p := range ps {
		n := p.Value.Shape().TotalSize()
		if len(m[i]) != n || len(v[i]) != n {
			return fmt.Errorf("models: resident optimiser state for %s has %d/%d elements, want %d", p.Name, len(m[i]), len(v[i]), n)
		}
		for j := range n {
			fm[r.offs[i]+j], fv[r.offs[i]+j] = float32(m[i][j]), float32(v[i][j])
		}
	}
	err := r.d.Do(func() error {
		if err := r.d.Write(r.mom, fm); err != nil {
			return err
		}
		return r.d.Write(r.v, fv)
	})
	if err != nil {
		return fmt.Errorf("models: resident optimiser state: %w", err)
	}
	r.t = t
	return nil
}

// Device is the accelerator the step runs on.
func (r *Resident) Device() string { return r.d.Name() }

// Close frees the device memory the step holds (not the device).
func (r *Resident) Close() error {
	var errs []error
	_ = r.d.Do(func() error {
		for _, p := range r.allocs {
			errs = append(errs, r.d.Free(p))
		}
		return nil
	})
	r.allocs, r.plan = nil, nil
	return errors.Join(errs...)
}
