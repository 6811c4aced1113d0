"""Sextant from Python: skylines, skycubes, sliding-window aggregates on NumPy arrays,
publish/subscribe matching (:class:`Matcher`) and irregular streaming pipelines
(:mod:`sextant.pipeline`).

Sextant is a C++20/CUDA library that runs analytics on every CPU core and GPU of a machine; this
package calls it on NumPy arrays. Every computation releases the GIL, errors arrive as
:class:`sextant.Error` subclasses with the library's messages (:mod:`sextant.errors`), and the
semantics are the C++ library's (README.md, docs/python.md):

* a dataset is an (n, d) array, converted to float32 (no copy for a C-contiguous float32 array);
  smaller is better unless ``sense`` says ``"max"`` for a column; point id = row index;
* p dominates q in a subspace when p is <= q on each of its columns and < on one; the skyline is
  the set of points no point dominates; exact duplicates never dominate each other, so every copy
  of a skyline point is kept; NaN and infinite values are rejected.

>>> import numpy as np, sextant
>>> pts = np.array([[1, 4], [2, 2], [4, 1], [3, 3], [2, 2]], dtype=np.float32)
>>> sextant.skyline(pts).tolist()
[0, 1, 2, 4]
"""

from __future__ import annotations

import numbers
import operator
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

from . import _sextant
from ._arguments import devices_text
from .errors import (
    BadArgumentError,
    BadInputError,
    Error,
    InternalError,
    IOFailure,
    ResourceError,
    UnsupportedError,
)
from . import errors as _errors

_sextant.set_error_classes(_errors.BY_KIND)

__version__: str = _sextant.version
#: Whether this build has CUDA (GPU devices): ``devices="gpu0"`` needs it and a GPU.
has_cuda: bool = bool(_sextant.has_cuda)

__all__ = [
    "skyline",
    "skycube",
    "load_skycube",
    "Skycube",
    "StreamWindow",
    "count_windows",
    "tumbling",
    "sliding",
    "Matcher",
    "pipeline",
    "Error",
    "BadInputError",
    "BadArgumentError",
    "IOFailure",
    "UnsupportedError",
    "ResourceError",
    "InternalError",
    "has_cuda",
]

_MAX_COLUMNS = 32


def _bad(parameter: str, value: Any, valid: str, what: str = "out of range") -> BadArgumentError:
    """The C++ library's message shape: '<parameter> = <value>: <what> (valid: <valid>)'."""
    return BadArgumentError(f"{parameter} = {value}: {what} (valid: {valid})")


def _array(value: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(value)
    except Exception as e:  # e.g. ragged nested lists
        raise TypeError(f"{name}: not an array-like of numbers ({e})") from None


def _points(points: Any, sense: Optional[Sequence[str]], name: str = "points"):
    """The points as a C-contiguous float32 (n, d) array and one max flag per column."""
    a = _array(points, name)
    if a.ndim != 2:
        raise _bad(name, f"an array of shape {a.shape}", "a 2-D array: n points x d columns",
                   f"{a.ndim}-D")
    n, d = a.shape
    if not 1 <= d <= _MAX_COLUMNS:
        raise _bad(name, f"an array of shape {a.shape}", f"1..{_MAX_COLUMNS} columns",
                   f"{d} columns")
    if a.dtype.kind not in "fiub":
        raise _bad(f"{name}.dtype", a.dtype, "float32, float64, integers or bool", "not numeric")
    if a.dtype.kind == "f" and a.dtype.itemsize > 4 and a.size:
        # float64 values beyond float32's range would become infinite: say so, not "infinite".
        with np.errstate(invalid="ignore"):
            big = np.abs(a) > np.finfo(np.float32).max
        if big.any():
            i, j = map(int, np.argwhere(big)[0])
            if np.isfinite(a[i, j]):
                raise BadInputError(f"{name}: row {i}, column {j}: value {a[i, j]!r} does not fit "
                                    f"float32 (Sextant's precision)")
    a = np.ascontiguousarray(a, dtype=np.float32)
    return a, _sense(sense, d)


def _sense(sense: Optional[Sequence[str]], d: int) -> list:
    if sense is None:
        return [False] * d
    if isinstance(sense, str):
        sense = [sense] * d if sense in ("min", "max") else sense.split(",")
    sense = list(sense)
    if len(sense) != d:
        raise _bad("sense", sense, f"{d} entries (one per column), each 'min' or 'max'",
                   f"{len(sense)} entries for {d} columns")
    for s in sense:
        if s not in ("min", "max"):
            raise _bad("sense", sense, "'min' or 'max' per column", f"bad entry {s!r}")
    return [s == "max" for s in sense]


def _column_index(c: Any, d: int, names: Optional[Sequence[Any]], parameter: str) -> int:
    if names is not None and not isinstance(c, numbers.Integral):
        try:
            return list(names).index(c)
        except ValueError:
            raise _bad(parameter, repr(c), f"a column name of {list(names)} or an index 0..{d - 1}",
                       "no such column") from None
    try:
        j = operator.index(c)
    except TypeError:
        raise _bad(parameter, repr(c), f"column indices 0..{d - 1}", "not an integer") from None
    if not 0 <= j < d:
        raise _bad(parameter, j, f"0..{d - 1}", "no such column")
    return j


def _mask(columns: Optional[Iterable[Any]], d: int, names=None, parameter: str = "columns") -> int:
    """A subspace as the C++ bit mask: bit j <-> column j."""
    if columns is None:
        return (1 << d) - 1
    if isinstance(columns, (str, bytes)) or isinstance(columns, numbers.Integral):
        columns = [columns]
    mask = 0
    for c in columns:
        j = _column_index(c, d, names, parameter)
        if mask >> j & 1:
            raise _bad(parameter, list(columns), "distinct columns", f"column {j} named twice")
        mask |= 1 << j
    if mask == 0:
        raise _bad(parameter, "[]", "at least one column", "the empty subspace has no skyline")
    return mask


def _devices(devices: Union[None, str, Iterable[str]]) -> str:
    return devices_text(devices, "")


def _threads(threads: Any) -> int:
    t = operator.index(threads)
    if t < 0:
        raise _bad("threads", t, "0 (every core) or more")
    return t


def _names(points: Any):
    cols = getattr(points, "columns", None)  # a pandas DataFrame
    return list(cols) if cols is not None else None


def skyline(points: Any, columns: Optional[Iterable[Any]] = None,
            sense: Optional[Sequence[str]] = None, devices: Union[None, str, Sequence[str]] = None,
            threads: int = 0) -> np.ndarray:
    """Ids (row indices, ascending, int64) of the skyline of ``points`` in a subspace.

    points:  an (n, d) array-like (or a pandas DataFrame), converted to float32.
    columns: the subspace: column indices (or DataFrame column names); None = every column.
    sense:   "min" or "max" per column of ``points`` (paretoset's vocabulary); None = all "min".
    devices: None (the CPU's cores), "cpu", "gpu0", "numa0,gpu1", "all", or a list of those.
    threads: CPU threads, 0 = every core.

    Exact duplicates never dominate each other: every copy of a skyline point is returned.
    The same ids as ``skycube(points).skyline(columns)``.
    """
    a, max_columns = _points(points, sense)
    mask = _mask(columns, a.shape[1], _names(points))
    return _sextant.skyline(a, mask, max_columns, _devices(devices), _threads(threads))


class Skycube:
    """The skylines of every subspace of a dataset (a HashCube), from :func:`skycube` or
    :func:`load_skycube`."""

    def __init__(self, handle, names=None):
        self._cube = handle
        self._names = names

    @property
    def dims(self) -> int:
        """The dataset's column count d."""
        return self._cube.dims

    @property
    def max_level(self) -> int:
        """The largest subspace level stored (d for a full skycube)."""
        return self._cube.max_level

    def __len__(self) -> int:
        """The dataset's point count n."""
        return self._cube.size

    def skyline(self, columns: Optional[Iterable[Any]] = None) -> np.ndarray:
        """Ids (ascending, int64) of the skyline of the subspace ``columns`` (None = all)."""
        return self._cube.skyline(_mask(columns, self.dims, self._names))

    def subspaces_of(self, point_id: int) -> list:
        """The subspaces (tuples of column indices) whose skyline holds ``point_id``."""
        pid = operator.index(point_id)
        if not 0 <= pid < len(self):
            raise _bad("point_id", pid, f"0..{len(self) - 1}", "no such point")
        return [tuple(j for j in range(self.dims) if m >> j & 1) for m in self._cube.membership(pid)]

    def save(self, path: Any) -> None:
        """Writes the skycube in Sextant's binary format (all or nothing; ``sextant query``
        reads it)."""
        self._cube.save(str(path))

    @property
    def statistics(self) -> dict:
        """n, d, max_level, ids_stored, hashcube_bytes and, for a computed cube, the template,
        the extended skyline's size, the time per phase (seconds) and, when the run went
        through the scheduler, the per-device table ("devices", "report")."""
        return self._cube.statistics()

    def __repr__(self) -> str:
        return f"<sextant.Skycube n={len(self)} d={self.dims} max_level={self.max_level}>"


def skycube(points: Any, sense: Optional[Sequence[str]] = None, template: str = "auto",
            max_level: Optional[int] = None, devices: Union[None, str, Sequence[str]] = None,
            threads: int = 0) -> Skycube:
    """The skycube of ``points`` (d <= 20): every subspace's skyline.

    template:  "auto", "stsc", "sdsc", "mdmc" or "reference".
    max_level: a partial skycube of the subspaces of at most this many columns; None = d.
    """
    a, max_columns = _points(points, sense)
    d = a.shape[1]
    level = 0 if max_level is None else operator.index(max_level)
    if max_level is not None and not 1 <= level <= d:
        raise _bad("max_level", level, f"1..{d} (or None for the full skycube)")
    return Skycube(_sextant.skycube(a, max_columns, str(template), level, _devices(devices),
                                    _threads(threads)), _names(points))


def load_skycube(path: Any) -> Skycube:
    """A skycube saved with :meth:`Skycube.save` or ``sextant skycube --format binary``."""
    return Skycube(_sextant.load_skycube(str(path)))


from .window import StreamWindow, count_windows, sliding, tumbling  # noqa: E402
from .matching import Matcher  # noqa: E402
from . import pipeline  # noqa: E402
