"""sextant.pipeline against plain-Python references written here from the applications'
specifications (apps/pipelines/*.hpp, docs/pipeline.md), without the pipeline code: N-Queens by
backtracking, Taxi's per-line aggregate with Python's float parsing, the synthetic pipeline's
draws by recursion from its documented rule, and BLAST by a brute-force seed and extend over a
dict of the query's words. Every sizing rule and several merge plans must give the same multiset,
ordered=True the reference's order; then empty and single inputs, minimum budgets, profiles
against known gains, plans, errors, and the command line on the same inputs."""

import math
import subprocess
import threading
import time
from collections import Counter

import numpy as np
import pytest

import sextant
from sextant import pipeline
from conftest import gpu_count

# ---------------------------------------------------------------------------------------------
# References

M64 = (1 << 64) - 1


def mix64(x):
    """SplitMix64's finaliser (apps/pipelines/hash.hpp)."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


SYN_DEFAULTS = dict(gains=(0.5, 2.0, 0.25, 1.0), limits=(1, 4, 1, 1), work=(16, 32, 8, 64), seed=1)


def synthetic_reference(sources, gains, limits, work, seed):
    """Node k keeps candidate c_j = mix(h + j), j < u_k, when (c_j >> 32) < round(g_k / u_k 2^32),
    h = mix^(1 + work_k)(x ^ salt_k), salt_k = mix(mix(4 seed + k) ^ 0x5bd1e995 (k + 1)). Items in
    input order (source, then emission order) and the outputs of each node."""
    salts = [mix64(mix64((seed * 4 + k) & M64) ^ ((0x5BD1E995 * (k + 1)) & M64)) for k in range(4)]
    thresholds = [math.floor(g / u * 2.0**32 + 0.5) for g, u in zip(gains, limits)]
    out, per_node = [], [0] * 4

    def children(k, x):
        if k == 4:
            out.append(x)
            return
        h = mix64(x ^ salts[k])
        for _ in range(work[k]):
            h = mix64(h)
        for j in range(limits[k]):
            c = mix64((h + j) & M64)
            if (c >> 32) < thresholds[k]:
                per_node[k] += 1
                children(k + 1, c)

    for x in sources:
        children(0, int(x))
    return out, per_node


def queens(n):
    """Every solution (the column of each row), lexicographic, by backtracking."""
    out, cols = [], []

    def place(row):
        if row == n:
            out.append(list(cols))
            return
        for c in range(n):
            if all(cols[r] != c and abs(cols[r] - c) != row - r for r in range(row)):
                cols.append(c)
                place(row + 1)
                cols.pop()

    place(0)
    return out


def queens_per_row(n):
    """Partial boards with queens on rows 0..r, for r = 0..n-1 (node outputs when n <= 10)."""
    counts = [0] * n
    cols = []

    def place(row):
        if row == n:
            return
        for c in range(n):
            if all(cols[r] != c and abs(cols[r] - c) != row - r for r in range(row)):
                counts[row] += 1
                cols.append(c)
                place(row + 1)
                cols.pop()

    place(0)
    return counts


def taxi_reference(lines):
    """(items as (line, x, y) in text order, per-line aggregate): each line's list split at commas,
    each pair at white space, numbers through Python's float, then float32."""
    items = []
    for i, line in enumerate(lines):
        body = line[line.index("(") + 1:line.rindex(")")]
        for pair in body.split(","):
            x, y = pair.split()
            items.append((i, np.float32(float(x)), np.float32(float(y))))
    agg = {}
    for i, x, y in items:
        a = agg.setdefault(i, [0, x, y, x, y])
        a[0] += 1
        a[1], a[2], a[3], a[4] = min(a[1], x), min(a[2], y), max(a[3], x), max(a[4], y)
    return items, [(i, *agg[i]) for i in sorted(agg)]


BLAST = dict(word=8, max_occurrences=16, window=8, small_min=8, reward=1, penalty=3, x_drop=16, min_score=30)


def blast_reference(db, query, word=8, max_occurrences=16, window=8, small_min=8, reward=1, penalty=3,
                    x_drop=16, min_score=30):
    """Hits (db_begin, query_begin, length, score), one per seed, in (database, query) position
    order: every database word looked up in a dict of the query's words (words occurring more
    than max_occurrences times masked), a small extension (matches among `window` bases on each
    side), then X-drop extension both ways."""
    db, query, k = bytes(db), bytes(query), word
    words = {}
    for q in range(len(query) - k + 1):
        words.setdefault(query[q:q + k], []).append(q)
    out = []
    for d in range(len(db) - k + 1):
        qs = words.get(db[d:d + k], [])
        if len(qs) > max_occurrences:
            continue
        for q in qs:
            m = sum(db[d - i] == query[q - i] for i in range(1, window + 1) if d - i >= 0 and q - i >= 0)
            m += sum(db[d + k + i] == query[q + k + i] for i in range(window)
                     if d + k + i < len(db) and q + k + i < len(query))
            if m < small_min:
                continue
            score = best_r = right = 0
            i = 0
            while d + k + i < len(db) and q + k + i < len(query):
                score += reward if db[d + k + i] == query[q + k + i] else -penalty
                if score > best_r:
                    best_r, right = score, i + 1
                elif score < best_r - x_drop:
                    break
                i += 1
            score = best_l = left = 0
            i = 1
            while i <= d and i <= q:
                score += reward if db[d - i] == query[q - i] else -penalty
                if score > best_l:
                    best_l, left = score, i
                elif score < best_l - x_drop:
                    break
                i += 1
            total = k * reward + best_r + best_l
            if total >= min_score:
                out.append((d - left, q - left, left + k + right, total))
    return out


# ---------------------------------------------------------------------------------------------
# Helpers

def rows(columns, names):
    """The columns' rows as tuples (in their order)."""
    return list(zip(*(columns[n].tolist() for n in names)))


HIT = ("db_begin", "query_begin", "length", "score")
COORD = ("line", "x", "y")
LINE = ("line", "pairs", "min_x", "min_y", "max_x", "max_y")

MERGES4 = ["none", "auto", "1+2,3+4", "1,2+3+4", "1+2+3+4"]
MERGES10 = ["none", "auto", "1+2,3,4+5+6,7,8+9+10", "1+2+3+4+5+6+7+8+9+10"]


@pytest.fixture(scope="module")
def tiny_blast():
    db, query = pipeline.blast_input(db_length=4000, query_length=400, copies=4, copy_length=120,
                                     mutation_rate=0.05, seed=7)
    return db, query, blast_reference(db, query)


@pytest.fixture(scope="module")
def taxi_text():
    return pipeline.taxi_lines(40, mean_pairs=20, max_pairs=120, seed=3).decode().splitlines()


# ---------------------------------------------------------------------------------------------
# The four applications against their references

@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 11])
def test_nqueens_matches_backtracking(n):
    want = queens(n)
    r = pipeline.run("nqueens", n=n, ordered=True)
    assert r.count == len(want)
    assert r.items["board"].shape == (len(want), n) and r.items["board"].dtype == np.uint8
    assert r.items["board"].tolist() == want  # lexicographic
    u = pipeline.run("nqueens", n=n, sizing="equal")
    assert sorted(u.items["board"].tolist()) == want
    assert pipeline.run("nqueens", n=n, count_only=True).count == len(want)


@pytest.mark.parametrize("sizing", pipeline.SIZING_RULES)
@pytest.mark.parametrize("merge", MERGES10)
def test_nqueens_every_rule_and_plan(sizing, merge):
    want = queens(8)
    r = pipeline.run("nqueens", n=8, sizing=sizing, merge=merge)
    assert sorted(r.items["board"].tolist()) == want
    if merge not in ("none", "auto"):
        assert r.plan == merge
    o = pipeline.run("nqueens", n=8, sizing=sizing, merge=merge, ordered=True)
    assert o.items["board"].tolist() == want


def test_synthetic_matches_its_documented_draws():
    want, _ = synthetic_reference(range(300), **SYN_DEFAULTS)
    r = pipeline.run("synthetic", sources=300, ordered=True)
    assert r.items["value"].dtype == np.uint64
    assert r.items["value"].tolist() == want
    assert r.output["value"].tolist() == want
    for sizing in pipeline.SIZING_RULES:
        for merge in MERGES4:
            u = pipeline.run("synthetic", sources=300, sizing=sizing, merge=merge, threads=2)
            assert sorted(u.items["value"].tolist()) == sorted(want), (sizing, merge)
    o = pipeline.run("synthetic", sources=300, merge="1+2,3+4", ordered=True)
    assert o.items["value"].tolist() == want


def test_synthetic_sources_from_an_array_and_a_seed():
    rng = np.random.default_rng(5)
    values = rng.integers(0, 2**64 - 1, size=200, dtype=np.uint64, endpoint=True)
    cfg = dict(gains=(1.5, 0.5, 3.0, 0.75), limits=(2, 1, 4, 1), work=(0, 3, 1, 2), seed=99)
    want, _ = synthetic_reference(values.tolist(), **cfg)
    r = pipeline.run("synthetic", sources=values, ordered=True, **cfg)
    assert r.items["value"].tolist() == want
    # Any integer array of values >= 0 converts; a list too.
    small = np.arange(50, dtype=np.int32)
    want_small, _ = synthetic_reference(range(50), **cfg)
    assert pipeline.run("synthetic", sources=small, ordered=True, **cfg).items["value"].tolist() == want_small
    assert pipeline.run("synthetic", sources=list(range(50)), ordered=True,
                        **cfg).items["value"].tolist() == want_small
    # A count is the indices 0 .. N-1.
    assert pipeline.run("synthetic", sources=50, ordered=True, **cfg).items["value"].tolist() == want_small


def test_synthetic_gain_zero_and_maximal_gain():
    r = pipeline.run("synthetic", sources=100, gains=(0.5, 0, 1, 1), limits=(1, 4, 1, 1))
    assert r.count == 0 and r.items["value"].size == 0
    full = pipeline.run("synthetic", sources=100, gains=(2, 3, 1, 2), limits=(2, 3, 1, 2), work=(0, 0, 0, 0),
                        merge="1+2,3,4", ordered=True)
    assert full.count == 100 * 2 * 3 * 1 * 2
    want, _ = synthetic_reference(range(100), gains=(2, 3, 1, 2), limits=(2, 3, 1, 2), work=(0, 0, 0, 0),
                                  seed=1)
    assert full.items["value"].tolist() == want


def test_taxi_matches_python_float_parsing(taxi_text):
    want_items, want_lines = taxi_reference(taxi_text)
    r = pipeline.run("taxi", lines=taxi_text, ordered=True)
    assert r.items["x"].dtype == np.float32 and r.items["line"].dtype == np.uint32
    assert rows(r.items, COORD) == [(i, float(x), float(y)) for i, x, y in want_items]
    assert rows(r.output, LINE) == [(i, n, float(a), float(b), float(c), float(d))
                                    for i, n, a, b, c, d in want_lines]
    for sizing in pipeline.SIZING_RULES:
        for merge in MERGES4:
            u = pipeline.run("taxi", lines=taxi_text, sizing=sizing, merge=merge)
            assert Counter(rows(u.items, COORD)) == Counter(rows(r.items, COORD)), (sizing, merge)
            assert rows(u.output, LINE) == rows(r.output, LINE)


def test_taxi_input_forms_agree(taxi_text, tmp_path):
    want = rows(pipeline.run("taxi", lines=taxi_text).output, LINE)
    joined = "\n".join(taxi_text)
    forms = [
        [s.encode() for s in taxi_text],  # a list of bytes
        joined,  # one str
        joined.encode() + b"\n",  # one bytes buffer, LF-terminated
        "\r\n".join(taxi_text).encode(),  # CRLF
        np.array(taxi_text),  # a NumPy array of str
        tuple(taxi_text),
    ]
    for form in forms:
        assert rows(pipeline.run("taxi", lines=form).output, LINE) == want
    path = tmp_path / "trips.txt"
    path.write_text(joined + "\n")
    assert rows(pipeline.run("taxi", input=path).output, LINE) == want
    assert rows(pipeline.run("taxi", input=str(path)).output, LINE) == want
    # The generator is the command's: lines=N with its seed.
    gen = pipeline.run("taxi", lines=40, mean_pairs=20, max_pairs=120, seed=3)
    assert rows(gen.output, LINE) == want


def test_blast_matches_brute_force(tiny_blast):
    db, query, want = tiny_blast
    assert len(want) > 0, "the planted copies should give hits"
    r = pipeline.run("blast", db=db, query=query, ordered=True)
    assert r.items["score"].dtype == np.int32 and r.items["db_begin"].dtype == np.uint32
    assert rows(r.items, HIT) == want
    assert rows(r.output, HIT) == sorted(set(want))
    for sizing in pipeline.SIZING_RULES:
        for merge in MERGES4:
            u = pipeline.run("blast", db=db, query=query, sizing=sizing, merge=merge)
            assert Counter(rows(u.items, HIT)) == Counter(want), (sizing, merge)
    # Letters instead of codes; other settings.
    letters = "".join("ACGT"[b] for b in db.tolist())
    q = bytes(b"acgt"[b] for b in query.tolist())
    assert rows(pipeline.run("blast", db=letters, query=q, ordered=True).items, HIT) == want
    settings = dict(word=6, max_occurrences=4, window=4, small_min=5, reward=2, penalty=2, x_drop=9,
                    min_score=40)
    got = pipeline.run("blast", db=db, query=query, ordered=True, **settings)
    assert rows(got.items, HIT) == blast_reference(db, query, **settings)


def test_blast_generator_is_deterministic():
    a = pipeline.blast_input(db_length=1000, query_length=100, copies=2, copy_length=50, seed=3)
    b = pipeline.blast_input(db_length=1000, query_length=100, copies=2, copy_length=50, seed=3)
    c = pipeline.blast_input(db_length=1000, query_length=100, copies=2, copy_length=50, seed=4)
    assert a[0].dtype == np.uint8 and a[0].shape == (1000,) and a[1].shape == (100,)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and not np.array_equal(a[0], c[0])
    assert int(a[0].max()) <= 3
    r = pipeline.run("blast", db_length=1000, query_length=100, copies=2, copy_length=50, seed=3,
                     ordered=True)
    assert rows(r.items, HIT) == blast_reference(*a)


# ---------------------------------------------------------------------------------------------
# Empty and single inputs, minimum budgets, counting

def test_empty_inputs_are_errors():
    with pytest.raises(sextant.BadInputError, match="input stream is empty"):
        pipeline.run("synthetic", sources=0)
    with pytest.raises(sextant.BadInputError, match="input stream is empty"):
        pipeline.run("synthetic", sources=np.array([], dtype=np.uint64))
    with pytest.raises(sextant.BadInputError, match="input stream is empty"):
        pipeline.profile("synthetic", sources=[])
    with pytest.raises(sextant.BadInputError, match="lines: no lines: the input stream is empty"):
        pipeline.run("taxi", lines=[])
    with pytest.raises(sextant.BadInputError, match="no lines"):
        pipeline.run("taxi", lines=b"")
    with pytest.raises(sextant.BadArgumentError, match="at most the query and database lengths"):
        pipeline.run("blast", db=np.zeros(0, np.uint8), query="ACGTACGTAC")


def test_single_inputs():
    one, _ = synthetic_reference([0], gains=(1, 4, 1, 1), limits=(1, 4, 1, 1), work=(1, 1, 1, 1), seed=1)
    r = pipeline.run("synthetic", sources=1, gains=(1, 4, 1, 1), limits=(1, 4, 1, 1), work=(1, 1, 1, 1),
                     ordered=True)
    assert r.items["value"].tolist() == one and r.count == 4
    t = pipeline.run("taxi", lines=["7,LINESTRING(-73.5 40.25, 1 2)"], ordered=True)
    assert rows(t.items, COORD) == [(0, -73.5, 40.25), (0, 1.0, 2.0)]
    assert rows(t.output, LINE) == [(0, 2, -73.5, 2.0, 1.0, 40.25)]
    single = pipeline.run("taxi", lines="1,LINESTRING(3 4)")
    assert rows(single.output, LINE) == [(0, 1, 3.0, 4.0, 3.0, 4.0)]
    # One database position: db as long as a word.
    b = pipeline.run("blast", db="ACGTACGT", query="TTACGTACGTTT", min_score=8, small_min=0, ordered=True)
    want = blast_reference(bytes([0, 1, 2, 3, 0, 1, 2, 3]), bytes([3, 3, 0, 1, 2, 3, 0, 1, 2, 3, 3, 3]),
                           min_score=8, small_min=0)
    assert rows(b.items, HIT) == want == [(0, 2, 8, 8)]
    assert b.count == 1
    # N-Queens up to n = 10 has one source: the empty board.
    assert pipeline.run("nqueens", n=1).items["board"].tolist() == [[0]]


@pytest.mark.parametrize("app,options", [
    ("synthetic", dict(sources=500)),
    ("nqueens", dict(n=7)),
    ("taxi", dict(lines=30, seed=2)),
])
def test_minimum_budgets(app, options):
    base = pipeline.run(app, ordered=True, **options)
    plan = pipeline.plan(app, **options)
    ranking = plan["ranking"]
    nodes = len(plan["profile"]["name"])
    assert len(ranking["strategy"]) == 2 ** (nodes - 1)
    need = dict(zip(ranking["strategy"], ranking["min_queue_bytes"].tolist()))
    unmerged = ",".join(str(i + 1) for i in range(nodes))
    merged = "1+2," + ",".join(str(i + 1) for i in range(2, nodes))
    for merge in (unmerged, merged):
        budget = need[merge]
        for sizing in pipeline.SIZING_RULES:
            r = pipeline.run(app, sizing=sizing, merge=merge, queue_budget=budget, ordered=True, **options)
            assert r.count == base.count
            for k in base.items:
                assert np.array_equal(r.items[k], base.items[k]), (merge, sizing, k)
            sizes = r.queue_sizes[0]
            assert sizes["bytes"] <= budget and sizes["min_bytes"] == budget
            assert (sizes["capacity"] >= sizes["min_items"]).all()
            assert sizes["rule"] == sizing and sizes["device"].startswith("cpu")
        with pytest.raises(sextant.BadArgumentError,
                           match=r"below the minimum safe queue sizes: "
                                 r"the queue after node \d+ \(.+\) needs \d+ bytes"):
            pipeline.run(app, merge=merge, queue_budget=budget - 1, **options)


def test_count_only():
    want, _ = synthetic_reference(range(200), **SYN_DEFAULTS)
    r = pipeline.run("synthetic", sources=200, count_only=True)
    assert r.count == len(want) and len(r) == len(want) and r.items is None and r.output is None
    assert pipeline.run("nqueens", n=8, count_only=True, merge="auto").count == 92
    with pytest.raises(sextant.BadArgumentError, match="count_only.*per-line aggregate"):
        pipeline.run("taxi", lines=3, count_only=True)


def test_result_fields():
    r = pipeline.run("synthetic", sources=1000, merge="auto", threads=1)
    assert r.app == "synthetic" and isinstance(r.plan, str) and r.plan.count("+") + r.plan.count(",") == 3
    assert r.vectors > 0 and r.switches > 0 and r.chunks > 0 and r.seconds >= 0
    assert r.devices.startswith("cpu") and "cpu" in r.report
    assert r.sample is not None and r.sample["sources"] == 1000 and len(r.sample["g"]) == 4
    e = pipeline.run("synthetic", sources=1000, sizing="equal")
    assert e.sample is None and e.plan == "1,2,3,4"
    assert isinstance(e.queue_sizes, list) and "3 queues" in e.queue_sizes[0]["text"]
    full = pipeline.run("synthetic", sources=1000, merge="1+2+3+4")
    assert full.queue_sizes[0]["node"].size == 0 and full.switches >= 1
    assert "synthetic" in repr(e)


# ---------------------------------------------------------------------------------------------
# Profiles and plans

def test_profile_counts_the_known_gains():
    cfg = dict(gains=(0.5, 2.0, 0.25, 1.0), limits=(1, 4, 1, 1), work=(0, 0, 0, 0), seed=4)
    _, per_node = synthetic_reference(range(20000), **cfg)
    p = pipeline.profile("synthetic", sources=20000, sizing="equal", **cfg)
    assert p["name"] == ["gain 1", "gain 2", "gain 3", "gain 4"]
    assert p["u"].tolist() == [1, 4, 1, 1]
    assert p["outputs"].tolist() == per_node
    assert p["inputs"].tolist() == [20000] + per_node[:3]
    np.testing.assert_allclose(p["g"], np.array(per_node) / np.array([20000] + per_node[:3]))
    np.testing.assert_allclose(p["g"], cfg["gains"], rtol=0.05)
    assert ((p["m"] >= 0) & (p["m"] <= p["u"])).all()
    assert (p["t"] >= 0).all() and (p["p"] >= 0).all() and (p["vectors"] > 0).all()
    assert p["time_unit"] == "ns" and not p["lockstep"] and p["width"] in (8, 16)
    assert p["sources"] == 20000 and p["switches"] > 0 and "gain 1" in p["text"]
    q = pipeline.profile("nqueens", n=7, lanes=8)
    assert q["outputs"].tolist()[:7] == queens_per_row(7) and q["width"] == 8


def test_plan_ranks_every_strategy():
    p = pipeline.plan("synthetic", sources=5000, queue_budget=16384)
    r = p["ranking"]
    assert len(r["strategy"]) == 8 and len(set(r["strategy"])) == 8
    assert r["cost"].dtype == np.float64 and r["fits"].dtype == np.bool_
    fits = r["fits"].tolist()
    assert fits == sorted(fits, reverse=True)  # fitting plans first
    n_fit = sum(fits)
    assert (np.diff(r["cost"][:n_fit]) >= 0).all()  # cheapest first
    assert p["best"] == r["strategy"][0]
    assert [s["rule"] for s in p["queue_sizes"]] == ["equal", "mercator", "sqrt"]
    for s in p["queue_sizes"]:
        assert s["node"].tolist() == [1, 2, 3] and s["producer"] == ["gain 1", "gain 2", "gain 3"]
        assert (s["capacity"] >= s["min_items"]).all() and s["inflated"].dtype == np.bool_
        assert s["bytes"] <= 16384 and s["budget"] == 16384
    # Lemma 5.2 before rounding: c_i proportional to sqrt(G_i / b_i) (every queue here 8-byte items).
    sq = p["queue_sizes"][2]
    if not sq["inflated"].any():
        ratio = sq["capacity"] / np.sqrt(sq["gain"] / sq["item_bytes"])
        np.testing.assert_allclose(ratio, ratio[0], rtol=0.01)
    assert "1,2,3,4" in r["text"] and p["profile"]["sources"] == 5000


# ---------------------------------------------------------------------------------------------
# Errors

def test_errors_carry_the_library_messages():
    with pytest.raises(sextant.BadArgumentError, match=r"app = 'blasts': unknown application \(valid: blast"):
        pipeline.run("blasts")
    with pytest.raises(sextant.BadArgumentError, match="sizing = 'cubic': unknown sizing rule"):
        pipeline.run("nqueens", n=5, sizing="cubic")
    with pytest.raises(sextant.BadArgumentError, match="sizing = 'cubic'"):
        pipeline.plan("nqueens", n=5, sizing="cubic")
    with pytest.raises(sextant.BadArgumentError, match=r"merge = '1\+3,2': node 3 where node 2 comes next"):
        pipeline.run("synthetic", sources=10, merge="1+3,2")
    with pytest.raises(sextant.BadArgumentError, match="merge = '1,2,3,4,5': the pipeline has only 4 nodes"):
        pipeline.run("taxi", lines=2, merge="1,2,3,4,5")
    with pytest.raises(sextant.BadArgumentError,
                       match=r"--queue-budget = '1000': below the minimum safe queue sizes: "
                             r"the queue after node 1 \(place 1\) needs"):
        pipeline.run("nqueens", n=5, queue_budget=1000, sizing="equal")
    with pytest.raises(sextant.BadArgumentError, match="n = 21: out of range"):
        pipeline.run("nqueens", n=21)
    with pytest.raises(sextant.BadArgumentError, match="nqueens needs a board size"):
        pipeline.run("nqueens")
    with pytest.raises(sextant.BadArgumentError, match="seed = 3: not an option of app 'nqueens'"):
        pipeline.run("nqueens", n=4, seed=3)
    with pytest.raises(sextant.BadArgumentError,
                       match=r"n = 4: not an option of app 'taxi' \(an option of nqueens"):
        pipeline.run("taxi", lines=3, n=4)
    with pytest.raises(sextant.BadArgumentError,
                       match="--gains = '0.5,5,0.25,1': node 2's gain is out of range"):
        pipeline.run("synthetic", sources=10, gains=(0.5, 5, 0.25, 1))
    with pytest.raises(sextant.BadArgumentError, match="gains = .*: 4 values, one per node"):
        pipeline.run("synthetic", sources=10, gains=(0.5, 1))
    with pytest.raises(sextant.BadArgumentError, match=r"limits = \[1, 2.5, 1, 1\]: 2.5 is not an integer"):
        pipeline.run("synthetic", sources=10, limits=[1, 2.5, 1, 1])
    with pytest.raises(sextant.BadArgumentError, match="work = .*: -1 is out of range"):
        pipeline.run("synthetic", sources=10, work=iter([1, -1, 1, 1]))
    with pytest.raises(sextant.BadArgumentError, match=r"db\[3\] = 'X': not a base"):
        pipeline.run("blast", db="ACGXT", query="ACGT")
    with pytest.raises(sextant.BadArgumentError, match=r"query\[1\] = 7: not a base"):
        pipeline.run("blast", db=[0, 1, 2, 3] * 4, query=[0, 7, 1])
    with pytest.raises(sextant.BadArgumentError, match="query = .*db given without query"):
        pipeline.run("blast", db="ACGT")
    with pytest.raises(sextant.BadArgumentError, match="copies = 3: not used with db and query"):
        pipeline.run("blast", db="ACGTACGTACGT", query="ACGTACGTAC", copies=3)
    with pytest.raises(sextant.BadArgumentError, match="lines/input = 'neither'"):
        pipeline.run("taxi")
    with pytest.raises(sextant.BadArgumentError, match="mean_pairs = 5: not used with lines of text"):
        pipeline.run("taxi", lines=["1,LINESTRING(1 2)"], mean_pairs=5)
    with pytest.raises(sextant.BadArgumentError, match=r"lines\[1\] = .*holds a newline"):
        pipeline.run("taxi", lines=["1,LINESTRING(1 2)", "2,LINESTRING(1 2)\n3,LINESTRING(1 2)"])
    with pytest.raises(sextant.BadArgumentError, match="lanes = 12"):
        pipeline.run("nqueens", n=4, lanes=12)
    with pytest.raises(sextant.BadArgumentError, match="threads = -1"):
        pipeline.run("nqueens", n=4, threads=-1)
    with pytest.raises(sextant.BadArgumentError, match="devices = 'tpu0'"):
        pipeline.run("nqueens", n=4, devices="tpu0")
    with pytest.raises(sextant.BadArgumentError, match="sources = -1"):
        pipeline.run("synthetic", sources=np.array([3, -1]))
    with pytest.raises(sextant.IOFailure, match="no-such-file.txt"):
        pipeline.run("taxi", input="/nonexistent/no-such-file.txt")
    assert isinstance(sextant.BadArgumentError("x"), ValueError)


def test_malformed_taxi_lines_name_line_and_column():
    good = "1,LINESTRING(1 2, 3 4)"
    # The line frame, checked when the lines are split.
    with pytest.raises(sextant.BadInputError, match=r"^lines:2:3: expected LINESTRING\("):
        pipeline.run("taxi", lines=[good, "2,LINESTRNG(1 2)"])
    with pytest.raises(sextant.BadInputError, match=r"^lines:3:1: expected a trip id"):
        pipeline.run("taxi", lines=[good, good, "x,LINESTRING(1 2)"])
    with pytest.raises(sextant.BadInputError, match=r"^lines:1:\d+: expected '\)' at the end of the line"):
        pipeline.run("taxi", lines=["1,LINESTRING(1 2"])
    # A malformed pair travels to the sink and is reported with its line and column.
    bad = "22,LINESTRING(1 2, 3 x4, 5 6)"
    column = bad.index(", 3 x4") + 2
    for merge in ("none", "1+2+3+4"):
        with pytest.raises(sextant.BadInputError,
                           match=rf"^lines:2:{column}: malformed coordinate pair ' 3 x4' \(expected"):
            pipeline.run("taxi", lines=[good, bad, good], merge=merge)
    with pytest.raises(sextant.BadInputError, match=r"malformed coordinate pair '1 2 3'"):
        pipeline.run("taxi", lines=["5,LINESTRING(1 2 3)"])
    with pytest.raises(sextant.BadInputError,
                       match=r"^lines:1:21: line of 40 bytes, longer than --max-line 20"):
        pipeline.run("taxi", lines=["1,LINESTRING(1 2, 3 4, 5 6, 7 8, 9 1000)"], max_line=20)


def test_missing_gpu_is_unsupported():
    if gpu_count() > 0:
        pytest.skip("this machine has a GPU")
    with pytest.raises(sextant.UnsupportedError, match="GPU"):
        pipeline.run("nqueens", n=6, devices="gpu0")


def test_the_gil_is_released_during_a_run():
    span = {}
    options = dict(sources=200000, gains=(1, 1, 1, 1), limits=(1, 1, 1, 1), work=(150, 150, 150, 150),
                   sizing="equal", count_only=True, threads=1)

    def work():
        span["start"] = time.perf_counter()
        span["count"] = pipeline.run("synthetic", **options).count
        span["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    inside = [x for x in ticks if span["start"] + 0.05 < x < span["end"] - 0.05]
    assert span["count"] == 200000
    assert span["end"] - span["start"] > 0.2, "the run is too short to tell"
    assert len(inside) > 10, f"{len(inside)} ticks during {span['end'] - span['start']:.2f} s"


# ---------------------------------------------------------------------------------------------
# GPUs

@pytest.mark.gpu
@pytest.mark.parametrize("devices", ["gpu0", "all"])
def test_gpu_matches_the_references(devices, tiny_blast, taxi_text):
    want = queens(9)
    for merge in ("none", "auto", "1+2,3,4+5+6,7,8+9+10"):
        r = pipeline.run("nqueens", n=9, devices=devices, merge=merge)
        assert sorted(r.items["board"].tolist()) == want
        o = pipeline.run("nqueens", n=9, devices=devices, merge=merge, ordered=True)
        assert o.items["board"].tolist() == want
    syn, _ = synthetic_reference(range(3000), **SYN_DEFAULTS)
    for sizing in pipeline.SIZING_RULES:
        r = pipeline.run("synthetic", sources=3000, devices=devices, sizing=sizing, merge="1+2,3+4")
        assert sorted(r.items["value"].tolist()) == sorted(syn)
    o = pipeline.run("synthetic", sources=3000, devices=devices, ordered=True)
    assert o.items["value"].tolist() == syn
    items, lines = taxi_reference(taxi_text)
    t = pipeline.run("taxi", lines=taxi_text, devices=devices, ordered=True)
    assert rows(t.items, COORD) == [(i, float(x), float(y)) for i, x, y in items]
    db, query, hits = tiny_blast
    b = pipeline.run("blast", db=db, query=query, devices=devices)
    assert Counter(rows(b.items, HIT)) == Counter(hits)
    p = pipeline.profile("synthetic", sources=20000, devices=devices)
    assert p["time_unit"] == "cycles" and p["width"] == 128 and p["outputs"].sum() > 0
    assert any(s["device"].startswith("gpu") for s in b.queue_sizes)


# ---------------------------------------------------------------------------------------------
# The command line on the same inputs

def cli_rows(cli, args):
    out = subprocess.run([cli, "pipeline", "run", *args, "--output", "-"], check=True, capture_output=True,
                         text=True).stdout
    return out.splitlines()


def test_same_results_as_the_command_line(cli, tmp_path, taxi_text):
    gen = ["--db-length", "6000", "--query-length", "500", "--copies", "5", "--copy-length", "150",
           "--seed", "11"]
    lines = cli_rows(cli, ["--app", "blast", *gen])
    assert lines[0] == "db_begin,query_begin,length,score"
    want = [tuple(int(v) for v in line.split(",")) for line in lines[1:]]
    r = pipeline.run("blast", db_length=6000, query_length=500, copies=5, copy_length=150, seed=11)
    assert rows(r.output, HIT) == want and len(want) > 0

    path = tmp_path / "trips.txt"
    path.write_text("\n".join(taxi_text) + "\n")
    lines = cli_rows(cli, ["--app", "taxi", "--input", str(path), "--merge", "1+2,3,4"])
    assert lines[0] == "line,pairs,min_x,min_y,max_x,max_y"
    got = pipeline.run("taxi", lines=taxi_text, merge="1+2,3,4").output
    assert len(lines) - 1 == len(got["line"])
    for text, row in zip(lines[1:], rows(got, LINE)):
        f = text.split(",")
        assert int(f[0]) == row[0] + 1 and int(f[1]) == row[1]  # the command's lines are 1-based
        assert [np.float32(float(v)) for v in f[2:]] == list(row[2:])

    lines = cli_rows(cli, ["--app", "nqueens", "--n", "7", "--order"])
    assert [[int(c) for c in line.split()] for line in lines] == \
        pipeline.run("nqueens", n=7, ordered=True).items["board"].tolist()

    lines = cli_rows(cli, ["--app", "synthetic", "--sources", "400", "--gains", "0.5,1.5,1,0.5", "--limits",
                           "1,3,2,1", "--seed", "6", "--order"])
    r = pipeline.run("synthetic", sources=400, gains=(0.5, 1.5, 1, 0.5), limits=(1, 3, 2, 1), seed=6,
                     ordered=True)
    assert [int(v) for v in lines] == r.items["value"].tolist()
