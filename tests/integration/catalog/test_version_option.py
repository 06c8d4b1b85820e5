"""Every command about a catalog version takes `--version N` (and `--number N`, the same option);
Django's own `--version` (its release, exit 0) never answers in their place."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command, get_commands, load_command_class

VERSIONED = ("export_catalog", "compile_catalog", "plan", "validate_plan", "analyze_trajectories", "simulate",
             "publish", "promote_planner", "test_conversations", "cold_start")


@pytest.mark.parametrize("name", VERSIONED)
def test_the_version_option_names_the_catalog_version(name):
    parser = load_command_class(get_commands()[name], name).create_parser("manage.py", name)
    (option,) = [action for action in parser._actions if "--version" in action.option_strings]
    assert option.dest == "number" and "--number" in option.option_strings


def test_no_other_command_has_a_version_option_of_its_own():
    """A new command taking a version should use catalog_app.cli's option, and be listed above."""
    for name, app in get_commands().items():
        if app.startswith(("catalog_app", "orchestrator")) and name not in VERSIONED:
            parser = load_command_class(app, name).create_parser("manage.py", name)
            assert "--number" not in {s for action in parser._actions for s in action.option_strings}, name


@pytest.mark.django_db
def test_version_one_is_not_djangos_release():
    from catalog_app.services import workspace_get_or_create_default

    workspace_get_or_create_default()
    with pytest.raises(CommandError, match="nosuch"):  # Django's action would print its release and exit 0
        call_command("export_catalog", "nosuch", "--version", "1")
