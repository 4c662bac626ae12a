"""No input crashes prescale: every one-key mistake on a full stack ends in the one ``invalid stack config`` message
naming that key, never another exception.

The mistakes are generated from the stack itself, key by key: the wrong type, null, empty, a string for a number
and a number for a string. They go through the model's validation door (``load_stack_config``), where the cross-key
checks run on what field validation left; a handful run through the whole program (the bad-config corpus and
tests/model/test_one_run.py run more). A ``{secure: ...}`` value makes its whole top-level key unreadable offline,
whatever is below it, so it is tried once per top-level key, through the stack file as ``prescale plan`` reads it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from prescale.model.validation import ConfigError, decode_config, load_stack_config
from prescale.offline import OfflineMocks, run_program
from prescale.stack_file import StackFileProblems, read_config_file

from tests.support import ROOT, load_yaml
from tests.support.config import NOW

# Every key of the config schema that a stack can give at once: the three strategies, a one-off window with a
# reservation, a static pool with a Bottlerocket data volume, a window that takes its times from the calendar.
FULL: dict[str, Any] = load_yaml("""
aws:region: ap-northeast-2
prescale:cluster:
  name: shop-prod
  create: true
  kubernetesVersion: "1.34"
  supportType: STANDARD
  vpcCidr: 10.0.0.0/16
  availabilityZones: 3
  natGateways: single
  endpointPublicAccess: true
  publicAccessCidrs: [0.0.0.0/0]
  endpointPrivateAccess: true
  systemNodeGroup: {instanceTypes: [m7i.large], minSize: 2, desiredSize: 2, maxSize: 3, diskSizeGib: 50}
  adminRoleArns: ["arn:aws:iam::123456789012:role/admin"]
prescale:karpenter:
  install: true
  version: 1.14.1
  controllerAuth: podIdentity
  createSpotServiceLinkedRole: false
  values: {logLevel: info}
prescale:keda: {install: true, version: 2.20.2, values: {logging: {operator: {level: info}}}}
prescale:nodePools:
  - name: event
    capacityTypes: [on-demand, reserved]
    instanceCategories: [c, m]
    architectures: [amd64]
    requirements:
      - {key: topology.kubernetes.io/zone, operator: In, values: [ap-northeast-2a, ap-northeast-2c], minValues: 1}
    nodeSize: {cpu: "2", memory: 4Gi}
    maxPodSize: {cpu: "4", memory: 8Gi}
    limits: {cpu: "512", memory: 2048Gi, nodes: 100}
    capacityReservationSelectorTerms: [{tags: {team: shop}}]
    taints: [{key: prescale.io/event-capacity, value: "", effect: NoSchedule}]
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 2m
    expireAfter: 720h
    terminationGracePeriod: 1h
    weight: 10
    subnetSelectorTerms: [{tags: {tier: private}}]
    securityGroupSelectorTerms: [{tags: {tier: nodes}}]
  - name: fixed
    strategy: static
    requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m7i.xlarge]},
                   {key: topology.kubernetes.io/zone, operator: In, values: [ap-northeast-2a]}]
    limits: {nodes: 20}
    amiAlias: bottlerocket@v1.50.0
    dataVolume: {snapshotID: snap-0123456789abcdef0, volumeInitializationRate: 200}
  - {name: buffered, strategy: buffer, limits: {cpu: "64", memory: 256Gi}}
prescale:eventWindows:
  - {name: lunch, nodePool: event, timezone: Asia/Seoul, start: "15 11 * * *", end: "30 11 * * *", nodes: 5,
     leadTime: 10m, prepullImages: [registry.example.com/shop/web:v1]}
  - name: launch
    nodePool: event
    timezone: Asia/Seoul
    start: "2027-03-02T08:00"
    end: "2027-03-02T14:00"
    capacity: {cpu: "64", memory: 128Gi}
    leadTime: 20m
    reserve: {instanceType: c7i.2xlarge, count: 4, availabilityZones: [ap-northeast-2a], holdFrom: 24h}
  - {name: sale, nodePool: fixed, timezone: Asia/Seoul, start: "0 20 * * 5", end: "0 22 * * 5", nodes: 3}
  - {name: promo, nodePool: buffered, timezone: Asia/Seoul, start: "0 9 * * 1", end: "0 10 * * 1", nodes: 2,
     leadTime: 15m}
  - {name: payday, nodePool: event, event: payday, nodes: 2}
prescale:calendar:
  events:
    - {name: payday, timezone: Asia/Seoul, start: "0 10 25 * *", end: "0 12 25 * *", tags: [finance]}
prescale:quotas: {standard: 2000}
prescale:placeholders:
  image: registry.k8s.io/pause:3.10
  priority: -10
  nodeSize: {cpu: "1", memory: 2Gi}
  maxPodSize: {cpu: "4", memory: 16Gi}
  failsafeGrace: 15m
  failsafeImage: registry.k8s.io/kubectl:v1.34.3
  imagePullSecrets: [regcred]
  prepullToolImage: public.ecr.aws/docker/library/busybox:1.37
prescale:pricing: {vcpuHour: 0.05, instanceTypes: {c7i.xlarge: 0.1785}}
prescale:tags: {team: shop}
prescale:alerts: {prometheusRule: false}
""")

Path_ = tuple[str | int, ...]


def spelled(path: Path_) -> str:
    """A key path as the problems spell it: ``prescale:nodePools[1].limits.nodes``."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).removeprefix(".")


def keys(value: Any, path: Path_) -> Iterator[tuple[Path_, Any]]:
    """Every key of ``value`` (and list entry), at any depth, with its value."""
    yield path, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for part, item in items:
        yield from keys(item, (*path, part))


def mistakes(value: Any) -> dict[str, Any]:
    """The one-key mistakes tried on ``value``, by name."""
    if isinstance(value, bool):
        return {"text": "maybe", "null": None, "number": 1}
    if isinstance(value, int | float):
        return {"text": "many", "null": None, "string for a number": str(value), "zero": 0, "fraction": value + 0.5}
    if isinstance(value, str):
        return {"map": {"x": "y"}, "null": None, "empty": "", "number for a string": 5, "list": [value]}
    if isinstance(value, list):
        return {"map": {"x": "y"}, "null": None, "empty": [], "text": "x"}
    return {"list": ["x"], "null": None, "empty": {}, "text": "x"}


def with_value(path: Path_, value: Any) -> dict[str, Any]:
    raw = copy.deepcopy(FULL)
    *parents, last = path
    holder: Any = raw
    for part in parents:
        holder = holder[part]
    holder[last] = value
    return raw


def named(problem: str, path: str, value: Any) -> bool:
    """Whether ``problem`` is about the key at ``path``: the key itself, a key below it, or the entry that holds it
    (a rule across the entry's keys names the entry); or, for a value valid on its own that a rule across keys
    refuses elsewhere, a problem that names the key or quotes the value (``the cpu limit '5'``)."""
    where, message = problem.split(": ", 1)
    return (where == path or where.startswith((f"{path}.", f"{path}[")) or path.startswith((f"{where}.", f"{where}["))
            or path.removeprefix("prescale:") in message or repr(str(value)) in message)


def outcome(raw: dict[str, Any]) -> list[str] | None:
    """The problems ``raw`` is refused with (None: accepted); any other exception fails the test."""
    try:
        load_stack_config(raw, NOW)
    except ConfigError as error:
        return error.problems
    return None


def test_the_full_stack_is_valid():
    assert outcome(FULL) is None


# Keys that take a number or its text (a Kubernetes quantity, a price), and the Helm values maps, whose types the
# charts decide (prescale.model.checks.helm_values): a number for their text, or text for their number, is valid.
EITHER = {"prescale:nodePools[0].limits.cpu", "prescale:nodePools[2].limits.cpu", "prescale:pricing.vcpuHour",
          "prescale:pricing.instanceTypes.c7i.xlarge"}
FREE_FORM = ("prescale:karpenter.values.", "prescale:keda.values.")
# What may be valid: a key left unset (null), an empty list or map where none is needed, a zero where allowed.
MAYBE_VALID = {"null", "empty", "zero"}


@pytest.fixture(scope="module")
def outcomes() -> dict[tuple[str, str], tuple[Any, list[str] | None | str]]:
    """Each one-key mistake of :data:`FULL` (by key path and mistake): the value written, and the problems it is
    refused with, None if accepted, or the exception it raised instead, as text."""
    found: dict[tuple[str, str], tuple[Any, list[str] | None | str]] = {}
    for path, value in keys(FULL, ()):
        if not path:
            continue
        for mistake, wrong in mistakes(value).items():
            try:
                result: list[str] | None | str = outcome(with_value(path, wrong))
            except Exception as error:  # noqa: BLE001 - the point: any other exception is a crash
                result = f"{type(error).__name__}: {error}"
            found[spelled(path), mistake] = wrong, result
    return found


def test_no_one_key_mistake_raises_anything_but_the_one_config_error(outcomes):
    assert len(outcomes) > 500
    assert {key: result for key, (_, result) in outcomes.items() if isinstance(result, str)} == {}


# One-key mistakes refused for what they leave another key, which the problems name: a window's event unset leaves
# it without the times the event gave it; a calendar without events, the window's event unknown.
NAMED_ELSEWHERE = {("prescale:eventWindows[4].event", "null"), ("prescale:calendar.events", "empty")}


def test_every_one_key_mistake_refused_names_its_key(outcomes):
    unnamed = {key: result for key, (wrong, result) in outcomes.items() if isinstance(result, list)
               and not any(named(problem, key[0], wrong) for problem in result) and key not in NAMED_ELSEWHERE}
    assert unnamed == {}, "\n".join(f"{key}: {problems}" for key, problems in unnamed.items())


def test_no_problem_shows_a_refused_value_as_python_none(outcomes):
    """A rule runs on what is left of a refused entry only if it reads none of its refused keys (which are None
    there): a window refused for its name is not named "None" by the rules that still run on it."""
    assert [problem for _, result in outcomes.values() if isinstance(result, list) for problem in result
            if "None" in problem] == []


def test_no_value_of_the_wrong_type_is_accepted(outcomes):
    accepted = {key for key, (_, result) in outcomes.items() if result is None and key[1] not in MAYBE_VALID
                and key[0] not in EITHER and not key[0].startswith(FREE_FORM)}
    assert accepted == set()


@pytest.mark.parametrize("key", sorted(FULL))
def test_a_secret_as_any_key_is_refused_by_its_key_path_alone(tmp_path, key):
    """Offline, a ``{secure: ...}`` value cannot be read, so its key is refused as the stack file holds it and left
    out of validation; before, ``aws:region`` and ``prescale:cluster`` were then validated as missing (pydantic's
    own ValidationError)."""
    where, secret = (key, {"secure": "v1:abc"}) if not isinstance(FULL[key], dict) else \
        (f"{key}.{next(iter(FULL[key]))}", {**FULL[key], next(iter(FULL[key])): {"secure": "v1:abc"}})
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump({"config": {**FULL, key: secret}}))
    with pytest.raises(StackFileProblems) as unreadable:
        read_config_file(path)
    with pytest.raises(ConfigError) as caught:  # what prescale plan reports with it: the rest is valid
        load_stack_config(decode_config(unreadable.value.wire), NOW, unreadable.value.unreadable)
    assert [problem.split(": ", 1)[0] for problem in unreadable.value.problems] == [where]
    assert caught.value.problems == []


# The crashes of the last trial, through the whole program as `pulumi up` runs it: each a one-field mistake on a
# static pool, which the strategy checks looked up by name among the pools that validated.
STATIC_MISTAKES = {"limits": {"nodes": "20"}, "requirements": [{"key": "node.kubernetes.io/instance-type",
                                                                  "operator": "In", "values": "m7i.xlarge"}],
                   "taints": [{"key": "dedicated", "effect": "NoSchedul"}]}


@pytest.mark.parametrize("key", sorted(STATIC_MISTAKES))
def test_a_static_pools_one_bad_field_is_refused_through_the_whole_program(key):
    raw = with_value(("prescale:nodePools", 1, key), STATIC_MISTAKES[key])
    mocks = OfflineMocks()
    with pytest.raises(ConfigError) as caught:
        run_program(ROOT, "mistake", NOW, config={k: json.dumps(v) if not isinstance(v, str) else v
                                                  for k, v in raw.items()}, mocks=mocks)
    assert [problem for problem in caught.value.problems
            if not problem.startswith(f"prescale:nodePools[1].{key}")] == []
    assert mocks.registrations == []
