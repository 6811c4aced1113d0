"""The README's Python example, run as written from the repository root (its data path is
relative): every statement runs, and the calls return the values its comments show."""

import ast
import pathlib
import re

import numpy as np

import sextant

ROOT = pathlib.Path(__file__).resolve().parents[2]


def readme_example():
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks, "README.md has no Python example"
    return blocks[0]


def test_the_readme_example_runs_and_returns_what_its_comments_show(monkeypatch):
    source = readme_example()
    monkeypatch.chdir(ROOT)
    names = {}
    exec(compile(source, "README.md", "exec"), names)

    shown = re.search(r"sextant\.skyline\(pts, columns=\[0, 3\]\)\s+# array\((\[[^\]]*\])\)", source)
    assert shown, "the example's skyline comment moved: update this test"
    ids = ast.literal_eval(shown.group(1))
    np.testing.assert_array_equal(sextant.skyline(names["pts"], columns=[0, 3]), ids)
    np.testing.assert_array_equal(names["cube"].skyline([0, 3]), ids)

    matched = names["m"].match([{"price": 12, "name": "abc"}, {"price": 5}])
    assert [a.tolist() for a in matched] == [[3], []]

    boards = names["r"].items["board"]
    assert boards.shape == (92, 8)  # the 8-queens puzzle's solutions
    for board in boards.tolist():  # one queen per row and column, none on a shared diagonal
        assert sorted(board) == list(range(8))
        assert len({c - r for r, c in enumerate(board)}) == 8
        assert len({c + r for r, c in enumerate(board)}) == 8

