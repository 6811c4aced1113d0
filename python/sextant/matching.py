"""Content-based publish/subscribe matching (docs/matching.md): a :class:`Matcher` holds filters
owned by interfaces (subscribers) and matches events against them on the CPU's cores, GPUs, or all.

An event is a set of attributes ``name = value`` (int, float, bool or str; a name may repeat). A
constraint ``(name, op, value)`` is satisfied when some attribute of that name and a comparable
type satisfies it: numbers with numbers (an int and a float compare exactly: 2**53 + 1 >
9007199254740992.0, 5 == 5.0), bools with bools (``=``, ``!=``), strings with strings (``=``,
``!=``, ``prefix``, ``suffix``, ``substring``: byte-wise on UTF-8, case-sensitive); ``exists``
holds for any value. No attribute of that name: not satisfied, also for ``!=``. A filter (a
conjunction of constraints) matches when all its constraints are satisfied; an interface matches
when one of its filters does.

>>> m = Matcher()
>>> m.add(17, 3, [("price", ">", 10), ("name", "prefix", "ab")])
>>> m.add(18, 5, [("price", "<=", 99.5)])
>>> [a.tolist() for a in m.match([{"price": 12, "name": "abc"}, {"price": 100}])]
[[3, 5], []]
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Mapping
from typing import Any, Iterable, Union

import numpy as np

from . import _sextant
from ._arguments import devices_text
from .errors import BadArgumentError

#: The constraint operators.
OPS = ("=", "!=", "<", "<=", ">", ">=", "prefix", "suffix", "substring", "exists")

_MAX_ID = 2**64 - 1
_MAX_INTERFACE = 2**32 - 1


def _bad(parameter: str, value: Any, valid: str, what: str = "out of range") -> BadArgumentError:
    return BadArgumentError(f"{parameter} = {value}: {what} (valid: {valid})")


def _uint(value: Any, parameter: str, top: int) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        raise _bad(parameter, repr(value), f"an integer 0..{top}", "not an integer") from None
    if not 0 <= v <= top:
        raise _bad(parameter, v, f"0..{top}")
    return v


def _devices(devices: Union[None, str, Iterable[str]]) -> str:
    return devices_text(devices, "cpu")


def _split(offsets: np.ndarray, values: np.ndarray) -> list:
    bounds = offsets.tolist()
    return [values[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


class Matcher:
    """Filters owned by interfaces, matched against events (paper 002's counting matcher).

    devices:   "cpu" (every core), "numa0", "gpu0", "all", "cpu,gpu0", ... or a list of those.
    threads:   CPU cores that match, 0 = every selected one.
    placement: with several GPUs, "replicate" (each holds every filter) or "partition" (GPU k
               holds a k-th share, every batch goes to every GPU; for tables larger than one GPU).

    Filters may be added and removed at any time, also from other threads while a match runs: a
    match sees the state before or after each change, never half of one. A rejected change
    raises and changes nothing. Every call releases the GIL while Sextant works.
    """

    def __init__(self, devices: Union[None, str, Iterable[str]] = "cpu", threads: int = 0,
                 placement: str = "replicate"):
        t = operator.index(threads)
        if t < 0:
            raise _bad("threads", t, "0 (every selected core) or more")
        if placement not in ("replicate", "partition"):
            raise _bad("placement", repr(placement), "'replicate' or 'partition'", "unknown placement")
        self._m = _sextant.Matcher(_devices(devices), t, placement)

    def add(self, filter_id: int, interface: int, constraints: Iterable[Any]) -> None:
        """Adds filter ``filter_id`` (0..2**64-1, not in the matcher) of ``interface`` (0..2**32-1):
        the conjunction of ``constraints``, a non-empty list of ``(name, op, value)`` tuples.

        op: one of :data:`OPS`; value: int (int64), float (finite), bool or str (or bytes, for
        any byte string) of a type the operator takes: ``< <= > >=`` numbers, ``prefix suffix
        substring`` strings, ``= !=`` any; ``(name, "exists")`` or ``(name, "exists", None)``.
        Names: ``[A-Za-z_][A-Za-z0-9_.]*``, at most 255 bytes.
        """
        fid = _uint(filter_id, "filter_id", _MAX_ID)
        iface = _uint(interface, "interface", _MAX_INTERFACE)
        if isinstance(constraints, (str, bytes)) or not isinstance(constraints, Iterable):
            raise _bad(f"filter {fid} constraints", repr(constraints), "a list of (name, op, value) tuples",
                       "not a list")
        if not isinstance(constraints, (list, tuple)):
            constraints = list(constraints)
        self._m.add([(fid, iface, constraints)])

    def add_many(self, filters: Iterable[Any]) -> None:
        """Adds every ``(filter_id, interface, constraints)`` of ``filters`` as one change: all
        of them, or none when one is invalid (or its id is taken, or repeats)."""
        if isinstance(filters, (str, bytes, Mapping)) or not isinstance(filters, Iterable):
            raise _bad("filters", repr(filters), "a list of (filter_id, interface, constraints) tuples",
                       "not a list")
        filters = list(filters)
        if filters:
            self._m.add(filters)

    def remove(self, ids: Union[int, Iterable[int]]) -> None:
        """Removes filter ``ids`` (one id, or a list or array of them, as one change: all or none;
        an id not in the matcher, or one named twice, raises)."""
        if isinstance(ids, numbers.Integral):
            a = np.array([_uint(ids, "filter_id", _MAX_ID)], dtype=np.uint64)
        elif isinstance(ids, np.ndarray) and ids.dtype.kind != "O":
            if ids.ndim != 1:
                raise _bad("ids", f"an array of shape {ids.shape}", "a 1-D array of filter ids",
                           f"{ids.ndim}-D")
            if ids.dtype.kind not in "iu":
                raise _bad("ids.dtype", ids.dtype, "integers (filter ids)", "not integers")
            if ids.dtype.kind == "i" and ids.size and ids.min() < 0:
                raise _bad("ids", int(ids.min()), f"0..{_MAX_ID}")
            a = ids
        elif isinstance(ids, (str, bytes, Mapping)) or not isinstance(ids, Iterable):
            raise _bad("ids", repr(ids)[:60], "a filter id, or a list or array of them", "not a list")
        else:  # one by one: NumPy would make [1, 2**64 - 1] a float64 array
            a = np.array([_uint(v, "ids", _MAX_ID) for v in ids], dtype=np.uint64)
        if a.size == 0:
            return
        self._m.remove(np.ascontiguousarray(a, dtype=np.uint64))

    def __len__(self) -> int:
        """The number of filters."""
        return self._m.size()

    def __contains__(self, filter_id: Any) -> bool:
        """Whether a filter of this id is in the matcher."""
        try:
            fid = operator.index(filter_id)
        except TypeError:
            return False
        return 0 <= fid <= _MAX_ID and self._m.contains(fid)

    def match(self, events: Any, filters: bool = False):
        """The interfaces each event matches.

        events: a list of dicts ``{name: value}`` (a list or tuple of values: the name repeats),
        matched as one batch on every selected device; or one dict, matched alone on the calling
        thread (latency mode).

        Returns, per event in order, a sorted int64 array of its matched interfaces (one array for
        one dict). With ``filters=True``, a pair: those and, per event, the sorted uint64 ids of its
        matched filters.
        """
        with_filters = bool(filters)
        if isinstance(events, Mapping):
            _, interfaces, _, fids = self._m.match_one(events if isinstance(events, dict) else dict(events),
                                                       with_filters)
            return (interfaces, fids) if with_filters else interfaces
        if isinstance(events, (str, bytes)) or not isinstance(events, Iterable):
            raise _bad("events", repr(events)[:60], "a list of dicts {name: value}, or one dict",
                       "not a list")
        events = [e if isinstance(e, dict) or not isinstance(e, Mapping) else dict(e) for e in events]
        offsets, interfaces, filter_offsets, fids = self._m.match(events, with_filters)
        per_event = _split(offsets, interfaces)
        return (per_event, _split(filter_offsets, fids)) if with_filters else per_event

    @property
    def constraints(self) -> int:
        """The number of constraints of the filters."""
        return self._m.constraints()

    @property
    def table_bytes(self) -> int:
        """The bytes of the matcher's tables."""
        return self._m.table_bytes()

    def describe(self) -> str:
        """The devices that match, e.g. "cpu: 16 workers (avx512, avx2, scalar)"."""
        return self._m.describe()

    def __repr__(self) -> str:
        return f"<sextant.Matcher filters={len(self)} on {self.describe()}>"
