#!/usr/bin/python3
"""windtunnel's PyTorch check of the J-lens frame statistic, computed with autograd.

An independent implementation of what lab.JLensRecord records (docs/usage.md: "The frame, measured
the authors' way"), for the tests that hold the Go statistic to it: given the bench
transformer's weights (the Go parameter names and layouts: every weight matrix in x out, so a
layer is x @ W) and token sequences, it takes, for each site (the embedding output, -1, or the
residual stream after block l) and each scored position i, the Gram of the rows
d logit_c(p') / d x_site(i) for every class c and every later position p' > i, stacked over the
sequences; the top --rank eigenvectors of each Gram; the frame (the class tokens' embeddings
through block 0's RMSNorm with its gain, or the output head's class columns normalised when the
head is not tied), orthonormalised by QR; the overlap ||Q^T U||_F^2 / min(rank Q, rank U) per
(site, position); its null max(rank Q, rank U) / d; and the mean ratio over the positions and
the sites. Everything runs in float64.

Input (JSON files, the arguments: one torch start-up checks several models): {"d", "layers", "heads", "classes", "class_offset" (the first
class token, or null for an untied head), "params": {name: flat list}, "shapes": {name: [rows,
cols]}, "masks": [[per-head multiplier] per layer], "gates": {"attn": [...], "mlp": [...]},
"tokens": [[ids] per sequence], "positions": [scored positions], "sites": [...], "rank"}.
Output (stdout, one JSON object a line, one line per input file, in order): {"positions", "sites", "null", "overlap": [[per position] per
site], "gap": [[relative gap after eigenvalue rank] per site], "ratio"}.
"""
import json
import math
import sys

import torch

NORM_EPS = 1e-5


def rms_norm(x, gain):
    return x * torch.rsqrt(x.square().mean(dim=-1, keepdim=True) + NORM_EPS) * gain


def gelu(u):
    return 0.5 * u * (1 + torch.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))


def forward(cfg, p, tokens, sites):
    """Class logits (B, T, C) and the residual stream at each site (B, T, d), autograd-visible."""
    d, heads = cfg["d"], cfg["heads"]
    hd = d // heads
    b, t = tokens.shape
    x = (p["tok"][tokens] + p["pos"][:t]).detach().requires_grad_(True)
    at = {}
    if -1 in sites:
        at[-1] = x
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    for l in range(cfg["layers"]):
        pre = f"layer{l}."
        a = rms_norm(x, p[pre + "norm1"])
        q = (a @ p[pre + "wq"]).view(b, t, heads, hd).transpose(1, 2)
        k = (a @ p[pre + "wk"]).view(b, t, heads, hd).transpose(1, 2)
        v = (a @ p[pre + "wv"]).view(b, t, heads, hd).transpose(1, 2)
        w = ((q @ k.transpose(-1, -2)) / math.sqrt(hd)).masked_fill(~causal, float("-inf")).softmax(-1)
        w = w * torch.tensor(cfg["masks"][l], dtype=torch.float64).view(1, heads, 1, 1)
        o = (w @ v).transpose(1, 2).reshape(b, t, d)
        x = x + cfg["gates"]["attn"][l] * (o @ p[pre + "wo"])
        h = gelu(rms_norm(x, p[pre + "norm2"]) @ p[pre + "w1"] + p[pre + "b1"])
        x = x + cfg["gates"]["mlp"][l] * (h @ p[pre + "w2"] + p[pre + "b2"])
        if l in sites:
            at[l] = x
    z = rms_norm(x, p["norm"])
    c, off = cfg["classes"], cfg["class_offset"]
    out = p["tok"][off:off + c] if off is not None else p["head"].t()  # C x d
    return z @ out.t(), at


def grams(cfg, p, tokens, positions, sites):
    """The Gram (d x d) of the stacked later-logit Jacobian rows per (site, position)."""
    d, c = cfg["d"], cfg["classes"]
    b, t = tokens.shape
    g = {(s, i): torch.zeros(d, d, dtype=torch.float64) for s in sites for i in positions}
    rep = tokens.repeat(c, 1)  # row j*b + n carries class j
    cls = torch.arange(c).repeat_interleave(b)
    rows = torch.arange(c * b)
    logits, at = forward(cfg, p, rep, sites)
    outs = [at[s] for s in sites]
    for target in range(t - 1, 0, -1):
        cot = torch.zeros_like(logits)
        cot[rows, target, cls] = 1.0
        grads = torch.autograd.grad(logits, outs, grad_outputs=cot, retain_graph=True)
        for s, gr in zip(sites, grads):
            for i in positions:
                if i < target:
                    gi = gr[:, i, :]
                    g[(s, i)] += gi.t() @ gi
    return g


def frame(cfg, p):
    c, off = cfg["classes"], cfg["class_offset"]
    if off is not None:
        dirs = rms_norm(p["tok"][off:off + c], p["layer0.norm1"])
    else:
        h = p["head"].t()
        dirs = h / h.norm(dim=1, keepdim=True)
    q, r = torch.linalg.qr(dirs.t())
    keep = r.diagonal().abs() > 1e-12 * r.diagonal().abs().max()
    return q[:, keep]


def main(argv):
    for path in argv:
        with open(path) as f:
            print(json.dumps(check(json.load(f))))
    return 0


def check(cfg):
    """The statistic of one input (the module docstring's output object)."""
    torch.set_default_dtype(torch.float64)
    p = {name: torch.tensor(vals, dtype=torch.float64).view(*cfg["shapes"][name]) for name, vals in cfg["params"].items()}
    for name in list(p):
        if p[name].shape[0] == 1 and (name.endswith("norm1") or name.endswith("norm2") or name == "norm"
                                      or name.endswith("b1") or name.endswith("b2")):
            p[name] = p[name].view(-1)
    tokens = torch.tensor(cfg["tokens"], dtype=torch.long)
    positions = [i for i in cfg["positions"] if i < tokens.shape[1] - 1]
    sites, rank, d = cfg["sites"], cfg["rank"], cfg["d"]
    g = grams(cfg, p, tokens, positions, sites)
    fq = frame(cfg, p)
    null = max(fq.shape[1], rank) / d
    overlap, gap = [], []
    for s in sites:
        ov, gp = [], []
        for i in positions:
            vals, vecs = torch.linalg.eigh(g[(s, i)])
            vals, vecs = vals.flip(0), vecs.flip(1)
            u = vecs[:, :rank]
            ov.append(float((fq.t() @ u).square().sum()) / min(fq.shape[1], rank))
            gp.append(float((vals[rank - 1] - vals[rank]) / vals[rank - 1]) if rank < d else 1.0)
        overlap.append(ov)
        gap.append(gp)
    ratio = sum(o for row in overlap for o in row) / (len(sites) * len(positions)) / null
    return {"positions": positions, "sites": sites, "null": null, "overlap": overlap, "gap": gap, "ratio": ratio}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
