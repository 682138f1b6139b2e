#!/usr/bin/python3
"""windtunnel's PyTorch reference: the bench transformer trained on the bijection tunnel.

`windtunnel bench` runs this file beside its own training step and reports the ratio of the two
step times, so the model here is built to be the same computation as the Go one, and not merely
a similar one:

  model      models/transformer.go: token embeddings (2V rows, keys then values) plus learned
             position embeddings (2V-2 rows: the sequence length plus one), L pre-norm blocks
             (RMSNorm eps 1e-5 with a gain, causal multi-head attention with bias-free Q, K, V
             and output projections, RMSNorm, MLP d -> m -> d with biases and tanh-GELU), a
             final RMSNorm and an output head that shares the token embedding's weights.
             The final norm and the head run only at the V-1 key positions, as the Go model's
             gathered head does. --init normal (the default): weights and embeddings N(0, 0.02²),
             gains 1, biases 0; --init torch: arch.InitTorch (embeddings N(0, 1), weights and
             biases U(±1/√fan_in), gains 1). --gelu erf: the exact GELU (nn.GELU's default)
             in place of the tanh form the Go model computes, to measure what that changes.
  data       tunnels/bijection.go: V-1 distinct keys in random order, each followed by its
             value token (value + V) except the last; a fresh batch every step.
  loss       cross-entropy at the key positions over the whole vocabulary (the tied head's
             logits), the target being the value token of that key.
  optimiser  lab/adamw.go: AdamW (0.9, 0.999, eps 1e-8) with decoupled weight decay on every
             parameter, global gradient-norm clipping at --clip, learning rate warmed up
             linearly over --warmup steps and multiplied by a half-cosine over --steps.

The parameter count therefore equals models.TransformerParams for the same sizes; the Go test
TestTorchReferenceParamCount checks it for every preset.

Output, on stdout, one JSON object a line:
  --count-params      {"params": N, ..., "init_stats": {name: [std, max |x|, size]}} and nothing
                      else (no training); with --each, one such line per listed model.
  --eval-every K      every K steps {"step", "wall_s", "loss", "bit_error_position",
                      "bit_error_sample"}, measured on a fixed held-out probe set of --probe
                      sequences: the entropy in bits of the model's distribution over the V
                      values at each key position against the exact posterior's, log2(V - j).
  always, last        {"median_ms_per_step", "min_ms_per_step", "max_ms_per_step", "params",
                      ...}: a step is drawing the batch, forward, backward, clipping and the
                      AdamW update (on CUDA up to a synchronisation), and the first --skip
                      steps are left out of the statistics as warm-up.

Examples (Debian: apt install python3-torch):
  python3 scripts/torch_reference.py --d 64 --layers 4 --heads 4 --batch 64 --steps 43 --threads 2
  python3 scripts/torch_reference.py --d 64 --layers 4 --heads 4 --steps 3000 --eval-every 250 \\
      --lr 1e-3 --warmup 100 --wd 0.01
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

# The bench sets this too. Debian's torch calls OpenBLAS, whose own thread pool competes with
# torch's intra-op threads on a small machine; one OpenBLAS thread lets --threads decide.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

INIT_STD = 0.02
NORM_EPS = 1e-5


def rms_norm(x, gain):
    """x scaled to unit root-mean-square over its last axis, times a learned gain."""
    return x * torch.rsqrt(x.square().mean(dim=-1, keepdim=True) + NORM_EPS) * gain


class BenchTransformer(torch.nn.Module):
    """The Go transformer's parameters and forward pass, for the bijection tunnel of V symbols."""

    def __init__(self, v, width, layers, heads, mlp, init="normal", gelu="tanh"):
        super().__init__()
        if width % heads:
            raise ValueError(f"--heads {heads} does not divide --d {width}")
        self.v, self.heads, self.gelu = v, heads, gelu
        self.seq_len = 2 * v - 3
        vocab, rows = 2 * v, self.seq_len + 1

        torch_init = init == "torch"

        def embedding(*shape):
            return torch.nn.Parameter(torch.randn(*shape) * (1.0 if torch_init else INIT_STD))

        def weight(out, fan_in):
            if torch_init:
                return uniform(1 / math.sqrt(fan_in), out, fan_in)
            return torch.nn.Parameter(torch.randn(out, fan_in) * INIT_STD)

        def bias(out, fan_in):
            return uniform(1 / math.sqrt(fan_in), out) if torch_init else const(0, out)

        def uniform(bound, *shape):
            return torch.nn.Parameter((torch.rand(*shape) * 2 - 1) * bound)

        def const(value, n):
            return torch.nn.Parameter(torch.full((n,), float(value)))

        self.tok = embedding(vocab, width)
        self.pos = embedding(rows, width)
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            b = torch.nn.Module()
            b.attn_gain = const(1, width)
            # Q, K and V stacked in one (3d x d) matrix: one product instead of three, the same
            # 3*d*d parameters as the Go model's wq, wk and wv.
            b.qkv = weight(3 * width, width)
            b.proj = weight(width, width)
            b.mlp_gain = const(1, width)
            b.up, b.up_bias = weight(mlp, width), bias(mlp, width)
            b.down, b.down_bias = weight(width, mlp), bias(width, mlp)
            self.blocks.append(b)
        self.final_gain = const(1, width)
        causal = torch.ones(self.seq_len, self.seq_len, dtype=torch.bool).tril()
        self.register_buffer("future", ~causal, persistent=False)

    def attention(self, b, x):
        n, t, width = x.shape
        hd = width // self.heads
        q, k, v = F.linear(x, b.qkv).view(n, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(hd))
        weights = scores.masked_fill(self.future[:t, :t], float("-inf")).softmax(dim=-1)
        mixed = (weights @ v).transpose(1, 2).reshape(n, t, width)
        return F.linear(mixed, b.proj)

    def forward(self, tokens):
        """Logits over the vocabulary at the key positions 0, 2, ..., 2V-4: (batch, V-1, 2V)."""
        t = tokens.shape[1]
        x = F.embedding(tokens, self.tok) + self.pos[:t]
        for b in self.blocks:
            x = x + self.attention(b, rms_norm(x, b.attn_gain))
            approximate = "tanh" if self.gelu == "tanh" else "none"
            hidden = F.gelu(F.linear(rms_norm(x, b.mlp_gain), b.up, b.up_bias), approximate=approximate)
            x = x + F.linear(hidden, b.down, b.down_bias)
        at_keys = x[:, 0::2]
        return rms_norm(at_keys, self.final_gain) @ self.tok.t()


def param_count(model):
    return sum(p.numel() for p in model.parameters())


def draw_bijection(n, v, gen, device):
    """n sequences of the bijection tunnel: tokens (n, 2V-3) and the values at the keys (n, V-1).

    The values of V-1 distinct keys under a uniformly random permutation are V-1 distinct values
    in uniformly random order, independent of which keys were drawn, so both are random
    orderings of 0..V-1 cut to V-1 entries.
    """
    def shuffled():
        return torch.rand(n, v, generator=gen, device=device).argsort(dim=1)[:, : v - 1]

    keys, values = shuffled(), shuffled()
    tokens = torch.empty(n, 2 * v - 3, dtype=torch.long, device=device)
    tokens[:, 0::2] = keys
    tokens[:, 1::2] = values[:, :-1] + v
    return tokens, values


def learning_rate(step, peak, warmup, total):
    """lab.Schedule.At: linear warm-up over `warmup` steps times a half-cosine over `total`."""
    ramp = min(1.0, (step + 1) / warmup) if warmup > 0 else 1.0
    done = min(1.0, step / max(1, total))
    return peak * ramp * 0.5 * (1.0 + math.cos(math.pi * done))


@torch.no_grad()
def score(model, probe, v):
    """Bit errors (a) and (b) of the model's value distributions on the probe set."""
    tokens, _ = probe
    was_training = model.training
    model.eval()
    logp = model(tokens)[..., v:].double().log_softmax(dim=-1)
    model.train(was_training)
    entropy = -(logp.exp() * logp).sum(dim=-1) / math.log(2)  # (n, V-1), bits
    bayes = torch.tensor([math.log2(v - j) for j in range(v - 1)], dtype=entropy.dtype, device=entropy.device)
    return {
        "bit_error_position": (entropy.mean(dim=0) - bayes).abs().mean().item(),
        "bit_error_sample": (entropy - bayes).abs().mean().item(),
    }


def parse_args(argv):
    ap = argparse.ArgumentParser(description="windtunnel's PyTorch reference (bijection tunnel, bench transformer)")
    ap.add_argument("--V", type=int, default=20, help="bijection symbols (3..64)")
    ap.add_argument("--d", type=int, default=64, help="model width")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--mlp", type=int, default=0, help="MLP hidden width (0: 4*d)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=40, help="training steps (also the cosine's length)")
    ap.add_argument("--skip", type=int, default=3, help="first steps left out of the step-time statistics")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--wd", type=float, default=0.01, help="AdamW weight decay")
    ap.add_argument("--clip", type=float, default=1.0, help="global gradient-norm limit (0: none)")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eval-every", type=int, default=0, help="score the probe set every K steps (0: never)")
    ap.add_argument("--probe", type=int, default=512, help="probe-set sequences")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--init", choices=("normal", "torch"), default="normal", help="parameter initialisation (windtunnel's --init)")
    ap.add_argument("--gelu", choices=("tanh", "erf"), default="tanh", help="GELU form: tanh (the Go model's) or erf (exact)")
    ap.add_argument("--count-params", action="store_true", help="print the parameter count as JSON and exit")
    ap.add_argument("--each", default="", help="with --count-params: a JSON list of models, each an object of "
                    "flags (V, d, layers, heads, mlp, init) over the command line's, one output line each "
                    "(the tests check several models with one import of torch)")
    a = ap.parse_args(argv)
    if not 3 <= a.V <= 64:
        ap.error(f"--V {a.V}: want 3..64")
    for name in ("d", "layers", "heads", "batch", "steps", "threads", "probe"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be at least 1")
    if a.mlp == 0:
        a.mlp = 4 * a.d
    return a


def count_params(a):
    """The --count-params line of the model a names, drawn from seed --seed."""
    torch.manual_seed(a.seed)
    model = BenchTransformer(a.V, a.d, a.layers, a.heads, a.mlp, a.init, a.gelu)
    sizes = {"V": a.V, "d": a.d, "layers": a.layers, "heads": a.heads, "mlp": a.mlp, "init": a.init, "gelu": a.gelu}
    # Each parameter's standard deviation, largest magnitude and size: the test that --init
    # draws what arch.InitTorch and arch.InitNormal say reads them.
    stats = {n: [p.std().item() if p.numel() > 1 else 0.0, p.abs().max().item(), p.numel()]
             for n, p in model.named_parameters()}
    return {"params": param_count(model), **sizes, "init_stats": stats}


def main(argv):
    a = parse_args(argv)
    if a.count_params:
        for over in json.loads(a.each) if a.each else [{}]:
            flags = list(argv)
            for k, v in over.items():
                flags += ["--" + k, str(v)]
            print(json.dumps(count_params(parse_args(flags))))
        return 0
    torch.manual_seed(a.seed)
    model = BenchTransformer(a.V, a.d, a.layers, a.heads, a.mlp, a.init, a.gelu)
    sizes = {"V": a.V, "d": a.d, "layers": a.layers, "heads": a.heads, "mlp": a.mlp, "init": a.init, "gelu": a.gelu}

    torch.set_num_threads(a.threads)
    device = torch.device(a.device)
    model.to(device)
    on_gpu = device.type == "cuda"
    wait = torch.cuda.synchronize if on_gpu else (lambda: None)
    gen = torch.Generator(device=device).manual_seed(a.seed)
    probe_gen = torch.Generator(device=device).manual_seed(a.seed + 7919)
    probe = draw_bijection(a.probe, a.V, probe_gen, device) if a.eval_every else None

    params = list(model.parameters())
    opt_args = {"lr": a.lr, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": a.wd}
    try:
        opt = torch.optim.AdamW(params, foreach=True, **opt_args)  # the multi-tensor update
    except TypeError:  # a torch without the foreach switch
        opt = torch.optim.AdamW(params, **opt_args)

    step_ms, start, loss = [], time.perf_counter(), None
    for step in range(a.steps):
        t0 = time.perf_counter()
        for group in opt.param_groups:
            group["lr"] = learning_rate(step, a.lr, a.warmup, a.steps)
        tokens, values = draw_bijection(a.batch, a.V, gen, device)
        logits = model(tokens)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), (values + a.V).reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if a.clip > 0:
            torch.nn.utils.clip_grad_norm_(params, a.clip)
        opt.step()
        wait()
        step_ms.append((time.perf_counter() - t0) * 1e3)
        done = step + 1
        if a.eval_every and done % a.eval_every == 0:
            line = {"step": done, "wall_s": round(time.perf_counter() - start, 3), "loss": round(loss.item(), 5)}
            line.update(score(model, probe, a.V))
            print(json.dumps(line), flush=True)

    timed = step_ms[a.skip:] if len(step_ms) > a.skip else step_ms
    summary = {
        "impl": f"torch-{torch.__version__}",
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if on_gpu else "",
        "threads": a.threads,
        "params": param_count(model),
        **sizes,
        "batch": a.batch,
        "steps": a.steps,
        "timed_steps": len(timed),
        "median_ms_per_step": round(statistics.median(timed), 3),
        "min_ms_per_step": round(min(timed), 3),
        "max_ms_per_step": round(max(timed), 3),
        "wall_s": round(time.perf_counter() - start, 3),
        "final_loss": round(loss.item(), 5),
    }
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
