"""Type stubs of the sextant package (the implementation, with docstrings, is __init__.py)."""

from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from .errors import (
    BadArgumentError as BadArgumentError,
    BadInputError as BadInputError,
    Error as Error,
    InternalError as InternalError,
    IOFailure as IOFailure,
    ResourceError as ResourceError,
    UnsupportedError as UnsupportedError,
)
from .matching import Matcher as Matcher
from . import pipeline as pipeline
from .window import (
    StreamWindow as StreamWindow,
    count_windows as count_windows,
    sliding as sliding,
    tumbling as tumbling,
)

__version__: str
has_cuda: bool

Devices = Union[None, str, Sequence[str]]

def skyline(points: Any, columns: Optional[Iterable[Any]] = ..., sense: Optional[Sequence[str]] = ...,
            devices: Devices = ..., threads: int = ...) -> npt.NDArray[np.int64]: ...

class Skycube:
    @property
    def dims(self) -> int: ...
    @property
    def max_level(self) -> int: ...
    def __len__(self) -> int: ...
    def skyline(self, columns: Optional[Iterable[Any]] = ...) -> npt.NDArray[np.int64]: ...
    def subspaces_of(self, point_id: int) -> list[tuple[int, ...]]: ...
    def save(self, path: Any) -> None: ...
    @property
    def statistics(self) -> dict[str, Any]: ...

def skycube(points: Any, sense: Optional[Sequence[str]] = ..., template: str = ..., max_level: Optional[int] = ...,
            devices: Devices = ..., threads: int = ...) -> Skycube: ...
def load_skycube(path: Any) -> Skycube: ...
