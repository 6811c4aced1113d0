"""Bad input never crashes the interpreter: wrong shapes, dtypes and values are converted or
rejected with a message naming the argument; NaN and infinite values are rejected as the CLI
rejects them; the GIL is released during computations; nothing leaks over many calls."""

import os
import threading
import time

import numpy as np
import pytest

import sextant
from conftest import gpu_count, random_points


def test_shapes_and_dtypes():
    with pytest.raises(sextant.BadArgumentError, match=r"points = .*1-D"):
        sextant.skyline(np.arange(5.0))
    with pytest.raises(sextant.BadArgumentError, match="3-D"):
        sextant.skyline(np.zeros((2, 2, 2)))
    with pytest.raises(sextant.BadArgumentError, match="33 columns"):
        sextant.skyline(np.zeros((2, 33)))
    with pytest.raises(sextant.BadArgumentError, match="0 columns"):
        sextant.skyline(np.zeros((2, 0)))
    with pytest.raises(sextant.BadArgumentError, match="points.dtype"):
        sextant.skyline(np.array([["a", "b"]]))
    with pytest.raises(TypeError, match="points"):
        sextant.skyline([[1, 2], [3]])
    assert isinstance(sextant.BadArgumentError("x"), ValueError)


def test_conversions_give_the_same_ids():
    pts = random_points(500, 4, 5, 1)
    want = sextant.skyline(pts)
    np.testing.assert_array_equal(sextant.skyline(pts.astype(np.float64)), want)
    np.testing.assert_array_equal(sextant.skyline(np.asfortranarray(pts)), want)
    wide = np.zeros((500, 8), np.float32)
    wide[:, ::2] = pts
    np.testing.assert_array_equal(sextant.skyline(wide[:, ::2]), want)  # strided view
    np.testing.assert_array_equal(sextant.skyline((pts * 5).astype(np.int64)), want)
    np.testing.assert_array_equal(sextant.skyline(pts.tolist()), want)


def test_nan_and_inf_are_rejected_naming_row_and_column():
    pts = random_points(10, 3, 0, 2)
    pts[7, 2] = np.nan
    with pytest.raises(sextant.BadInputError, match="points: row 7, column 2: value is NaN"):
        sextant.skyline(pts)
    pts[7, 2] = np.inf
    with pytest.raises(sextant.BadInputError, match="row 7, column 2: value is infinite"):
        sextant.skycube(pts)
    big = np.ones((3, 2))
    big[1, 0] = 1e300
    with pytest.raises(sextant.BadInputError, match="does not fit float32"):
        sextant.skyline(big)


def test_argument_errors_name_the_argument():
    pts = random_points(10, 3, 0, 3)
    with pytest.raises(sextant.BadArgumentError, match=r"columns = 3: no such column \(valid: 0..2\)"):
        sextant.skyline(pts, columns=[0, 3])
    with pytest.raises(sextant.BadArgumentError, match="named twice"):
        sextant.skyline(pts, columns=[1, 1])
    with pytest.raises(sextant.BadArgumentError, match="empty subspace"):
        sextant.skyline(pts, columns=[])
    with pytest.raises(sextant.BadArgumentError, match="sense"):
        sextant.skyline(pts, sense=["min", "max"])
    with pytest.raises(sextant.BadArgumentError, match="bad entry 'diff'"):
        sextant.skyline(pts, sense=["min", "max", "diff"])
    with pytest.raises(sextant.BadArgumentError, match="threads"):
        sextant.skyline(pts, threads=-2)
    with pytest.raises(sextant.BadArgumentError, match="devices"):
        sextant.skyline(pts, devices="tpu0")
    with pytest.raises(sextant.BadArgumentError, match="template"):
        sextant.skycube(pts, template="fast")
    with pytest.raises(sextant.BadArgumentError, match="max_level"):
        sextant.skycube(pts, max_level=4)
    with pytest.raises(sextant.BadArgumentError, match="d = 21"):
        sextant.skycube(np.zeros((3, 21), np.float32))
    with pytest.raises(sextant.BadArgumentError, match="point_id"):
        sextant.skycube(pts).subspaces_of(10)


def test_missing_gpu_is_unsupported():
    if gpu_count() > 0:
        pytest.skip("this machine has a GPU")
    with pytest.raises(sextant.UnsupportedError, match="gpu0"):
        sextant.skyline(random_points(10, 3), devices="gpu0")


def test_io_errors(tmp_path):
    with pytest.raises(sextant.IOFailure, match="no-such"):
        sextant.load_skycube(tmp_path / "no-such.cube")
    bad = tmp_path / "bad.cube"
    bad.write_bytes(b"not a cube at all")
    with pytest.raises(sextant.BadInputError):
        sextant.load_skycube(bad)
    with pytest.raises(sextant.IOFailure):
        sextant.skycube(random_points(10, 2)).save(tmp_path / "no-dir" / "x.cube")


def test_empty_and_single_point():
    assert sextant.skyline(np.zeros((0, 3), np.float32)).tolist() == []
    assert sextant.skyline(np.zeros((1, 3), np.float32)).tolist() == [0]


def test_the_gil_is_released_during_a_computation():
    # Points on a simplex: none dominates another, so every point is compared with many.
    rng = np.random.default_rng(4)
    pts = rng.random((80000, 6))
    pts = (pts / pts.sum(axis=1, keepdims=True)).astype(np.float32)
    span = {}

    def work():
        span["start"] = time.perf_counter()
        span["size"] = len(sextant.skyline(pts, threads=1))
        span["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    inside = [x for x in ticks if span["start"] + 0.05 < x < span["end"] - 0.05]
    assert span["size"] == len(pts)
    assert span["end"] - span["start"] > 0.2, "the computation is too short to tell"
    # With the GIL held for the whole call, this thread could not run at all meanwhile.
    assert len(inside) > 10, f"{len(inside)} ticks during {span['end'] - span['start']:.2f} s"


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_no_leak_over_a_thousand_calls():
    pts = random_points(2000, 4, 0, 6)
    stream_keys = np.zeros(100, np.uint32)
    stream_ts = np.arange(100)
    for _ in range(100):  # warm up allocators and caches
        sextant.skyline(pts)
    before = rss_bytes()
    for i in range(1000):
        sextant.skyline(pts)
        sextant.skycube(pts[:200], max_level=2).skyline([0])
        op = sextant.StreamWindow(tumbling_spec(), "sum")
        op.push(stream_keys, stream_ts, stream_ts)
        op.finish()
        op.poll(as_frame=False)
        try:
            sextant.skyline(pts, columns=[9])
        except sextant.BadArgumentError:
            pass
    grown = rss_bytes() - before
    assert grown < 16 << 20, f"resident memory grew by {grown >> 20} MiB over 1000 calls"


def tumbling_spec():
    return ("time", 10, 10)
