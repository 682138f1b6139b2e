package tui

// The TUI stack is pinned in go.mod ahead of the panes that will use it (bubbletea v1,
// lipgloss v1, bubbles via ntcharts, ntcharts v0.4.0).
import (
	_ "github.com/NimbleMarkets/ntcharts/canvas"
	_ "github.com/charmbracelet/bubbletea"
	_ "github.com/charmbracelet/lipgloss"
)
