package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"windtunnel/lab"
	"windtunnel/lab/llmsuite"
	"windtunnel/models/llm"
	"windtunnel/tui/llmview"
)

// newLLMViewCmd is `windtunnel llm view`.
func newLLMViewCmd(stdout, stderr io.Writer) *cobra.Command {
	var seed uint64
	c := &cobra.Command{
		Use:   "view MODEL_DIR",
		Short: "Type prompts and see the model's posterior, its place on the entropy axis and its focusing",
		Long: "view opens an interactive view on a terminal: type a SULA prompt (tab gives one) or any other and see\n" +
			"the model's next tokens, its posterior over the two SULA labels against the exact one, the prompt's\n" +
			"place on the entropy axis (PC1 of 50 reference SULA prompts' hidden states) and the attention\n" +
			"entropy by layer. " + llmCPUOnly,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("%s takes one model folder, got %d arguments", commandName(c), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !onTerminal(stdout) {
				return usagef("llm view needs a terminal (use `windtunnel llm logits` in scripts)")
			}
			m, err := llm.Load(args[0], llm.Options{Available: lab.AvailableMemoryFrom})
			if err != nil {
				return fmt.Errorf("llm view: %w", err)
			}
			defer m.Close()
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			fmt.Fprintln(stderr, "windtunnel: fitting the entropy axis on 50 SULA prompts…")
			a, err := llmsuite.NewAnalyzer(ctx, m, seed, 10)
			if err != nil {
				return fmt.Errorf("llm view: %w", err)
			}
			return llmview.Run(ctx, a, llmview.Options{Input: os.Stdin, Output: stdout, AltScreen: true})
		},
	}
	c.Flags().Uint64Var(&seed, "seed", 1, "seed of the reference SULA prompts")
	return c
}
