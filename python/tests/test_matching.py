"""sextant.Matcher against a brute-force matcher written here from the semantics alone
(DESIGN.md and docs/matching.md, "Semantics"): every constraint of every filter is evaluated
against every attribute of the event. Random workloads with a fixed seed cover every operator and
value type, ties at the constraint boundaries, events missing or repeating names, filters on absent
names, 1 and many interfaces, and adds and removes interleaved with matching; then bad input, and
rejected changes that must leave the matcher as it was."""

import random
import subprocess
import threading

import numpy as np
import pytest

import sextant
from conftest import gpu_count

# ---------------------------------------------------------------------------------------------
# The oracle

NUMERIC_OPS = {"=": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
               "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}
STRING_OPS = {"=": lambda s, v: s == v, "!=": lambda s, v: s != v,
              "prefix": lambda s, v: s.startswith(v), "suffix": lambda s, v: s.endswith(v),
              "substring": lambda s, v: v in s}


def kind(v):
    """The comparable class of a value: bools apart from numbers (True is an int in Python)."""
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, float, np.integer, np.floating)):
        return "number"
    if isinstance(v, (str, bytes)):
        return "string"
    raise AssertionError(f"not a value: {v!r}")


def holds(a, op, c):
    """Whether attribute value ``a`` satisfies ``op c``. Python compares int with float exactly
    (2**53 + 1 > 2.0**53, 5 == 5.0, -0.0 == 0), as the semantics ask; strings byte-wise."""
    ka, kc = kind(a), kind(c)
    if ka != kc:
        return False  # not comparable: not satisfied, no error
    if ka == "number":
        return NUMERIC_OPS[op](a.item() if isinstance(a, np.generic) else a,
                               c.item() if isinstance(c, np.generic) else c)
    if ka == "bool":
        return {"=": bool(a) == bool(c), "!=": bool(a) != bool(c)}.get(op, False)
    to_bytes = lambda s: s.encode("utf-8") if isinstance(s, str) else s  # noqa: E731
    return STRING_OPS[op](to_bytes(a), to_bytes(c)) if op in STRING_OPS else False


def attributes(event):
    """An event dict as (name, value) pairs: a list or tuple of values repeats the name."""
    out = []
    for name, v in event.items():
        for x in (v if isinstance(v, (list, tuple)) else [v]):
            out.append((name, x))
    return out


def satisfied(constraint, attrs):
    name, op = constraint[0], constraint[1]
    for n, v in attrs:
        if n != name:
            continue
        if op == "exists":
            return True
        if holds(v, op, constraint[2]):
            return True
    return False  # no attribute of that name (also for !=), or none satisfies it


def oracle(filters, event):
    """filters: {id: (interface, constraints)}. (sorted distinct interfaces, sorted filter ids)."""
    attrs = attributes(event)
    ids = sorted(fid for fid, (_, cs) in filters.items() if all(satisfied(c, attrs) for c in cs))
    return sorted({filters[fid][0] for fid in ids}), ids


def check(matcher, filters, events, single=0):
    """The matcher's results (batch, batch with filter ids, and one event at a time for the first
    ``single`` events) against the oracle's."""
    want = [oracle(filters, e) for e in events]
    got = matcher.match(events)
    assert len(got) == len(events)
    for i, (g, (wi, _)) in enumerate(zip(got, want)):
        assert g.dtype == np.int64
        assert g.tolist() == wi, f"event {i}: {events[i]}"
    got_i, got_f = matcher.match(events, filters=True)
    for i, (gi, gf, (wi, wf)) in enumerate(zip(got_i, got_f, want)):
        assert gf.dtype == np.uint64
        assert (gi.tolist(), gf.tolist()) == (wi, wf), f"event {i}: {events[i]}"
    for i in range(min(single, len(events))):
        assert matcher.match(events[i]).tolist() == want[i][0], f"event {i} alone: {events[i]}"
        gi, gf = matcher.match(events[i], filters=True)
        assert (gi.tolist(), gf.tolist()) == want[i]
    assert len(matcher) == len(filters)
    return want


# ---------------------------------------------------------------------------------------------
# Random workloads: small value pools so that constraints meet values exactly at their boundaries

INTS = [-2**63, -2**63 + 1, -1, 0, 1, 2, 5, 2**53, 2**53 + 1, 2**63 - 1]
FLOATS = [-1e300, -2.0**63, -0.0, 0.0, 0.5, 1.0, 2.0, 5.0, 5.5, 2.0**53, 2.0**63, 1e19]
BOOLS = [True, False]
STRINGS = ["", "a", "ab", "abc", "b", "ba", 'a"b', "a\\b", "\x00", "x\x00y", "Zürich", "Zür", "rich",
           b"\xff", b"a\xff", b"\xffa\xfe", "A", "AB"]
NAMES = ["a", "b", "c", "n.1", "_x"]
ABSENT = "absent"  # filters name it, events never carry it


def random_value(rng, k):
    return rng.choice({"int": INTS, "float": FLOATS, "bool": BOOLS, "string": STRINGS}[k])


def random_constraint(rng, names):
    name = rng.choice(names)
    op = rng.choice(sextant.matching.OPS)
    if op == "exists":
        return (name, op) if rng.random() < 0.5 else (name, op, None)
    if op in ("prefix", "suffix", "substring"):
        k = "string"
    elif op in ("=", "!="):
        k = rng.choice(["int", "float", "bool", "string"])
    else:
        k = rng.choice(["int", "float"])
    return (name, op, random_value(rng, k))


def random_filter(rng, interfaces):
    names = NAMES + [ABSENT] if rng.random() < 0.1 else NAMES
    cs = [random_constraint(rng, names) for _ in range(rng.choice([1, 1, 2, 2, 3, 4]))]
    return rng.randrange(interfaces), cs


def random_event(rng):
    event = {}
    for name in NAMES:
        if rng.random() < 0.3:
            continue  # a missing attribute
        values = [random_value(rng, rng.choice(["int", "float", "bool", "string"]))
                  for _ in range(2 if rng.random() < 0.2 else 1)]  # a repeated name
        event[name] = values if len(values) > 1 else values[0]
    return event


def workload(seed, n_filters, interfaces, n_events):
    rng = random.Random(seed)
    filters = {}
    while len(filters) < n_filters:
        fid = rng.randrange(2**64) if rng.random() < 0.2 else rng.randrange(10 * n_filters)
        if fid not in filters:
            filters[fid] = random_filter(rng, interfaces)
    # Two events that match nothing: no attribute, and only a name no filter names.
    return filters, [random_event(rng) for _ in range(n_events)] + [{}, {"unnamed": 1}]


def fill(matcher, filters):
    matcher.add_many([(fid, iface, cs) for fid, (iface, cs) in filters.items()])


@pytest.mark.parametrize("interfaces", [1, 7, 1000])
@pytest.mark.parametrize("threads", [0, 1])
def test_random_workloads_match_the_oracle(interfaces, threads):
    filters, events = workload(100 + interfaces, 600, interfaces, 300)
    m = sextant.Matcher(threads=threads)
    fill(m, filters)
    want = check(m, filters, events, single=60)
    # The workload is not trivial: a few percent of the (event, filter) pairs match, events differ
    # in what they match, and every operator is among the matched filters' constraints.
    pairs = sum(len(wf) for _, wf in want)
    assert 0.005 < pairs / (len(events) * len(filters)) < 0.2
    assert len({tuple(wf) for _, wf in want}) > len(events) // 2
    assert want[-1] == want[-2] == ([], [])
    ops_matched = {c[1] for _, wf in want for fid in wf for c in filters[fid][1]}
    assert ops_matched == set(sextant.matching.OPS)


def test_one_filter_at_a_time_equals_one_batch():
    filters, events = workload(7, 200, 5, 100)
    a, b = sextant.Matcher(), sextant.Matcher()
    fill(a, filters)
    for fid, (iface, cs) in filters.items():
        b.add(fid, iface, cs)
    assert len(a) == len(b) == 200 and a.constraints == b.constraints
    for x, y in zip(a.match(events), b.match(events)):
        assert x.tolist() == y.tolist()


@pytest.mark.parametrize("interfaces", [1, 200])
def test_adds_and_removes_interleaved_with_matching(interfaces):
    rng = random.Random(interfaces)
    filters, events = workload(5, 150, interfaces, 60)
    m = sextant.Matcher()
    fill(m, filters)
    check(m, filters, events)
    next_id = 10**6
    for step in range(40):
        action = rng.choice(["add", "add_many", "remove", "remove_many", "readd"])
        if action == "add":
            iface, cs = random_filter(rng, interfaces)
            m.add(next_id, iface, cs)
            filters[next_id] = (iface, cs)
            next_id += 1
        elif action == "add_many":
            new = {next_id + k: random_filter(rng, interfaces) for k in range(rng.randrange(1, 30))}
            m.add_many([(fid, iface, cs) for fid, (iface, cs) in new.items()])
            filters.update(new)
            next_id += len(new)
        elif action == "remove" and filters:
            fid = rng.choice(sorted(filters))
            m.remove(fid)
            del filters[fid]
        elif action == "remove_many" and filters:
            ids = rng.sample(sorted(filters), min(len(filters), rng.randrange(1, 40)))
            m.remove(np.array(ids, dtype=np.uint64) if step % 2 else ids)
            for fid in ids:
                del filters[fid]
        elif action == "readd" and filters:
            # The same id again after its removal, with other constraints.
            fid = rng.choice(sorted(filters))
            m.remove([fid])
            assert fid not in m
            filters[fid] = random_filter(rng, interfaces)
            m.add(fid, *filters[fid])
        for fid in rng.sample(sorted(filters), min(5, len(filters))):
            assert fid in m
        check(m, filters, events, single=5)
    m.remove(list(filters))
    assert len(m) == 0 and m.constraints == 0
    assert all(len(r) == 0 for r in m.match(events))


def test_semantics_worked_by_hand():
    m = sextant.Matcher()
    m.add(1, 10, [("x", ">", 2), ("x", "<", 2)])          # two attributes of one name
    m.add(2, 11, [("x", "!=", 3)])                        # != needs an attribute of that name
    m.add(3, 12, [("big", ">", 9007199254740992.0)])      # int64 against double: exact
    m.add(4, 13, [("five", "=", 5.0)])
    m.add(5, 14, [("z", "=", 0)])                         # -0.0 equals 0
    m.add(6, 15, [("flag", "=", True)])                   # a bool is not the number 1
    m.add(7, 16, [("s", "prefix", "Ab")])                 # case-sensitive, byte-wise
    m.add(8, 17, [("s", "exists")])
    m.add(9, 18, [("s", "exists", None), ("absent", "exists")])   # a name no event has
    m.add(10, 19, [("b", "substring", b"\xff\x00")])      # any bytes
    m.add(11, 20, [("u", "suffix", "rich")])              # UTF-8 text
    m.add(12, 10, [("x", "=", 1)])                        # a second filter of interface 10
    assert m.match({"x": [1, 5]}, filters=True)[1].tolist() == [1, 2, 12]
    assert m.match({"x": [1, 5]}).tolist() == [10, 11]
    assert m.match({"y": 3}).tolist() == []
    assert m.match({"x": 3}).tolist() == []
    assert m.match({"x": "3"}).tolist() == []            # a string is no number
    assert m.match({"big": 2**53 + 1}).tolist() == [12]
    assert m.match({"big": 2**53}).tolist() == []
    assert m.match({"five": 5}).tolist() == [13]
    assert m.match({"five": np.int32(5)}).tolist() == [13]
    assert m.match({"z": -0.0}).tolist() == [14]
    assert m.match({"flag": 1}).tolist() == []
    assert m.match({"flag": True}).tolist() == [15]
    assert m.match({"flag": np.bool_(True)}).tolist() == [15]
    assert m.match({"s": "Abc"}).tolist() == [16, 17]
    assert m.match({"s": "abc"}).tolist() == [17]
    assert m.match({"s": 1.5}).tolist() == [17]
    assert m.match({"s": 1.5, "absent": False}).tolist() == [17, 18]
    assert m.match({"b": b"a\xff\x00b"}).tolist() == [19]
    assert m.match({"b": "a\xff\x00b"}).tolist() == []   # str: U+00FF is two bytes in UTF-8
    assert m.match({"u": "Zürich"}).tolist() == [20]
    assert m.match({}).tolist() == []
    assert m.match([]) == [] and m.match([], filters=True) == ([], [])
    assert len(m) == 12 and 12 in m and 13 not in m and "12" not in m and -1 not in m


def test_values_of_every_python_and_numpy_type():
    m = sextant.Matcher()
    m.add(1, 1, [("i", "=", np.int64(-7)), ("f", "<", np.float32(1.5)), ("b", "!=", np.bool_(False)),
                 ("s", "=", np.str_("ok")), ("u", ">=", np.uint8(200))])
    got = [r.tolist() for r in m.match([{"i": -7.0, "f": 1.25, "b": True, "s": "ok", "u": 200},
                                        {"i": -7, "f": np.float64(1.5), "b": True, "s": "ok", "u": 200.5},
                                        {"i": -7, "f": 1, "b": (False, True), "s": b"ok", "u": [1, 2**62]}])]
    assert got == [[1], [], [1]]


def test_results_are_sorted_numpy_arrays():
    m = sextant.Matcher()
    for fid, iface in enumerate([9, 3, 7, 3, 2**32 - 1, 0]):
        m.add(2**64 - 1 - fid, iface, [("a", "exists")])
    interfaces, fids = m.match([{"a": 1}, {"b": 1}], filters=True)
    assert interfaces[0].tolist() == [0, 3, 7, 9, 2**32 - 1]
    assert fids[0].tolist() == sorted(2**64 - 1 - k for k in range(6))
    assert interfaces[1].size == 0 and fids[1].size == 0
    one, one_ids = m.match({"a": "x"}, filters=True)
    assert isinstance(one, np.ndarray) and one.tolist() == interfaces[0].tolist()
    assert one_ids.tolist() == fids[0].tolist()


def test_changes_from_another_thread_while_batches_match():
    # The GIL is released while a batch matches: another thread adds and removes meanwhile. Each
    # batch sees the state before or after each change; at the end the state is the oracle's.
    filters, events = workload(13, 300, 20, 400)
    m = sextant.Matcher()
    fill(m, filters)
    done, errors, batches = threading.Event(), [], [0]

    def matching():
        try:
            while not done.is_set() or batches[0] < 3:
                assert len(m.match(events * 5)) == len(events) * 5
                batches[0] += 1
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=matching)
    t.start()
    rng = random.Random(13)
    for k in range(200):
        if k % 3 == 2:
            fid = rng.choice(sorted(filters))
            m.remove(fid)
            del filters[fid]
        else:
            filters[10**8 + k] = random_filter(rng, 20)
            m.add(10**8 + k, *filters[10**8 + k])
        assert m.constraints > 0  # waits for a running batch, without the GIL
    done.set()
    t.join()
    assert not errors and batches[0] >= 3
    check(m, filters, events)


# ---------------------------------------------------------------------------------------------
# Bad input: a clear error naming the argument, filter or event; a rejected change changes nothing

def snapshot(m, ids, events):
    return len(m), [i in m for i in ids], [r.tolist() for r in m.match(events)], m.constraints


def test_rejected_changes_leave_the_matcher_as_it_was():
    filters, events = workload(11, 100, 4, 50)
    m = sextant.Matcher()
    fill(m, filters)
    ids = sorted(filters) + [10**9, 10**9 + 1]
    before = snapshot(m, ids, events)
    taken = next(iter(filters))
    good = [(10**9, 1, [("a", "=", 1)]), (10**9 + 1, 2, [("b", "exists")])]
    bad_changes = [
        (lambda: m.add(taken, 0, [("a", "=", 1)]), sextant.BadArgumentError, f"filter {taken} .*duplicate"),
        (lambda: m.add_many(good + [(taken, 0, [("a", "=", 1)])]), sextant.BadArgumentError, "duplicate"),
        (lambda: m.add_many(good + [(10**9, 0, [("a", "=", 1)])]), sextant.BadArgumentError,
         r"filter 1000000000 = 'filters\[0\] and filters\[2\]': a duplicate filter id"),
        (lambda: m.add_many(good + [(5, 0, [])]), sextant.BadArgumentError, "filter 5 .*an empty filter"),
        (lambda: m.add_many(good + [(10**9 + 7, 0, [("a", "~", 1)])]), sextant.BadArgumentError,
         "filter 1000000007 constraint 0 op = '~': an unknown operator"),
        (lambda: m.add_many(good + [(10**9 + 7, 0, [("a", "<", "x")])]), sextant.BadArgumentError,
         "filter 1000000007 constraint 0 .*operator < does not take a string"),
        (lambda: m.add_many(good + [(10**9 + 7, 0, [("a", "=", 1), ("p", "prefix", 3)])]),
         sextant.BadArgumentError, "filter 1000000007 constraint 1 .*operator prefix does not take a int64"),
        (lambda: m.add_many(good + [(10**9 + 7, 0, [("a", ">=", float("nan"))])]), sextant.BadArgumentError,
         "filter 1000000007 constraint 0 .*NaN"),
        (lambda: m.add_many(good + [(10**9 + 7, 0, [("a", ">=", float("-inf"))])]), sextant.BadArgumentError,
         "infinit"),
        (lambda: m.remove(10**12), sextant.BadArgumentError, "filter 1000000000000 .*an unknown filter id"),
        (lambda: m.remove([taken, 10**12]), sextant.BadArgumentError, "an unknown filter id"),
        (lambda: m.remove([taken, taken]), sextant.BadArgumentError, f"filter {taken} .*removed twice"),
        (lambda: m.remove([taken, -1]), sextant.BadArgumentError, "ids = -1"),
        (lambda: m.remove(np.array([taken, -1])), sextant.BadArgumentError, "ids = -1"),
    ]
    for change, error, message in bad_changes:
        with pytest.raises(error, match=message):
            change()
        assert snapshot(m, ids, events) == before, message
    m.add_many(good)  # the ids the rejected changes used are free
    assert len(m) == before[0] + 2


def test_bad_filters_name_the_filter_and_the_problem():
    m = sextant.Matcher()
    cases = [
        ((1, 0, [("x", "=")]), r"filter 1 constraint 0 value = '\(missing\)': operator = needs a value"),
        ((1, 0, [("x", ">", None)]), "filter 1 constraint 0 value = 'None': operator > needs a value"),
        ((1, 0, [("x", "exists", 3)]), "filter 1 constraint 0 value = '3': exists takes no value"),
        ((1, 0, [("x", "=", [1, 2])]),
         r"filter 1 constraint 0 value = '\[1, 2\]': not a value \(type list\)"),
        ((1, 0, [("x", "=", 1 + 2j)]), "not a value .type complex"),
        ((1, 0, [("x", "=", 2**63)]),
         "filter 1 constraint 0 value = '9223372036854775808': outside the int64"),
        ((1, 0, [("x", "=", "\udc80")]), "lone surrogates"),
        ((1, 0, [("x", 3, 1)]), r"filter 1 constraint 0 op = '3': not a str"),
        ((1, 0, [(3, "=", 1)]), "filter 1 constraint 0 name = '3': not a str"),
        ((1, 0, [("1x", "=", 1)]), r"filter 1 constraint 0 .*name '1x' is not \[A-Za-z_\]"),
        ((1, 0, [("x y", "=", 1)]), "name 'x y' is not"),
        ((1, 0, [("a" * 256, "=", 1)]), "256 bytes"),
        ((1, 0, [("x", "=", 1, 2)]), "filter 1 constraint 0 = .*4 items"),
        ((1, 0, ["x"]), "filter 1 constraints = .*one constraint, not a list of them"),
        ((1, 0, [["x"]]), "filter 1 constraint 0 = .*1 items"),
        ((1, 0, [5]), "filter 1 constraint 0 = '5': not a tuple"),
        ((1, 0, ("x", ">", 1)), r"filter 1 constraints = .*write \[\(name, op, value\)\]"),
    ]
    for (fid, iface, cs), message in cases:
        with pytest.raises(sextant.BadArgumentError, match=message):
            m.add(fid, iface, cs)
        with pytest.raises(sextant.BadArgumentError, match=message):
            m.add_many([(fid, iface, cs)])
    with pytest.raises(sextant.BadArgumentError, match="filter_id = -1: out of range"):
        m.add(-1, 0, [("x", "exists")])
    with pytest.raises(sextant.BadArgumentError, match="filter_id = 18446744073709551616: out of range"):
        m.add(2**64, 0, [("x", "exists")])
    with pytest.raises(sextant.BadArgumentError, match="filter_id = 1.5: not an integer"):
        m.add(1.5, 0, [("x", "exists")])
    with pytest.raises(sextant.BadArgumentError, match="interface = 4294967296: out of range"):
        m.add(1, 2**32, [("x", "exists")])
    with pytest.raises(sextant.BadArgumentError, match="filter 1 constraints = 5: not a list"):
        m.add(1, 0, 5)
    with pytest.raises(sextant.BadArgumentError, match=r"filters\[1\] filter_id = '-2': out of range"):
        m.add_many([(1, 0, [("x", "exists")]), (-2, 0, [("x", "exists")])])
    with pytest.raises(sextant.BadArgumentError, match=r"filters\[0\] interface = 'x': not an integer"):
        m.add_many([(1, "x", [("x", "exists")])])
    with pytest.raises(sextant.BadArgumentError, match=r"filters\[0\] = '\(1, 2\)': not a filter"):
        m.add_many([(1, 2)])
    with pytest.raises(sextant.BadArgumentError, match="filters = 5: not a list"):
        m.add_many(5)
    with pytest.raises(sextant.BadArgumentError, match="ids = 1.5: not an integer"):
        m.remove([1.5])
    with pytest.raises(sextant.BadArgumentError, match="ids.dtype = float64"):
        m.remove(np.array([1.5]))
    with pytest.raises(sextant.BadArgumentError, match="ids = 'ab': not a list"):
        m.remove("ab")
    assert len(m) == 0 and m.constraints == 0
    m.add_many([])
    m.remove([])
    assert len(m) == 0


def test_bad_events_name_the_event():
    m = sextant.Matcher()
    m.add(1, 0, [("x", "exists")])
    cases = [
        ([{"x": 1}, {"x": float("nan")}], "event 1 attribute x = 'nan': NaN is not a value"),
        ([{"x": 1}, {"y": 2, "x": -float("inf")}], "event 1 attribute x = '-inf': infinities are not values"),
        ([{"x": 1}, {"x": [1.5, np.float32("nan")]}], r"event 1 attribute x\[1\] = .*NaN is not a value"),
        ([{"x": [1, None]}], r"event 0 attribute x\[1\] = 'None': None is not a value"),
        ([{"x": None}], "event 0 attribute x = 'None': None is not a value"),
        ([{"x": {"a": 1}}], "event 0 attribute x = .*not a value .type dict"),
        ([{"x": [[1]]}], r"event 0 attribute x\[0\] = '\[1\]': not a value"),
        ([{"x": 2**64}], "event 0 attribute x = '18446744073709551616': outside the int64"),
        ([{5: 1}], "event 0 attribute name = '5': not a str"),
        ([{"x": 1}, {"1x": 1}], "event 1 attribute name = '1x': name '1x' is not"),
        ([{"x" * 256: 1}], "event 0 attribute name = .*256 bytes"),
        ([{"ü" * 40: 1}], "event 0 attribute name = 'ü{28}\\.\\.\\.': name '"),  # cut between characters
        ([{"x": 1}, 5], r"events\[1\] = '5': not a dict \(type int\)"),
        ([{"x": 1}, [("x", 1)]], r"events\[1\] = .*not a dict \(type list\)"),
    ]
    for events, message in cases:
        with pytest.raises(sextant.BadArgumentError, match=message):
            m.match(events)
    with pytest.raises(sextant.BadArgumentError, match="event 0 attribute x = 'nan': NaN"):
        m.match({"x": float("nan")})
    with pytest.raises(sextant.BadArgumentError, match="event 0 attribute x .*not a value"):
        m.match({"x": object()})
    with pytest.raises(sextant.BadArgumentError, match="events = 5: not a list"):
        m.match(5)
    with pytest.raises(sextant.BadArgumentError, match="events = 'x': not a list"):
        m.match("x")
    assert [r.tolist() for r in m.match(({"x": 1}, {"y": 1}))] == [[0], []]  # a tuple, a generator
    assert [r.tolist() for r in m.match(e for e in [{"x": 1}])] == [[0]]


def test_bad_options_name_the_argument():
    with pytest.raises(sextant.BadArgumentError, match="devices = 'tpu0'"):
        sextant.Matcher(devices="tpu0")
    with pytest.raises(sextant.BadArgumentError, match="threads = -1"):
        sextant.Matcher(threads=-1)
    with pytest.raises(sextant.BadArgumentError, match="placement = 'spread'"):
        sextant.Matcher(placement="spread")
    assert "cpu" in repr(sextant.Matcher(devices=["cpu"], threads=1))


def test_missing_gpu_is_unsupported():
    if gpu_count() > 0:
        pytest.skip("this machine has a GPU")
    with pytest.raises(sextant.UnsupportedError, match="GPU"):
        sextant.Matcher(devices="gpu0")


# ---------------------------------------------------------------------------------------------
# GPUs and the command line

@pytest.mark.parametrize("devices", ["cpu", pytest.param("gpu0", marks=pytest.mark.gpu),
                                     pytest.param("all", marks=pytest.mark.gpu)])
def test_every_device_matches_the_oracle_while_filters_change(devices):
    for interfaces in [1, 1000]:
        filters, events = workload(300 + interfaces, 600, interfaces, 300)
        m = sextant.Matcher(devices=devices)
        fill(m, filters)
        check(m, filters, events, single=20)
        rng = random.Random(interfaces)
        for round in range(5):
            gone = rng.sample(sorted(filters), 50)
            m.remove(gone)
            for fid in gone:
                del filters[fid]
            new = {10**7 + 40 * round + k: random_filter(rng, interfaces) for k in range(40)}
            m.add_many([(fid, iface, cs) for fid, (iface, cs) in new.items()])
            filters.update(new)
            check(m, filters, events)


def text_value(v):
    """A value in the text format of docs/matching.md."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    b = v.encode("utf-8") if isinstance(v, str) else v
    out = "".join("\\" + chr(c) if c in b'"\\' else chr(c) if 0x20 <= c < 0x7f else f"\\x{c:02x}" for c in b)
    return f'"{out}"'


def test_same_results_as_the_command_line(cli, tmp_path):
    filters, events = workload(21, 400, 9, 200)
    subs = tmp_path / "subs.txt"
    subs.write_text("".join(
        f"filter {fid} {iface}: " + ", ".join(
            f"{c[0]} exists" if c[1] == "exists" else f"{c[0]} {c[1]} {text_value(c[2])}" for c in cs) + "\n"
        for fid, (iface, cs) in filters.items()))
    evs = tmp_path / "events.txt"
    evs.write_text("".join(
        "event: " + ", ".join(f"{n} = {text_value(v)}" for n, v in attributes(e)) + "\n" for e in events))
    out = subprocess.run([cli, "match", "--subscriptions", str(subs), "--events", str(evs), "--filters",
                          "--output", "-"], check=True, capture_output=True, text=True).stdout
    rows = out.splitlines()[1:]
    m = sextant.Matcher()
    fill(m, filters)
    got_i, got_f = m.match(events, filters=True)
    assert len(rows) == len(events)
    for row, gi, gf in zip(rows, got_i, got_f):
        _, ifaces, fids = row.split(",")
        assert ifaces.split() == [str(x) for x in gi.tolist()]
        assert fids.split() == [str(x) for x in gf.tolist()]
