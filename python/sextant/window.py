"""Sliding-window aggregates: windows over an out-of-order keyed stream (:class:`StreamWindow`)
and count windows over a column in memory (:func:`count_windows`).

Window k of length W and slide S covers [k*S, k*S + W) (time units, or per-key tuple positions
for count windows), aligned to 0. A tuple carries a key, a timestamp >= 0, a value and,
optionally, its source's watermark; the operator's watermark is the running maximum. A tuple
whose timestamp is below (watermark - lateness) when it arrives is late: dropped and counted.
A time window fires when the watermark reaches its end + lateness; at :meth:`StreamWindow.finish`
every open window fires. Only windows that received a tuple are emitted.
"""

from __future__ import annotations

import operator
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import _sextant
from .errors import BadArgumentError

_VALUE_TYPES = {np.dtype(np.int32): "int32", np.dtype(np.int64): "int64",
                np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}
_POSITIONAL = ("argmin", "argmax", "first", "last")

Spec = Tuple[str, int, int]


def _bad(parameter: str, value: Any, valid: str, what: str = "out of range") -> BadArgumentError:
    return BadArgumentError(f"{parameter} = {value}: {what} (valid: {valid})")


def tumbling(size: int, type: str = "time") -> Spec:
    """A tumbling window (Flink's vocabulary): length = slide = ``size``."""
    return (type, operator.index(size), operator.index(size))


def sliding(size: int, slide: int, type: str = "time") -> Spec:
    """A sliding window (Flink's vocabulary): length ``size``, a new window every ``slide``."""
    return (type, operator.index(size), operator.index(slide))


def _specs(specs: Any) -> list:
    if isinstance(specs, (tuple, dict)) and (isinstance(specs, dict) or
                                            (len(specs) == 3 and isinstance(specs[0], str))):
        specs = [specs]
    out = []
    for i, s in enumerate(specs):
        where = f"specs[{i}]"
        if isinstance(s, dict):
            s = (s.get("type", "time"), s.get("length"), s.get("slide"))
        if not (isinstance(s, (tuple, list)) and len(s) == 3 and isinstance(s[0], str)):
            raise _bad(where, repr(s), "(type, length, slide) with type 'time' or 'count'",
                       "not a window spec")
        try:
            out.append((s[0], operator.index(s[1]), operator.index(s[2])))
        except TypeError:
            raise _bad(where, repr(s), "integer length and slide", "not an integer") from None
    if not out:
        raise _bad("specs", "[]", "at least one (type, length, slide)", "no window")
    return out


def _column(values: Any, name: str, dtype=None, n: Optional[int] = None) -> np.ndarray:
    try:
        a = np.asarray(values)
    except Exception as e:
        raise TypeError(f"{name}: not an array-like of numbers ({e})") from None
    if a.ndim != 1:
        raise _bad(name, f"an array of shape {a.shape}", "a 1-D array", f"{a.ndim}-D")
    if n is not None and a.shape[0] != n:
        raise _bad(name, f"{a.shape[0]} entries", f"{n} (one per value)", "columns differ in length")
    if dtype is not None:
        target = np.dtype(dtype)
        if a.dtype != target:
            if a.dtype.kind not in "iub" and not (a.dtype.kind == "f" and target.kind == "f"):
                raise _bad(f"{name}.dtype", a.dtype, f"{target} or a type that converts to it safely",
                           "cannot convert")
            if a.dtype.kind in "iu" and target.kind in "iu" and a.size:
                info = np.iinfo(target)
                lo, hi = a.min(), a.max()
                if lo < info.min or hi > info.max:
                    raise _bad(name, f"values in {lo}..{hi}", f"{info.min}..{info.max} ({target})")
    return np.ascontiguousarray(a, dtype=dtype)


def _values(values: Any, name: str = "values", dtype=None) -> np.ndarray:
    a = _column(values, name)
    if dtype is not None:
        return _column(a, name, dtype)
    if a.dtype in _VALUE_TYPES:
        return np.ascontiguousarray(a)
    if a.dtype.kind in "iub":
        return _column(a, name, np.int64)
    if a.dtype.kind == "f":
        return np.ascontiguousarray(a, dtype=np.float64)
    raise _bad(f"{name}.dtype", a.dtype, "int32, int64, float32 or float64", "not numeric")


class StreamWindow:
    """Sliding-window aggregates over an out-of-order keyed stream, on the CPU or a GPU.

    specs:     one window spec or a list of them: ("time" | "count", length, slide), a dict
               {"type", "length", "slide"}, or :func:`tumbling` / :func:`sliding`; all of one type.
    aggregate: "sum", "count", "min", "max", "avg", "var", "argmin", "argmax", "first", "last".
    lateness:  allowed lateness L >= 0 (time windows).
    device:    "cpu" or "gpu0", ...
    dtype:     the values' type (int32, int64, float32, float64); None = that of the first push.

    >>> op = StreamWindow(tumbling(10), "sum")
    >>> op.push(keys=[0, 0, 1], timestamps=[1, 12, 4], values=[5, 7, 11])
    >>> op.advance_watermark(10)
    >>> sorted(op.poll(as_frame=False)["value"].tolist())
    [5, 11]
    """

    def __init__(self, specs: Any, aggregate: str, lateness: int = 0, device: str = "cpu",
                 threads: int = 0, dtype: Any = None):
        self._specs = _specs(specs)
        self._aggregate = str(aggregate)
        self._lateness = operator.index(lateness)
        self._device = str(device)
        self._threads = operator.index(threads)
        if self._threads < 0:
            raise _bad("threads", self._threads, "0 (every core) or more")
        _sextant.check_stream_options(self._specs, self._lateness, self._aggregate, self._device)
        self._op = None
        if dtype is not None:
            self._start(np.dtype(dtype))

    def _start(self, dtype: np.dtype) -> None:
        if dtype not in _VALUE_TYPES:
            raise _bad("dtype", dtype, "int32, int64, float32 or float64", "not a value type")
        self._op = _sextant.StreamWindow(_VALUE_TYPES[dtype], self._aggregate, self._specs,
                                         self._lateness, self._device, self._threads)
        self._dtype = dtype

    def push(self, keys: Any, timestamps: Any, values: Any, watermarks: Any = None) -> None:
        """Appends tuples in arrival order. keys: integers in 0..2^32-1 (None: all key 0);
        timestamps: integers >= 0; watermarks: the source's watermark after each tuple (None:
        the tuples carry none). A bad batch raises and leaves the operator as it was."""
        v = _values(values, "values", None if self._op is None else self._dtype)
        n = v.shape[0]
        k = (np.zeros(n, dtype=np.uint32) if keys is None
             else _column(keys, "keys", np.uint32, n))
        t = _column(timestamps, "timestamps", np.int64, n)
        w = None if watermarks is None else _column(watermarks, "watermarks", np.int64, n)
        if self._op is None:
            self._start(v.dtype)
        self._op.push(k, t, v, w)

    def advance_watermark(self, watermark: int) -> None:
        """A watermark without tuples (a source's heartbeat): windows it completes fire."""
        if self._op is None:
            raise _bad("advance_watermark", watermark, "a push (or dtype=...) first",
                       "the operator has no value type yet")
        self._op.advance_watermark(operator.index(watermark))

    def finish(self) -> None:
        """End of stream: every open window fires (poll returns them)."""
        if self._op is not None:
            self._op.finish()

    def poll(self, as_frame: Optional[bool] = None):
        """The windows fired since the last poll, as columns spec, key, start, end, value (and
        time: the selected tuple's timestamp for argmin, argmax, first, last), in firing order.
        A pandas DataFrame when pandas is installed (as_frame=None) or asked for (True); else a
        dict of NumPy arrays."""
        if self._op is None:
            cols = {"spec": np.zeros(0, np.uint32), "key": np.zeros(0, np.uint32),
                    "start": np.zeros(0, np.int64), "end": np.zeros(0, np.int64),
                    "value": np.zeros(0, np.float64)}
        else:
            cols = self._op.poll()
        if as_frame is False:
            return cols
        try:
            import pandas as pd
        except ImportError:
            if as_frame:
                raise
            return cols
        return pd.DataFrame(cols)

    @property
    def counters(self) -> dict:
        """tuples_in, late_dropped, watermarks_ignored, windows_emitted, batches."""
        if self._op is None:
            return dict(tuples_in=0, late_dropped=0, watermarks_ignored=0, windows_emitted=0,
                        batches=0)
        return self._op.counters()

    @property
    def watermark(self) -> Optional[int]:
        """The operator's watermark, None before the first."""
        return None if self._op is None else self._op.watermark()

    def __repr__(self) -> str:
        where = self._op.describe() if self._op is not None else self._device
        return f"<sextant.StreamWindow {self._aggregate} {self._specs} on {where}>"


def count_windows(values: Any, length: int, slide: int, agg: str, device: str = "cpu",
                  algorithm: str = "auto", threads: int = 0,
                  positions: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
    """One result per count-based window of ``values`` (window k covers positions
    [k*slide, k*slide + length); full windows only), on the CPU or a GPU.

    agg: "sum", "count", "min", "max", "argmin", "argmax", "first", "last". Results: int64 for
    integer sums and counts, double for float sums, the value type otherwise. With
    positions=True (argmin, argmax, first, last only) also the position of each result's value.
    algorithm (GPU): "auto", "gbl", "sh", "coop", "direct-prefix", "reduced-prefix", "block-scan".
    """
    v = _values(values)
    t = operator.index(threads)
    if t < 0:
        raise _bad("threads", t, "0 (every core) or more")
    if positions and agg not in _POSITIONAL:
        raise _bad("positions", True, "only with argmin, argmax, first or last", f"agg is {agg!r}")
    out, where, _ = _sextant.count_windows(v, operator.index(length), operator.index(slide), str(agg),
                                           str(device), str(algorithm), t)
    return (out, where) if positions else out
