"""Every runtime package is pinned, and what runs the tests is what is pinned."""

import re
from importlib import metadata
from pathlib import Path

REQUIREMENTS = Path(__file__).resolve().parent.parent / "requirements.txt"
# A pin, and where a package is needed on older Pythons only, its marker (backports).
LINE = re.compile(r'^(?P<name>[A-Za-z0-9_.-]+)(\[[^\]]*\])?==(?P<version>[^\s;]+)(; python_version < "3\.\d+")?$')


def pins() -> dict[str, str]:
    lines = [line.strip() for line in REQUIREMENTS.read_text().splitlines()]
    found = {}
    for line in lines:
        if not line or line.startswith("#"):
            continue
        match = LINE.match(line)
        assert match, f"not pinned with ==: {line!r}"
        found[match["name"].lower().replace("_", "-")] = match["version"]
    return found


def test_every_runtime_package_and_what_it_pulls_in_is_pinned():
    pinned = pins()
    assert {"flask", "werkzeug", "jinja2", "python-engineio", "eventlet"} <= set(pinned)
    for name in pinned:
        for needed in metadata.requires(name) or []:
            if "extra ==" in needed and not needed.endswith('extra == "client"'):
                continue
            dependency = re.split(r"[\s;<>=!~\[(]", needed, maxsplit=1)[0].lower().replace("_", "-")
            if (
                "platform_python_implementation" in needed
                or "python_version <" in needed
                or "python_full_version <" in needed
            ):
                continue
            assert dependency in pinned, f"{name} needs {dependency}, which requirements.txt does not pin"


def test_the_installed_versions_are_the_pinned_ones():
    for name, version in pins().items():
        assert metadata.version(name) == version, name
