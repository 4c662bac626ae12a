"""``eventWindows[].prepullImages`` and ``placeholders.imagePullSecrets``: what the placeholder pods become.

One evaluation of a stack with a `nodes` window and a `capacity` window that prepull images, beside a window that
does not; every assertion is on the Deployments it registers, the Kubernetes schema, the restricted pod security
checks and the policy pack.
"""

from __future__ import annotations

import copy

import kubernetes_validate
import pytest
from prescale.capacity.prepull import NO_OP, TOOLS_PATH
from prescale.model.values.quantity import parse_quantity

from policy.prescale_policies import restricted_pod_problems
from tests.model.test_config import with_changes
from tests.support.capacity import DEPLOYMENT, as_object, pool, run, stack_config, window
from tests.support.config import only_problem
from tests.support.crd_validation import KUBERNETES_VERSION
from tests.support.policy import mandatory, violations

API = "123456789012.dkr.ecr.ap-northeast-2.amazonaws.com/shop/api:v1.4.2"
DISTROLESS = "ghcr.io/acme/web@sha256:" + "0123456789abcdef" * 4
WORKER = "ghcr.io/acme/worker:2026.11"
TOOL = "public.ecr.aws/docker/library/busybox:1.37.0-musl"
RESTRICTED = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
              "capabilities": {"drop": ["ALL"]}}
WINDOWS = [
    window("sale", "0 10 * * *", "0 12 * * *", nodes=3, prepullImages=[API, DISTROLESS]),
    window("batch", "0 20 * * *", "0 22 * * *", capacity={"cpu": "12", "memory": "48Gi"}, prepullImages=[WORKER]),
    window("plain", "0 14 * * *", "0 15 * * *", nodes=2),
]


@pytest.fixture(scope="module")
def prepulling():
    """The stack above, its windows prepulling and pull secrets set, evaluated once: read-only, copy to change."""
    return run(stack_config([pool()], WINDOWS, placeholders={"imagePullSecrets": ["ghcr-credentials"]}))[0]


@pytest.fixture(scope="module")
def without_prepull():
    """The same windows without their images to pull, evaluated once: read-only, copy to change."""
    plain = [{key: value for key, value in w.items() if key != "prepullImages"} for w in WINDOWS]
    return run(stack_config([pool()], plain))[0]


def pod(evaluation, window_name: str) -> dict:
    return as_object(evaluation.named(DEPLOYMENT, f"{window_name}-placeholders"))["spec"]["template"]["spec"]


def test_each_image_gets_an_init_container_after_the_one_that_copies_the_no_op(prepulling):
    spec = pod(prepulling, "sale")
    mount = {"name": "prepull-tools", "mountPath": TOOLS_PATH}
    tools, *pulls = spec["initContainers"]
    assert {key: tools[key] for key in ("name", "image", "command", "volumeMounts")} == {
        "name": "prepull-tools", "image": TOOL, "command": ["cp", "/bin/true", NO_OP], "volumeMounts": [mount]}
    assert [(c["name"], c["image"]) for c in pulls] == [("prepull-0", API), ("prepull-1", DISTROLESS)]
    for pull in pulls:  # nothing of the image runs: only the copied static no-op, from the read-only volume
        assert (pull["command"], pull["imagePullPolicy"], pull["workingDir"]) == ([NO_OP], "IfNotPresent", TOOLS_PATH)
        assert "args" not in pull and pull["volumeMounts"] == [{**mount, "readOnly": True}]
    assert NO_OP.startswith(f"{TOOLS_PATH}/")
    assert spec["volumes"] == [{"name": "prepull-tools", "emptyDir": {"sizeLimit": "16Mi"}}]
    assert [(c["name"], c["image"]) for c in pod(prepulling, "batch")["initContainers"]] == \
        [("prepull-tools", TOOL), ("prepull-0", WORKER)]


def test_the_pause_container_starts_only_after_every_pull_so_ready_means_the_images_are_there(prepulling):
    spec = pod(prepulling, "sale")
    # Plain init containers (no restartPolicy: Always, which would make them sidecars) run one by one to
    # completion before any container starts, and a pod is Ready only when its containers are.
    assert [c["name"] for c in spec["containers"]] == ["pause"]
    assert all("restartPolicy" not in c for c in spec["initContainers"])
    assert spec["containers"][0]["image"] == "registry.k8s.io/pause:3.10"


def effective_requests(spec: dict) -> dict[str, object]:
    """What the scheduler and Karpenter count for a pod: per resource, the larger of any init container's
    request and the sum of the containers' requests."""
    def requests(container: dict, name: str):
        return parse_quantity(container["resources"]["requests"][name])
    return {name: max([sum(requests(c, name) for c in spec["containers"]),
                       *(requests(c, name) for c in spec.get("initContainers", []))]) for name in ("cpu", "memory")}


@pytest.mark.parametrize("window_name", ["sale", "batch"])
def test_the_pulls_change_neither_the_held_room_nor_the_pods_guaranteed_class(prepulling, without_prepull, window_name):
    spec, before = pod(prepulling, window_name), pod(without_prepull, window_name)
    assert effective_requests(spec) == effective_requests(before)
    pause = spec["containers"][0]["resources"]
    assert pause == before["containers"][0]["resources"] and pause["requests"] == pause["limits"]
    assert all(c["resources"] == pause for c in spec["initContainers"])  # requests = limits everywhere: Guaranteed


def test_every_container_meets_restricted_with_a_read_only_root(prepulling):
    for window_name in ("sale", "batch"):
        spec = pod(prepulling, window_name)
        assert restricted_pod_problems(spec) == []
        assert [c["securityContext"] for c in spec["initContainers"] + spec["containers"]] == \
            [RESTRICTED] * (len(spec["initContainers"]) + 1)
        assert spec["securityContext"] == {"runAsNonRoot": True, "runAsUser": 65535, "runAsGroup": 65535,
                                           "seccompProfile": {"type": "RuntimeDefault"}}


def test_pull_secrets_go_on_every_placeholder_pod(prepulling, without_prepull):
    for window_name in ("sale", "batch", "plain"):
        assert pod(prepulling, window_name)["imagePullSecrets"] == [{"name": "ghcr-credentials"}]
    assert "imagePullSecrets" not in pod(without_prepull, "plain")


def test_a_window_without_prepull_images_renders_as_before_and_no_name_moves(prepulling, without_prepull):
    plain, before = pod(prepulling, "plain"), pod(without_prepull, "plain")
    assert {key: value for key, value in plain.items() if key != "imagePullSecrets"} == before
    assert "initContainers" not in plain and "volumes" not in plain
    assert sorted((r.type, r.name) for r in prepulling.resources) == \
        sorted((r.type, r.name) for r in without_prepull.resources)


def test_the_deployments_pass_the_kubernetes_schema(prepulling):
    deployments = prepulling.of_type(DEPLOYMENT)
    assert len(deployments) == 3
    for deployment in deployments:
        kubernetes_validate.validate(as_object(deployment), KUBERNETES_VERSION, strict=True)


def test_the_policy_pack_passes_the_pods_and_still_refuses_an_unsafe_init_container(prepulling):
    resources = prepulling.resources
    assert mandatory(violations(resources)) == []
    for index, (edit, expected) in enumerate([
            (lambda c: c["securityContext"].update(allowPrivilegeEscalation=True),
             "container 'prepull-tools': allowPrivilegeEscalation must be false"),
            (lambda c: c["securityContext"].update(runAsUser=0), "container 'prepull-0': runAsUser: 0 runs as root"),
            (lambda c: c["securityContext"].pop("capabilities"),
             "container 'prepull-1': capabilities.drop must include ALL")]):
        unsafe = copy.deepcopy(resources)
        deployment = next(r for r in unsafe if (r.type, r.name) == (DEPLOYMENT, "sale-placeholders"))
        edit(deployment.inputs["spec"]["template"]["spec"]["initContainers"][index])
        assert [v.message.split(": ", 1)[1] for v in mandatory(violations(unsafe))] == [expected]


# --- the config -----------------------------------------------------------------------------------------

def test_the_keys_default_to_nothing_extra():
    config = stack_config([pool()], [window("w", "0 10 * * *", "0 11 * * *")])
    assert config.event_windows[0].prepull_images == ()
    assert (config.placeholders.image_pull_secrets, config.placeholders.prepull_tool_image) == ((), TOOL)


@pytest.mark.parametrize("raw, path, fragment", [
    (with_changes(window={"prepullImages": [""]}), "prescale:eventWindows[0].prepullImages[0]:",
     "'' must be an image reference like"),
    (with_changes(window={"prepullImages": ["ghcr.io/Acme/Web:v1"]}), "prescale:eventWindows[0].prepullImages[0]:",
     "a lowercase path"),
    (with_changes(window={"prepullImages": ["nginx latest"]}), "prescale:eventWindows[0].prepullImages[0]:",
     "'nginx latest' must be an image reference"),
    (with_changes(window={"prepullImages": [API, API]}), "prescale:eventWindows[0].prepullImages:",
     f"lists {API} more than once"),
    (with_changes(window={"prepullImages": API}), "prescale:eventWindows[0].prepullImages:", "must be a list"),
    (with_changes(prescale__placeholders={"imagePullSecrets": ["GHCR creds"]}),
     "prescale:placeholders.imagePullSecrets[0]:", "'GHCR creds' must be a Secret name like \"registry-credentials\""),
    (with_changes(prescale__placeholders={"imagePullSecrets": ["a", "a"]}), "prescale:placeholders.imagePullSecrets:",
     "lists a more than once"),
    (with_changes(prescale__placeholders={"prepullToolImage": "busybox:"}), "prescale:placeholders.prepullToolImage:",
     "'busybox:' must be an image reference"),
])
def test_bad_images_and_secret_names_are_refused_by_key(raw, path, fragment):
    problem = only_problem(raw)
    assert problem.startswith(path) and fragment in problem, problem


@pytest.mark.parametrize("image", ["nginx", "localhost:5000/team/app_v2:1.0", "Registry.Example.com:8443/a/b-c/d__e:v1",
                                   "registry.example.com/app:v1@sha256:" + "ab" * 32, API, DISTROLESS])
def test_every_shape_of_reference_the_grammar_allows_is_taken(image):
    config = stack_config([pool()], [window("w", "0 10 * * *", "0 11 * * *", nodes=1, prepullImages=[image])])
    assert config.event_windows[0].prepull_images == (image,)
