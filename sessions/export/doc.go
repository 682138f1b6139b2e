// Package export writes a session's records (Records: scalars, per-position curves or
// geometry snapshots) and operator events (Events) as CSV or JSON Lines, streaming the
// session in chunks; Check refuses a format or kind it does not write, Write picks the writer. A text cell of a CSV is made safe to print and is never read as a
// spreadsheet formula (csvText); a non-finite number is null in JSON and NaN in CSV.
// TensorBoard writes a session as a TensorBoard event file (tensorboard.go: the scalars
// under the Tag constants, the user's own metrics under TagUser, the heads' attention
// entropy as a histogram); TensorBoardRuns names sessions as runs and WriteTensorBoard
// writes each into its run's folder. The records are TFRecord-framed Event messages encoded
// by hand with protowire (tfrecord.go).
//
// It imports sessions.
package export
