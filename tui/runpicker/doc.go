// Package runpicker is the run picker of a folder of sessions — runs/, a sweep's, a
// compare's — that `windtunnel replay DIR` and `attach DIR` open: ls's columns
// (index.Run.Cells: state, task, model, step, bit error (a), pid, name, tags, session) in a
// table (bubbles' table), a filter typed after / (ParseQuery: ls's --where conditions,
// index.ParseWhere, and free words) that applies as it is typed, the orders s cycles
// through (SortKeys, index.Sort; S reverses). In a sweep's or a compare's folder
// (Options.Settings, index.Settings: what cmd reads of its manifest) each swept flag is a
// column beside bit error (a), (b) and accuracy, and s also orders by each flag
// (index.CompareSetting) and by (b) and accuracy: TensorBoard's HParams table.
//
// Model is the picker alone (it sends ChosenMsg); Browser puts the dashboard behind it:
// the run chosen opens in an embedded dashboard (Open: a live run through its control
// socket, a recorded one replayed), and leaving that dashboard comes back to the list.
// List lists a folder's runs (index.List, live ones only when their sessions are there);
// Group names the folder under the root that holds a session (a sweep's or a compare's),
// which serve's list shows as groups.
//
// Files: model.go (Model, its keys and view), columns.go (a run's row, which of ls's
// columns and a sweep's fit the terminal, and how wide), rows.go (the filter, the orders,
// List, Group), browse.go
// (Browser, Open, Run).
//
// It imports sessions, sessions/index, sessions/relay, tui and tui/look; never lab or
// models (it runs where a session is only read).
package runpicker
