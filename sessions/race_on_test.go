//go:build race

package sessions

// raceSlowdown is how much slower code runs under the race detector, for time bounds.
const raceSlowdown = 10
