// Package bytesize says a size in bytes as windtunnel's messages say it (String): KiB below
// 1 MiB, MiB below 1 GiB, else GiB to one decimal. It is the one home of that rule for the
// run's memory estimate (lab), the language model's (models/llm) and slim's sizes
// (cmd/windtunnel), a leaf below them; it imports nothing of the project.
package bytesize
