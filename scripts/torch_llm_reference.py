#!/usr/bin/python3
"""windtunnel's PyTorch reference for the language-model forward pass (models/llm).

An independent implementation, in plain torch and float64, of the four architectures the bench
reads from a Hugging Face model folder, written from the formats' and architectures' public
descriptions (not from the transformers library, which this file does not use):

  gpt_neox  Pythia: LayerNorm with bias; fused query_key_value whose output is, per head,
            the head's q, k and v (head_dim each); rotary embedding on the first
            rotary_pct * head_dim dimensions ("rotate half": pairs j, j + r/2), base
            rotary_emb_base; parallel residual x + attn(ln1(x)) + mlp(ln2(x)) (or sequential
            when use_parallel_residual is false); MLP dense_4h_to_h(gelu(dense_h_to_4h(x)))
            with the exact erf GELU; untied embed_out.
  llama     RMSNorm (x * rsqrt(mean x^2 + eps) * w), grouped-query attention (each key/value
            head serves heads / kv_heads consecutive query heads), rotary on every dimension
            with rope_theta and the llama3 or linear rope_scaling, SwiGLU MLP
            down(silu(gate(x)) * up(x)), lm_head or the tied embedding.
  mistral   llama with a sliding window: query i sees keys j with i - j < sliding_window.
  phi       Phi-2: one LayerNorm feeding both attention and MLP in parallel, separate q, k, v
            and dense with biases, partial rotary (partial_rotary_factor), tanh GELU
            (gelu_new), fc1/fc2 with biases, final_layernorm, lm_head with a bias.

Weights are read from the folder's safetensors files (single, or shards named by
model.safetensors.index.json) by a parser of the format here: an 8-byte little-endian header
length, a JSON header of name -> dtype, shape, data_offsets, then the data; F32, F16 and BF16
are widened to float64.

Input, on stdin, one JSON object: {"models": [{"dir": MODEL_DIR, "seqs": [[token ids], ...]}, ...]}.
Output, on stdout, one JSON object: {"models": [{"logits": [...]}, ...]}, for each model and
sequence the logits at every position, position-major (len(seq) * vocab values).
Models/llm's TestTorchParity runs this file on tiny random folders of every family and dtype and
holds the Go forward pass to it within 1e-4.
"""

import json
import math
import os
import struct
import sys

import torch

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def read_safetensors(path):
    with open(path, "rb") as f:
        buf = f.read()
    (n,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8 : 8 + n])
    data = buf[8 + n :]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        lo, hi = e["data_offsets"]
        if e["dtype"] not in DTYPES:
            continue
        raw = bytearray(data[lo:hi])
        t = torch.frombuffer(raw, dtype=DTYPES[e["dtype"]]) if hi > lo else torch.zeros(0, dtype=DTYPES[e["dtype"]])
        out[name] = t.reshape(e["shape"]).to(torch.float64)
    return out


def read_weights(d):
    idx = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(idx):
        with open(idx) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    w = {}
    for name in files:
        w.update(read_safetensors(os.path.join(d, name)))
    return w


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    y = (x - mu) / torch.sqrt(var + eps) * w
    return y + b if b is not None else y


def rms_norm(x, w, eps):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * w


def gelu_erf(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def silu(x):
    return x / (1 + torch.exp(-x))


def inv_freq(rot, base, scaling):
    f = torch.tensor([base ** (-2 * j / rot) for j in range(rot // 2)], dtype=torch.float64)
    if not scaling:
        return f
    kind = scaling.get("rope_type") or scaling.get("type")
    if kind == "linear":
        return f / scaling["factor"]
    if kind != "llama3":
        raise SystemExit("unsupported rope_scaling " + str(kind))
    factor, lo, hi, old = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"], scaling["original_max_position_embeddings"]
    out = []
    for v in f.tolist():
        wave = 2 * math.pi / v
        if wave < old / hi:
            out.append(v)
        elif wave > old / lo:
            out.append(v / factor)
        else:
            s = (old / wave - lo) / (hi - lo)
            out.append((1 - s) * v / factor + s * v)
    return torch.tensor(out, dtype=torch.float64)


def rotate(x, rot, freqs):
    """x: (heads, T, head_dim); turns the first rot dimensions by position * freqs."""
    if rot == 0:
        return x
    T = x.shape[1]
    ang = torch.arange(T, dtype=torch.float64)[:, None] * freqs[None, :]
    cos, sin = torch.cos(ang), torch.sin(ang)
    h = rot // 2
    a, b, rest = x[..., :h], x[..., h:rot], x[..., rot:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin, rest], dim=-1)


def attend(q, k, v, heads, kv_heads, window):
    """q: (heads, T, d); k, v: (kv_heads, T, d) -> (T, heads * d)."""
    group = heads // kv_heads
    k = k.repeat_interleave(group, dim=0)
    v = v.repeat_interleave(group, dim=0)
    T, d = q.shape[1], q.shape[2]
    s = q @ k.transpose(1, 2) / math.sqrt(d)
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    allowed = j <= i
    if window:
        allowed = allowed & (i - j < window)
    s = s.masked_fill(~allowed, float("-inf"))
    p = torch.softmax(s, dim=-1)
    return (p @ v).transpose(0, 1).reshape(T, heads * d)


def linear(x, w, b=None):
    y = x @ w.T
    return y + b if b is not None else y


def forward(cfg, W, ids):
    fam = cfg["model_type"]
    H = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    kvh = cfg.get("num_key_value_heads") or heads
    d = cfg.get("head_dim") or H // heads
    g = W.get
    if fam == "gpt_neox":
        rot = int(d * cfg.get("rotary_pct", 1.0))
        freqs = inv_freq(rot - rot % 2, cfg.get("rotary_emb_base", 10000), None)
        eps = cfg["layer_norm_eps"]
        x = W["gpt_neox.embed_in.weight"][ids]
        for i in range(cfg["num_hidden_layers"]):
            p = "gpt_neox.layers.%d." % i
            h1 = layer_norm(x, W[p + "input_layernorm.weight"], g(p + "input_layernorm.bias"), eps)
            qkv = linear(h1, W[p + "attention.query_key_value.weight"], g(p + "attention.query_key_value.bias"))
            qkv = qkv.reshape(len(ids), heads, 3, d).permute(2, 1, 0, 3)  # (3, heads, T, d)
            q, k, v = rotate(qkv[0], rot, freqs), rotate(qkv[1], rot, freqs), qkv[2]
            a = linear(attend(q, k, v, heads, heads, 0), W[p + "attention.dense.weight"], g(p + "attention.dense.bias"))
            def mlp(h):
                return linear(gelu_erf(linear(h, W[p + "mlp.dense_h_to_4h.weight"], g(p + "mlp.dense_h_to_4h.bias"))),
                              W[p + "mlp.dense_4h_to_h.weight"], g(p + "mlp.dense_4h_to_h.bias"))
            ln2 = lambda y: layer_norm(y, W[p + "post_attention_layernorm.weight"], g(p + "post_attention_layernorm.bias"), eps)
            if cfg.get("use_parallel_residual", True):
                x = x + a + mlp(ln2(x))
            else:
                x = x + a
                x = x + mlp(ln2(x))
        x = layer_norm(x, W["gpt_neox.final_layer_norm.weight"], g("gpt_neox.final_layer_norm.bias"), eps)
        head = W["gpt_neox.embed_in.weight"] if cfg.get("tie_word_embeddings") else W["embed_out.weight"]
        return linear(x, head)
    if fam in ("llama", "mistral"):
        freqs = inv_freq(d, cfg.get("rope_theta", 10000), cfg.get("rope_scaling"))
        eps = cfg["rms_norm_eps"]
        window = cfg.get("sliding_window") or 0 if fam == "mistral" else 0
        x = W["model.embed_tokens.weight"][ids]
        for i in range(cfg["num_hidden_layers"]):
            p = "model.layers.%d." % i
            h = rms_norm(x, W[p + "input_layernorm.weight"], eps)
            T = len(ids)
            q = linear(h, W[p + "self_attn.q_proj.weight"], g(p + "self_attn.q_proj.bias")).reshape(T, heads, d).transpose(0, 1)
            k = linear(h, W[p + "self_attn.k_proj.weight"], g(p + "self_attn.k_proj.bias")).reshape(T, kvh, d).transpose(0, 1)
            v = linear(h, W[p + "self_attn.v_proj.weight"], g(p + "self_attn.v_proj.bias")).reshape(T, kvh, d).transpose(0, 1)
            q, k = rotate(q, d, freqs), rotate(k, d, freqs)
            x = x + linear(attend(q, k, v, heads, kvh, window), W[p + "self_attn.o_proj.weight"], g(p + "self_attn.o_proj.bias"))
            h = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
            gate = silu(linear(h, W[p + "mlp.gate_proj.weight"]))
            up = linear(h, W[p + "mlp.up_proj.weight"], g(p + "mlp.up_proj.bias"))
            x = x + linear(gate * up, W[p + "mlp.down_proj.weight"], g(p + "mlp.down_proj.bias"))
        x = rms_norm(x, W["model.norm.weight"], eps)
        head = W["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else W["lm_head.weight"]
        return linear(x, head, g("lm_head.bias"))
    if fam == "phi":
        rot = int(d * cfg.get("partial_rotary_factor", 1.0))
        freqs = inv_freq(rot - rot % 2, cfg.get("rope_theta", 10000), None)
        eps = cfg["layer_norm_eps"]
        x = W["model.embed_tokens.weight"][ids]
        T = len(ids)
        for i in range(cfg["num_hidden_layers"]):
            p = "model.layers.%d." % i
            h = layer_norm(x, W[p + "input_layernorm.weight"], g(p + "input_layernorm.bias"), eps)
            q = linear(h, W[p + "self_attn.q_proj.weight"], g(p + "self_attn.q_proj.bias")).reshape(T, heads, d).transpose(0, 1)
            k = linear(h, W[p + "self_attn.k_proj.weight"], g(p + "self_attn.k_proj.bias")).reshape(T, kvh, d).transpose(0, 1)
            v = linear(h, W[p + "self_attn.v_proj.weight"], g(p + "self_attn.v_proj.bias")).reshape(T, kvh, d).transpose(0, 1)
            q, k = rotate(q, rot - rot % 2, freqs), rotate(k, rot - rot % 2, freqs)
            a = linear(attend(q, k, v, heads, kvh, 0), W[p + "self_attn.dense.weight"], g(p + "self_attn.dense.bias"))
            m = linear(gelu_tanh(linear(h, W[p + "mlp.fc1.weight"], g(p + "mlp.fc1.bias"))), W[p + "mlp.fc2.weight"], g(p + "mlp.fc2.bias"))
            x = x + a + m
        x = layer_norm(x, W["model.final_layernorm.weight"], g("model.final_layernorm.bias"), eps)
        head = W["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else W["lm_head.weight"]
        return linear(x, head, g("lm_head.bias"))
    raise SystemExit("unsupported model_type " + fam)


def main():
    req = json.load(sys.stdin)
    results = []
    for m in req["models"]:
        with open(os.path.join(m["dir"], "config.json")) as f:
            cfg = json.load(f)
        W = read_weights(m["dir"])
        out = []
        with torch.no_grad():
            for ids in m["seqs"]:
                out.append(forward(cfg, W, torch.tensor(ids, dtype=torch.long)).reshape(-1).tolist())
        results.append({"logits": out})
    json.dump({"models": results}, sys.stdout)


if __name__ == "__main__":
    main()
