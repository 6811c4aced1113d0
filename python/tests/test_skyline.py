"""sextant.skyline and sextant.skycube: against a brute force from the definition, against
paretoset and moocore, against the sextant command (which calls the same C++ API), and the
properties every skyline has (hypothesis)."""

import itertools
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import sextant
from conftest import brute_force_skyline, random_points


def subspaces(d):
    for k in range(1, d + 1):
        yield from itertools.combinations(range(d), k)


@pytest.mark.parametrize("levels,seed", [(0, 1), (3, 2), (8, 3)])
def test_every_subspace_matches_brute_force_and_the_skycube(levels, seed):
    pts = random_points(300, 4, levels, seed)
    cube = sextant.skycube(pts)
    for cols in subspaces(4):
        want = brute_force_skyline(pts, cols)
        got = sextant.skyline(pts, columns=cols)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want, err_msg=f"columns {cols}")
        np.testing.assert_array_equal(cube.skyline(cols), want, err_msg=f"cube, columns {cols}")


def test_large_input_takes_the_scheduler_path_and_matches_paretoset():
    paretoset = pytest.importorskip("paretoset").paretoset
    pts = random_points(40000, 4, 0, 5, duplicates=0.05)
    for cols in [(0, 1, 2, 3), (1, 3)]:
        mask = paretoset(pts[:, list(cols)].astype(np.float64), distinct=False, use_numba=False)
        np.testing.assert_array_equal(sextant.skyline(pts, columns=cols), np.flatnonzero(mask))
        np.testing.assert_array_equal(sextant.skyline(pts, columns=cols, devices="cpu", threads=1),
                                      np.flatnonzero(mask))


@pytest.mark.parametrize("d", [2, 4, 8, 16])
@pytest.mark.parametrize("offset", [0, 4, 16, 32])
def test_arrays_at_any_address_give_the_brute_force_skyline(d, offset):
    """Rows that would straddle cache lines are copied, others viewed: either way the same ids."""
    pts = random_points(1500, d, 5, 40 + d)
    buf = np.zeros(pts.size * 4 + 128, dtype=np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    at = buf[start:start + pts.size * 4].view(np.float32).reshape(pts.shape)
    at[...] = pts
    assert at.ctypes.data % 64 == offset
    want = brute_force_skyline(pts, tuple(range(d)))
    np.testing.assert_array_equal(sextant.skyline(at), want)
    if d <= 8:
        np.testing.assert_array_equal(sextant.skycube(at).skyline(), want)


@pytest.mark.parametrize("levels", [0, 4])
def test_matches_paretoset_with_sense(levels):
    paretoset = pytest.importorskip("paretoset").paretoset
    pts = random_points(2000, 3, levels, 7)
    sense = ["min", "max", "min"]
    # distinct=False: paretoset keeps every copy of a duplicate, as Sextant does.
    mask = paretoset(pts.astype(np.float64), sense=sense, distinct=False, use_numba=False)
    np.testing.assert_array_equal(sextant.skyline(pts, sense=sense), np.flatnonzero(mask))


@pytest.mark.parametrize("levels", [0, 5])
def test_matches_moocore(levels):
    moocore = pytest.importorskip("moocore")
    pts = random_points(3000, 5, levels, 9)
    # keep_weakly=True: moocore keeps duplicated nondominated points, as Sextant does.
    mask = moocore.is_nondominated(pts.astype(np.float64), keep_weakly=True)
    np.testing.assert_array_equal(sextant.skyline(pts), np.flatnonzero(mask))
    cube = sextant.skycube(pts, max_level=2)
    for cols in itertools.combinations(range(5), 2):
        m = moocore.is_nondominated(pts[:, list(cols)].astype(np.float64), keep_weakly=True)
        np.testing.assert_array_equal(cube.skyline(cols), np.flatnonzero(m))


def test_sense_max_negates_and_duplicates_stay():
    pts = np.array([[1, 1], [2, 2], [2, 2], [0, 3]], dtype=np.float32)
    assert sextant.skyline(pts).tolist() == [0, 3]
    assert sextant.skyline(pts, sense=["max", "max"]).tolist() == [1, 2, 3]
    assert sextant.skyline(pts, sense="max").tolist() == [1, 2, 3]


def test_dataframe_columns_by_name():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"price": [3.0, 1.0, 2.0], "distance": [1.0, 3.0, 2.0], "noise": [0, 0, 9]})
    assert sextant.skyline(df, columns=["price", "distance"]).tolist() == [0, 1, 2]
    assert sextant.skyline(df, columns=["price"]).tolist() == [1]


def test_skycube_object():
    pts = random_points(200, 3, 4, 11)
    cube = sextant.skycube(pts, template="stsc")
    assert cube.dims == 3 and cube.max_level == 3 and len(cube) == 200
    for pid in [0, 17, 199]:
        subs = cube.subspaces_of(pid)
        for cols in subspaces(3):
            assert (cols in subs) == (pid in set(cube.skyline(cols).tolist())), (pid, cols)
    stats = cube.statistics
    assert stats["n"] == 200 and stats["d"] == 3 and stats["template"] == "stsc"
    assert stats["phases"] and all(v >= 0 for v in stats["phases"].values())
    assert len(stats["devices"]) >= 1 and sum(row["items"] for row in stats["devices"]) > 0
    assert "share" in stats["report"] or "device" in stats["report"]


def test_save_and_load_round_trip(tmp_path):
    pts = random_points(150, 4, 3, 12)
    cube = sextant.skycube(pts, max_level=3, template="mdmc")
    path = tmp_path / "cube.sxhc"
    cube.save(path)
    back = sextant.load_skycube(path)
    assert back.dims == 4 and back.max_level == 3 and len(back) == 150
    for cols in subspaces(4):
        if len(cols) <= 3:
            np.testing.assert_array_equal(back.skyline(cols), cube.skyline(cols))
    with pytest.raises(sextant.BadArgumentError):
        back.skyline((0, 1, 2, 3))  # level 4 was not computed


def test_same_ids_as_the_command_line(cli, tmp_path):
    pts = random_points(500, 4, 6, 13)
    csv = tmp_path / "pts.csv"
    np.savetxt(csv, pts, delimiter=",", fmt="%.9g")
    for cols in [(0, 1, 2, 3), (0, 2), (3,)]:
        out = subprocess.run([cli, "skyline", "--input", str(csv), "--columns", ",".join(map(str, cols)),
                              "--output", "-"], check=True, capture_output=True, text=True).stdout.split()
        mask = sum(1 << c for c in cols)
        assert int(out[0]) == mask and int(out[1]) == len(out) - 2
        np.testing.assert_array_equal(sextant.skyline(pts, columns=cols), np.array(out[2:], dtype=np.int64))
    text = subprocess.run([cli, "skycube", "--input", str(csv), "--output", "-"], check=True,
                          capture_output=True, text=True).stdout
    cube = sextant.skycube(pts)
    lines = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    assert len(lines) == 15
    for fields in lines:
        mask = int(fields[0])
        cols = [j for j in range(4) if mask >> j & 1]
        np.testing.assert_array_equal(cube.skyline(cols), np.array(fields[2:], dtype=np.int64))


# ---- properties -------------------------------------------------------------------------------

points_strategy = st.integers(1, 60).flatmap(
    lambda n: hnp.arrays(np.float32, (n, 3), elements=st.integers(0, 6).map(float)))


@settings(max_examples=60, deadline=None)
@given(points_strategy, st.randoms(use_true_random=False))
def test_a_permutation_of_rows_permutes_ids(pts, rnd):
    perm = list(range(len(pts)))
    rnd.shuffle(perm)
    perm = np.array(perm)
    got = sextant.skyline(pts[perm])
    np.testing.assert_array_equal(np.sort(perm[got]), sextant.skyline(pts))


@settings(max_examples=60, deadline=None)
@given(points_strategy, st.integers(0, 10**6))
def test_duplicating_a_point_keeps_both_copies(pts, pick):
    i = pick % len(pts)
    more = np.vstack([pts, pts[i:i + 1]])
    got = sextant.skyline(more)
    base = sextant.skyline(pts)
    assert (i in base) == (len(pts) in got)
    np.testing.assert_array_equal(got[got < len(pts)], base)


@settings(max_examples=60, deadline=None)
@given(points_strategy, st.integers(0, 10**6), st.lists(st.integers(0, 3), min_size=3, max_size=3))
def test_adding_a_dominated_point_changes_nothing(pts, pick, worse):
    i = pick % len(pts)
    if not any(worse):
        worse[0] = 1
    more = np.vstack([pts, pts[i] + np.array(worse, dtype=np.float32)])
    np.testing.assert_array_equal(sextant.skyline(more), sextant.skyline(pts))
