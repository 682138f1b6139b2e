package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/lab"
	"windtunnel/lab/llmsuite"
	"windtunnel/models/llm"
	"windtunnel/sessions"
	"windtunnel/sessions/figures"
	"windtunnel/sessions/llmrun"
	"windtunnel/sessions/reports"
	"windtunnel/tunnels/prompts"
)

// llmFlags are the settings of `windtunnel llm`.
type llmFlags struct {
	experiments string
	prompts     string
	out         string
	asJSON      bool
	seed        uint64
	perK        int
	axisLayer   int
	workers     int
	format      string
	width       int
	height      int
	nulls       string
	nullCopies  int
}

const llmCPUOnly = "The forward pass runs on the CPU only (the project's own float32 GEMM over every core); it has no CUDA side yet."

func newLLMCmd(stdout, stderr io.Writer) *cobra.Command {
	var f llmFlags
	c := &cobra.Command{
		Use:   "llm MODEL_DIR",
		Short: "Paper III on a real language model: load a Hugging Face folder, measure its Bayesian geometry",
		Long: "llm loads a Hugging Face model folder (config.json, *.safetensors single or sharded, tokenizer.json;\n" +
			"GPT-NeoX/Pythia, Llama, Mistral or Phi-2 in float32, float16 or bfloat16) and runs Paper III's\n" +
			"measurements: the value manifold over the mixed and single-domain prompt sets (and --prompts),\n" +
			"SULA in-context calibration against the exact posterior, key orthogonality, dynamic focusing and\n" +
			"the entropy-axis ablation. It writes results.json, the figures and report.md (each claim with the\n" +
			"paper's number beside the model's, reproduced / not reproduced / not measured) into --out and\n" +
			"prints the verdicts (--json: the record). " + llmCPUOnly + "\n" +
			"Pythia-410M's shape takes minutes on a 2-core CPU (docs/paper3.md).",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("%s takes one model folder, got %d arguments", commandName(c), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLLM(cmd, args[0], f, stdout, stderr)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.experiments, "experiments", strings.Join(llmrun.Experiments, ","), "the measurements to run, comma-separated: "+strings.Join(llmrun.Experiments, ", "))
	fs.StringVar(&f.prompts, "prompts", "", "a prompt file of your own (one prompt a line, '#' comments): one more value-manifold set")
	fs.StringVar(&f.out, "out", "", "folder for results.json, report.md and the figures (default ./llm-runs/TIME-MODEL)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the SULA prompts, the sampled tokens and the random axis")
	fs.IntVar(&f.perK, "per-k", 50, "SULA prompts per shot count k (k = 0, 1, 2, 4, 8)")
	fs.IntVar(&f.axisLayer, "axis-layer", 0, "cut this layer alone in the entropy-axis ablation (0: the paper's protocol, the last five layers)")
	fs.StringVar(&f.nulls, "nulls", strings.Join(llmrun.NullKinds, ","), "the nulls measured beside the model, comma-separated: "+
		strings.Join(llmrun.NullKinds, ", ")+" (random: a random-weight copy of the model, as long again and its size on disk while it runs), or none; without them every verdict is undiagnosed")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for the products and loops (0: every core)")
	fs.StringVar(&f.format, "format", "png", "figure format: "+strings.Join(figures.Formats(), ", "))
	fs.IntVar(&f.width, "width", figures.DefaultWidth, "figure width in pixels")
	fs.IntVar(&f.height, "height", figures.DefaultHeight, "figure height in pixels")
	fs.IntVar(&f.nullCopies, "null-copies", 2, "random-weight copies measured for the random null (seeds --seed, --seed+1, …; alternately drawn as the architecture initialises and variance-preserving): the model must beat every copy")
	jsonFlag(fs, &f.asJSON, "the record (results.json) instead of the verdicts")
	c.AddCommand(newLLMLogitsCmd(stdout), newLLMViewCmd(stdout, stderr))
	return c
}

// runLLM checks the flags, loads the model, runs the suite and writes its outputs.
func runLLM(cmd *cobra.Command, dir string, f llmFlags, stdout, stderr io.Writer) error {
	exps, nulls, err := llmsuite.Settings{Experiments: f.experiments, PerK: f.perK, Workers: f.workers, AxisLayer: f.axisLayer,
		Nulls: f.nulls, NullCopies: f.nullCopies}.Check()
	if err != nil {
		return usagef("llm: %v", err)
	}
	if !figures.ValidFormat(f.format) {
		return usagef("llm: --format %q: want one of %s", f.format, strings.Join(figures.Formats(), ", "))
	}
	if err := figures.CheckSize(f.width, f.height); err != nil {
		return usagef("llm: %v", err)
	}
	var user []string
	if f.prompts != "" {
		if user, err = prompts.Read(f.prompts); err != nil {
			return usagef("llm: --prompts %s: %v", f.prompts, err)
		}
	}
	ctx, stop := signalContext(cmd.Context())
	defer stop()
	m, err := llm.Load(dir, llm.Options{Workers: f.workers, Available: lab.AvailableMemoryFrom})
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	defer m.Close()
	// Experiments the model cannot support: refused when named, skipped (and said) otherwise.
	exps, skipped, err := llmsuite.Runnable(m.Config, f.axisLayer, exps, cmd.Flags().Changed("experiments"))
	if err != nil {
		return usagef("llm: %v", err)
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "windtunnel: llm: %s\n", s)
	}
	if len(exps) == 0 { // every one skipped (Run would take an empty list for all of them)
		return fmt.Errorf("llm: none of the experiments can run on this model: %s", strings.Join(skipped, "; "))
	}
	out := f.out
	if out == "" {
		out = llmrun.DefaultDir(dir, time.Now())
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("llm: --out: %w", err)
	}
	fmt.Fprintf(stderr, "windtunnel: %s: %s, %d layers × %d, %d heads (%d key/value), %s; %s\n", sessions.SafeText(dir), m.Config.Family,
		m.Config.Layers, m.Config.Hidden, m.Config.Heads, m.Config.KVHeads, m.DType(), m.Backend())
	bar := llmsuite.NewBar(stderr, isTerminal(stderr))
	opt := llmsuite.Options{Experiments: exps, User: user, UserName: filepath.Base(f.prompts), Seed: f.seed,
		PerK: f.perK, AxisLayer: f.axisLayer, Progress: bar.Update, Command: commandLine(cmd, dir), Nulls: nulls}
	r, runErr := llmsuite.Run(ctx, m, opt)
	if runErr == nil && slices.Contains(nulls, llmrun.NullRandom) {
		llmsuite.AddRandomNulls(ctx, m, opt, r, out, f.nullCopies, f.workers)
	}
	bar.Done()
	if r == nil || len(r.Experiments) == 0 {
		return fmt.Errorf("llm: %w", runErr)
	}
	// What finished is written even when a later experiment failed (runErr, after).
	r.Warnings = append(r.Warnings, skipped...)
	if err := writeLLMOutputs(r, out, f, stdout); err != nil {
		return errors.Join(err, runErr)
	}
	if runErr != nil {
		return fmt.Errorf("llm: %s kept what finished (%s): %w", sessions.SafeText(out), strings.Join(r.Experiments, ", "), runErr)
	}
	return nil
}

// writeLLMOutputs writes the record, the figures and the report of r into out
// (llmsuite.WriteOutputs) and prints the verdicts (f.asJSON: the record) on stdout.
func writeLLMOutputs(r *llmrun.Result, out string, f llmFlags, stdout io.Writer) error {
	w, err := llmsuite.WriteOutputs(r, out, figures.Options{Format: f.format, Width: f.width, Height: f.height})
	if err != nil {
		return err
	}
	if f.asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	if err := reports.WriteLLMVerdicts(stdout, r); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d tokens in %.1f s; wrote %s, %s and %d figures\n", r.Tokens, r.WallS, sessions.SafeText(w.Record), sessions.SafeText(w.Report), len(w.Figures))
	return err
}

// commandLine is the command as given: its name, the model folder and the flags set.
func commandLine(cmd *cobra.Command, arg string) string {
	parts := []string{"windtunnel", commandName(cmd), strconv.Quote(arg)}
	cmd.Flags().Visit(func(fl *pflag.Flag) { parts = append(parts, "--"+fl.Name+"="+strconv.Quote(fl.Value.String())) })
	return strings.Join(parts, " ")
}

// newLLMLogitsCmd is `windtunnel llm logits`.
func newLLMLogitsCmd(stdout io.Writer) *cobra.Command {
	var (
		prompt  string
		ids     string
		asJSON  bool
		top     int
		special bool
	)
	c := &cobra.Command{
		Use:   "logits MODEL_DIR --prompt TEXT",
		Short: "Print a prompt's token ids and the last position's logits (to check a port)",
		Long: "logits tokenizes --prompt with the folder's tokenizer.json (its special tokens added unless\n" +
			"--special=false) or takes the ids of --ids, runs the model and prints the ids and the top --top\n" +
			"next tokens; --json prints {ids, tokens, logits: every logit of the last position, top}. " + llmCPUOnly,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("%s takes one model folder, got %d arguments", commandName(c), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if (prompt == "") == (ids == "") {
				return usagef("llm logits: give --prompt TEXT or --ids 1,2,3 (one of them)")
			}
			if top < 0 || top > 1000 {
				return usagef("llm logits: --top %d out of range: want 0..1000", top)
			}
			var seq []int
			if ids != "" {
				var err error
				if seq, err = llmsuite.ParseIDs(ids); err != nil {
					return usagef("llm logits: %v", err)
				}
			}
			m, err := llm.Load(args[0], llm.Options{Available: lab.AvailableMemoryFrom})
			if err != nil {
				return fmt.Errorf("llm logits: %w", err)
			}
			defer m.Close()
			if seq == nil {
				if seq, err = m.Encode(prompt, special); err != nil {
					return fmt.Errorf("llm logits: %w", err)
				}
				if len(seq) == 0 {
					return usagef("llm logits: --prompt %q has no tokens", prompt)
				}
			}
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			l, err := llmsuite.NextLogits(ctx, m, seq, top)
			if err != nil {
				return fmt.Errorf("llm logits: %w", err)
			}
			// Non-finite logits are printed (JSON: as null) and the run fails: the model
			// is broken, not the prompt.
			if asJSON {
				err = json.NewEncoder(stdout).Encode(l)
			} else {
				err = l.Text(stdout)
			}
			if err != nil {
				return fmt.Errorf("llm logits: %w", err)
			}
			if err := l.Finite(); err != nil {
				return fmt.Errorf("llm logits: %s: %w", sessions.SafeText(args[0]), err)
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVar(&prompt, "prompt", "", "the text to run")
	fs.StringVar(&ids, "ids", "", "token ids to run instead of --prompt, comma-separated")
	fs.BoolVar(&special, "special", true, "add the tokenizer's special tokens (Llama-3's <|begin_of_text|>)")
	fs.IntVar(&top, "top", 10, "how many of the likeliest next tokens to list")
	jsonFlag(fs, &asJSON, "ids, tokens, every logit of the last position and the top tokens as JSON")
	return c
}
