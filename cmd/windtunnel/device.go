package main

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/backends/devices"
)

func newDeviceCmd(stdout io.Writer) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "device",
		Short: "Report where runs compute: the CPU's BLAS and threads, and the NVIDIA GPU, driver and cuBLAS that --device cuda would use",
		Long: "device reports the matrix-product backend runs use on the CPU (the backend --blas auto\n" +
			"picks, the micro-kernel the go backend chose, OpenBLAS's path if it loads, and the kernel threads) and whether --device cuda would find an NVIDIA GPU: its\n" +
			"driver and cuBLAS, or why not. Runs use the CPU unless --device cuda is given; without a usable\n" +
			"GPU --device cuda is an error, not a silent fallback.",
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			r := devices.Probe()
			if asJSON {
				return json.NewEncoder(stdout).Encode(r)
			}
			_, err := io.WriteString(stdout, r.Text())
			return err
		},
	}
	jsonFlag(c.Flags(), &asJSON, "one JSON object")
	return c
}
