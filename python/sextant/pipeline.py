"""Irregular streaming pipelines (docs/pipeline.md; paper 003, Mercator): run, profile and plan the
four applications of ``sextant pipeline`` from Python, with NumPy inputs and outputs.

A pipeline is a chain of nodes; node i consumes one item and emits 0 .. u_i items. Sextant runs a
replica of the whole pipeline per CPU core (a vector of 8 or 16 lanes) and per GPU thread block,
with queues between the nodes whose sizes come from a per-replica byte budget and a sizing rule
(``"equal"``, ``"mercator"``, ``"sqrt"``: Lemma 5.2), and runs merged nodes back to back without a
queue (``merge="1,2+3,4"``; ``"auto"``: the merge model's cheapest plan). Results never depend on
sizing or merging. The applications and their options (the command line's, with ``_`` for ``-``):

=========  ===========================================================================================
app        options
=========  ===========================================================================================
blast      ``db``, ``query``: bases as a uint8 array of 0..3 or a str/bytes of A, C, G, T; or the
           generator: ``db_length`` (4194304), ``query_length`` (16384), ``copies`` (64),
           ``copy_length`` (600), ``mutation_rate`` (0.05), ``seed`` (1). Settings: ``word`` (k, 8),
           ``max_occurrences`` (16), ``window`` (8), ``small_min`` (8), ``reward`` (1),
           ``penalty`` (3), ``x_drop`` (16), ``min_score`` (30).
nqueens    ``n``: the board size, 1 .. 20 (the input is generated: every placement of the first
           n - 10 rows).
taxi       ``lines``: a list of str/bytes (one line each), or one str/bytes buffer of lines, or an
           int N to generate N lines (with ``mean_pairs`` (45), ``max_pairs`` (150), ``seed`` (1));
           or ``input``: a file's path. ``max_line``: the longest line in bytes (4096).
synthetic  ``sources``: a count N (the sources are 0 .. N-1) or an array of source values (uint64);
           ``gains`` (0.5, 2, 0.25, 1), ``limits`` (1, 4, 1, 1), ``work`` (16, 32, 8, 64): per
           node; ``seed`` (1): the nodes' draws.
=========  ===========================================================================================

>>> from sextant import pipeline
>>> r = pipeline.run("nqueens", n=6, ordered=True)
>>> r.count, r.items["board"].tolist()
(4, [[1, 3, 5, 0, 2, 4], [2, 5, 1, 4, 0, 3], [3, 0, 4, 1, 5, 2], [4, 2, 0, 5, 3, 1]])

Every call releases the GIL while Sextant works; errors are :class:`sextant.Error` subclasses with
the library's messages (an empty input, a budget below the minimum safe queue sizes naming each
queue, a malformed Taxi line with its line and column, a bad merge plan).
"""

from __future__ import annotations

import numbers
import operator
import os
from typing import Any, Iterable, Union

import numpy as np

from . import _sextant
from ._arguments import devices_text
from .errors import BadArgumentError

#: The applications.
APPS = ("blast", "nqueens", "taxi", "synthetic")
#: The queue sizing rules.
SIZING_RULES = ("equal", "mercator", "sqrt")

_BLAST_GENERATOR = {"db_length": 1 << 22, "query_length": 16384, "copies": 64, "copy_length": 600,
                    "mutation_rate": 0.05, "seed": 1}
_BLAST_SETTINGS = {"word": 8, "max_occurrences": 16, "window": 8, "small_min": 8, "reward": 1,
                   "penalty": 3, "x_drop": 16, "min_score": 30}
_TAXI_GENERATOR = {"mean_pairs": 45, "max_pairs": 150, "seed": 1}
_OPTIONS = {
    "blast": ("db", "query", *_BLAST_GENERATOR, *_BLAST_SETTINGS),
    "nqueens": ("n",),
    "taxi": ("lines", "input", "max_line", *_TAXI_GENERATOR),
    "synthetic": ("sources", "gains", "limits", "work", "seed"),
}
_MAX_SEED = 1 << 62


def _bad(parameter: str, value: Any, valid: str, what: str = "out of range") -> BadArgumentError:
    return BadArgumentError(f"{parameter} = {value}: {what} (valid: {valid})")


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool):
        raise _bad(name, repr(value), f"an integer {lo} .. {hi}", "not an integer")
    try:
        v = operator.index(value)
    except TypeError:
        raise _bad(name, repr(value)[:60], f"an integer {lo} .. {hi}", "not an integer") from None
    if not lo <= v <= hi:
        raise _bad(name, v, f"{lo} .. {hi}")
    return v


def _float(value: Any, name: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _bad(name, repr(value)[:60], f"a number {lo} .. {hi}", "not a number")
    v = float(value)
    if not lo <= v <= hi:  # NaN too
        raise _bad(name, v, f"{lo} .. {hi}")
    return v


def _devices(devices: Union[None, str, Iterable[str]]) -> str:
    return devices_text(devices, "cpu")


def _options(sizing: Any, queue_budget: Any, merge: Any, ordered: Any, count_only: Any, devices: Any,
             threads: Any, lanes: Any) -> tuple:
    """The options every call passes on, checked (the C++ side checks the rule's and plan's text)."""
    if not isinstance(sizing, str):
        raise _bad("sizing", repr(sizing)[:60], ", ".join(SIZING_RULES), "not a str")
    if not isinstance(merge, str):
        raise _bad("merge", repr(merge)[:60], "'none', 'auto' or a plan such as '1,2+3,4'", "not a str")
    lanes = _int(lanes, "lanes", 0, 16)
    if lanes not in (0, 8, 16):
        raise _bad("lanes", lanes, "0 (the widest the cores run), 8 (AVX2) or 16 (AVX-512)")
    return (sizing, _int(queue_budget, "queue_budget", 0, 1 << 40), merge, bool(ordered), bool(count_only),
            _devices(devices), _int(threads, "threads", 0, 1 << 20), lanes)


def _check_app(app: Any, app_options: dict) -> None:
    if app not in APPS:
        raise _bad("app", repr(app)[:60], ", ".join(APPS), "unknown application")
    for name, value in app_options.items():
        if name not in _OPTIONS[app]:
            owners = [a for a in APPS if name in _OPTIONS[a]]
            what = f"not an option of app {app!r}"
            if owners:
                what += f" (an option of {', '.join(owners)})"
            raise _bad(name, repr(value)[:60], ", ".join(_OPTIONS[app]), what)


# ---- inputs

_CODES = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"ACGT"):
    _CODES[_c] = _CODES[_c + 32] = _i


def _bases(value: Any, name: str) -> np.ndarray:
    """Bases 0..3 as a C-contiguous uint8 array: from A/C/G/T text or an integer array of 0..3."""
    if isinstance(value, str):
        try:
            value = value.encode("ascii")
        except UnicodeEncodeError as e:
            raise _bad(f"{name}[{e.start}]", repr(value[e.start]), "A, C, G or T (either case)",
                       "not a base") from None
    if isinstance(value, (bytes, bytearray, memoryview)):
        codes = _CODES[np.frombuffer(value, dtype=np.uint8)]
        bad = np.flatnonzero(codes == 255)
        if bad.size:
            i = int(bad[0])
            raise _bad(f"{name}[{i}]", repr(bytes(value[i:i + 1]))[1:], "A, C, G or T (either case)",
                       "not a base")
        return codes
    try:
        a = np.asarray(value)
    except Exception as e:
        raise TypeError(f"{name}: not an array of bases ({e})") from None
    if a.ndim != 1:
        raise _bad(name, f"an array of shape {a.shape}", "a 1-D array of bases 0..3", f"{a.ndim}-D")
    if a.dtype.kind not in "iu":
        raise _bad(f"{name}.dtype", a.dtype, "integers 0..3 (A, C, G, T), or str/bytes of ACGT",
                   "not integers")
    if a.size:
        bad = np.flatnonzero((a < 0) | (a > 3))
        if bad.size:
            i = int(bad[0])
            raise _bad(f"{name}[{i}]", int(a[i]), "bases 0 .. 3 (A, C, G, T)", "not a base")
    return np.ascontiguousarray(a, dtype=np.uint8)


def _blast_settings(options: dict) -> list:
    s = {**_BLAST_SETTINGS, **{k: v for k, v in options.items() if k in _BLAST_SETTINGS}}
    return [_int(s["word"], "word", 4, 14), _int(s["max_occurrences"], "max_occurrences", 1, 64),
            _int(s["window"], "window", 0, 64), _int(s["small_min"], "small_min", 0, 128),
            _int(s["reward"], "reward", 1, 1000), _int(s["penalty"], "penalty", 0, 1000),
            _int(s["x_drop"], "x_drop", 0, 1000000), _int(s["min_score"], "min_score", -2**31, 2**31 - 1)]


def blast_input(db_length: int = 1 << 22, query_length: int = 16384, copies: int = 64, copy_length: int = 600,
                mutation_rate: float = 0.05, seed: int = 1):
    """The BLAST generator: ``(db, query)`` as uint8 arrays of bases 0..3, the same as
    ``sextant pipeline run --app blast`` makes with these options: a random genome of ``db_length``
    bases with ``copies`` mutated copies (each base replaced with probability ``mutation_rate``) of
    random stretches of ``copy_length`` bases of a random query planted in it. Deterministic by
    seed."""
    db, query, _ = _sextant.blast_generate(
        _int(db_length, "db_length", 64, 1 << 31), _int(query_length, "query_length", 64, 1 << 24),
        _int(copies, "copies", 0, 1 << 24), _int(copy_length, "copy_length", 1, 1 << 24),
        _float(mutation_rate, "mutation_rate", 0.0, 1.0), _int(seed, "seed", 0, _MAX_SEED),
        _blast_settings({}))
    return db, query


def taxi_lines(lines: int, mean_pairs: int = 45, max_pairs: int = 150, seed: int = 1) -> bytes:
    """The Taxi generator: ``lines`` trips ``<id>,LINESTRING(<x> <y>, ...)`` with 2 .. ``max_pairs``
    pairs (mostly near ``mean_pairs``), a walk around Manhattan with six decimals, one per line
    (LF-terminated bytes): the same text as ``sextant pipeline run --app taxi --lines N``."""
    return _sextant.taxi_generate(_int(lines, "lines", 1, 1 << 30), _int(mean_pairs, "mean_pairs", 2, 170),
                                  _int(max_pairs, "max_pairs", 2, 170), _int(seed, "seed", 0, _MAX_SEED))


def _taxi_text(options: dict):
    """(text bytes or None for a file, origin) of the Taxi options."""
    has_lines, has_input = "lines" in options, "input" in options
    if has_lines == has_input:
        raise _bad("lines/input", repr("both" if has_lines else "neither"), "exactly one of them",
                   "name the input")
    lines = options.get("lines")
    generated = isinstance(lines, numbers.Integral) and not isinstance(lines, bool)
    if not generated:
        for g in _TAXI_GENERATOR:
            if g in options:
                raise _bad(g, repr(options[g])[:60], "only with lines=N (the generator)",
                           "not used with " + ("input" if has_input else "lines of text"))
    if has_input:
        return None, os.fspath(options["input"])
    if generated:
        g = {**_TAXI_GENERATOR, **{k: v for k, v in options.items() if k in _TAXI_GENERATOR}}
        seed = _int(g["seed"], "seed", 0, _MAX_SEED)
        text = taxi_lines(lines, g["mean_pairs"], g["max_pairs"], seed)
        return text, f"generated lines={int(lines)} seed={seed}"
    if isinstance(lines, str):
        return lines.encode("utf-8"), "lines"
    if isinstance(lines, (bytes, bytearray, memoryview)):
        return bytes(lines), "lines"
    if isinstance(lines, np.ndarray):
        lines = lines.tolist()
    if not isinstance(lines, Iterable):
        raise _bad("lines", repr(lines)[:60], "a list of str or bytes, one str/bytes buffer, or a count",
                   "not lines")
    parts = []
    for i, line in enumerate(lines):
        if isinstance(line, str):
            line = line.encode("utf-8")
        elif isinstance(line, (bytes, bytearray, memoryview)):
            line = bytes(line)
        else:
            raise _bad(f"lines[{i}]", repr(line)[:60], "a str or bytes", "not a line")
        if b"\n" in line:
            raise _bad(f"lines[{i}]", repr(line)[:60], "one line per item (no newline)", "holds a newline")
        parts.append(line)
    return b"\n".join(parts), "lines"


def _synthetic(options: dict) -> tuple:
    """(values array or None, count, gains, limits, work, seed)."""
    if "sources" not in options:
        raise _bad("sources", "(missing)", "a count, or an array of source values", "synthetic needs sources")
    sources = options["sources"]
    values, count = None, 0
    if isinstance(sources, numbers.Integral) and not isinstance(sources, bool):
        count = _int(sources, "sources", 0, 1 << 40)
    else:
        try:
            a = np.asarray(sources)
        except Exception as e:
            raise TypeError(f"sources: not an array of source values ({e})") from None
        if a.ndim != 1:
            raise _bad("sources", f"an array of shape {a.shape}", "a count, or a 1-D array of values",
                       f"{a.ndim}-D")
        if a.dtype.kind not in "iu" and not (a.dtype.kind == "f" and a.size == 0):
            raise _bad("sources.dtype", a.dtype, "unsigned 64-bit integers (or integers >= 0)",
                       "not integers")
        if a.dtype.kind == "i" and a.size and a.min() < 0:
            raise _bad("sources", int(a.min()), "0 .. 2**64-1")
        values = np.ascontiguousarray(a, dtype=np.uint64)

    def numbers_of(name, default, integral):
        v = options.get(name, default)
        if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
            raise _bad(name, repr(v)[:60], "4 numbers, one per node", "not a list")
        v = list(v)
        for x in v:
            if isinstance(x, bool) or not isinstance(x, numbers.Integral if integral else numbers.Real):
                raise _bad(name, repr(v)[:60], f"4 {'integers' if integral else 'numbers'}, one per node",
                           f"{x!r} is not {'an integer' if integral else 'a number'}")
            if integral and not 0 <= x < 2**32:
                raise _bad(name, repr(v)[:60], "4 integers 0 .. 2**32-1, one per node",
                           f"{x!r} is out of range")
        return [int(x) if integral else float(x) for x in v]

    def floats(name, default):
        return numbers_of(name, default, False)

    def ints(name, default):
        return numbers_of(name, default, True)

    return (values, count, floats("gains", (0.5, 2.0, 0.25, 1.0)), ints("limits", (1, 4, 1, 1)),
            ints("work", (16, 32, 8, 64)), _int(options.get("seed", 1), "seed", 0, _MAX_SEED))


def _call(op: str, app: Any, app_options: dict, common: tuple):
    _check_app(app, app_options)
    if app == "nqueens":
        if "n" not in app_options:
            raise _bad("n", "(missing)", "1 .. 20", "nqueens needs a board size")
        return _sextant.pipeline_nqueens(op, _int(app_options["n"], "n", 1, 20), *common)
    if app == "taxi":
        text, origin = _taxi_text(app_options)
        max_line = _int(app_options.get("max_line", 4096), "max_line", 16, 1 << 20)
        return _sextant.pipeline_taxi(op, text, origin, max_line, *common)
    if app == "synthetic":
        return _sextant.pipeline_synthetic(op, *_synthetic(app_options), *common)
    # blast
    settings = _blast_settings(app_options)
    given = [k for k in ("db", "query") if k in app_options]
    if given:
        if len(given) == 1:
            missing = "query" if given == ["db"] else "db"
            raise _bad(missing, "(missing)", "db and query together, or neither (the generator)",
                       f"{given[0]} given without {missing}")
        for g in _BLAST_GENERATOR:
            if g in app_options:
                raise _bad(g, repr(app_options[g])[:60], "only without db and query (the generator)",
                           "not used with db and query")
        db, query = _bases(app_options["db"], "db"), _bases(app_options["query"], "query")
        if db.size > 1 << 31:
            raise _bad("db", f"{db.size} bases", "at most 2**31 bases")
        if query.size > 1 << 24:
            raise _bad("query", f"{query.size} bases", "at most 2**24 bases")
    else:
        g = {**_BLAST_GENERATOR, **{k: v for k, v in app_options.items() if k in _BLAST_GENERATOR}}
        db, query = blast_input(**g)
    return _sextant.pipeline_blast(op, db, query, settings, *common)


class PipelineResult:
    """What :func:`run` returns.

    items:       the sink's items as NumPy columns (None with ``count_only``): blast ``db_begin``,
                 ``query_begin``, ``length`` (uint32), ``score`` (int32), one hit per seed; nqueens
                 ``board`` (an (count, n) uint8 array: the column of each row); taxi ``line``
                 (0-based index, uint32), ``x``, ``y`` (float32); synthetic ``value`` (uint64). In
                 input order with ``ordered=True`` (source index, then emission order), else in an
                 unspecified order.
    output:      what ``sextant pipeline run`` writes: blast the distinct hits, sorted; taxi the
                 per-line aggregate (``line`` 0-based, ``pairs``, ``min_x``, ``min_y``, ``max_x``,
                 ``max_y``); nqueens and synthetic the items.
    count:       the sink's items.
    plan:        the merge plan that ran ("1,2+3,4"; "1,2,3,4" is unmerged).
    queue_sizes: per device kind that ran, a dict: ``device`` ("cpu 16 lanes"), ``rule``,
                 ``budget``, ``bytes``, ``min_bytes``, ``switch_rate_bound`` (R'), per-queue columns
                 ``node`` (the 1-based node whose outputs it holds), ``group_first``, ``producer``,
                 ``item_bytes``, ``min_items``, ``gain``, ``capacity`` (items), ``inflated`` (raised
                 to its minimum safe size), and ``text``.
    vectors, switches, chunks: vectors fired, node switches, chunks of the source (every replica).
    seconds:     the run's time, after planning.
    devices:     where it ran, e.g. "cpu: 16 cores, gpu0".
    sample:      the profile measured on a prefix first (for ``sizing="sqrt"`` or ``merge="auto"``),
                 as :func:`profile` returns it, or None.
    report:      the per-device table of the run (the command's ``--report``).
    """

    __slots__ = ("app", "items", "output", "count", "plan", "queue_sizes", "vectors", "switches", "chunks",
                 "seconds", "devices", "sample", "report")

    def __init__(self, app: str, fields: dict):
        self.app = app
        for k in self.__slots__[1:]:
            setattr(self, k, fields[k])

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return (f"<sextant.pipeline.PipelineResult {self.app}: {self.count} items, plan {self.plan}, "
                f"{self.switches} node switches, {self.seconds:.3f} s on {self.devices}>")


def run(app: str, *, sizing: str = "sqrt", queue_budget: int = 0, merge: str = "none", ordered: bool = False,
        devices: Union[None, str, Iterable[str]] = "cpu", threads: int = 0, count_only: bool = False,
        lanes: int = 0, **app_options: Any) -> PipelineResult:
    """Runs application ``app`` ("blast", "nqueens", "taxi", "synthetic"; its options as in the
    module's table) and returns a :class:`PipelineResult`.

    sizing:       "equal", "mercator" or "sqrt" (Lemma 5.2 on gains measured on a prefix first).
    queue_budget: queue bytes per replica; 0 = the rule's default (64 KiB raised to the minimum safe
                  sizes; mercator: 4 x lanes x the largest gain limit). A budget below the minimum
                  safe sizes raises BadArgumentError naming every queue and what it needs.
    merge:        "none", "auto" (the merge model's cheapest plan that fits) or a plan such as
                  "1,2+3,4" (1-based nodes; '+' merges, ',' keeps a queue).
    ordered:      the items in input order (source index, then emission order).
    devices:      "cpu", "numa0", "gpu0", "all", or a list of those.
    threads:      CPU cores at most (0 = every core of the selection).
    count_only:   count the sink's items without keeping them (not for taxi: its aggregate needs
                  every pair).
    lanes:        a core's vector width: 8 or 16 (0 = the widest the cores run).
    """
    common = _options(sizing, queue_budget, merge, ordered, count_only, devices, threads, lanes)
    return PipelineResult(app, _call("run", app, app_options, common))


def profile(app: str, *, sizing: str = "sqrt", queue_budget: int = 0,
            devices: Union[None, str, Iterable[str]] = "cpu", threads: int = 0, lanes: int = 0,
            **app_options: Any) -> dict:
    """Runs ``app`` unmerged with instrumentation on the first device kind of ``devices`` (every
    core named, or the first GPU) and returns the per-node profile (``sextant pipeline profile``):

    per node (NumPy arrays, n_1 first): ``name`` (a list), ``u`` (gain limit), ``inputs``,
    ``outputs``, ``vectors`` (input vectors fired), ``g`` (average gain: outputs / inputs), ``m``
    (max vector gain: the mode over full input vectors of the most outputs one lane produced),
    ``t`` (service time per input vector), ``p`` (overhead per input vector); and ``switches``,
    ``firings``, ``width`` (lanes), ``time_unit`` ("ns" on a CPU, "cycles" on a GPU),
    ``lockstep``, ``device``, ``sources``, ``seconds``, ``text`` (the command's table).
    """
    common = _options(sizing, queue_budget, "none", False, True, devices, threads, lanes)
    return _call("profile", app, app_options, common)


def plan(app: str, *, sizing: str = "sqrt", queue_budget: int = 0,
         devices: Union[None, str, Iterable[str]] = "cpu", threads: int = 0, lanes: int = 0,
         **app_options: Any) -> dict:
    """Profiles ``app`` (as :func:`profile`) and plans it (``sextant pipeline plan``): a dict of
    ``profile``, ``queue_sizes`` (the unmerged queues sized by each rule, equal, mercator and sqrt,
    at ``queue_budget``: dicts as :attr:`PipelineResult.queue_sizes`), ``ranking`` (every merge
    strategy, cheapest predicted first: ``strategy`` (a list of plans), ``cost`` (per input vector
    of node 1, in ``time_unit``), ``min_queue_bytes``, ``fits`` (within the budget), ``text``) and
    ``best`` (the plan ``merge="auto"`` would run with this profile)."""
    common = _options(sizing, queue_budget, "none", False, True, devices, threads, lanes)
    return _call("plan", app, app_options, common)
