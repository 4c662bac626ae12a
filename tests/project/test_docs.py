"""The docs hold together: every command sample is a checked quote (tests/support/doc_quotes.py, kept current by
tests/project/test_generated.py), every link reaches its page and heading, every module and name they mention
exists."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.support import load_yaml
from tests.support.cli import ROOT
from tests.support.doc_quotes import QUOTES


def test_every_command_sample_in_the_docs_is_a_checked_quote():
    anchors = {quote.before for quote in QUOTES}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for sample in re.findall(r"```\n\$ (?:\.venv/bin/)?prescale [^\n]*\n", path.read_text()):
            assert sample in anchors, \
                f"{path.name}: the sample {sample.strip()!r} is not in tests/support/doc_quotes.py"


def test_the_dev_stack_describes_each_window_in_its_readers_words():
    """Each window's comment says when it is, in the window's own zone."""
    text = (ROOT / "Pulumi.dev.yaml").read_text()
    for comment, body in re.findall(r"((?:\n *#[^\n]*)+)\n *- name: [\w-]+\n((?: {6}[^\n]*\n)+)", text):
        if "timezone:" not in body:
            continue  # a pool
        fields = dict(re.findall(r"(\w+): (.+)", body))
        start = fields["start"].strip('"')
        hour_minute = (start[11:16] if "T" in start
                       else f"{int(start.split()[1]):02d}:{int(start.split()[0]):02d}")
        city = fields["timezone"].split("/")[-1].replace("_", " ")
        assert hour_minute in comment and city in comment, (comment, fields)



# Every page, and every module whose docstrings point into the docs or name other modules.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SOURCES = [ROOT / "__main__.py", *sorted(path for folder in ("components", "prescale_cli", "tools", "bench", "policy",
                                                             "provider", "examples")
                                         for path in (ROOT / folder).rglob("*.py"))]
GENERATED = {ROOT / "components" / "plugin_types.py"}  # config.py's descriptions, wrapped at any character


def _prose(markdown: str) -> str:
    """The page without its code blocks, whose `#` lines are comments, not headings, and whose text is no link."""
    return re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lowercase, punctuation dropped, spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", _prose(page.read_text()), re.MULTILINE)}


def _unreached(folder: Path, target: str) -> str | None:
    """Why the relative link ``target`` (``page#anchor``) from a file in ``folder`` reaches nothing, else ``None``."""
    path, _, anchor = target.partition("#")
    page = (folder / path).resolve()
    if not page.exists():
        return "no such file"
    if anchor and page.suffix == ".md" and anchor not in _anchors(page):
        return f"no heading of {page.name} has that anchor"
    return None


def test_every_link_of_the_docs_reaches_a_file_and_a_heading():
    links = [(page, target if target.partition("#")[0] else page.name + target) for page in PAGES
             for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page.read_text()))
             if not re.match(r"[a-z]+:", target)]  # https:, mailto:
    assert len(links) >= 100
    problems = [f"{page.name}: ({target}): {why}" for page, target in links if (why := _unreached(page.parent, target))]
    assert not problems, "\n".join(problems)


def test_every_page_the_docstrings_and_descriptions_point_to_exists_with_its_heading():
    pointers = [(source, target) for source in SOURCES if source not in GENERATED
                for target in re.findall(r"\bdocs/[\w-]+\.md(?:#[\w-]+)?", source.read_text())]
    assert len(pointers) >= 50
    problems = [f"{source.relative_to(ROOT)}: {target}: {why}" for source, target in pointers
                if (why := _unreached(ROOT, target))]
    assert not problems, "\n".join(problems)


def _names(dotted: str, scopes: list[str] = ()) -> bool:
    """Whether ``dotted`` names a module or something in one (a function, class, constant, field, method), as written
    or inside one of ``scopes``."""
    for name in [dotted, *(f"{scope}.{dotted}" for scope in scopes)]:
        parts = name.split(".")
        length = next((length for length in range(len(parts), 0, -1) if _imports(".".join(parts[:length]))), 0)
        if not length:
            continue
        found: object = importlib.import_module(".".join(parts[:length]))
        for attribute in parts[length:]:
            fields = {**getattr(found, "model_fields", {}), **getattr(found, "__dataclass_fields__", {})}
            if attribute not in fields and not hasattr(found, attribute):
                break
            found = getattr(found, attribute, None)
        else:
            return True
    return False


def _imports(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError:
        return False
    return True


def test_every_module_and_name_the_docs_mention_exists():
    text = "\n".join(page.read_text() for page in PAGES)
    names = set(re.findall(r"`((?:prescale|prescale_cli|tools|bench|tests)(?:\.\w+)+)`", text))
    assert len(names) >= 50
    assert sorted(name for name in names if not _names(name)) == []
    paths = set(re.findall(r"`((?:components|prescale_cli|tools|bench|tests|policy|provider|examples)/[\w./*-]*)`",
                           text)) - {"policy/venv", "provider/venv"}  # the virtualenvs Pulumi makes
    assert len(paths) >= 50
    assert sorted(path for path in paths if not any(ROOT.glob(path))) == []


def _module(source: Path) -> str:
    parts = list(source.relative_to(ROOT).with_suffix("").parts)
    parts[0] = {"components": "prescale"}.get(parts[0], parts[0])
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_module_and_name_the_docstrings_refer_to_exists():
    """``:mod:``, ``:func:``, ``:class:``... read as Sphinx reads them: absolute, relative to the package (``.plan``),
    or a name in the module itself or in one of its classes (a method that a class docstring names)."""
    unresolved = []
    for source in SOURCES:
        text, module = source.read_text(), _module(source)
        package = module if source.name == "__init__.py" else module.rpartition(".")[0]
        classes = [f"{module}.{name}" for name in re.findall(r"^class (\w+)", text, re.MULTILINE)]
        for dots, name in re.findall(r":(?:mod|func|class|meth|attr|data|exc):`~?(\.*)([\w.]+)`", text):
            absolute = ".".join([*package.split(".")[:len(package.split(".")) + 1 - len(dots)], name]) if dots else name
            if not _names(absolute, [module, package, *classes]):
                unresolved.append(f"{source.relative_to(ROOT)}: {dots}{name}")
    assert not unresolved, "\n".join(unresolved)


def test_the_readme_shows_a_window_of_the_dev_stack_near_its_top():
    """The README's first YAML block (within its first 80 lines) is a window of Pulumi.dev.yaml, word for word, so it
    validates as the dev stack does (tests/project/test_program.py runs that stack)."""
    top = "\n".join((ROOT / "README.md").read_text().splitlines()[:80])
    (block,) = re.findall(r"^```yaml\n(.*?)^```", top, re.MULTILINE | re.DOTALL)
    (window,) = load_yaml(block)["config"]["prescale:eventWindows"]
    dev_stack = load_yaml((ROOT / "Pulumi.dev.yaml").read_text())["config"]["prescale:eventWindows"]
    assert window in dev_stack
