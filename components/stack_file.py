"""A Pulumi stack file read the way the Pulumi CLI reads it, for the offline commands and the tests.

``pulumi up`` never runs this: there the Pulumi CLI reads ``Pulumi.<stack>.yaml`` and hands the program its
config. ``prescale plan``, ``prescale schedule`` and the tests read the file themselves, so they read it the CLI's
way, or refuse it with the same answer. What it accepts and refuses, with the CLI's source for each rule:
docs/cli.md#how-the-stack-file-is-read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import ConstructorError, SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from .model.config import CONFIG_NAMESPACE
from .model.validation import KEYS, ConfigError, reads

PROJECT_FILE = "Pulumi.yaml"


class _CliConstructor(SafeConstructor):
    """Values as the CLI's YAML library (go-yaml) gives them: a date-like value stays the text it is."""


def _refuse_binary(constructor: SafeConstructor, node: Any) -> None:
    raise ConstructorError(None, None, "a !!binary value: config is text, which the Pulumi CLI hands a program as "
                                       "it is; write it without the tag", node.start_mark)


_CliConstructor.add_constructor("tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str)
_CliConstructor.add_constructor("tag:yaml.org,2002:binary", _refuse_binary)


class StackFileError(ValueError):
    """A project or stack file that cannot be read at all, named with what is wrong and where."""


class StackFileProblems(ConfigError):
    """Keys of a stack file that the Pulumi CLI would refuse (or that only it can read), with the config the file
    holds beside them: ``wire``, the keys it can hand over, and ``unreadable``, the keys refused here or meant by a
    key refused here (never to be reported missing), so that the rest is validated in the same run
    (``prescale_cli.stack.load_config``)."""

    def __init__(self, problems: list[str], wire: dict[str, str], unreadable: frozenset[str]):
        super().__init__(problems)
        self.wire, self.unreadable = wire, unreadable


def project_name(project: Path) -> str:
    """The project's ``name`` from ``Pulumi.yaml`` (the namespace of keys written without one, and the
    first half of the stack resource's name ``<name>-<stack>``)."""
    path = project / PROJECT_FILE
    document = _load(path)
    name = document.get("name") if isinstance(document, dict) else None
    if not isinstance(name, str) or not name:
        raise StackFileError(f"{path}: no project `name:` (text, like `name: prescale`): the Pulumi CLI requires one, "
                             "and it is the namespace of the stack files' config keys written without one")
    return name


def read_stack_file(project_dir: Path, stack: str) -> dict[str, str]:
    """``Pulumi.<stack>.yaml``'s config as the engine hands it to a program (see :func:`read_config_file`)."""
    path = project_dir / f"Pulumi.{stack}.yaml"
    if not path.exists():
        stacks = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in project_dir.glob("Pulumi.*.yaml"))
        raise FileNotFoundError(f"no stack file {path}; stacks here: {', '.join(stacks) or 'none'}")
    return read_config_file(path, project_name(project_dir))


def read_config_file(path: Path, project: str = CONFIG_NAMESPACE) -> dict[str, str]:
    """A stack file's ``config:`` as the engine hands it to a program: full keys, strings, objects as JSON.

    ``project`` is the Pulumi project's name, the namespace of keys written without one (this repository's
    project is ``prescale``). Raises :class:`StackFileError` for a file that is not a YAML map with a
    ``config:`` map, and :class:`StackFileProblems` listing every key the CLI would refuse or this reader cannot.
    """
    stack = stack_document(path)
    stray = [str(key) for key in stack if ":" in str(key)]
    if stray:  # the CLI reads config only under `config:`; elsewhere these keys are not config at all
        raise StackFileError(f"{path}: {', '.join(stray[:3])}{' ...' * (len(stray) > 3)} at the top level, outside "
                             "`config:`: the Pulumi CLI reads config keys only inside the `config:` map; put a "
                             "`config:` line first and indent these keys below it")
    config = _map(stack.get("config"), path, "its config:")
    wire: dict[str, str] = {}
    written_as: dict[str, str] = {}
    problems: list[str] = []
    unreadable: set[str] = set()  # keys whose value cannot be handed over
    meant: set[str] = set()  # the keys an unreadable one most likely stands for (`prescale:cluster:name`)
    for written, value in config.items():
        key = full_key(str(written), project)
        if key is None:
            problems.append(_unreadable_key(str(written)))
            meant.add(":".join(str(written).split(":")[:2]))
            continue
        if key in written_as:
            problems.append(f"{key}: given twice, as {written_as[key]!r} and {written!r}; the Pulumi CLI would keep "
                            "one of them at random: keep one")
            unreadable.add(key)
        written_as[key] = str(written)
        secrets = _secrets(key, value) if reads(key) else []
        problems += [f"{where}: {{secure: ...}} is an encrypted secret, which prescale plan and schedule "
                     "cannot decrypt (only the Pulumi CLI can, with the stack's secrets provider); nothing in "
                     "prescale's config is secret: write it in plain text (`pulumi config set` without --secret)"
                     for where in secrets]
        if secrets:
            unreadable.add(key)
        wire[key] = value if isinstance(value, str) else json.dumps(value)
    if problems:
        raise StackFileProblems(problems, {key: value for key, value in wire.items() if key not in unreadable},
                                frozenset(unreadable | meant))
    return wire


def stack_document(path: Path) -> dict[str, Any]:
    """A stack file whole, as the Pulumi CLI's YAML reading gives it (what the editors' JSON Schema describes)."""
    return _map(_load(path), path, "the stack file")


def _load(path: Path) -> Any:
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _CliConstructor
    try:
        text = path.read_text(encoding="utf-8-sig")  # -sig: the CLI drops a byte-order mark too
    except UnicodeDecodeError as error:
        raise StackFileError(f"{path}: not valid YAML: {error}") from None
    except (IsADirectoryError, PermissionError) as error:  # a missing file is the caller's to name
        raise StackFileError(f"{path}: cannot be read: {error.strerror}") from None
    try:
        return yaml.load(text)
    except MarkedYAMLError as error:
        raise StackFileError(_syntax_error(path, error)) from None
    except (YAMLError, ValueError) as error:  # ValueError: a tag its value cannot be (!!int x)
        raise StackFileError(f"{path}: not valid YAML: {error}") from None
    except TypeError:  # a key the reader cannot hold: maps listed under a stray `?`
        raise StackFileError(f"{path}: not valid YAML here: a map or a list as a key, where the Pulumi CLI reads "
                             "config keys as text") from None


def _syntax_error(path: Path, error: MarkedYAMLError) -> str:
    """``file, line L, column C: not valid YAML: what the parser expected (while parsing what, from where)``."""
    mark = error.problem_mark or error.context_mark
    where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    context = error.context or ""
    if context and error.context_mark and error.context_mark is not mark:
        context += f" that starts at line {error.context_mark.line + 1}, column {error.context_mark.column + 1}"
    return f"{path}{where}: not valid YAML: {error.problem or context}" + (
        f" ({context})" if error.problem and context else "")


def _map(value: Any, path: Path, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise StackFileError(f"{path}: {what} must be a map of keys, like `config:` followed by indented "
                             f"`prescale:cluster: ...` lines (got {type(value).__name__} {value!r:.60})")
    return value


def full_key(key: str, project: str) -> str | None:
    """The key as the Pulumi CLI reads it, or None where the CLI refuses it."""
    parts = key.split(":")
    if len(parts) == 1:
        return f"{project}:{key}"
    if len(parts) == 2:
        return key
    if len(parts) == 3 and parts[1] == "config":
        return f"{parts[0]}:{parts[2]}"
    return None


def _unreadable_key(key: str) -> str:
    outer, rest = ":".join(key.split(":")[:2]), ".".join(key.split(":")[2:])
    nest = (f"; to set {rest} inside {outer}, nest it: `{outer}:` with `{rest}: ...` indented below"
            if outer in KEYS else "")
    return (f"{key}: not a config key the Pulumi CLI can read (it refuses the whole stack file): keys are "
            f"<namespace>:<name>, with one ':'{nest}")


def _secrets(path: str, value: Any) -> list[str]:
    """Key paths of the ``{secure: <ciphertext>}`` values in ``value`` (the CLI's own test for a secret)."""
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get("secure"), str):
            return [path]
        return [found for key, item in value.items() for found in _secrets(f"{path}.{key}", item)]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in _secrets(f"{path}[{index}]", item)]
    return []
