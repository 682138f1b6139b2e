// Package llmrun is the record of a `windtunnel llm` run: what Paper III's five measurements
// found on one language model (value manifolds, SULA calibration, key orthogonality,
// dynamic focusing, the entropy-axis ablation), with the model's description, as a JSON file
// (results.json, FileName, in ./llm-runs/<time>-<model> when no folder is named: DefaultDir) that the report and the figures read back like a session. Numbers that may
// be undefined are sessions.Num (NaN written as null). Read bounds the file and every
// length and index in it before anything is sized from it. Analysis is one prompt's outcome
// in the interactive view (`llm view`): plain data that lab/llmsuite computes and
// tui/llmview draws.
package llmrun
