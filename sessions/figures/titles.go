package figures

// heading names a group at the head of its figures' titles by what it is, task and model,
// and, where several configurations of them were run, by what tells this one apart
// (Group.Label, from derived.Labels: "bijection transformer, steps 300"), not by the number
// its file names carry.
func heading(g Group) string {
	h := g.Task() + " " + g.Model()
	if g.Label != "" {
		h += ", " + g.Label
	}
	return h
}

// Task is the task of the group's runs.
func (g Group) Task() string {
	if len(g.Runs) == 0 {
		return ""
	}
	return g.Runs[0].Config.Task
}

// Model is the model of the group's runs.
func (g Group) Model() string {
	if len(g.Runs) == 0 {
		return ""
	}
	return g.Runs[0].Config.Model
}
