"""The table of rules keys (heron_sim.rules.keys, issue 29 item 1): every place that knows a key
derives from its row, or is checked against it here."""

import dataclasses

import numpy as np
import pytest

from heron_sim.engine import layout as L
from heron_sim.engine.pack import pack_rules
from heron_sim.explore.form import file_layout
from heron_sim.lab.sheets import PHRASES, phrase
from heron_sim.rules import Rules
from heron_sim.rules import rules as R
from heron_sim.rules.keys import GROUP_IDS, KEYS, SCALAR_KEYS, SEAT_KEYS, X_KEYS
from heron_sim.strategies import expert_dp

pytestmark = pytest.mark.exact


def _other(key):
    """A legal value other than the default."""
    if key.kind == "bool":
        return not key.default
    if key.kind == "seats":
        return [0, 1]
    return key.default + 1 if key.default + 1 <= key.hi else key.default - 1


def test_every_key_is_a_field_of_rules_with_the_tables_default():
    fields = {f.name: f.default for f in dataclasses.fields(Rules)}
    for key in KEYS.values():
        assert key.name in fields, key.name
        assert fields[key.name] == key.default, key.name


def test_the_validation_is_the_tables():
    assert set(R._SCALARS) == {k.name for k in SCALAR_KEYS}
    assert tuple(R._SEAT_LISTS) == tuple(k.name for k in SEAT_KEYS)
    for key in SCALAR_KEYS:
        if key.kind == "int":
            with pytest.raises(Exception, match=f"{key.name}: {key.hi + 1} is out of range"):
                Rules.build(overrides={key.name: key.hi + 1})
            assert getattr(Rules.build(overrides={key.name: key.lo}), key.name) == key.lo
        else:
            with pytest.raises(Exception, match=f"{key.name}: 1 is not a boolean"):
                Rules.build(overrides={key.name: 1})


def test_defaults_toml_says_what_the_table_says():
    table = R.default_table()
    helps, _, _ = file_layout()
    for key in KEYS.values():
        value = table[key.name]
        assert (tuple(value) if key.kind == "seats" else value) == key.default, key.name
        assert helps.get(key.name) == key.help, key.name
    # and nothing in the file's top level that is neither a key of the table nor a known table
    extra = set(table) - set(KEYS) - {"mode", "disabled_powers", "combinations", "dice", "board"}
    assert not extra


def test_the_x_slots_follow_the_tables_order_and_are_packed_there():
    assert [L.X_SLOT[k.name] for k in X_KEYS] == list(range(L.R_X, L.R_X + len(X_KEYS)))
    assert L.X_START == L.R_X + len(X_KEYS)
    base = pack_rules(Rules.build())
    for key in X_KEYS:
        assert getattr(L, key.kernel) == L.X_SLOT[key.name], key.name
        changed = pack_rules(Rules.build(overrides={key.name: _other(key)}))
        diff = np.flatnonzero(changed != base)
        assert diff.tolist() == [L.X_SLOT[key.name]], key.name
        assert changed[L.X_SLOT[key.name]] == int(_other(key))


def test_later_keys_leave_old_digests_unchanged():
    assert Rules.build().digest() == Rules().digest()
    for key in KEYS.values():
        if key.later:
            assert key.name in R._LATER_KEYS
            d = Rules.build(overrides={key.name: _other(key)}).digest()
            assert d != Rules.build().digest(), key.name


def test_turn_free_keys_never_reach_the_experts_cache_key():
    base = expert_dp._key(Rules.build())
    for key in KEYS.values():
        if key.name in ("players", "max_rounds", "finish"):
            continue  # bounded by the table rows themselves / the board
        other = expert_dp._key(Rules.build(overrides={key.name: _other(key)}))
        if key.turn_free:
            assert other == base, key.name
        elif key.name != "first_turn_extra_rolls":
            assert other != base, key.name


def test_every_key_has_a_group_and_a_sentence_in_both_languages():
    for key in KEYS.values():
        assert key.group in GROUP_IDS
        assert key.name in PHRASES
        for value in (key.default, _other(key)):
            fr = phrase(key.name, value, "fr")[1]
            en = phrase(key.name, value, "en")[1]
            assert fr and en and fr != en, key.name
        assert key.sentence(key.default, "fr") != key.sentence(_other(key), "fr") or key.kind == "seats", key.name
