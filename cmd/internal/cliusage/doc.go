// Package cliusage holds windtunnel's command-line usage errors: the Error that makes the
// program exit 2, and the messages that replace cobra's and pflag's own for a bad command
// line — the command's name once, the flag or command meant (the closest of those that exist,
// runconfig.Closest), and what a flag's value must be.
package cliusage
