"""The stack file's JSON Schema against the program's own reading: it accepts every stack the program accepts, refuses
shapes the program refuses at the key the program names, and reads key spellings as the Pulumi CLI does.

The program's side is always the real one: ``prescale.stack_file`` reads the files, ``prescale.model.validation``
validates them, the bad-input corpus (``tests/bad_configs/``) supplies what users get wrong.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import typing
from datetime import UTC, datetime, timedelta
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from prescale.model.checks.chart_keys import KARPENTER_KEYS
from prescale.model.config import CapacityConfig, Model, StackConfig
from prescale.model.config_schema import stack_file_schema
from prescale.model.validation import ConfigError, decode_config, load_capacity_config, load_stack_config
from prescale.model.values.duration import parse_duration, shorter_than
from prescale.stack_file import read_config_file, stack_document

from tests.model.test_valid_configs import fifty_windows
from tests.support import ROOT, TESTS
from tests.support.capacity import (
    EVERY_KIND_POOLS,
    EVERY_KIND_WINDOWS,
    NATIVE_POOLS,
    NATIVE_WINDOWS,
    RICH_POOLS,
    RICH_WINDOWS,
    pool,
    window,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PROGRAM = Draft202012Validator(stack_file_schema())
LIBRARY = Draft202012Validator(stack_file_schema(library=True))
CORPUS = sorted((TESTS / "bad_configs").glob("*.yaml"))


def models_below(model: type[Model]) -> set[type[Model]]:
    """``model`` and every model its fields hold, however nested (lists, optionals, annotations)."""
    found, todo = set(), [model]
    while todo:
        current = todo.pop()
        if current in found:
            continue
        found.add(current)
        for field in current.model_fields.values():
            todo += [inner for inner in _types_in(field.annotation) if isinstance(inner, type) and issubclass(inner,
                                                                                                                Model)]
    return found


def _types_in(annotation: Any) -> list[Any]:
    return [annotation, *(inner for argument in typing.get_args(annotation) for inner in _types_in(argument))]


def errors(validator: Draft202012Validator, document: dict) -> list[ValidationError]:
    return list(validator.iter_errors(document))


@pytest.fixture(scope="module")
def refusals() -> dict[Path, list[ValidationError]]:
    """What the program's schema says of each bad-input corpus file, computed once for this module (read-only)."""
    return {case: errors(PROGRAM, stack_document(case)) for case in CORPUS}


def key_path(error: ValidationError) -> str:
    """Where an error is, as the program names keys (``prescale:eventWindows[0].timezone``); ``""`` for the whole
    ``config:`` map (a key missing or not allowed there)."""
    parts = list(error.absolute_path)[1:]  # below `config`
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" if index else str(part)
                   for index, part in enumerate(parts))


def keys_named(error: ValidationError) -> set[str]:
    """The keys an error at the ``config:`` map is about: the required ones missing, or those not allowed there."""
    if error.validator == "anyOf":  # none of a required key's spellings; the first is the key itself
        return {error.validator_value[0]["required"][0]}
    assert error.validator == "additionalProperties", error
    return {key if ":" in key else f"prescale:{key}" for key in error.instance
            if key not in error.schema["properties"]
            and not any(re.search(pattern, key) for pattern in error.schema["patternProperties"])}


def stack(**config: Any) -> dict:
    """A stack file of prescale's program with the two required keys and ``config`` (keys with a ``_`` for ``:``)."""
    return {"config": {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "prescale-test"},
                       **{key.replace("__", ":"): value for key, value in config.items()}}}


def test_every_field_of_every_model_has_a_description():
    models = models_below(StackConfig) | models_below(CapacityConfig)
    assert len(models) >= 17
    missing = [f"{model.__name__}.{name}" for model in models for name, field in model.model_fields.items()
               if not (field.description or "").strip()]
    assert missing == []


@pytest.mark.parametrize("library", [False, True], ids=["program", "library"])
def test_the_schema_is_a_valid_draft_2020_12_schema(library):
    schema = stack_file_schema(library=library)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_the_dev_stack_and_the_library_example_are_valid():
    assert errors(PROGRAM, stack_document(ROOT / "Pulumi.dev.yaml")) == []
    example = stack_document(ROOT / "examples" / "existing-cluster" / "Pulumi.dev.yaml")
    assert errors(LIBRARY, example) == []
    # The example is a library program's: prescale's own program would need a cluster.
    assert [keys_named(error) for error in errors(PROGRAM, example)] == [{"prescale:cluster"}]


def test_a_library_schema_refuses_the_platform_keys_a_library_program_does_not_read():
    refused = errors(LIBRARY, stack_document(ROOT / "Pulumi.dev.yaml"))
    assert [keys_named(error) for error in refused] == [{"prescale:cluster", "prescale:karpenter"}]


def test_the_stacks_the_tests_build_are_valid():
    stacks = [stack(prescale__nodePools=RICH_POOLS, prescale__eventWindows=RICH_WINDOWS, prescale__tags={"team": "a"}),
              stack(prescale__nodePools=EVERY_KIND_POOLS, prescale__eventWindows=EVERY_KIND_WINDOWS),
              stack(prescale__nodePools=NATIVE_POOLS, prescale__eventWindows=NATIVE_WINDOWS),
              stack(prescale__nodePools=[pool(name) for name in ("web", "batch", "spot")],
                    prescale__eventWindows=fifty_windows())]
    for document in stacks:
        load_stack_config(document["config"], NOW)  # the program accepts them
        assert errors(PROGRAM, document) == []


# Every key once, with a value the program accepts: the schema must accept each of them. Cross-key rules keep the
# platform keys of a new cluster and those of an existing one in separate stacks.
NEW_CLUSTER = stack(
    prescale__cluster={
        "name": "prescale-test", "create": True, "kubernetesVersion": "1.34", "supportType": "EXTENDED",
        "vpcId": "vpc-0123456789abcdef0", "privateSubnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
        "publicSubnetIds": ["subnet-0123456789abcdef2"], "vpcCidr": "10.1.0.0/16", "availabilityZones": 2,
        "natGateways": "onePerAz", "endpointPublicAccess": True, "publicAccessCidrs": ["203.0.113.0/24"],
        "endpointPrivateAccess": True, "adminRoleArns": ["arn:aws:iam::123456789012:role/platform-admin"],
        "systemNodeGroup": {"instanceTypes": ["m7i.large", "m6i.large"], "minSize": 2, "desiredSize": 3,
                            "maxSize": 4, "diskSizeGib": 80},
        "autoMode": False},
    prescale__karpenter={"install": True, "version": "1.14.1", "controllerAuth": "irsa",
                         "createSpotServiceLinkedRole": True, "nodeRoleName": "KarpenterNodeRole-shop"},
    prescale__keda={"install": True, "version": "2.20.2"},
    prescale__nodePools=[
        {"name": "event", "capacityTypes": ["on-demand", "reserved"], "instanceCategories": ["c", "m"],
         "architectures": ["amd64"], "limits": {"cpu": 1000, "memory": "4000Gi", "nodes": 100},
         "requirements": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                           "values": ["ap-northeast-2a", "ap-northeast-2c"]},
                          {"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                           "values": ["c7i", "m7i", "c6i"], "minValues": 2},
                          {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["3"]}],
         "nodeSize": {"cpu": "2", "memory": "4Gi"}, "maxPodSize": {"cpu": "3", "memory": "12Gi"},
         "amiAlias": "al2023@v20260828",
         "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "shop"}}, {"id": "subnet-0a1b2c3d"}],
         "securityGroupSelectorTerms": [{"tags": {"team": "shop"}}, {"id": "sg-0a1b2c3d"}, {"name": "nodes"}],
         "capacityReservationSelectorTerms": [{"id": "cr-0123456789abcdef0"},
                                              {"tags": {"purpose": "*"}, "ownerID": "123456789012"}],
         "taints": [{"key": "example.com/dedicated", "value": "event", "effect": "NoSchedule"}],
         "consolidationPolicy": "WhenEmpty", "consolidateAfter": "1m30s", "expireAfter": "720h",
         "terminationGracePeriod": "45m", "weight": 10},
    ],
    prescale__eventWindows=[
        {"name": "lunch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "15 11 * * 1-5",
         "end": "30 11 * * 1-5", "nodes": 3, "leadTime": "10m",
         "prepullImages": ["ghcr.io/acme/api:v1", "123456789012.dkr.ecr.ap-northeast-2.amazonaws.com/shop/web:v2"]},
        {"name": "launch", "nodePool": "event", "timezone": "Asia/Seoul", "start": "2027-03-02T09:00",
         "end": "2027-03-02T12:00", "capacity": {"cpu": "24", "memory": "96Gi"}, "leadTime": "20m",
         "reserve": {"instanceType": "m7i.xlarge", "count": 4, "availabilityZones": ["ap-northeast-2a"],
                     "holdFrom": "12h"}},
    ],
    prescale__placeholders={"image": "registry.k8s.io/pause:3.10", "priority": -100,
                            "nodeSize": {"cpu": "1", "memory": "2Gi"}, "maxPodSize": {"cpu": "4", "memory": "16Gi"},
                            "failsafeGrace": "20m", "failsafeImage": "registry.k8s.io/kubectl:v1.34.3",
                            "imagePullSecrets": ["registry-credentials"],
                            "prepullToolImage": "public.ecr.aws/docker/library/busybox:1.37.0-musl"},
    prescale__pricing={"vcpuHour": 0.04, "instanceTypes": {"c7i.xlarge": 0.1785, "m7i.xlarge": 1}},
    prescale__tags={"team": "platform", "cost-center": "42"},
)
EXISTING_CLUSTER = stack(
    prescale__cluster={"name": "shop-prod", "create": False},
    prescale__karpenter={"install": False, "nodeRoleName": "KarpenterNodeRole-shop"},
    prescale__keda={"install": False, "version": "2.18.0"},
    prescale__nodePools=[{"name": "default", "existing": True, "limits": {"cpu": "1000"},
                          "taints": [{"key": "dedicated", "effect": "PreferNoSchedule"}]},
                         {"name": "flash", "nodeClassName": "default", "limits": {"memory": "1024Gi"}}],
    prescale__eventWindows=[{"name": "rush", "nodePool": "default", "timezone": "Europe/Dublin",
                             "start": "0 8 * * *", "end": "0 10 * * *", "nodes": 2}],
    prescale__alerts={"prometheusRule": True},
)


@pytest.mark.parametrize("document", [NEW_CLUSTER, EXISTING_CLUSTER], ids=["new-cluster", "existing-cluster"])
def test_a_stack_giving_every_key_once_is_valid(document):
    load_stack_config(document["config"], NOW)  # the program accepts it
    assert errors(PROGRAM, document) == []


def test_the_pulumi_stack_file_keys_beside_config_are_allowed_and_others_flagged():
    pulumi_keys = {"secretsprovider": "awskms://alias/pulumi", "encryptedkey": "AQICAHg=", "encryptionsalt": "v1:abc",
                   "environment": ["shop/dev"], "mainEnvironment": "shop/dev@3"}
    assert errors(PROGRAM, {**stack(), **pulumi_keys}) == []
    assert errors(PROGRAM, {**stack(), "environment": {"imports": ["shop/dev"]}}) == []
    flagged = errors(PROGRAM, {"configs": stack()["config"]})
    assert {error.validator for error in flagged} == {"required", "additionalProperties"}


@pytest.mark.parametrize("case", CORPUS, ids=lambda path: path.stem)
def test_where_the_schema_refuses_a_bad_stack_it_names_the_key_the_program_names(refusals, case):
    """Each broken stack file is either beyond what JSON Schema says (the program alone refuses it) or refused at
    the key the program names: never at another key, which would be a valid value refused."""
    expected = re.search(r"^# expect-path: (.*)$", case.read_text(), re.MULTILINE)[1]
    for error in refusals[case]:
        where = key_path(error)
        if where:
            assert expected.startswith(where) or where.startswith(expected), (where, error.message)
        else:
            assert any(re.match(rf"{re.escape(key)}\b", expected) for key in keys_named(error)), error.message


def test_the_schema_refuses_what_users_get_wrong_most_often(refusals):
    refused = {case.stem for case in CORPUS if refusals[case]}
    assert {"typo-top-level-key", "typo-in-key-without-namespace", "typo-nested-key", "colon-in-key-name",
            "missing-region", "string-for-number", "zero-nodes", "yaml-no-for-bool", "number-for-duration",
            "float-kubernetes-version", "map-where-list-belongs", "list-where-map-belongs", "malformed-quantity",
            "version-not-semver", "invalid-window-name", "secure-value-offline", "capacity-type-outside-set",
            "prepull-image-listed-twice"} <= refused
    assert len(refused) >= 29


def test_a_misspelled_key_and_a_wrong_type_are_refused_where_they_are():
    (typo,) = errors(PROGRAM, stack(prescale__eventWindow=[]))
    assert keys_named(typo) == {"prescale:eventWindow"}
    (nested,) = errors(PROGRAM, stack(prescale__keda={"verison": "2.20.2"}))
    assert (key_path(nested), nested.validator) == ("prescale:keda", "additionalProperties")
    (wrong,) = errors(PROGRAM, stack(prescale__nodePools=[pool("event", weight="10")]))
    assert (key_path(wrong), wrong.instance) == ("prescale:nodePools[0].weight", "10")


CANDIDATE_KEYS = ["keda", "prescale:keda", "prescale:config:keda", "kedas", "prescale:kedas", "prescale:config:kedas",
                  "prescale:keda:version", "shop:keda", "shop:config:keda", "shop:keda:version", "aws:profile",
                  "aws:config:profile", "pulumi:tags"]


@pytest.mark.parametrize("key", CANDIDATE_KEYS)
def test_the_schema_reads_a_keys_spelling_as_the_pulumi_cli_and_prescale_do(key, tmp_path: Path):
    document = stack(**{key.replace(":", "__"): {"version": "2.20.2"}})
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(json.dumps(document))  # JSON is YAML
    try:
        load_stack_config(decode_config(read_config_file(path)), NOW)
        accepted = True
    except ConfigError:
        accepted = False
    assert (errors(PROGRAM, document) == []) is accepted


@pytest.mark.parametrize("key", ["clusterName", "prescale:keda", "prescale:config:keda", "prescale:cluster",
                                 "prescale:karpenter", "shop-events:clusterName", "prescale:clusterName"])
def test_the_library_schema_reads_a_keys_spelling_as_a_library_program_does(key, tmp_path: Path):
    document = {"config": {key: {"version": "2.20.2"}}}
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(json.dumps(document))
    try:
        load_capacity_config(decode_config(read_config_file(path, project="shop-events")), NOW)
        accepted = True
    except ConfigError:
        accepted = False
    assert (errors(LIBRARY, document) == []) is accepted


def _subschemas(schema: Any) -> typing.Iterator[dict]:
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _subschemas(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _subschemas(value)


def test_every_default_is_valid_where_it_stands():
    """An editor offers the defaults on completion: each must pass its own schema."""
    schema = stack_file_schema()
    checked = 0
    for part in _subschemas(schema):
        if "default" in part and isinstance(part, dict):
            own = {key: value for key, value in part.items() if key != "default"}
            validator = Draft202012Validator({**own, "$defs": schema["$defs"]})
            assert list(validator.iter_errors(part["default"])) == [], part
            checked += 1
    assert checked >= 60


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_every_pattern_is_a_javascript_regexp_as_the_yaml_language_server_compiles_it():
    """yaml-language-server compiles patterns with `new RegExp(pattern, 'u')` (src/languageservice/utils/strings.ts,
    extendedRegExp), where Python-only syntax such as `(?P<name>...)` fails."""
    patterns = sorted({part["pattern"] for part in _subschemas(stack_file_schema()) if "pattern" in part}
                      | {key for part in _subschemas(stack_file_schema()) for key in part.get("patternProperties", {})})
    script = "for (const p of JSON.parse(require('fs').readFileSync(0, 'utf8'))) new RegExp(p, 'u');"
    done = subprocess.run(["node", "-e", script], input=json.dumps(patterns), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(patterns) >= 30


def program_reads(document: dict, path: Path) -> bool:
    """Whether prescale's program accepts ``document`` read from a stack file, as ``pulumi up`` and the offline
    commands read it."""
    path.write_text(json.dumps(document))  # JSON is YAML
    try:
        load_stack_config(decode_config(read_config_file(path)), NOW)
    except ConfigError:
        return False
    return True


def test_a_secret_where_a_map_of_text_goes_is_refused_and_a_map_with_a_key_named_secure_is_not(tmp_path: Path):
    """`{secure: <ciphertext>}` is a map of text too: only the schema's `not` tells the Pulumi CLI's secret apart."""
    secret = stack(prescale__tags={"secure": "v1:Y2lwaGVydGV4dA==:c2FsdA=="})
    (refused,) = errors(PROGRAM, secret)
    assert (key_path(refused), refused.validator) == ("prescale:tags", "not")
    assert not program_reads(secret, tmp_path / "Pulumi.dev.yaml")
    tags = stack(prescale__tags={"secure": "yes", "team": "shop"})
    assert errors(PROGRAM, tags) == [] and program_reads(tags, tmp_path / "Pulumi.dev.yaml")


def test_a_library_programs_stack_file_needs_no_config_and_prescales_program_does():
    """A library program's prescale keys all have defaults (docs/library.md): `pulumi stack init` writes a stack file
    with no `config:` at all, which it runs as is."""
    load_capacity_config({}, NOW)
    for document in ({}, {"secretsprovider": "awskms://alias/pulumi", "encryptionsalt": "v1:abc"}):
        assert errors(LIBRARY, document) == []
        assert [error.validator for error in errors(PROGRAM, document)] == ["required"]


# --- what one key alone decides -----------------------------------------------------------------------------
# Each case: a stack file the program refuses for one key's value alone, the key, and the same stack with a value next
# to it that both accept. The schema must refuse the first at that key and accept the second.
ONE_KEY = {
    "zero-cpu-request": ("prescale:placeholders.nodeSize.cpu", stack(prescale__placeholders={"nodeSize": {
        "cpu": "0", "memory": "2Gi"}}), stack(prescale__placeholders={"nodeSize": {"cpu": "0.5", "memory": "2Gi"}})),
    "zero-memory-request": ("prescale:eventWindows[0].capacity.memory", stack(
        prescale__nodePools=[pool()],
        prescale__eventWindows=[window("sale", "0 8 * * *", "0 9 * * *", capacity={"cpu": "4", "memory": "0Gi"})]),
        stack(prescale__nodePools=[pool()], prescale__eventWindows=[
            window("sale", "0 8 * * *", "0 9 * * *", capacity={"cpu": "4", "memory": "10Gi"})])),
    "zero-exponent-limit": ("prescale:nodePools[0].limits.cpu", stack(prescale__nodePools=[pool(limits={
        "cpu": "0e3"})]), stack(prescale__nodePools=[pool(limits={"cpu": "1e3"})])),
    "negative-memory-limit": ("prescale:nodePools[0].limits.memory", stack(prescale__nodePools=[pool(limits={
        "memory": "-64Gi"})]), stack(prescale__nodePools=[pool(limits={"memory": "64Gi"})])),
    "failsafe-grace-below-its-least": ("prescale:placeholders.failsafeGrace", stack(prescale__placeholders={
        "failsafeGrace": "90s"}), stack(prescale__placeholders={"failsafeGrace": "120s"})),
    "zero-hold": ("prescale:eventWindows[0].reserve.holdFrom", stack(
        prescale__nodePools=[pool(capacityTypes=["on-demand", "reserved"])], prescale__eventWindows=[window(
            "launch", "2027-03-02T09:00", "2027-03-02T12:00", nodes=2, reserve={
                "instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a"], "holdFrom": "0h"})]),
        stack(prescale__nodePools=[pool(capacityTypes=["on-demand", "reserved"])], prescale__eventWindows=[window(
            "launch", "2027-03-02T09:00", "2027-03-02T12:00", nodes=2, reserve={
                "instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a"], "holdFrom": "1m"})])),
    "ipv4-prefix-over-32": ("prescale:cluster.vpcCidr", stack(prescale__cluster={
        "name": "prescale-test", "vpcCidr": "10.0.0.0/33"}), stack(prescale__cluster={
            "name": "prescale-test", "vpcCidr": "10.0.0.0/16"})),
    "ipv4-octet-over-255": ("prescale:cluster.publicAccessCidrs[0]", stack(prescale__cluster={
        "name": "prescale-test", "publicAccessCidrs": ["203.0.113.256/32"]}), stack(prescale__cluster={
            "name": "prescale-test", "publicAccessCidrs": ["203.0.113.255/32"]})),
    "ipv6-prefix-over-128": ("prescale:cluster.publicAccessCidrs[0]", stack(prescale__cluster={
        "name": "prescale-test", "publicAccessCidrs": ["2001:db8::/129"]}), stack(prescale__cluster={
            "name": "prescale-test", "publicAccessCidrs": ["2001:db8::/128"]})),
    "karpenter-values-unknown-key": ("prescale:karpenter.values.controler", stack(prescale__karpenter={
        "values": {"controler": {"resources": {}}}}), stack(prescale__karpenter={
            "values": {"controller": {"resources": {"requests": {"cpu": "500m"}}}}})),
    "karpenter-values-unknown-nested-key": ("prescale:karpenter.values.settings.batchMaxDurations", stack(
        prescale__karpenter={"values": {"settings": {"batchMaxDurations": "10s"}}}), stack(
            prescale__karpenter={"values": {"settings": {"batchMaxDuration": "10s"}}})),
    "karpenter-values-dotted-key": ("prescale:karpenter.values.settings.batchMaxDuration", stack(
        prescale__karpenter={"values": {"settings.batchMaxDuration": "10s"}}), stack(
            prescale__karpenter={"values": {"logLevel": "debug"}})),
    "keda-values-unknown-key": ("prescale:keda.values.operatr", stack(prescale__keda={
        "values": {"operatr": {}}}), stack(prescale__keda={"values": {"logging": {"operator": {"level": "debug"}}}})),
}


@pytest.mark.parametrize("key, refused, accepted", ONE_KEY.values(), ids=ONE_KEY.keys())
def test_a_value_one_key_alone_refuses_is_refused_by_the_schema_at_that_key(key, refused, accepted, tmp_path):
    assert not program_reads(refused, tmp_path / "Pulumi.dev.yaml")
    found = errors(PROGRAM, refused)
    assert found and all(key.startswith(key_path(error)) and key_path(error) for error in found), found
    assert program_reads(accepted, tmp_path / "Pulumi.dev.yaml")
    assert errors(PROGRAM, accepted) == []


def test_the_chart_keys_reach_the_schema_from_the_charts_own_key_lists():
    definitions = stack_file_schema()["$defs"]
    assert definitions["KarpenterConfig"]["properties"]["values"]["allOf"] == [
        {"$ref": "#/$defs/KarpenterChartValues"}]
    values = definitions["KarpenterChartValues"]
    assert values["additionalProperties"] is False and set(values["properties"]) == set(KARPENTER_KEYS)
    settings = values["properties"]["settings"]
    assert set(settings["properties"]) == set(KARPENTER_KEYS["settings"])
    assert values["properties"]["nodeSelector"] is True  # read whole by the templates: any content


@pytest.mark.parametrize("minimum", [1, 2, 15])
def test_the_pattern_of_durations_below_a_minimum_never_matches_one_at_or_above_it(minimum):
    below = re.compile(shorter_than(timedelta(minutes=minimum)))
    numbers = ["0", "00", "1", "1.5", ".5", "14", "59", "60", "119", "120", "899", "900", "99999", "100000"]
    units = ["h", "m", "s", "ms"]
    parts = [number + unit for number, unit in product(numbers, units)]
    checked = 0
    for text in (*parts, *map("".join, product(parts, parts[::7]))):
        refused, length = bool(below.fullmatch(text)), parse_duration(text)
        assert not refused or length < timedelta(minutes=minimum), text
        checked += refused
    assert below.fullmatch("0") and below.fullmatch(f"{60 * minimum - 1}s") and below.fullmatch(f"{minimum - 1}m")
    assert checked > 50


def test_a_whole_number_written_with_a_decimal_point_is_the_programs_alone_to_refuse():
    """JSON Schema counts 5.0 an integer (draft 2020-12: "a number with a zero fractional part"), and so do the
    validators: jsonschema, and yaml-language-server, which marks a YAML number integer by its value
    (redhat-developer/yaml-language-server src/languageservice/parser/ast-converter.ts, `Number.isInteger`); no
    keyword can tell the text apart, so the program alone refuses it (it may be a typo for 5.5)."""
    written = stack(prescale__eventWindows=[window("sale", "0 8 * * *", "0 9 * * *", nodes=5.0)])
    assert errors(PROGRAM, written) == []
    with pytest.raises(ConfigError, match="whole number written without a decimal point"):
        load_stack_config(written["config"], NOW)
