"""The held-out NLU phrasings are really held out: no content word shared with their intent's examples."""

from pathlib import Path

import pytest
import yaml

from orchestrator.engine.catalog.spec_io import load_catalog

DATA = Path(__file__).resolve().parents[3] / "bench" / "data"
BANKING = Path(__file__).resolve().parents[3] / "catalog_app" / "demo" / "banking.yaml"
# Function words only: a content word (noun, verb, adjective) shared with an example disqualifies a phrasing.
FUNCTION_WORDS = frozenset(
    "a an the i i'd i'm i've me my to for of and or can could would will is it be do you your with on in at this "
    "that what how has have been am are was there so some any no not on up out from by as if but into about like "
    "where when does did his her he she they their we our".split()
)


def catalogs() -> dict[str, Path]:
    return {"banking": BANKING, "helpdesk": DATA / "helpdesk.yaml", "travel": DATA / "travel.yaml",
            "pharmacy": DATA / "pharmacy.yaml", "insurance": DATA / "insurance.yaml",
            "utility": DATA / "utility.yaml", "telecom": DATA / "telecom.yaml", "hr": DATA / "hr.yaml",
            "library": DATA / "library.yaml", "vet": DATA / "vet.yaml"}


HELD_OUT = {"banking": "nlu_heldout.yaml", "helpdesk": "nlu_heldout.yaml", "travel": "nlu_heldout.yaml",
            "pharmacy": "nlu_heldout2.yaml",  # the second set: a catalog written after the tuning
            "insurance": "nlu_heldout3.yaml", "utility": "nlu_heldout3.yaml",  # the third: two more such catalogs
            "telecom": "nlu_heldout4.yaml", "hr": "nlu_heldout4.yaml",  # the fourth: two more again
            "library": "nlu_heldout6.yaml", "vet": "nlu_heldout6.yaml"}  # the sixth: two new domains


def words(text: str) -> set[str]:
    return {w.strip(".,?!'\"") for w in text.lower().split()} - FUNCTION_WORDS - {""}


FIFTH = [("pharmacy", "nlu_heldout5.yaml"), ("utility", "nlu_heldout5.yaml")]  # fresh sets for the same two


@pytest.mark.parametrize(("catalog", "file"), [*HELD_OUT.items(), *FIFTH])
def test_held_out_phrasings_share_no_content_word_with_their_examples(catalog, file):
    spec = load_catalog(catalogs()[catalog].read_text(), filename=f"{catalog}.yaml")
    held_out = yaml.safe_load((DATA / file).read_text())[catalog]
    shared = []
    for intent in spec.intents:
        phrasings = held_out[intent.name]
        assert len(phrasings) >= 8
        example_words = set().union(*(words(e) for e in intent.examples))
        shared += [(intent.name, p, words(p) & example_words) for p in phrasings if words(p) & example_words]
    assert shared == []
    assert len(held_out.get("none", ())) >= 4


def test_the_second_held_out_set_is_on_a_catalog_the_dev_set_never_saw():
    dev = yaml.safe_load((DATA / "nlu_dev.yaml").read_text())
    first = yaml.safe_load((DATA / "nlu_heldout.yaml").read_text())
    second = yaml.safe_load((DATA / "nlu_heldout2.yaml").read_text())
    assert set(second).isdisjoint(dev) and set(second).isdisjoint(first)


def test_the_third_held_out_set_is_on_catalogs_no_other_set_saw():
    third = yaml.safe_load((DATA / "nlu_heldout3.yaml").read_text())
    assert set(third) == {"insurance", "utility"}
    for other in ("nlu_dev.yaml", "nlu_heldout.yaml", "nlu_heldout2.yaml"):
        assert set(third).isdisjoint(yaml.safe_load((DATA / other).read_text())), other


def test_the_fourth_held_out_set_is_on_catalogs_no_other_set_saw():
    fourth = yaml.safe_load((DATA / "nlu_heldout4.yaml").read_text())
    assert set(fourth) == {"telecom", "hr"}
    for other in ("nlu_dev.yaml", "nlu_heldout.yaml", "nlu_heldout2.yaml", "nlu_heldout3.yaml"):
        assert set(fourth).isdisjoint(yaml.safe_load((DATA / other).read_text())), other


@pytest.mark.parametrize("catalog", ["banking", "helpdesk", "travel"])
def test_held_out_phrasings_are_not_in_the_dev_set(catalog):
    held_out = yaml.safe_load((DATA / "nlu_heldout.yaml").read_text())[catalog]
    dev = yaml.safe_load((DATA / "nlu_dev.yaml").read_text())[catalog]
    held = {p.lower() for ps in held_out.values() for p in ps}
    assert held.isdisjoint({p.lower() for ps in dev.values() for p in ps})


def test_the_fifth_held_out_set_repeats_no_phrasing_of_the_earlier_sets_on_its_catalogs():
    fifth = yaml.safe_load((DATA / "nlu_heldout5.yaml").read_text())
    assert set(fifth) == {"pharmacy", "utility"}
    for catalog, file in (("pharmacy", "nlu_heldout2.yaml"), ("utility", "nlu_heldout3.yaml")):
        earlier = {p.lower() for ps in yaml.safe_load((DATA / file).read_text())[catalog].values() for p in ps}
        assert earlier.isdisjoint({p.lower() for ps in fifth[catalog].values() for p in ps}), catalog


def test_the_sixth_held_out_set_is_on_catalogs_no_other_set_saw():
    sixth = yaml.safe_load((DATA / "nlu_heldout6.yaml").read_text())
    assert set(sixth) == {"library", "vet"}
    for other in ("nlu_dev.yaml", "nlu_heldout.yaml", "nlu_heldout2.yaml", "nlu_heldout3.yaml", "nlu_heldout4.yaml",
                  "nlu_heldout5.yaml"):
        assert set(sixth).isdisjoint(yaml.safe_load((DATA / other).read_text())), other


def test_the_seventh_held_out_set_is_on_new_catalogs_and_mostly_shares_no_content_word():
    # Written blind (2026-11-26): about four phrasings per intent may reuse domain words, at least six may not.
    seventh = yaml.safe_load((DATA / "nlu_heldout7.yaml").read_text())
    assert set(seventh) == {"gardencentre", "cinema"}
    for other in ("nlu_dev.yaml", *(f"nlu_heldout{n}.yaml" for n in ("", 2, 3, 4, 5, 6))):
        assert set(seventh).isdisjoint(yaml.safe_load((DATA / other).read_text())), other
    for catalog, held_out in seventh.items():
        spec = load_catalog((DATA / f"{catalog}.yaml").read_text(), filename=f"{catalog}.yaml")
        assert set(held_out) == {intent.name for intent in spec.intents} | {"none"}
        for intent in spec.intents:
            example_words = set().union(*(words(e) for e in intent.examples))
            phrasings = held_out[intent.name]
            assert len(phrasings) == 10
            assert sum(not words(p) & example_words for p in phrasings) >= 6, intent.name
        assert len(held_out["none"]) == 10


def test_the_eighth_held_out_set_covers_its_catalogs_and_repeats_almost_no_earlier_phrasing():
    # Written blind (2026-11-26): per intent three plain requests, three situations sharing no content word
    # with the examples (the 4th to 6th), two with extras; sixteen out-of-scope requests per catalog. Three of
    # its 264 lines came out word for word as lines of held-out 2 and 4, written blind in other rounds.
    eighth = yaml.safe_load((DATA / "nlu_heldout8.yaml").read_text())
    assert set(eighth) == {"banking", "telecom", "pharmacy", "hr", "vet"}
    files = ("nlu_dev.yaml", "nlu_dev2.yaml", *(f"nlu_heldout{n}.yaml" for n in ("", 2, 3, 4, 5, 6)))
    earlier = {p.lower() for file in files for catalog in yaml.safe_load((DATA / file).read_text()).values()
               for ps in catalog.values() for p in ps}
    repeated = 0
    for catalog, held_out in eighth.items():
        spec = load_catalog(catalogs()[catalog].read_text(), filename=f"{catalog}.yaml")
        assert set(held_out) == {intent.name for intent in spec.intents} | {"none"}
        for intent in spec.intents:
            example_words = set().union(*(words(e) for e in intent.examples))
            phrasings = held_out[intent.name]
            assert len(phrasings) == 8
            assert all(not words(p) & example_words for p in phrasings[3:6]), intent.name
        assert len(held_out["none"]) == 16
        repeated += sum(p.lower() in earlier for ps in held_out.values() for p in ps)
    assert repeated == 3


LIGHT_VERBS = frozenset({"want", "get", "what's", "was"})


def test_the_ninth_held_out_set_covers_its_catalogs_with_ten_near_requests_out_of_scope_each():
    # Written blind (2026-11-26) like the eighth; of sixteen out-of-scope requests, the last ten near the trade.
    ninth = yaml.safe_load((DATA / "nlu_heldout9.yaml").read_text())
    assert set(ninth) == {"helpdesk", "travel", "insurance", "utility", "cinema"}
    for catalog, held_out in ninth.items():
        path = DATA / f"{catalog}.yaml"
        spec = load_catalog(path.read_text(), filename=path.name)
        assert set(held_out) == {intent.name for intent in spec.intents} | {"none"}
        for intent in spec.intents:
            example_words = set().union(*(words(e) for e in intent.examples))
            phrasings = held_out[intent.name]
            assert len(phrasings) == 8
            # (its writer counted "want", "get", "what's" and "was" as function words too)
            assert all(not words(p) & example_words - LIGHT_VERBS for p in phrasings[3:6]), intent.name
        assert len(held_out["none"]) == 16
