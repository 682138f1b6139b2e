// Package bytesize says a size in bytes as windtunnel's messages say it (String): MiB below
// 1 GiB, else GiB to one decimal. It is the one home of that rule for the run's memory
// estimate (lab) and the language model's (models/llm), a leaf below both; it imports
// nothing of the project.
package bytesize
