//go:build linux

package main

import (
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireSlurmEnv makes TestSweepSlurm fail, not skip, where Slurm is missing (CI sets it).
const requireSlurmEnv = "WINDTUNNEL_REQUIRE_SLURM"

// slurmCluster is a single-node Slurm started by a test: munged, slurmctld and slurmd in
// the foreground, everything under one folder, on ports of their own.
type slurmCluster struct {
	dir   string
	procs []*exec.Cmd
}

// startSlurm starts the cluster (Debian's slurmctld, slurmd, slurm-client and munge) and
// sets SLURM_CONF for the test, or skips where they are missing or the test is not root
// (slurmd runs jobs as their user, munged as munge).
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	skip := func(format string, a ...any) {
		t.Helper()
		if os.Getenv(requireSlurmEnv) == "1" {
			t.Fatalf(format+" (and "+requireSlurmEnv+"=1)", a...)
		}
		t.Skipf(format, a...)
	}
	var missing []string
	for _, c := range []string{"slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo", "munged"} {
		if _, err := exec.LookPath(c); err != nil {
			if _, err := os.Stat("/usr/sbin/" + c); err != nil {
				missing = append(missing, c)
			}
		}
	}
	if len(missing) > 0 {
		skip("Slurm is not installed (no %s; apt-get install slurmctld slurmd slurm-client munge)", strings.Join(missing, ", "))
	}
	if os.Getuid() != 0 {
		skip("a test Slurm needs root (slurmd and munged change users)")
	}
	mu, err := user.Lookup("munge")
	if err != nil {
		skip("no munge user: %v", err)
	}
	muid, _ := strconv.Atoi(mu.Uid)
	mgid, _ := strconv.Atoi(mu.Gid)
	dir, err := os.MkdirTemp("", "wt-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	c := &slurmCluster{dir: dir}
	t.Cleanup(c.stop)
	os.Chmod(dir, 0o755) // munged (user munge) reaches its socket through it
	keyDir, sockDir := filepath.Join(dir, "munge-key"), filepath.Join(dir, "munge")
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{keyDir, 0o700}, {sockDir, 0o755}, {filepath.Join(dir, "state"), 0o755}, {filepath.Join(dir, "spool"), 0o755}} {
		if err := os.Mkdir(d.path, d.mode); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 128)
	rand.Read(key)
	keyFile := filepath.Join(keyDir, "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{keyDir, keyFile, sockDir} {
		if err := os.Chown(p, muid, mgid); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(sockDir, "munge.sock")
	munged := exec.Command(lookSbin("munged"), "--foreground", "--socket="+sock, "--key-file="+keyFile,
		"--log-file="+filepath.Join(keyDir, "munged.log"), "--pid-file="+filepath.Join(sockDir, "munged.pid"),
		"--seed-file="+filepath.Join(keyDir, "munged.seed"), "--num-threads=2")
	munged.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(muid), Gid: uint32(mgid)}}
	c.start(t, munged)
	waitFor(t, 20*time.Second, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })

	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	ports := freePorts(t, 2)
	conf := filepath.Join(dir, "slurm.conf")
	text := fmt.Sprintf(`ClusterName=wt
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[5]s
StateSaveLocation=%[2]s/state
SlurmdSpoolDir=%[2]s/spool
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd.pid
SlurmctldLogFile=%[2]s/slurmctld.log
SlurmdLogFile=%[2]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
MailProg=/bin/true
KillWait=30
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d State=UNKNOWN
PartitionName=debug Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, dir, ports[0], ports[1], sock, runtime.NumCPU())
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// os.Setenv, not t.Setenv: the Slurm test runs in parallel with others (none of which
	// calls Slurm's commands), which t.Setenv forbids.
	prevConf, hadConf := os.LookupEnv("SLURM_CONF")
	os.Setenv("SLURM_CONF", conf)
	t.Cleanup(func() {
		if hadConf {
			os.Setenv("SLURM_CONF", prevConf)
		} else {
			os.Unsetenv("SLURM_CONF")
		}
	})
	c.start(t, exec.Command(lookSbin("slurmctld"), "-D", "-f", conf))
	c.start(t, exec.Command(lookSbin("slurmd"), "-D", "-f", conf))
	waitFor(t, time.Minute, "the node to be idle in sinfo", func() bool {
		out, _ := exec.Command("sinfo", "--noheader", "--format=%T").Output()
		return strings.TrimSpace(string(out)) == "idle"
	})
	return c
}

func lookSbin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return "/usr/sbin/" + name
}

func (c *slurmCluster) start(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	log, err := os.Create(filepath.Join(c.dir, filepath.Base(cmd.Path)+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	c.procs = append(c.procs, cmd)
}

// stop cancels the jobs left, stops the daemons (newest first) and removes the folder.
func (c *slurmCluster) stop() {
	exec.Command("scancel", "--me").Run()
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) {
		out, err := exec.Command("squeue", "--me", "--noheader").Output()
		if err != nil || strings.TrimSpace(string(out)) == "" {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Each job step's slurmstepd ends on its own once its job has; give them a moment, and
	// end any left behind (they would wait forever for a slurmd that is gone).
	conf := filepath.Join(c.dir, "slurm.conf")
	for i := 0; i < 50 && len(stepDaemons(conf)) > 0; i++ {
		time.Sleep(200 * time.Millisecond)
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Process.Kill()
			<-done
		}
	}
	for _, pid := range stepDaemons(conf) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	os.RemoveAll(c.dir)
}

// stepDaemons lists the slurmstepd processes of the cluster whose configuration is conf.
func stepDaemons(conf string) []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
		if strings.TrimSpace(string(comm)) != "slurmstepd" {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == "SLURM_CONF="+conf {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// queueStates lists the array tasks of job in Slurm's queue with their states.
func queueStates(job string) string {
	out, _ := exec.Command("squeue", "--me", "--noheader", "--array", "--format=%i %T", "--jobs="+job).Output()
	return string(out)
}

// inQueue lists the array tasks of job still in Slurm's queue.
func inQueue(job string) string {
	out, _ := exec.Command("squeue", "--me", "--noheader", "--array", "--format=%i", "--jobs="+job).Output()
	return strings.TrimSpace(string(out))
}
