// Package sessions holds the recorded run. Record (with its Eval and geometry Snapshot),
// Event (the one vocabulary of operator actions) and Checkpoint are what every pane shows
// and every session file stores. A session is one embedded SQLite file (pure Go, no cgo):
// Writer records a run without ever blocking the trainer, Reader replays it (Geometry: the
// newest geometry snapshot, past the evaluations' attention summaries; thinned.go its
// curves' bounded reads, Scalars and Evals), also while it is still being written. While a Writer is open SQLite keeps its log (-wal, -shm) beside
// the file; once the Writer and the last Reader have closed, the session is one file again,
// and a Reader of a closed session creates nothing beside it (it reads from a read-only
// directory too; files.go). Every file a session keeps beside it is named once, in
// companions.go: the run's log (LogPath), SQLite's -wal and -shm, the writer's .lock (who
// holds it, believed only while it is held and on this host: LockHolder, WriterPid), a
// session set aside as unreadable, and a viewer's log in the cache directory
// (OpenViewerLog). Labels (labels.go) are what a person calls a run — a name, tags, a note —
// kept in the meta table under their own key, apart from Meta and its configuration: the
// Writer sets them at the start (SetLabels), Relabel changes them later, finished or live,
// without touching a record, and Reader.Labels reads them bounded. CheckFolder (folder.go) is the one check of a folder named to hold
// sessions (ls --dir, compare --from), and CheckNewFile of a path named for a new session
// (run --out). A session file's name ends in Suffix, and Find (list.go) is the one lister
// of the sessions of paths named (files, or folders), which the four readers of a folder
// call: derived.ReadSessionDir (compare --from), figures.LoadPaths (plot),
// reports.Load (report) and index.List (ls, serve). It decides once: a file named is
// listed whatever its name; in a folder, the files whose names end in Suffix, in path
// order, links followed to files but never to folders; its sub-folders only when asked
// (FindOptions.Recursive: the index asks, as RunsDir holds the sweeps' folders; the readers
// that pool a folder's runs into one table or figure set take the folder's own files, as a
// sub-folder is another experiment, pooled only when named too); each file once. It opens no
// session, so an unfinished run is listed like a finished one; whether it is finished is
// derived's one rule (derived.Run.Done), and the pooling readers leave it out with a note
// saying so (derived.SessionRun.Unfinished; plot draws a file named on its own whatever
// its state), while ls and serve show it with its state (TestFolderReadersAgree holds the four to this). Default output names start from
// RunsDir and Stamp; WriteOutput and WriteOutputFunc (output.go) are the one way an output
// (a report, a figure, a record, predictions, a sweep's files) is written into a folder the
// user names: whole or not at all, never through a link (MakeOutputDir: a folder the
// program keeps there, never a link). Feed is what the dashboard reads, live (Live, fed by the
// trainer, which passes operator events to a Control) or replayed (Reader), through one
// interface. A user's own metrics (UserMetric: windtunnel metric) live in a table of their
// own that AddUserMetrics writes beside a live writer or under a finished session's lock,
// and Reader.UserMetrics reads back, bounded (usermetrics.go); WriteUserMetrics lists them. Slim (slim.go) writes a copy of a session
// small enough to commit or share: no checkpoint once done (the newest, whole, otherwise, so
// the copy resumes), the newest geometry snapshot, every evaluation and the curves thinned;
// it reads the original under its lock and never changes it. Both edits of a session
// after its run go through one lock dance (edit.go): a finished session under its lock, a
// live one on this host beside its writer, another host's refused. Everything decoded from a file is untrusted: numbers are bounded before they
// size anything (bounds.go), and strings are made safe to print (SafeText, and SafeLines line by line; safetext.go)
// where they are decoded, so every reader (and relay, which applies the same to what a
// control socket sends) gets them clean. The package imports only diagnostics of the
// project (the ablation Effect a snapshot records is diagnostics.Effect, one type for the
// computed and the recorded effect).
package sessions
