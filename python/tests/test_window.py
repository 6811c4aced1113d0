"""sextant.StreamWindow and sextant.count_windows against small Python references written from
the semantics (README.md, DESIGN.md), and their argument errors."""

from collections import defaultdict

import numpy as np
import pytest

import sextant
from sextant import sliding, tumbling


def reference_stream(keys, ts, values, wms, specs, lateness, agg):
    """Replays the tuples in arrival order (late ones dropped), then recomputes every window that
    received a tuple from the definition. Returns {(spec, key, start, end): value}."""
    accepted = defaultdict(list)
    wm = None
    late = 0
    for k, t, v, w in zip(keys, ts, values, wms):
        if wm is not None and t + lateness < wm:
            late += 1
        else:
            accepted[k].append((t, v))
        if w is not None and (wm is None or w >= wm):
            wm = w
    out = {}
    for si, (_, length, slide) in enumerate(specs):
        for k, tuples in accepted.items():
            starts = set()
            for t, _ in tuples:
                j = t // slide
                while j >= 0 and j * slide + length > t:
                    starts.add(j * slide)
                    j -= 1
            for s in starts:
                vals = [v for t, v in tuples if s <= t < s + length]
                if vals:
                    out[(si, k, s, s + length)] = {"sum": sum, "min": min, "max": max, "count": len}[agg](vals)
    return out, late


def as_dict(cols):
    return {(int(s), int(k), int(a), int(b)): v.item() for s, k, a, b, v in
            zip(cols["spec"], cols["key"], cols["start"], cols["end"], cols["value"])}


@pytest.mark.parametrize("agg", ["sum", "min", "max", "count"])
@pytest.mark.parametrize("batch", [1, 37, 5000])
def test_stream_windows_match_the_reference(agg, batch):
    rng = np.random.default_rng(3)
    n = 3000
    event = np.arange(n) // 2
    ts = np.maximum(event - rng.exponential(8, n).astype(np.int64), 0)
    keys = rng.integers(0, 5, n)
    values = rng.integers(-50, 50, n)
    wms = np.maximum(event - 15, 0)
    specs = [sliding(40, 10), tumbling(25)]
    op = sextant.StreamWindow(specs, agg, lateness=3)
    got = {}
    for b in range(0, n, batch):
        op.push(keys[b:b + batch], ts[b:b + batch], values[b:b + batch], wms[b:b + batch])
        got.update(as_dict(op.poll(as_frame=False)))
    op.finish()
    got.update(as_dict(op.poll(as_frame=False)))
    want, late = reference_stream(keys.tolist(), ts.tolist(), values.tolist(), wms.tolist(), specs, 3, agg)
    assert got == want
    assert op.counters["late_dropped"] == late > 0
    assert op.counters["tuples_in"] == n


def test_advance_watermark_fires_windows():
    op = sextant.StreamWindow(tumbling(10), "sum")
    op.push(keys=[0, 0, 1], timestamps=[1, 12, 4], values=[5, 7, 11])
    assert len(op.poll(as_frame=False)["key"]) == 0
    op.advance_watermark(10)
    cols = op.poll(as_frame=False)
    assert sorted(zip(cols["key"].tolist(), cols["value"].tolist())) == [(0, 5), (1, 11)]
    op.advance_watermark(3)
    assert op.counters["watermarks_ignored"] == 1 and op.watermark == 10
    op.advance_watermark(20)
    assert op.poll(as_frame=False)["value"].tolist() == [7]
    op.finish()
    with pytest.raises(sextant.UnsupportedError, match="after finish"):
        op.advance_watermark(30)


def test_positional_aggregates_report_the_timestamp():
    op = sextant.StreamWindow(("time", 10, 10), "argmax", dtype="float64")
    op.push([0, 0, 0], [3, 1, 8], [2.5, 9.0, 9.0])
    op.finish()
    cols = op.poll(as_frame=False)
    assert cols["value"].tolist() == [9.0] and cols["time"].tolist() == [1]


def test_poll_gives_a_dataframe_with_pandas():
    pd = pytest.importorskip("pandas")
    op = sextant.StreamWindow({"type": "count", "length": 2, "slide": 1}, "sum")
    op.push(None, [0, 0, 0], np.array([1, 2, 3], dtype=np.int32))
    frame = op.poll()
    assert isinstance(frame, pd.DataFrame)
    assert frame["value"].tolist() == [3, 5] and frame["start"].tolist() == [0, 1]


def test_stream_window_errors_name_the_argument():
    with pytest.raises(sextant.BadArgumentError, match="length"):
        sextant.StreamWindow(("time", 0, 5), "sum")
    with pytest.raises(sextant.BadArgumentError, match="aggregate"):
        sextant.StreamWindow(tumbling(5), "median")
    with pytest.raises(sextant.BadArgumentError, match="specs"):
        sextant.StreamWindow([("time", 5)], "sum")
    with pytest.raises(sextant.BadArgumentError, match="type"):
        sextant.StreamWindow(("hours", 5, 5), "sum")
    op = sextant.StreamWindow(tumbling(5), "sum")
    with pytest.raises(sextant.BadArgumentError, match="keys"):
        op.push([-1, 0], [0, 1], [1, 2])
    with pytest.raises(sextant.BadArgumentError, match="timestamps"):
        op.push([0, 0], [0], [1, 2])
    with pytest.raises(sextant.BadInputError, match="tuple 1 has timestamp -4"):
        op.push([0, 0], [0, -4], [1, 2])
    op.push([0], [1], [1])  # the operator is still usable; its type is int64 now
    with pytest.raises(sextant.BadArgumentError, match="values.dtype"):
        op.push([0], [1], [1.5])
    with pytest.raises(sextant.UnsupportedError if not sextant.has_cuda else sextant.Error):
        sextant.StreamWindow(tumbling(5), "sum", device="gpu7", dtype="int64")


def test_count_windows_match_numpy():
    rng = np.random.default_rng(5)
    x = rng.integers(-1000, 1000, 10000).astype(np.int32)
    for length, slide in [(1, 1), (16, 4), (100, 100), (7, 30)]:
        k = (len(x) - length) // slide + 1
        windows = np.stack([x[i * slide:i * slide + length] for i in range(k)])
        np.testing.assert_array_equal(sextant.count_windows(x, length, slide, "sum"),
                                      windows.sum(axis=1, dtype=np.int64))
        np.testing.assert_array_equal(sextant.count_windows(x, length, slide, "max"), windows.max(axis=1))
        vals, pos = sextant.count_windows(x, length, slide, "argmin", positions=True)
        np.testing.assert_array_equal(vals, windows.min(axis=1))
        np.testing.assert_array_equal(pos, windows.argmin(axis=1) + np.arange(k) * slide)
    assert sextant.count_windows(np.arange(3.0), 5, 1, "sum").shape == (0,)


def test_count_windows_errors():
    with pytest.raises(sextant.BadArgumentError, match="slide"):
        sextant.count_windows(np.arange(10), 2, 0, "sum")
    with pytest.raises(sextant.BadArgumentError, match="positions"):
        sextant.count_windows(np.arange(10), 2, 1, "sum", positions=True)
    with pytest.raises(sextant.BadArgumentError):
        sextant.count_windows(np.arange(10).reshape(2, 5), 2, 1, "sum")


@pytest.mark.gpu
def test_gpu_stream_and_count_windows_match_the_cpu():
    rng = np.random.default_rng(8)
    n = 20000
    ts = np.sort(rng.integers(0, 5000, n))
    keys = rng.integers(0, 50, n)
    values = rng.integers(-100, 100, n)
    results = []
    for device in ["cpu", "gpu0"]:
        op = sextant.StreamWindow(sliding(100, 20), "sum", device=device)
        op.push(keys, ts, values, ts - 10)
        op.advance_watermark(6000)
        results.append(as_dict(op.poll(as_frame=False)))
    assert results[0] == results[1]
    x = rng.integers(-1000, 1000, 100000).astype(np.int64)
    np.testing.assert_array_equal(sextant.count_windows(x, 64, 8, "sum", device="gpu0"),
                                  sextant.count_windows(x, 64, 8, "sum"))
