from orchestrator.engine.catalog.spec import Element
from orchestrator.engine.catalog.suggest import did_you_mean, normalize, search_elements

NAMES = ["email", "name", "address", "account_number", "loan_amount", "loan_status"]


def test_a_typo_suggests_the_existing_element():
    assert did_you_mean("emial", NAMES) == ["email"]


def test_spelling_variants_of_the_same_word_suggest_it():
    assert did_you_mean("e_mail", NAMES)[0] == "email"
    assert did_you_mean("E-mail", NAMES)[0] == "email"
    assert did_you_mean("accountnumber", NAMES)[0] == "account_number"


def test_a_known_or_unrelated_name_suggests_nothing():
    assert did_you_mean("email", NAMES) == []
    assert did_you_mean("credit_score", NAMES) == []
    assert did_you_mean("", NAMES) == []


def test_normalize_makes_a_valid_name_of_free_text():
    assert normalize("Customer Email") == "customer_email"
    assert normalize("customerEmail") == "customer_email"
    assert normalize("credit-score ") == "credit_score"
    assert normalize("2fa code") == "n_2fa_code"


def test_search_ranks_prefixes_before_words_before_descriptions():
    elements = [
        Element(name="loan_status", description="the decision"),
        Element(name="amount_due"),
        Element(name="loan_amount"),
        Element(name="income", description="yearly amount earned"),
    ]

    found = [e.name for e in search_elements("amount", elements)]

    assert found == ["amount_due", "loan_amount", "income"]


def test_search_falls_back_to_near_misses():
    elements = [Element(name=n) for n in NAMES]

    assert [e.name for e in search_elements("adress", elements)] == ["address"]
    assert len(search_elements("", elements, limit=3)) == 3
