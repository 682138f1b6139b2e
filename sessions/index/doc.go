// Package index is the one index of runs, live and recorded: List finds this user's live
// runs from their control sockets (sessions/relay) and the recorded sessions of a folder
// (recursively, newest first, a session a live run writes listed once, as the live run),
// each a Run row (state, step, newest whole-model scores, configuration, labels); Read describes one
// session, ReadSession reads its meta and last record and State names it (done, failed,
// stopped, interrupted), WriteTable prints rows as ls does and ReadInfo describes a session
// (info), and Cells is a row's cells as ls and the run pickers show them (MetricCell a metric's, as sweep status writes it too); Pick finds the live run a query names (attach), RunList lists live runs. ls,
// attach and serve list runs with it, and sweep status reads its points' sessions with it.
//
// query.go is ls's query language: conditions (ParseWhere: KEY=VALUE and !=, <, >, <=, >=)
// on a row's fields (name, and tag: one of the run's tags), its metrics and its stored configuration's keys (decoded with
// sessions/runconfig, looked up by their JSON names; a numeric key takes only a finite number),
// Filter and Sort; DescribeWhere writes
// conditions back as ls's flags.
//
// settings.go is a sweep's settings as plain data (Settings: the swept flags and each
// session's values) and the one order of a flag's values (CompareSetting, MissingLast),
// which sweep status --settings and the run picker both sort by.
//
// It imports sessions, sessions/relay and sessions/runconfig (a leaf).
package index
