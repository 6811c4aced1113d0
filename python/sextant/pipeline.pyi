"""Type stubs of sextant.pipeline (the implementation, with docstrings, is pipeline.py)."""

from typing import Any, Iterable, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

APPS: Tuple[str, ...]
SIZING_RULES: Tuple[str, ...]

Devices = Union[None, str, Iterable[str]]
Columns = dict[str, npt.NDArray[Any]]

def blast_input(db_length: int = ..., query_length: int = ..., copies: int = ..., copy_length: int = ...,
                mutation_rate: float = ...,
                seed: int = ...) -> Tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]: ...
def taxi_lines(lines: int, mean_pairs: int = ..., max_pairs: int = ..., seed: int = ...) -> bytes: ...

class PipelineResult:
    app: str
    items: Optional[Columns]
    output: Optional[Columns]
    count: int
    plan: str
    queue_sizes: list[dict[str, Any]]
    vectors: int
    switches: int
    chunks: int
    seconds: float
    devices: str
    sample: Optional[dict[str, Any]]
    report: str
    def __init__(self, app: str, fields: dict[str, Any]) -> None: ...
    def __len__(self) -> int: ...

def run(app: str, *, sizing: str = ..., queue_budget: int = ..., merge: str = ..., ordered: bool = ...,
        devices: Devices = ..., threads: int = ..., count_only: bool = ..., lanes: int = ...,
        **app_options: Any) -> PipelineResult: ...
def profile(app: str, *, sizing: str = ..., queue_budget: int = ..., devices: Devices = ...,
            threads: int = ..., lanes: int = ..., **app_options: Any) -> dict[str, Any]: ...
def plan(app: str, *, sizing: str = ..., queue_budget: int = ..., devices: Devices = ..., threads: int = ...,
         lanes: int = ..., **app_options: Any) -> dict[str, Any]: ...
