"""prescale's Pulumi plugin package (``provider/``): the schema it serves, and a Construct of its component.

The schema comes from the plugin itself, started the way the Python language host starts it
(``python provider <engine address>``, pulumi/pulumi ``sdk/python/cmd/pulumi-language-python/main.go``
``RunPlugin``) and asked over gRPC, as the engine asks at ``pulumi package add``. Construct runs the SDK's own
``ComponentProvider.construct`` (what the plugin's gRPC server calls) under mocks, on inputs in the engine's wire
form. What stays unproven without a Pulumi CLI: SDK generation from this schema, and Construct through a real
engine (docs/library.md, "Other languages").
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import tomllib
import types
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import grpc
import pulumi
import pytest
from google.protobuf import empty_pb2
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from prescale.model.config import CapacityConfig
from prescale.model.validation import ConfigError
from prescale.offline import Evaluation, OfflineMocks, Registration, evaluate, is_secret, revealed
from prescale.plugin import Capacity
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError
from pulumi.resource import DependencyResource
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc
from pydantic import BaseModel

from tests.support import ROOT
from tests.support.capacity import DEPLOYMENT, NODE_CLASS, NODE_POOL, SCALED_OBJECT

PLUGIN = ROOT / "provider"
TOKEN = "prescale:index:Capacity"
PLATFORM_INPUTS = {"clusterName", "kubeconfig", "nodeRoleName"}
# Read only by `prescale schedule`'s cost estimate, from a stack file: no input of the component.
NOT_AN_INPUT = {"pricing"}
# The host dials the engine only while it constructs (Construct and Call hand the address to the runtime), so
# GetSchema needs none listening here.
ENGINE = "127.0.0.1:1"
SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


@pytest.fixture(scope="module")
def served() -> tuple[str, dict[str, Any]]:
    """(GetPluginInfo's version, GetSchema's schema) from the plugin running as its own process."""
    plugin = subprocess.Popen([sys.executable, str(PLUGIN), ENGINE], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert plugin.stdout is not None
        ready, _, _ = select.select([plugin.stdout], [], [], 30)
        line = plugin.stdout.readline() if ready else ""
        assert line.strip().isdigit(), f"the plugin printed no port: {line!r}"
        with grpc.insecure_channel(f"127.0.0.1:{line.strip()}") as channel:
            stub = provider_pb2_grpc.ResourceProviderStub(channel)
            info = stub.GetPluginInfo(empty_pb2.Empty(), timeout=10)
            schema = stub.GetSchema(provider_pb2.GetSchemaRequest(version=0), timeout=10).schema
        return info.version, json.loads(schema)
    finally:
        plugin.kill()
        _, errors = plugin.communicate(timeout=10)
        print(errors, file=sys.stderr)  # shown by pytest when a test here fails


@pytest.fixture(scope="module")
def schema(served) -> dict[str, Any]:
    return served[1]


@pytest.fixture(scope="module")
def component(schema) -> dict[str, Any]:
    return schema["resources"][TOKEN]


def test_the_plugin_serves_one_component_at_prescales_version(served, schema):
    plugin_version, _ = served
    assert schema["name"] == "prescale"
    assert plugin_version == schema["version"] == version("prescale")
    assert list(schema["resources"]) == [TOKEN]
    assert schema["resources"][TOKEN]["isComponent"] is True


def test_the_cluster_comes_as_inputs_that_may_be_outputs(component):
    """The name and kubeconfig usually come from the program's own cluster resource: no `plain` on them."""
    assert component["requiredInputs"] == ["clusterName", "kubeconfig"]
    for name in PLATFORM_INPUTS:
        spec = component["inputProperties"][name]
        assert (spec["type"], "plain" in spec, bool(spec["description"])) == ("string", False, True), name


def test_the_config_inputs_are_the_capacity_stack_config_keys_typed_as_the_model_takes_them(schema, component):
    """Every key of CapacityConfig (pricing aside) is an input, and so down every nested type: the same keys, the
    same required ones, the same kinds of values, all plain (validated before anything is registered). A field
    added to the model without its input fails here."""
    inputs = {name: spec for name, spec in component["inputProperties"].items() if name not in PLATFORM_INPUTS}
    required = [name for name in component["requiredInputs"] if name in inputs]
    assert shape_mismatches(schema, {"properties": inputs, "required": required}, CapacityConfig, "inputs",
                            left_out=NOT_AN_INPUT) == []


def test_the_outputs_are_a_library_programs_stack_outputs(component):
    outputs = component["properties"]
    assert {name: (spec["type"], spec.get("items", spec.get("additionalProperties", {})).get("type"))
            for name, spec in outputs.items()} == {
        "nodePools": ("array", "string"), "armedWindows": ("array", "string"), "nativeWindows": ("array", "string"),
        "idleWindows": ("object", "string"),
        "reservations": ("object", "object"), "nextUpForReservations": ("string", None)}
    assert component["required"] == ["armedWindows", "idleWindows", "nativeWindows", "nodePools", "reservations"]


def requirement_lines(path: Path) -> list[str]:
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


def pins(path: Path) -> dict[str, str]:
    """Distribution → its exact pin, from a requirements file (its `-e`/path lines aside)."""
    return {canonicalize_name(pin.name): str(pin.specifier)
            for pin in (Requirement(line) for line in requirement_lines(path) if not line.startswith(("-", ".")))}


def test_the_plugin_installs_prescale_from_its_checkout_with_the_runtime_ci_pins():
    assert ".." in requirement_lines(PLUGIN / "requirements.txt")  # prescale: the repository around the plugin
    runtime = {canonicalize_name(Requirement(dependency).name)
               for dependency in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    plugin, repository = pins(PLUGIN / "requirements.txt"), pins(ROOT / "requirements.txt")
    assert set(plugin) == runtime
    assert plugin == {name: repository[name] for name in runtime}


# --- Construct, as the plugin's gRPC server runs it ------------------------------------------------------------

KUBECONFIG = json.dumps({"apiVersion": "v1", "kind": "Config", "clusters": [{"name": "shop"}]})
# The program's own Karpenter and KEDA installs, as Construct hands its dependsOn over.
INSTALLS = "urn:pulumi:dev::shop::kubernetes:helm.sh/v3:Release::karpenter-and-keda"


def wire_inputs(**changes: Any) -> dict[str, Any]:
    """Inputs as the engine hands them to Construct: numbers arrive as floats."""
    return {"clusterName": "shop", "kubeconfig": KUBECONFIG, "nodeRoleName": "shop-nodes", "tags": {"team": "shop"},
            "nodePools": [{"name": "flash-sale", "limits": {"cpu": "256", "memory": "1024Gi"}, "weight": 10.0}],
            "eventWindows": [{"name": "lunch-rush", "nodePool": "flash-sale", "timezone": "Europe/Dublin",
                              "start": "0 12 * * 1-5", "end": "0 14 * * 1-5", "nodes": 3.0}],
            **changes}


def construct(inputs: dict[str, Any], state: dict[str, Any], mocks: OfflineMocks | None = None):
    provider = ComponentProvider([Capacity], "prescale")

    def program() -> None:
        result = provider.construct("shop", TOKEN, inputs, pulumi.ResourceOptions(
            depends_on=[DependencyResource(INSTALLS)]))
        state.update(result.state)
    return evaluate(program, mocks=mocks)


def test_construct_deploys_the_capacity_through_a_provider_of_its_own(monkeypatch):
    monkeypatch.setenv("PRESCALE_NOW", "2026-11-30T12:00:00+00:00")
    state: dict[str, Any] = {}
    evaluation = construct(wire_inputs(), state)
    (capacity,) = evaluation.of_type(TOKEN)
    (provider,) = evaluation.of_type("pulumi:providers:kubernetes")
    assert provider.parent == capacity.urn
    assert is_secret(provider.inputs["kubeconfig"]) and revealed(provider.inputs["kubeconfig"]) == KUBECONFIG
    in_cluster = [r for r in evaluation.resources if r.custom and r.type.startswith("kubernetes:")]
    assert {r.type for r in in_cluster} >= {NODE_POOL, NODE_CLASS, DEPLOYMENT, SCALED_OBJECT}
    assert all(r.provider.startswith(provider.urn + "::") and capacity.urn in ancestors(evaluation, r)
               for r in in_cluster)
    node_pool = evaluation.named(NODE_POOL, "flash-sale-node-pool")
    assert node_pool.inputs["spec"]["weight"] == 10
    for waiting in (node_pool, evaluation.named(NODE_CLASS, "flash-sale-node-class"),
                    evaluation.named(SCALED_OBJECT, "lunch-rush-scaler")):
        assert INSTALLS in waiting.dependencies, waiting.name
    node_class = evaluation.named(NODE_CLASS, "flash-sale-node-class").inputs["spec"]
    assert (node_class["role"], node_class["tags"]["team"]) == ("shop-nodes", "shop")
    assert state == {"nodePools": ["flash-sale"], "armedWindows": ["lunch-rush"], "nativeWindows": [],
                     "idleWindows": {}, "reservations": {}}
    assert capacity.outputs == state  # registered as the engine keeps them (None, no next reservation, is left out)


def test_construct_deploys_a_static_pools_window_as_its_own_static_node_pool(monkeypatch):
    monkeypatch.setenv("PRESCALE_NOW", "2026-11-30T12:00:00+00:00")
    pools = [{**wire_inputs()["nodePools"][0], "strategy": "static", "requirements": [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["c7i.large"]},
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}]}]
    pools[0].pop("weight")  # a static NodePool takes no weight
    state: dict[str, Any] = {}
    evaluation = construct(wire_inputs(nodePools=pools), state)
    assert state["nativeWindows"] == ["lunch-rush"] and state["armedWindows"] == []
    (node_pool,) = [r for r in evaluation.of_type(NODE_POOL) if "replicas" in r.inputs["spec"]]
    assert node_pool.inputs["spec"]["limits"] == {"nodes": "4"}  # 3 and a surge of one


def ancestors(evaluation: Evaluation, registration: Registration) -> list[str]:
    parents = []
    while registration.parent and registration.parent in {r.urn for r in evaluation.resources}:
        registration = evaluation.by_urn(registration.parent)
        parents.append(registration.urn)
    return parents


def test_construct_refuses_bad_inputs_whole_before_registering_anything():
    mocks = OfflineMocks()
    bad_window = {**wire_inputs()["eventWindows"][0], "timezone": "Europe/Dublinn", "nodes": 3.5}
    with pytest.raises(ComponentInitError) as caught:
        construct(wire_inputs(eventWindows=[bad_window]), {}, mocks)
    assert isinstance(caught.value.inner, ConfigError)
    problems = {problem.split(": ")[0]: problem for problem in caught.value.inner.problems}
    assert sorted(problems) == ["prescale:eventWindows[0].nodes", "prescale:eventWindows[0].timezone"]
    assert "(got 3.5)" in problems["prescale:eventWindows[0].nodes"]
    assert mocks.registrations == []


# --- the schema against the model -------------------------------------------------------------------------------


def test_each_config_input_carries_its_config_description(schema):
    """The generated SDKs document every input as docs/config.md does (the inference reads the literal after it)."""
    node_pool = schema["types"]["prescale:index:NodePool"]["properties"]
    assert node_pool["consolidateAfter"]["description"] == \
        CapacityConfig.model_fields["node_pools"].annotation.__args__[0].model_fields["consolidate_after"].description



def shape_mismatches(schema: dict[str, Any], spec: dict[str, Any], model: type[BaseModel], path: str,
                     left_out: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """How an object type of the schema differs from the model: its keys, its required keys, each value's kind."""
    fields = {info.alias or name: info for name, info in model.model_fields.items() if name not in left_out}
    problems = [] if set(spec["properties"]) == set(fields) else [
        f"{path}: keys {sorted(spec['properties'])} where {model.__name__} has {sorted(fields)}"]
    required = sorted(key for key, info in fields.items() if info.is_required())
    if sorted(spec.get("required", [])) != required:
        problems.append(f"{path}: requires {sorted(spec.get('required', []))} where {model.__name__} needs {required}")
    for key in sorted(set(spec["properties"]) & set(fields)):
        problems += value_mismatches(schema, spec["properties"][key], fields[key].annotation, f"{path}.{key}")
    return problems


def value_mismatches(schema: dict[str, Any], prop: dict[str, Any], annotation: Any, path: str) -> list[str]:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return value_mismatches(schema, prop, args[0], path)
    if origin in (Union, types.UnionType):  # optional: the model's required keys say what must be given
        given = [arg for arg in args if arg is not type(None)]
        # A map or its file's path (prescale:calendar): the plugin takes the map.
        models = [arg for arg in given if isinstance(arg, type) and issubclass(arg, BaseModel)]
        return value_mismatches(schema, prop, models[0] if models else given[0], path)
    if annotation is Any:  # any YAML (Helm values): the schema's own "any" type
        return [] if prop.get("$ref") == "pulumi.json#/Any" else [f"{path}: {prop} where the model takes any value"]
    if prop.get("plain") is not True:
        return [f"{path}: not plain"]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if "$ref" not in prop:
            return [f"{path}: {prop} where {annotation.__name__} is an object"]
        return shape_mismatches(schema, schema["types"][prop["$ref"].removeprefix("#/types/")], annotation, path)
    if origin in (list, tuple):
        return ([] if prop.get("type") == "array" else [f"{path}: {prop.get('type')} where the model takes a list"]) \
            + value_mismatches(schema, prop.get("items", {}), args[0], f"{path}[]")
    if origin is dict:
        return ([] if prop.get("type") == "object" else [f"{path}: {prop.get('type')} where the model takes a map"]) \
            + value_mismatches(schema, prop.get("additionalProperties", {}), args[1], f"{path}{{}}")
    wanted = "string" if origin is Literal else SCALARS[annotation]
    return [] if prop.get("type") == wanted else [f"{path}: {prop.get('type')} where the model takes {wanted}"]
