package main

import (
	"fmt"

	"windtunnel/sessions/runconfig"
)

// suggestKey names the closest of keys to key for a message: ` (did you mean "x"?)`, or "".
func suggestKey(key string, keys []string) string {
	if s := runconfig.Closest(key, keys); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
