// Package sessions holds the recorded run: the Record type every pane shows and every
// session file stores, and (later) the SQLite writer, reader and exporters. It imports no
// other package of the project.
package sessions
