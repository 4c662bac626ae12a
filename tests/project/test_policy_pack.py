"""The CrossGuard policy pack, offline: quiet on the dev stack (one advisory), loud on insecure variants.

Policies run through their ``validate`` functions on the dev stack's registrations (whole program under
mocks), shaped as the engine shapes them (:mod:`tests.support.policy`). Insecure variants are the dev stack
with one input edited, and a small program standing for what a user might add next to prescale.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest
from prescale.offline import Evaluation, Registration, evaluate, run_program
from pulumi_policy import EnforcementLevel

from policy.prescale_policies import POLICIES
from tests.platform.test_adoption import LUNCH, PROJECT
from tests.platform.test_adoption import NOW as ADOPTION_NOW
from tests.support import ROOT, load_yaml
from tests.support.platform import revealed
from tests.support.policy import Violation, mandatory, violations

POLICY_DIR = ROOT / "policy"


def test_the_pack_passes_the_dev_stack_with_one_advisory_for_its_open_endpoint(dev_stack):
    found = violations(dev_stack.resources)
    assert mandatory(found) == []
    assert found == [Violation("eks-public-endpoint-limited", EnforcementLevel.ADVISORY,
                               "prescale-cluster-eks: the public API endpoint is open to 0.0.0.0/0; set "
                               "prescale:cluster.publicAccessCidrs to your networks or endpointPublicAccess: false")]


def test_every_rule_is_mandatory_except_the_public_endpoint():
    levels = {policy.name: policy.enforcement_level for policy in POLICIES}
    assert len(levels) == len(POLICIES) == 11
    assert {name for name, level in levels.items() if level != EnforcementLevel.MANDATORY} == \
        {"eks-public-endpoint-limited"}
    assert all(policy.description for policy in POLICIES)


def test_the_pack_directory_is_a_python_pack_with_production_levels_and_the_suites_pin():
    assert load_yaml((POLICY_DIR / "PulumiPolicy.yaml").read_text())["runtime"]["name"] == "python"
    production = json.loads((POLICY_DIR / "production.json").read_text())
    assert production == {"eks-public-endpoint-limited": {"enforcementLevel": "mandatory"}}
    pinned = "pulumi-policy==1.21.0"
    assert pinned in (POLICY_DIR / "requirements.txt").read_text().split()
    assert pinned in (POLICY_DIR.parent / "requirements.txt").read_text().split()


# --- insecure variants of the dev stack ---------------------------------------------------------------

def edited(dev_stack: Evaluation, type_: str, name: str, edit: Callable[[dict[str, Any]], None]) -> list[Registration]:
    """The dev stack with one resource's inputs changed by ``edit`` (on a copy)."""
    resources = []
    for registration in dev_stack.resources:
        if (registration.type, registration.name) == (type_, name):
            inputs = copy.deepcopy(registration.inputs)
            edit(inputs)
            registration = dataclasses.replace(registration, inputs=inputs)
        resources.append(registration)
    return resources


DEPLOYMENT = ("kubernetes:apps/v1:Deployment", "lunch-rush-placeholders")
CRON_JOB = ("kubernetes:batch/v1:CronJob", "lunch-rush-failsafe-job")
NODE_CLASS = ("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "event-node-class")
CONTROLLER_POLICY = ("aws:iam/rolePolicy:RolePolicy", "prescale-karpenter-controller")


def pod(inputs: dict) -> dict:
    return inputs["spec"]["template"]["spec"]


def container(inputs: dict) -> dict:
    return pod(inputs)["containers"][0]


def failsafe_container(inputs: dict) -> dict:
    return inputs["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]


def allow_root(inputs: dict) -> None:
    pod(inputs)["securityContext"].pop("runAsNonRoot")
    container(inputs)["securityContext"].pop("runAsNonRoot")


def add_statement(statement: dict) -> Callable[[dict], None]:
    def edit(inputs: dict) -> None:
        document = json.loads(revealed(inputs["policy"]))
        document["Statement"].append({"Sid": "Added", "Effect": "Allow", **statement})
        inputs["policy"] = json.dumps(document)
    return edit


def container_context(**values: Any) -> Callable[[dict], None]:
    return lambda inputs: container(inputs)["securityContext"].update(values)


def pod_fields(**values: Any) -> Callable[[dict], None]:
    return lambda inputs: pod(inputs).update(values)


def metadata_options(**values: Any) -> Callable[[dict], None]:
    return lambda inputs: inputs["spec"]["metadataOptions"].update(values)


VARIANTS = {
    "privilege escalation": (DEPLOYMENT, container_context(allowPrivilegeEscalation=True),
                             "container 'pause': allowPrivilegeEscalation must be false"),
    "privileged": (DEPLOYMENT, container_context(privileged=True), "privileged: true"),
    "added capability": (DEPLOYMENT, container_context(capabilities={"drop": ["ALL"], "add": ["SYS_ADMIN"]}),
                         "capabilities.add may only hold NET_BIND_SERVICE (got SYS_ADMIN)"),
    "root": (DEPLOYMENT, container_context(runAsUser=0), "container 'pause': runAsUser: 0 runs as root"),
    "root allowed": (DEPLOYMENT, allow_root,
                     "container 'pause': runAsNonRoot must be true (on the container or the pod)"),
    "unconfined seccomp": (DEPLOYMENT, container_context(seccompProfile={"type": "Unconfined"}),
                           "seccompProfile.type must be RuntimeDefault or Localhost (got 'Unconfined')"),
    "host network": (DEPLOYMENT, pod_fields(hostNetwork=True), "hostNetwork: true"),
    "host path": (DEPLOYMENT, pod_fields(volumes=[{"name": "root", "hostPath": {"path": "/"}}]),
                  "volume 'root': hostPath is not allowed"),
    "failsafe keeps capabilities": (CRON_JOB, lambda i: failsafe_container(i)["securityContext"].pop("capabilities"),
                                    "container 'scale-to-zero': capabilities.drop must include ALL"),
    "positive priority": (("kubernetes:scheduling.k8s.io/v1:PriorityClass", "prescale-placeholder-priority"),
                          lambda i: i.update(value=10),
                          "PriorityClass 'prescale-placeholder' must have a negative value"),
    # 0 is the default priority: pods without a class could not preempt placeholders.
    "zero priority": (("kubernetes:scheduling.k8s.io/v1:PriorityClass", "prescale-placeholder-priority"),
                      lambda i: i.update(value=0),
                      "Never and globalDefault false (got value 0, preemptionPolicy 'Never'"),
    "foreign priority class": (DEPLOYMENT, pod_fields(priorityClassName="system-cluster-critical"),
                               "priorityClassName 'system-cluster-critical' is not a PriorityClass of this stack"),
    "IMDSv1": (NODE_CLASS, metadata_options(httpTokens="optional"), "metadataOptions.httpTokens must be 'required'"),
    "IMDS reachable from pods": (NODE_CLASS, metadata_options(httpPutResponseHopLimit=2),
                                 "metadataOptions.httpPutResponseHopLimit must be 1"),
    "unencrypted volume": (NODE_CLASS, lambda i: i["spec"]["blockDeviceMappings"][0]["ebs"].update(encrypted=False),
                           "blockDeviceMappings[0] (/dev/xvda): ebs.encrypted must be true"),
    "AMI default volumes": (NODE_CLASS, lambda i: i["spec"].pop("blockDeviceMappings"),
                            "blockDeviceMappings must list every volume"),
    "plain queue": (("aws:sqs/queue:Queue", "prescale-karpenter-interruption"),
                    lambda i: i.update(sqsManagedSseEnabled=False), "set sqsManagedSseEnabled: true"),
    "every action": (CONTROLLER_POLICY, add_statement({"Action": "*", "Resource": "*"}),
                     "Added: action '*' is a wildcard"),
    "service wildcard": (CONTROLLER_POLICY, add_statement({"Action": ["ec2:*"], "Resource": "*"}),
                         "Added: action 'ec2:*' is a wildcard"),
    "not action": (CONTROLLER_POLICY, add_statement({"NotAction": "iam:*", "Resource": "*"}),
                   "Added: Allow with NotAction grants every other action"),
    "pass any role": (CONTROLLER_POLICY, add_statement({"Action": "iam:PassRole", "Resource": "*"}),
                      "Added: iam:PassRole on *; name the roles"),
    "untagged delete": (CONTROLLER_POLICY,
                        add_statement({"Action": "ec2:TerminateInstances", "Resource": "arn:aws:ec2:*:*:instance/*"}),
                        "Added: ec2:TerminateInstances on a wildcard resource without an aws:ResourceTag/ condition"),
}


@pytest.mark.parametrize("target, edit, expected", VARIANTS.values(), ids=VARIANTS.keys())
def test_an_insecure_variant_fails_with_a_mandatory_violation_naming_the_problem(dev_stack, target, edit, expected):
    found = mandatory(violations(edited(dev_stack, *target, edit)))
    assert found and all(expected in v.message for v in found), found


@pytest.mark.parametrize("public, cidrs, expected", [
    (True, ["203.0.113.0/24"], []),
    (False, None, []),
    (True, ["10.0.0.0/8", "::/0"], ["prescale-cluster-eks: the public API endpoint is open to ::/0"]),
])
def test_the_endpoint_rule_accepts_limited_or_private_endpoints(dev_stack, public, cidrs, expected):
    def edit(inputs: dict) -> None:
        inputs.update(endpointPublicAccess=public, publicAccessCidrs=cidrs)
    found = [v.message.split(";")[0]
             for v in violations(edited(dev_stack, "eks:index:Cluster", "prescale-cluster-eks", edit))]
    assert found == expected


# --- what users add next to prescale ------------------------------------------------------------------

def users_additions() -> None:
    """Resources a user might add to the program: the pack judges them like prescale's own."""
    options = pulumi.ResourceOptions(provider=k8s.Provider("user-k8s", kubeconfig="{}"))
    app = {"metadata": {"labels": {"app": "x"}},
           "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}
    for namespace in ("prescale", "default"):
        k8s.apps.v1.Deployment(f"app-{namespace}", metadata={"name": "app", "namespace": namespace},
                               spec={"selector": {"matchLabels": {"app": "x"}}, "template": app}, opts=options)
    aws.iam.Policy("admin", policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    aws.sqs.Queue("plain")
    aws.eks.Cluster("raw", role_arn="arn:aws:iam::123456789012:role/eks",
                    vpc_config={"subnet_ids": ["subnet-1"], "endpoint_public_access": True})


def test_what_users_add_is_judged_too():
    found = violations(evaluate(users_additions).resources)
    assert {(v.policy, v.message.split(":")[0]) for v in found} == {
        ("prescale-pods-restricted", "kubernetes"),  # the Deployment in prescale; the one in default is not ours
        ("iam-no-wildcard-actions", "admin"),
        ("sqs-encrypted", "plain"),
        ("eks-public-endpoint-limited", "raw"),  # aws.eks.Cluster's own shape: vpcConfig
    }
    assert all("app-default" not in v.message for v in found)
    assert "kubernetes:apps/v1:Deployment app-prescale: container 'app': allowPrivilegeEscalation must be false" in \
        [v.message for v in found]


# --- placeholders on a NodePool prescale does not own ------------------------------------------------------

@pytest.fixture(scope="module")
def existing_pool_stack() -> list[Registration]:
    """Placeholders on a pool prescale does not own, evaluated once for this module: read-only, copy to change."""
    wire = {"aws:region": "ap-northeast-2", "prescale:cluster": json.dumps({"name": "shop", "create": False}),
            "prescale:nodePools": json.dumps([{"name": "general-purpose", "existing": True}]),
            "prescale:eventWindows": json.dumps([{**LUNCH, "nodePool": "general-purpose"}])}
    return run_program(PROJECT, "adoption", ADOPTION_NOW, config=wire).resources


def test_placeholders_on_an_existing_pool_pass_the_pack(existing_pool_stack):
    assert mandatory(violations(existing_pool_stack)) == []


@pytest.mark.parametrize("annotation", [None, "30m"])
def test_placeholders_on_an_existing_pool_without_do_not_disrupt_fail(existing_pool_stack, annotation):
    resources = copy.deepcopy(existing_pool_stack)
    deployment = next(r for r in resources if r.type == "kubernetes:apps/v1:Deployment")
    metadata = deployment.inputs["spec"]["template"]["metadata"]
    metadata["annotations"] = {} if annotation is None else {"karpenter.sh/do-not-disrupt": annotation}
    found = mandatory(violations(resources))
    assert [v.policy for v in found] == ["placeholders-on-foreign-pools-do-not-disrupt"]
    assert "'general-purpose'" in found[0].message and repr(annotation) in found[0].message


# --- static and buffer windows -------------------------------------------------------------------------------

def native_edited(native: Evaluation, type_: str, name: str, edit: Callable[[Registration], Registration]
                  ) -> list[Registration]:
    """The static and buffer stack's registrations with one of them changed by ``edit``."""
    return [edit(r) if (r.type, r.name) == (type_, name) else r for r in native.resources]


def inputs_edited(edit: Callable[[dict], None]) -> Callable[[Registration], Registration]:
    def change(registration: Registration) -> Registration:
        inputs = copy.deepcopy(registration.inputs)
        edit(inputs)
        return dataclasses.replace(registration, inputs=inputs)
    return change


def test_the_pack_passes_static_and_buffer_windows_and_their_snapshot_data_volume(native_run):
    assert violations(native_run[0].resources) == []
    node_class = native_run[0].named("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "buffer-node-class")
    assert "encrypted" not in node_class.inputs["spec"]["blockDeviceMappings"][1]["ebs"]  # the snapshot's own


NATIVE_VARIANTS = {
    "static count set back by pulumi up": (
        ("kubernetes:karpenter.sh/v1:NodePool", "lunch-static-node-pool"),
        lambda r: dataclasses.replace(r, ignore_changes=[]), "driven-counts-ignored",
        "lunch-static-node-pool: spec.replicas is set by its driver"),
    "buffer count set back by pulumi up": (
        ("kubernetes:autoscaling.x-k8s.io/v1beta1:CapacityBuffer", "sale-buffer"),
        lambda r: dataclasses.replace(r, ignore_changes=[]), "driven-counts-ignored",
        "sale-buffer: spec.replicas is set by its driver"),
    "driver allowed every node pool": (
        ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "lunch-driver-cluster-role"),
        inputs_edited(lambda i: i["rules"][1].pop("resourceNames")), "prescale-roles-name-their-objects",
        "lunch-driver-cluster-role: rules[1]: no resourceNames"),
    "driver allowed every verb": (
        ("kubernetes:rbac.authorization.k8s.io/v1:Role", "sale-driver-role"),
        inputs_edited(lambda i: i["rules"][0].update(verbs=["*"])), "prescale-roles-name-their-objects",
        "sale-driver-role: rules[0]: a wildcard in verbs"),
    "buffer template escalates": (
        ("kubernetes:core/v1:PodTemplate", "sale-pod-template"),
        inputs_edited(lambda i: i["template"]["spec"]["containers"][0]["securityContext"].update(
            allowPrivilegeEscalation=True)), "prescale-pods-restricted",
        "container 'pause': allowPrivilegeEscalation must be false"),
    "prepull as root": (
        ("kubernetes:apps/v1:DaemonSet", "lunch-prepull"),
        inputs_edited(lambda i: i["spec"]["template"]["spec"]["securityContext"].update(runAsUser=0)),
        "prescale-pods-restricted", "securityContext.runAsUser: 0 runs as root"),
    "unencrypted blank volume": (
        ("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "buffer-node-class"),
        inputs_edited(lambda i: i["spec"]["blockDeviceMappings"][1]["ebs"].pop("snapshotID")),
        "ec2nodeclass-imdsv2-encrypted", "blockDeviceMappings[1] (/dev/xvdb): ebs.encrypted must be true"),
}


@pytest.mark.parametrize("target, edit, policy, expected", NATIVE_VARIANTS.values(), ids=NATIVE_VARIANTS.keys())
def test_a_native_variant_fails_the_rule_it_breaks(native_run, target, edit, policy, expected):
    found = mandatory(violations(native_edited(native_run[0], *target, edit)))
    assert [v.policy for v in found] == [policy] and expected in found[0].message, found
