package sweep

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"windtunnel/sessions"
)

// Slurm is how a sweep is submitted to Slurm: one job array whose task i trains point i.
type Slurm struct {
	// Exe is the windtunnel binary the tasks run (an absolute path the nodes can reach).
	Exe string
	// Parallel caps the tasks running at once (--array=…%P); 0: no cap.
	Parallel int
	// Partition, Time (sbatch --time) and Gres (e.g. gpu:1) are passed through when set.
	Partition, Time, Gres string
	// CPUsPerTask is each task's --cpus-per-task, and its run's --workers.
	CPUsPerTask int
	// Extra are more sbatch options, one each ("--account=lab", "--qos=low").
	Extra []string
}

// BuiltByGo reports whether exe is a binary the go command built for one use — `go run`'s
// (in a temporary folder, removed when go run exits, or Go's build cache) or `go test`'s —
// under a folder named go-build*: a cluster's nodes would run it by a path that is gone.
func BuiltByGo(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// CheckSetting rejects a value of a Slurm setting (sweep's --partition, --time, --gres, or
// --exe, the binary the script runs) that cannot stand on one line of the script.
func CheckSetting(flag, value string) error {
	if strings.ContainsAny(value, "\n\r\x00") {
		return fmt.Errorf("sweep: --%s %q: a line break (or NUL) cannot stand in the sbatch script", flag, value)
	}
	return nil
}

// Check rejects settings sbatch or the script cannot take, naming sweep's flag: a negative
// Parallel, CPUsPerTask outside 1..4096, an Extra option CheckOption refuses, a Partition,
// Time, Gres or Exe CheckSetting refuses.
func (s Slurm) Check() error {
	switch {
	case s.Parallel < 0:
		return fmt.Errorf("sweep: --parallel %d out of range: want ≥ 1 (or 0: no cap)", s.Parallel)
	case s.CPUsPerTask < 1 || s.CPUsPerTask > 4096:
		return fmt.Errorf("sweep: --cpus-per-task %d out of range: want 1..4096", s.CPUsPerTask)
	}
	for _, o := range s.Extra {
		if err := CheckOption(o); err != nil {
			return err
		}
	}
	for _, v := range []struct{ flag, value string }{{"partition", s.Partition}, {"time", s.Time}, {"gres", s.Gres}, {"exe", s.Exe}} {
		if err := CheckSetting(v.flag, v.value); err != nil {
			return err
		}
	}
	return nil
}

// reservedOptions are the sbatch options a sweep's script sets itself, with what to give
// instead ("" for none).
var reservedOptions = []struct{ name, instead string }{
	{"array", ""}, {"output", ""}, {"error", ""}, {"open-mode", ""}, {"parsable", ""}, {"wrap", ""},
	{"partition", "--partition"}, {"time", "--time"}, {"gres", "--gres"}, {"cpus-per-task", "--cpus-per-task"},
}

var optionName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// CheckOption rejects an extra sbatch option (--sbatch-option) that sbatch would not read
// as the one option it seems to be, or that sets what the sweep sets itself. The option
// stands on an #SBATCH line, which sbatch splits as it splits its command line (sbatchWords):
// it must be one word, a long option (--name or --name=value; a short one, -ofile, is
// refused: give the long form), and its name may not be one of reservedOptions nor a prefix
// of one, since sbatch reads an unambiguous prefix as the whole name (--outp= is --output=).
func CheckOption(opt string) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("sweep: sbatch option %q: %s", opt, fmt.Sprintf(format, a...))
	}
	if strings.ContainsAny(opt, "\n\r\x00") {
		return bad("a line break in an option")
	}
	words, comment := sbatchWords(opt)
	switch {
	case comment:
		return bad("a # outside quotes starts a comment on an #SBATCH line (quote the value: --comment='a#b')")
	case len(words) == 0:
		return bad("want one option such as --account=lab")
	case len(words) > 1:
		return bad("sbatch reads %d words, %s: give each option its own --sbatch-option, in the form --name=value", len(words), strings.Join(words, ", "))
	case !strings.HasPrefix(words[0], "--"):
		return bad("give the long form of an option (--account=lab for -A lab, --qos=low for -q low)")
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(words[0], "--"), "=")
	if !optionName.MatchString(name) {
		return bad("%q is not an option's name", name)
	}
	for _, r := range reservedOptions {
		if !strings.HasPrefix(r.name, name) {
			continue
		}
		read := ""
		if name != r.name {
			read = fmt.Sprintf("sbatch reads --%s as --%s: ", name, r.name)
		}
		if r.instead != "" {
			return bad("%sgive sweep's own %s", read, r.instead)
		}
		return bad("%sthe sweep sets --%s itself", read, r.name)
	}
	return nil
}

// sbatchWords splits the text of an #SBATCH line into the words sbatch reads from it:
// whitespace outside quotes separates them, single and double quotes group and are
// dropped, and a # outside quotes ends the line (comment: what follows it is not read).
// Measured with Slurm 22.05's sbatch.
func sbatchWords(s string) (words []string, comment bool) {
	var w strings.Builder
	in := false // a word is being read
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '#':
			comment = true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
		if comment {
			break
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, comment
}

// shq quotes s for a POSIX shell.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Script is the sbatch script of the sweep: its options as #SBATCH lines, the whole grid as
// --array (a submission names the points it wants on sbatch's command line, which overrides
// it), and one case per point. A task whose session exists (a requeued or preempted task,
// or a point resubmitted after it stopped) resumes it from its last checkpoint; `run
// --resume` refuses a finished one, so no point is trained twice.
func (s Slurm) Script(m *Manifest) (string, error) {
	dir, err := filepath.Abs(m.dir)
	if err != nil {
		return "", fmt.Errorf("sweep: %w", err)
	}
	var b strings.Builder
	sb := func(format string, a ...any) { fmt.Fprintf(&b, "#SBATCH "+format+"\n", a...) }
	b.WriteString("#!/bin/bash\n")
	for _, v := range []struct{ flag, value string }{{"exe", s.Exe}, {"partition", s.Partition}, {"time", s.Time}, {"gres", s.Gres}} {
		if err := CheckSetting(v.flag, v.value); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(&b, "# windtunnel sweep: %s (%s), sessions in %s.\n", sessions.Plural(len(m.Points), "point"), sessions.SafeText(m.Grid.Describe()), sessions.SafeText(dir))
	b.WriteString("# Written by `windtunnel sweep --slurm`, which submits it with --array naming the points to train.\n")
	sb("--job-name=%s", shq("wt-sweep-"+filepath.Base(dir)))
	sb("--array=%s", ArraySpec(allIndices(len(m.Points)), s.Parallel))
	sb("--output=%s", shq(filepath.Join(dir, LogDir, "slurm-%A_%a.out")))
	sb("--open-mode=append")
	sb("--requeue")
	sb("--ntasks=1")
	if s.CPUsPerTask > 0 {
		sb("--cpus-per-task=%d", s.CPUsPerTask)
	}
	if s.Partition != "" {
		sb("--partition=%s", shq(s.Partition))
	}
	if s.Time != "" {
		sb("--time=%s", shq(s.Time))
		sb("--signal=B:TERM@60") // stop cleanly, with a checkpoint, a minute before the limit
	}
	if s.Gres != "" {
		sb("--gres=%s", shq(s.Gres))
	}
	for _, o := range s.Extra {
		if err := CheckOption(o); err != nil {
			return "", err
		}
		b.WriteString("#SBATCH " + o + "\n")
	}
	b.WriteString("set -eu\n")
	fmt.Fprintf(&b, "WT=%s\nDIR=%s\n", shq(s.Exe), shq(dir))
	fmt.Fprintf(&b, "case \"${SLURM_ARRAY_TASK_ID:?submit this script as a job array: sbatch --array=0-%d %s}\" in\n", len(m.Points)-1, ScriptName)
	for _, p := range m.Points {
		q := make([]string, len(p.Args))
		for i, a := range p.Args {
			q[i] = shq(a)
		}
		fmt.Fprintf(&b, "%d) NAME=%s; set -- %s ;;\n", p.Index, shq(p.Name), strings.Join(q, " "))
	}
	fmt.Fprintf(&b, "*) echo \"%s: no grid point $SLURM_ARRAY_TASK_ID (0-%d)\" >&2; exit 2 ;;\nesac\n", ScriptName, len(m.Points)-1)
	b.WriteString(`S="$DIR/$NAME` + sessions.Suffix + `"
W="${SLURM_CPUS_PER_TASK:-1}"
echo "windtunnel sweep: task $SLURM_ARRAY_TASK_ID ($NAME) on $(hostname), job ${SLURM_JOB_ID:-?}, restart ${SLURM_RESTART_COUNT:-0}"
if [ -e "$S" ]; then
  # Requeued, preempted or resubmitted: continue from the session's last checkpoint.
  exec "$WT" run --headless --resume "$S" --workers "$W"
fi
exec "$WT" run --headless --out "$S" --workers "$W" "$@"
`)
	return b.String(), nil
}

func allIndices(n int) []int {
	ix := make([]int, n)
	for i := range ix {
		ix[i] = i
	}
	return ix
}

// ArraySpec is sbatch's --array value for indices: runs joined ("0-3,7,9-11"), with %P
// when parallel > 0.
func ArraySpec(indices []int, parallel int) string {
	ix := append([]int(nil), indices...)
	sort.Ints(ix)
	var parts []string
	for i := 0; i < len(ix); {
		j := i
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ix[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ix[i], ix[j]))
		}
		i = j + 1
	}
	s := strings.Join(parts, ",")
	if parallel > 0 {
		s += "%" + strconv.Itoa(parallel)
	}
	return s
}

// WriteScript writes the script into the sweep's folder and returns its path.
func (s Slurm) WriteScript(m *Manifest) (string, error) {
	text, err := s.Script(m)
	if err != nil {
		return "", err
	}
	path := filepath.Join(m.dir, ScriptName)
	if err := sessions.WriteOutput(path, []byte(text), 0o700); err != nil {
		return "", fmt.Errorf("sweep: %w", err)
	}
	return path, nil
}

// Submit submits the script as one job array of the points todo (sbatch --parsable
// --array=…) and records the job in the manifest (saved). sbatch is the command to run.
func (s Slurm) Submit(ctx context.Context, sbatch, script string, m *Manifest, todo []Point) (Job, error) {
	ix := make([]int, len(todo))
	for i, p := range todo {
		ix[i] = p.Index
	}
	array := ArraySpec(ix, s.Parallel)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, sbatch, "--parsable", "--array="+array, script)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return Job{}, fmt.Errorf("sweep: sbatch --array=%s %s: %w: %s", array, script, err, strings.TrimSpace(stderr.String()))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(stdout.String()), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return Job{}, fmt.Errorf("sweep: sbatch printed %q, not a job id", stdout.String())
	}
	j := Job{ID: id, Indices: ix, Array: array, Submitted: time.Now().UTC().Truncate(time.Second)}
	m.Jobs = append(m.Jobs, j)
	if err := m.Save(); err != nil {
		return j, fmt.Errorf("%w (job %s was submitted)", err, id)
	}
	return j, nil
}

// ReadQueue asks squeue (the command given) for the sweep's array tasks still in Slurm's
// queue: their state by point index. A sweep never submitted has a nil queue.
func (m *Manifest) ReadQueue(ctx context.Context, squeue string) (Queue, error) {
	if len(m.Jobs) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, squeue, "--me", "--noheader", "--array", "--format=%i|%T")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("sweep: squeue: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return m.parseQueue(stdout.String()), nil
}

// parseQueue reads squeue's "JOBID_INDEX|STATE" lines, keeping this sweep's jobs; a point
// in several (an older array's task still completing) takes the newest job's state.
func (m *Manifest) parseQueue(out string) Queue {
	order := map[string]int{}
	for i, j := range m.Jobs {
		order[j.ID] = i + 1
	}
	q, from := Queue{}, map[int]int{}
	for _, line := range strings.Split(out, "\n") {
		id, state, ok := strings.Cut(strings.TrimSpace(line), "|")
		if !ok {
			continue
		}
		job, task, ok := strings.Cut(id, "_")
		ix, err := strconv.Atoi(task)
		if !ok || err != nil || order[job] == 0 || ix < 0 || ix >= len(m.Points) {
			continue
		}
		if order[job] >= from[ix] {
			q[ix], from[ix] = strings.TrimSpace(state), order[job]
		}
	}
	return q
}
