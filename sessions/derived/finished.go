package derived

import (
	"fmt"
	"slices"
)

// Unfinished says why a run that is not Done is left out of the table: "not finished
// (stopped at step 40 of 100)".
func (sr SessionRun) Unfinished() string {
	return fmt.Sprintf("not finished (%s at step %d of %d)", sr.State, sr.Score.Steps, sr.Config.Steps)
}

// Finished is what the architecture table is built from when it is read back from
// sessions (compare --from): the finished runs, their tasks and models in the order first
// met, the highest seed, their summed wall time, and the runs left out as not finished.
type Finished struct {
	Runs          []RunScore
	Tasks, Models []string
	Seeds         int
	WallS         float64
	Unfinished    []SessionRun
}

// Gather sorts runs read back from sessions into Finished.
func Gather(srs []SessionRun) Finished {
	var f Finished
	for _, sr := range srs {
		if !sr.Done {
			f.Unfinished = append(f.Unfinished, sr)
			continue
		}
		f.Runs = append(f.Runs, sr.Score)
		if !slices.Contains(f.Tasks, sr.Score.Task) {
			f.Tasks = append(f.Tasks, sr.Score.Task)
		}
		if !slices.Contains(f.Models, sr.Score.Model) {
			f.Models = append(f.Models, sr.Score.Model)
		}
		f.Seeds = max(f.Seeds, int(sr.Score.Seed))
		f.WallS += sr.Score.WallS
	}
	return f
}
