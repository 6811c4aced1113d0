"""Shared fixtures of the sextant pytest suite.

GPU cases carry ``@pytest.mark.gpu`` and skip where the build has no CUDA or the machine no GPU.
``SEXTANT_CLI`` names the ``sextant`` command for the CLI comparisons (scripts/test.sh sets it to
the build's); without it those tests skip, saying why.
"""

import os
import shutil

import numpy as np
import pytest

import sextant


def gpu_count() -> int:
    if not sextant.has_cuda:
        return 0
    try:
        sextant.skyline(np.zeros((1, 1), np.float32), devices="gpu0")
        return 1
    except sextant.UnsupportedError:
        return 0


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("SEXTANT_CLI") or shutil.which("sextant")
    if not path:
        pytest.skip("no sextant command: set SEXTANT_CLI to the build's apps/sextant")
    return path


def pytest_collection_modifyitems(config, items):
    if gpu_count() > 0:
        return
    why = "built without CUDA" if not sextant.has_cuda else "no GPU on this machine"
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=why))


def random_points(n, d, levels=0, seed=0, duplicates=0.2):
    """Values exactly representable in float32 (so float64 peers see the same numbers), with
    ties (``levels`` values per column; 0: almost none) and exact duplicate rows."""
    rng = np.random.default_rng(seed)
    steps = levels if levels > 0 else 1 << 20
    pts = (rng.integers(0, steps, size=(n, d)) / steps).astype(np.float32)
    if n > 1 and duplicates > 0:
        copies = rng.random(n) < duplicates
        copies[0] = False
        src = (rng.random(n) * np.arange(n)).astype(np.int64)
        for i in np.flatnonzero(copies):
            pts[i] = pts[src[i]]
    return pts


def brute_force_skyline(points, columns=None):
    """The skyline from the definition, O(n^2 d): small inputs only."""
    p = np.asarray(points, dtype=np.float64)
    if columns is not None:
        p = p[:, list(columns)]
    le = (p[:, None, :] <= p[None, :, :]).all(axis=2)  # le[q, r]: q <= r everywhere
    lt = (p[:, None, :] < p[None, :, :]).any(axis=2)
    dominated = (le & lt).any(axis=0)
    return np.flatnonzero(~dominated)
