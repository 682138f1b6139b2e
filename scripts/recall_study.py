#!/usr/bin/python3
"""Associative-recall study in PyTorch: is windtunnel's recall plateau the bench or the science?

A recall generator with the layout and distribution of tunnels/recall.go (PAD=0 STORE=1 FILLER=2
QUERY=3 SEP=4; key k -> 10+k, value v -> 10+Kv+v; `STORE k SEP v` per pair for N distinct keys and
N distinct values paired in order, F fillers, then M queries `QUERY k` of distinct stored keys with
F//2 fillers between them; scored at each query's key token, target the stored value) and the bench
transformer of the README (Presets) (token + learned absolute position embeddings, pre-norm RMSNorm,
causal MHA without bias, GELU MLP d->4d->d with biases, final RMSNorm, head tied to the token
embedding, init N(0, 0.02) with zero biases, AdamW beta 0.9/0.999 with decay on every parameter,
linear warm-up times cosine, clip 1.0). Training loss: cross-entropy over the whole vocabulary at
the scored positions (the bench's tied head: model.go layoutFor + loss.go); accuracy and entropy are
read from the Vv value logits only, as the bench evaluates.

Diagnostics beyond the bench: --pos rope (rotary on q/k, no learned positions), --pos none (NoPE,
causal mask only), --pos learned+rope.

Prints one JSON line every --eval-every steps (step, wall_s, train loss, probe loss, accuracy, bits =
mean entropy of the value distribution in bits) and a final summary with the first step at which
probe accuracy reached --target-acc (steps_to_target, wall_to_target). --stop-at-target ends the
run there.

  OPENBLAS_NUM_THREADS=1 timeout 480 /usr/bin/python3 scripts/recall_study.py \\
      --layers 4 --heads 4 --d 64 --lr 1e-3 --warmup 100 --steps 3000 --queries 3
"""
import argparse
import json
import math
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

PAD, STORE, FILLER, QUERY, SEP, KEYBASE = 0, 1, 2, 3, 4, 10


class Recall:
    """The recall tunnel of tunnels/recall.go (same layout and distribution, torch RNG)."""

    def __init__(self, n, kv, vv, f, m, layout="bench"):
        assert 1 <= n <= kv and n <= vv and 1 <= m <= n and f >= 0
        self.n, self.kv, self.vv, self.f, self.m = n, kv, vv, f, m
        # layout "bench" is tunnels/recall.go; "kv" (diagnostic only) drops STORE and SEP: `k v` per pair,
        # so the value sits 1 position after its key instead of 2.
        self.layout = layout
        self.stride, self.koff, self.voff = (4, 1, 3) if layout == "bench" else (2, 0, 1)
        self.qstart = self.stride * n + f
        self.seqlen = self.qstart + 2 * m + (m - 1) * (f // 2)
        self.vocab = KEYBASE + kv + vv
        self.valbase = KEYBASE + kv
        self.positions = torch.tensor([self.qstart + q * (2 + f // 2) + 1 for q in range(m)])

    def batch(self, B, gen):
        n, m = self.n, self.m
        keys = torch.argsort(torch.rand(B, self.kv, generator=gen), dim=1)[:, :n]   # distinct, random order
        vals = torch.argsort(torch.rand(B, self.vv, generator=gen), dim=1)[:, :n]
        pairs = torch.argsort(torch.rand(B, n, generator=gen), dim=1)[:, :m]        # distinct stored pairs
        toks = torch.full((B, self.seqlen), FILLER, dtype=torch.long)
        j = torch.arange(n)
        st = self.stride
        if self.layout == "bench":
            toks[:, st * j] = STORE
            toks[:, st * j + 2] = SEP
        toks[:, st * j + self.koff] = KEYBASE + keys
        toks[:, st * j + self.voff] = self.valbase + vals
        qpos = self.positions
        toks[:, qpos - 1] = QUERY
        toks[:, qpos] = KEYBASE + torch.gather(keys, 1, pairs)
        targets = torch.gather(vals, 1, pairs)                                       # class 0..Vv-1
        return toks, targets


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(T, hd, base=10000.0):
    inv = 1.0 / (base ** (torch.arange(0, hd, 2).float() / hd))
    ang = torch.arange(T).float()[:, None] * inv[None]
    return ang.cos(), ang.sin()


def apply_rope(x, cos, sin):  # x (B, H, T, hd)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, d, h, mlp):
        super().__init__()
        self.h, self.hd = h, d // h
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.mlp = nn.Sequential(nn.Linear(d, mlp), nn.GELU(), nn.Linear(mlp, d))

    def forward(self, x, mask, rope):
        B, T, D = x.shape
        y = self.n1(x)
        q, k, v = (w(y).view(B, T, self.h, self.hd).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        if rope is not None:
            q, k = apply_rope(q, *rope), apply_rope(k, *rope)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.hd)
        att = att.masked_fill(mask == 0, float("-inf")).softmax(-1)
        self.last_att = att.detach() if getattr(self, "keep_att", False) else None
        x = x + self.wo((att @ v).transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.n2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab, d, layers, heads, max_len, pos="learned", mlp=0):
        super().__init__()
        self.pos_kind = pos
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d) if "learned" in pos else None
        self.blocks = nn.ModuleList(Block(d, heads, mlp or 4 * d) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len)))
        if "rope" in pos:
            c, s = rope_tables(max_len, d // heads)
            self.register_buffer("rcos", c)
            self.register_buffer("rsin", s)
        for name, p in self.named_parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02)
            elif name.endswith("bias"):
                nn.init.zeros_(p)  # the bench initialises biases at 0

    def forward(self, x, hint=None):
        T = x.shape[1]
        h = self.tok(x)
        if hint is not None:  # diagnostic: (positions, token ids) whose embedding is added there
            hp, ht = hint
            h = h.clone()
            h[:, hp, :] = h[:, hp, :] + self.tok(ht)
        if self.pos is not None:
            h = h + self.pos(torch.arange(T, device=x.device))[None]
        rope = (self.rcos[:T], self.rsin[:T]) if "rope" in self.pos_kind else None
        for b in self.blocks:
            h = b(h, self.mask[:T, :T], rope)
        return self.norm(h) @ self.tok.weight.t()  # tied head


def make_hint(task, toks, on):
    """Diagnostic --hint: add the key's token embedding at its value position (the job of the
    first-layer previous-token head), so only the matching step is left to learn."""
    if not on:
        return None
    vpos = torch.arange(task.n) * task.stride + task.voff
    return vpos, toks[:, vpos - (task.voff - task.koff)]


def evaluate(model, task, probe, hint=False):
    toks, tgt = probe
    model.eval()
    with torch.no_grad():
        logits = model(toks, make_hint(task, toks, hint))[:, task.positions, :]
        full_loss = F.cross_entropy(logits.reshape(-1, task.vocab), (tgt + task.valbase).reshape(-1)).item()
        vl = logits[..., task.valbase:task.valbase + task.vv].float()
        p = vl.softmax(-1)
        acc = (vl.argmax(-1) == tgt).float().mean().item()
        bits = -(p * p.clamp_min(1e-30).log2()).sum(-1).mean().item()
        # "which values are stored" baseline: probability mass on the N stored values
        stored = torch.zeros_like(p)
        vals = toks[:, task.voff::task.stride][:, :task.n] - task.valbase
        stored.scatter_(-1, vals[:, None, :].expand(-1, p.shape[1], -1), 1.0)
        mass_stored = (p * stored).sum(-1).mean().item()
    model.train()
    return {"probe_loss": round(full_loss, 4), "acc": round(acc, 4), "bits": round(bits, 3),
            "mass_on_stored": round(mass_stored, 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--keys", type=int, default=32)
    ap.add_argument("--values", type=int, default=32)
    ap.add_argument("--fillers", type=int, default=8)
    ap.add_argument("--queries", type=int, default=3)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d", "--width", dest="d", type=int, default=64)
    ap.add_argument("--mlp", type=int, default=0, help="MLP hidden width (0: 4d)")
    ap.add_argument("--pos", default="learned", choices=["learned", "rope", "none", "learned+rope"])
    ap.add_argument("--layout", default="bench", choices=["bench", "kv"],
                    help="bench: STORE k SEP v (tunnels/recall.go); kv: k v adjacent (diagnostic)")
    ap.add_argument("--hint", action="store_true",
                    help="diagnostic: add the key embedding at each value position (skips the copy step)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--wd", "--weight-decay", dest="wd", type=float, default=0.01)
    ap.add_argument("--qk-lr", type=float, default=1.0, help="lr multiplier for wq, wk (bench --qk-lr)")
    ap.add_argument("--value-lr", type=float, default=1.0, help="lr multiplier for wv (bench --value-lr)")
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--probe", type=int, default=512)
    ap.add_argument("--target-acc", type=float, default=0.9)
    ap.add_argument("--stop-at-target", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tag", default="")
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    task = Recall(a.pairs, a.keys, a.values, a.fillers, a.queries, a.layout)
    gen = torch.Generator().manual_seed(a.seed)
    probe = task.batch(a.probe, torch.Generator().manual_seed(a.seed + 1_000_003))
    model = TinyGPT(task.vocab, a.d, a.layers, a.heads, task.seqlen + 1, a.pos, a.mlp)
    params = sum(p.numel() for p in model.parameters())
    # parameter groups as the bench's --qk-lr / --value-lr multipliers (wq, wk: QK; wv: value)
    groups = {"qk": [], "value": [], "other": []}
    for name, p in model.named_parameters():
        g = "qk" if name.endswith(("wq.weight", "wk.weight")) else "value" if name.endswith("wv.weight") else "other"
        groups[g].append(p)
    mult = {"qk": a.qk_lr, "value": a.value_lr, "other": 1.0}
    opt = torch.optim.AdamW([{"params": ps, "lr": a.lr * mult[g]} for g, ps in groups.items() if ps],
                            lr=a.lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=a.wd)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / max(1, a.warmup)) * 0.5 * (1 + math.cos(math.pi * min(1.0, s / max(1, a.steps)))))
    cfg = {k: v for k, v in vars(a).items() if k not in ("threads", "probe", "eval_every")}
    print(json.dumps({"config": cfg, "params": params, "seqlen": task.seqlen, "vocab": task.vocab,
                      "chance_acc": round(1 / a.values, 4), "stored_only_acc": round(1 / a.pairs, 4)}), flush=True)
    t0 = time.perf_counter()
    hit_step = hit_wall = None
    last = {}
    step = 0
    for step in range(1, a.steps + 1):
        toks, tgt = task.batch(a.batch, gen)
        logits = model(toks, make_hint(task, toks, a.hint))[:, task.positions, :]
        loss = F.cross_entropy(logits.reshape(-1, task.vocab), (tgt + task.valbase).reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip if a.clip > 0 else float("inf"))
        opt.step()
        sched.step()
        if step % a.eval_every == 0 or step == a.steps:
            last = {"step": step, "wall_s": round(time.perf_counter() - t0, 1), "loss": round(loss.item(), 4),
                    "gnorm": round(float(gnorm), 3), **evaluate(model, task, probe, a.hint)}
            print(json.dumps(last), flush=True)
            if hit_step is None and last["acc"] >= a.target_acc:
                hit_step, hit_wall = step, last["wall_s"]
                if a.stop_at_target:
                    break
    wall = time.perf_counter() - t0
    print(json.dumps({"summary": a.tag, "params": params, "steps_run": step, "wall_s": round(wall, 1),
                      "ms_per_step": round(1000 * wall / max(1, step), 1), "final_acc": last.get("acc"),
                      "final_bits": last.get("bits"), "steps_to_target": hit_step, "wall_to_target": hit_wall}),
          flush=True)


if __name__ == "__main__":
    main()
