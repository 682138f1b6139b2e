// Package look is what the dashboard (tui) and the comparison view (tui/overlay) draw
// with, in one place: the palette (Styles, NewStyles; colour only decorates, every
// distinction also shows in a glyph, so both read the same under NO_COLOR), text that fits
// a width without cutting a word (PadLine, CutLeft, Fit, FitParts, FlowParts, Wrap,
// FirstFit) and boxes (Box, HCat, VCat), number formats (Num, Count), the line
// chart on ntcharts with axis titles, reference lines, combined glyphs where two series
// share a cell, shaded bands, a cursor column (CursorGlyph, the one glyph of both views'
// cursors) and marks (Chart; its ranges: LinearRange from
// 0, ZoomRange and FitLogRange fitted to the data; both axes labelled at round values,
// package ticks' rule shared with the figures, XInt and YLog saying how; LabelW and Margin make charts drawn over one another share their x
// axis), and the full key help's layout (HelpGroup with keys or a legend's paragraphs,
// FullHelp, HelpPages where it takes more than one screen; NewHelp and FitHelp for the
// one-line help: whole bindings, never cut).
//
// Of the project it imports only ticks (where an axis is labelled): it knows cells and
// numbers, not sessions.
package look
