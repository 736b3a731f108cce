#!/usr/bin/env python3
"""bench/iopddl_proxy.py: builds held-out-like IOPDDL instances from the shared ones.

Owns the transformations behind bench/iopddl-proxy. Each one is chosen so that
a reference cost the solver must reach is known without running any solver
on the result (issue 14: the contest's 19 private instances are larger, wider
or narrower than the six shared ones, and nothing is tuned on them):

  copies K        K disjoint copies on one time line, usage limit times K.
                  Each copy's best answer fits beside the others, so the
                  reference is K times the source's.
  copies K --offset
                  the copies one after another in time, limit unchanged;
                  same reference.
  widen W [G]     each node with n > 1 strategies gets up to min(W, G n)
                  (G = 2 unless given):
                  every new one is an old one that costs more (node cost and
                  its pair rows, by a per-strategy factor) but uses less
                  memory, so nothing is dominated and the old answer still
                  fits: the reference is the source's (a better one may exist).
  cut K SOLUTION  every node keeps its strategy in SOLUTION (an answer to the
                  source) and up to K-1 others: the reference is SOLUTION's cost,
                  which the generator computes and prints.

Only the Python 3 standard library. The reference is printed on stdout as
"reference COST" (or "reference -" when the source has none); sizes go to
stderr. Output is plain JSON, or gzip (level 1) when the name ends in .gz.

  iopddl_proxy.py SOURCE OUT [--reference COST] [--seed N] TRANSFORM ARGS...
"""
import argparse
import gzip
import json
import random
import sys

FORBIDDEN = 10**18


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["problem"]


def copies(p, k, offset):
    nodes, edges = p["nodes"], p["edges"]
    n = len(nodes["costs"])
    horizon = max(e for _, e in nodes["intervals"]) if n else 0
    out_iv, out_pairs = [], []
    for c in range(k):
        shift = c * horizon if offset else 0
        out_iv += [[s + shift, e + shift] for s, e in nodes["intervals"]]
        out_pairs += [[u + c * n, v + c * n] for u, v in edges["nodes"]]
    limit = p["usage_limit"] if offset else p["usage_limit"] * k
    return {
        "name": "%s-copies%d%s" % (p.get("name", "source"), k, "-offset" if offset else ""),
        "nodes": {"intervals": out_iv, "costs": nodes["costs"] * k, "usages": nodes["usages"] * k},
        "edges": {"nodes": out_pairs, "costs": edges["costs"] * k},
        "usage_limit": limit,
    }


def scaled(x, f):
    return x if x >= FORBIDDEN else int(x * f)


def widen(p, width, growth, rng):
    """parent[i][j]: the source strategy of node i's strategy j; factor[i][j]
    its cost factor (1.0 for the source's own strategies, listed first)."""
    nodes, edges = p["nodes"], p["edges"]
    parent, factor, costs, usages = [], [], [], []
    for c, u in zip(nodes["costs"], nodes["usages"]):
        n = len(c)
        m = n if n < 2 else max(n, min(width, growth * n))
        par = list(range(n)) + [rng.randrange(n) for _ in range(m - n)]
        fac = [1.0] * n + [1.05 + 0.45 * rng.random() for _ in range(m - n)]
        use = [1.0] * n + [0.6 + 0.35 * rng.random() for _ in range(m - n)]
        parent.append(par)
        factor.append(fac)
        costs.append([scaled(c[s], f) for s, f in zip(par, fac)])
        usages.append([int(u[s] * g) for s, g in zip(par, use)])
    return {
        "name": "%s-widen%d" % (p.get("name", "source"), width),
        "nodes": {"intervals": nodes["intervals"], "costs": costs, "usages": usages},
        # A generator: a 1 GB instance's tables are written as they are made.
        "edges": {"nodes": edges["nodes"], "costs": widened_tables(nodes, edges, parent, factor)},
        "usage_limit": p["usage_limit"],
    }


def widened_tables(nodes, edges, parent, factor):
    for (a, b), t in zip(edges["nodes"], edges["costs"]):
        nb = len(nodes["costs"][b])
        pb, fb = parent[b], factor[b]
        table = []
        for sa, fa in zip(parent[a], factor[a]):
            row = t[sa * nb:(sa + 1) * nb]
            if fa == 1.0:
                table += [row[sb] if f == 1.0 else scaled(row[sb], f) for sb, f in zip(pb, fb)]
            else:
                table += [scaled(row[sb], fa * f) for sb, f in zip(pb, fb)]
        yield table


def cost_of(p, s):
    total = sum(c[x] for c, x in zip(p["nodes"]["costs"], s))
    for (a, b), t in zip(p["edges"]["nodes"], p["edges"]["costs"]):
        total += t[s[a] * len(p["nodes"]["costs"][b]) + s[b]]
    return total


def cut(p, keep, solution, rng):
    nodes, edges = p["nodes"], p["edges"]
    kept, costs, usages = [], [], []
    for i, (c, u) in enumerate(zip(nodes["costs"], nodes["usages"])):
        others = [j for j in range(len(c)) if j != solution[i] and c[j] < FORBIDDEN]
        chosen = sorted([solution[i]] + rng.sample(others, min(keep - 1, len(others))))
        kept.append(chosen)
        costs.append([c[j] for j in chosen])
        usages.append([u[j] for j in chosen])
    tables = []
    for (a, b), t in zip(edges["nodes"], edges["costs"]):
        nb = len(nodes["costs"][b])
        tables.append([t[x * nb + y] for x in kept[a] for y in kept[b]])
    answer = [k.index(s) for k, s in zip(kept, solution)]
    out = {
        "name": "%s-cut%d" % (p.get("name", "source"), keep),
        "nodes": {"intervals": nodes["intervals"], "costs": costs, "usages": usages},
        "edges": {"nodes": edges["nodes"], "costs": tables},
        "usage_limit": p["usage_limit"],
    }
    return out, cost_of(out, answer)


def rows(values):
    return "[" + ",".join("[" + ",".join(map(str, r)) + "]" for r in values) + "]"


def write(p, path):
    """Writes table by table: the document of a 1 GB instance is never one string."""
    opener = (lambda q: gzip.open(q, "wt", compresslevel=1)) if path.endswith(".gz") else (lambda q: open(q, "w"))
    with opener(path) as f:
        f.write('{"problem":{"name":%s,"nodes":{"intervals":%s,"costs":%s,"usages":%s},"edges":{"nodes":%s,"costs":['
                % (json.dumps(p["name"]), rows(p["nodes"]["intervals"]), rows(p["nodes"]["costs"]),
                   rows(p["nodes"]["usages"]), rows(p["edges"]["nodes"])))
        for i, t in enumerate(p["edges"]["costs"]):
            f.write(("," if i else "") + "[" + ",".join(map(str, t)) + "]")
        f.write(']},"usage_limit":%d}}\n' % p["usage_limit"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("--reference", type=int, help="best known cost of the source")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("transform", choices=["copies", "widen", "cut"])
    ap.add_argument("args", nargs="*")
    ap.add_argument("--offset", action="store_true", help="copies: one after another in time")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    try:
        p = load(a.source)
    except (OSError, ValueError, KeyError) as e:
        sys.exit("iopddl_proxy: cannot read %s: %s" % (a.source, e))
    ref = a.reference
    if a.transform == "copies":
        k = int(a.args[0]) if a.args else 2
        out = copies(p, k, a.offset)
        ref = None if ref is None else ref * k
    elif a.transform == "widen":
        out = widen(p, int(a.args[0]) if a.args else 18, int(a.args[1]) if len(a.args) > 1 else 2, rng)
    else:
        if len(a.args) != 2:
            sys.exit("iopddl_proxy: cut needs K and SOLUTION")
        with open(a.args[1]) as f:
            solution = json.load(f)
        if len(solution) != len(p["nodes"]["costs"]):
            sys.exit("iopddl_proxy: %s has %d strategies for %d nodes"
                     % (a.args[1], len(solution), len(p["nodes"]["costs"])))
        out, ref = cut(p, int(a.args[0]), solution, rng)
    n = len(out["nodes"]["costs"])
    strategies = sum(len(c) for c in out["nodes"]["costs"])
    write(out, a.out)
    print("iopddl_proxy: %s: %d nodes, %d edges, %.2f strategies a node"
          % (a.out, n, len(out["edges"]["nodes"]), strategies / max(n, 1)), file=sys.stderr)
    print("reference %s" % ("-" if ref is None else ref))


if __name__ == "__main__":
    main()
