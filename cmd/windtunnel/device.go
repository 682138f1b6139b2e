package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/backends/cuda"
)

func newDeviceCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "device",
		Short: "Report the NVIDIA GPU, driver and cuBLAS that --device cuda would use",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			in, err := cuda.Probe()
			if err != nil {
				return fmt.Errorf("device: %w", err)
			}
			_, err = fmt.Fprintln(stdout, in.String())
			return err
		},
	}
}
