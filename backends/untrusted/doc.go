// Package untrusted reads what someone else may have written, the one home of two rules
// every reader of such a file follows.
//
// Files: Open and ReadFile refuse a path that is not a regular file (a FIFO, a device, a
// socket, a folder) before opening it, and open it without blocking, so that a FIFO named
// as a configuration, a model's weights or a prompt file is an error at once rather than a
// wait for a writer that never comes. ReadFile also bounds the bytes read.
//
// JSON: Unmarshal and CheckJSON refuse a document in which an object holds a key twice, at
// any depth (encoding/json keeps the last value, so two readers of one file could see two
// different documents), naming the key and where it is, and one nested deeper than
// MaxDepth. Every decoder of a file or message from outside (stored configurations, sweep
// files and manifests, session records, config.json, tokenizer.json, safetensors headers
// and indexes) goes through it.
package untrusted
