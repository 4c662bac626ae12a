"""The stack config model: every validation rule, its key path, value and allowed values, all at once."""

import copy
import re
from datetime import datetime

import pytest
from prescale.model.schedule.after_end import failsafe_schedule
from prescale.model.validation import ConfigError, decode_config, load_stack_config
from prescale.model.values.duration import parse_duration
from prescale.offline import read_stack_file
from pydantic import ValidationError

from tests.support import ROOT
from tests.support.config import NOW, only_problem, problems

ROOT = ROOT

BASE = {
    "aws:region": "ap-northeast-2",
    "prescale:cluster": {"name": "prescale-dev"},
    "prescale:nodePools": [{"name": "event", "limits": {"cpu": "512", "memory": "2048Gi"}}],
    "prescale:eventWindows": [{"name": "lunch-rush", "nodePool": "event", "timezone": "Asia/Seoul",
                               "start": "15 11 * * *", "end": "30 11 * * *", "nodes": 5}],
}


def with_changes(**changes) -> dict:
    """BASE with keys replaced; `window=`/`pool=` patch the first window or pool."""
    raw = copy.deepcopy(BASE)
    raw["prescale:eventWindows"][0].update(changes.pop("window", {}))
    raw["prescale:nodePools"][0].update(changes.pop("pool", {}))
    raw.update({key.replace("__", ":"): value for key, value in changes.items()})
    return raw



def test_dev_stack_is_valid_and_typed():
    config = load_stack_config(decode_config(read_stack_file(ROOT, "dev")), NOW)
    assert config.region == "ap-northeast-2"
    assert (config.cluster.name, config.cluster.create, config.cluster.kubernetes_version) == \
        ("prescale-dev", True, "1.35")
    assert (config.karpenter.version, config.keda.version) == ("1.14.1", "2.20.2")
    assert [(w.name, w.nodes, w.timezone) for w in config.event_windows][:2] == \
        [("lunch-rush", 5, "Asia/Seoul"), ("morning-peak", 10, "Asia/Seoul")]
    launch = config.event_windows[2]
    assert launch.is_one_off and launch.local_start == datetime(2027, 3, 2, 8, 0)
    assert (launch.capacity.cpu, launch.capacity.memory) == ("64", "256Gi")
    assert config.node_pools[0].limits.memory == "2048Gi"


def test_defaults_are_safe():
    config = load_stack_config(BASE, NOW)
    pool, window = config.node_pools[0], config.event_windows[0]
    assert pool.capacity_types == ["on-demand"] and pool.expire_after == "Never"
    assert pool.ami_alias.startswith("al2023@v")  # pinned, never @latest by default
    assert window.lead_time == "10m" and window.lead.total_seconds() == 600
    assert config.karpenter.controller_auth == "podIdentity"
    assert config.cluster.system_node_group.min_size == 2
    assert config.placeholders.priority < 0


@pytest.mark.parametrize("limits, read", [
    # Karpenter's getting-started NodePool: an integer, and no memory limit.
    ({"cpu": 1000}, ("1000", None, None)),
    ({"memory": "64Gi", "nodes": 20}, (None, "64Gi", 20)),
    ({"cpu": "2500m", "memory": "2Ti"}, ("2500m", "2Ti", None)),  # the window's one node has 2 vCPU
    ({"nodes": 3}, (None, None, 3)),
])
def test_limits_take_any_subset_and_integer_quantities(limits, read):
    config = load_stack_config(with_changes(pool={"limits": limits}, window={"nodes": 1}), NOW)
    given = config.node_pools[0].limits
    assert (given.cpu, given.memory, given.nodes) == read


def test_config_objects_are_immutable():
    config = load_stack_config(BASE, NOW)
    with pytest.raises(ValidationError, match="Instance is frozen"):
        config.event_windows[0].nodes = 7
    assert config.event_windows[0].nodes == 5


@pytest.mark.parametrize("sizes", [(2, 2, 2), (2, 3, 3), (2, 2, 3), (3, 4, 5)])
def test_system_node_group_sizes_in_order_or_equal_are_fine(sizes):
    raw = with_changes(prescale__cluster={"name": "prescale-dev", "systemNodeGroup": dict(
        zip(("minSize", "desiredSize", "maxSize"), sizes))})
    group = load_stack_config(raw, NOW).cluster.system_node_group
    assert (group.min_size, group.desired_size, group.max_size) == sizes


@pytest.mark.parametrize("sizes", [(2, 5, 3), (4, 3, 5), (3, 3, 2), (2, 4, 3)])
def test_system_node_group_sizes_out_of_order_are_refused(sizes):
    raw = with_changes(prescale__cluster={"name": "prescale-dev", "systemNodeGroup": dict(
        zip(("minSize", "desiredSize", "maxSize"), sizes))})
    assert only_problem(raw) == ("prescale:cluster.systemNodeGroup: sizes must satisfy minSize ({}) <= desiredSize "
                                 "({}) <= maxSize ({})".format(*sizes))


# 48 CPU / 48Gi is 12 pods of 4 CPU / 4Gi, 3 on each m7i.4xlarge (16 vCPU, 60620Mi of capacity): 4 nodes.
M7I_4XLARGE = [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.4xlarge"]}]


@pytest.mark.parametrize("window, pool", [
    ({"nodes": 10}, {"limits": {"cpu": "512", "memory": "2048Gi", "nodes": 10}}),
    ({"nodes": 256}, {"limits": {"cpu": "512"}}),  # nodes of at least 2 vCPU (docs/capacity.md)
    ({"nodes": None, "capacity": {"cpu": "48", "memory": "48Gi"}},
     {"limits": {"cpu": "64", "memory": "242480Mi", "nodes": 4}, "requirements": M7I_4XLARGE}),
])
def test_a_window_exactly_at_its_pools_limit_is_fine(window, pool):
    config = load_stack_config(with_changes(window=window, pool=pool), NOW)
    assert config.event_windows[0].node_pool == "event"


@pytest.mark.parametrize("window, limits, path", [
    ({"nodes": 11}, {"cpu": "512", "memory": "2048Gi", "nodes": 10}, "prescale:eventWindows[0].nodes: 11 is above"),
    ({"nodes": None, "capacity": {"cpu": "512001m", "memory": "1Gi"}}, {"cpu": "512", "memory": "2048Gi"},
     "prescale:eventWindows[0].capacity.cpu: '512001m' (in 129 pods of 3969m CPU / 8Mi) counts at least"),
    ({"nodes": None, "capacity": {"cpu": "1", "memory": "2049Gi"}}, {"cpu": "512", "memory": "2048Gi"},
     "prescale:eventWindows[0].capacity.memory: '2049Gi' (in 129 pods of 8m CPU / 16265Mi) counts at least"),
])
def test_a_window_just_above_its_pools_limit_is_refused(window, limits, path):
    assert only_problem(with_changes(window=window, pool={"limits": limits})).startswith(path)


@pytest.mark.parametrize("grace", ["0m", "1m"])
def test_a_failsafe_grace_that_runs_before_kedas_own_scale_down_is_refused(grace):
    # KEDA writes 0 up to 1m15s after the end: a failsafe before that would do its job at every end.
    problem = only_problem(with_changes(prescale__placeholders={"failsafeGrace": grace}))
    assert problem.startswith(f"prescale:placeholders.failsafeGrace: '{grace}' must be at least 2m: KEDA itself "
                              "scales the placeholders to zero up to 1m15s after each end"), problem


def test_the_shortest_failsafe_grace_runs_after_kedas_scale_down():
    config = load_stack_config(with_changes(prescale__placeholders={"failsafeGrace": "2m"}), NOW)
    window = config.event_windows[0]
    assert failsafe_schedule(window, parse_duration(config.placeholders.failsafe_grace)) == "32 11 * * *"


@pytest.mark.parametrize("raw, path, fragments", [
    # unknown keys, top level and nested, with a suggestion
    (with_changes(prescale__eventWindow=[]), "prescale:eventWindow:", ["did you mean 'prescale:eventWindows'"]),
    (with_changes(window={"timeZone": "UTC"}), "prescale:eventWindows[0].timeZone:",
     ["unknown key", "did you mean 'timezone'", "'UTC'"]),
    (with_changes(pool={"limits": {"cpu": "1", "memory": "1Gi", "gpu": "1"}}),
     "prescale:nodePools[0].limits.gpu:", ["unknown key", "allowed keys: cpu, memory, nodes"]),
    # wrong types, including YAML/JSON type confusion
    (with_changes(window={"nodes": "5"}), "prescale:eventWindows[0].nodes:",
     ["must be a number like 5, without quotes", "'5'"]),
    (with_changes(window={"nodes": 5.0}), "prescale:eventWindows[0].nodes:",
     ["whole number written without a decimal point", "like 5"]),
    (with_changes(prescale__cluster={"name": "prescale-dev", "create": "yes"}), "prescale:cluster.create:",
     ["must be true or false, without quotes", "'yes'"]),
    (with_changes(prescale__nodePools={"name": "event"}), "prescale:nodePools:", ["must be a list", "'- '"]),
    (with_changes(prescale__cluster=["prescale-dev"]), "prescale:cluster:",
     ["must be a map of keys (name, create, ", "prescale-dev"]),
    (with_changes(pool={"limits": {"cpu": 512.5}}), "prescale:nodePools[0].limits.cpu:",
     ["512.5", "an integer or a string"]),
    (with_changes(pool={"limits": {"cpu": True}}), "prescale:nodePools[0].limits.cpu:", ["true", "quantity"]),
    (with_changes(pool={"limits": {}}), "prescale:nodePools[0].limits:", ["at least one of cpu, memory or nodes"]),
    # names
    (with_changes(window={"name": "Lunch_Rush"}), "prescale:eventWindows[0].name:", ["'Lunch_Rush'", "DNS-1123"]),
    (with_changes(window={"name": "x" * 41}), "prescale:eventWindows[0].name:", ["at most 40"]),
    (with_changes(pool={"name": "-event"}), "prescale:nodePools[0].name:", ["DNS-1123"]),
    (with_changes(prescale__cluster={"name": "bad name"}), "prescale:cluster.name:", ["'bad name'"]),
    # time zone with suggestion
    (with_changes(window={"timezone": "Asia/Seol"}), "prescale:eventWindows[0].timezone:",
     ["'Asia/Seol'", "IANA", "did you mean 'Asia/Seoul'"]),
    (with_changes(window={"timezone": "KST"}), "prescale:eventWindows[0].timezone:",
     ["'KST'", "abbreviation", "did you mean 'Asia/Seoul'?"]),
    # KEDA's cron dialect
    (with_changes(window={"start": "0 15 11 * * *"}), "prescale:eventWindows[0].start:", ["exactly 5 fields"]),
    (with_changes(window={"start": "@daily"}), "prescale:eventWindows[0].start:", ["descriptors"]),
    (with_changes(window={"start": "CRON_TZ=Asia/Seoul 15 11 * * *"}), "prescale:eventWindows[0].start:",
     ["CRON_TZ"]),
    (with_changes(window={"start": "TZ=UTC 15 11 * * *"}), "prescale:eventWindows[0].start:", ["TZ="]),
    (with_changes(window={"start": "15 11 L * *"}), "prescale:eventWindows[0].start:", ["'15 11 L * *'"]),
    (with_changes(window={"start": "15 11 15W * *"}), "prescale:eventWindows[0].start:", ["15W"]),
    (with_changes(window={"start": "15 11 * * 1#2"}), "prescale:eventWindows[0].start:", ["1#2"]),
    (with_changes(window={"start": "15 11 * * 7"}), "prescale:eventWindows[0].start:",
     ["above maximum (6)", "day-of-week 0-6"]),
    # a freeze Karpenter (UTC-only) cannot express: 09:00 on the 1st in Seoul is the previous month's end in UTC
    (with_changes(window={"start": "0 9 1 * *", "end": "0 12 1 * *"}), "prescale:eventWindows[0].start:",
     ["'0 9 1 * *'", "one UTC disruption budget"]),
    # start equal to end
    (with_changes(window={"end": " 15 11 * * * "}), "prescale:eventWindows[0].end:", ["equals start"]),
    # start and end that do not alternate (kedacore/keda#4677)
    (with_changes(window={"start": "30 6 * * 1-5", "end": "10 22 * * *"}), "prescale:eventWindows[0].end:",
     ["do not alternate", "'30 6 * * 1-5'"]),
    # DST gap and overlap
    (with_changes(window={"timezone": "America/New_York", "start": "30 2 * * *", "end": "0 5 * * *",
                          "leadTime": "0m"}),
     "prescale:eventWindows[0].start:", ["'30 2 * * *'"]),
    (with_changes(window={"timezone": "Europe/Berlin", "start": "0 0 * * *", "end": "30 2 * * *"}),
     "prescale:eventWindows[0].end:", ["'30 2 * * *'"]),
    (with_changes(window={"timezone": "America/New_York", "start": "2027-03-14T02:30",
                          "end": "2027-03-14T05:00", "leadTime": "0m"}),
     "prescale:eventWindows[0].start:", ["2027-03-14T02:30"]),
    (with_changes(window={"timezone": "America/New_York", "start": "2027-11-07T01:30",
                          "end": "2027-11-07T05:00", "leadTime": "0m"}),
     "prescale:eventWindows[0].start:", ["2027-11-07T01:30"]),
    # one-off events
    (with_changes(window={"start": "2027-03-02T14:00", "end": "2027-03-02T08:00"}),
     "prescale:eventWindows[0].end:", ["not after start"]),
    (with_changes(window={"start": "2027-03-02T08:00", "end": "2027-03-02T08:00"}),
     "prescale:eventWindows[0].end:", ["not after start"]),
    (with_changes(window={"start": "2027-03-02T08:00+09:00"}), "prescale:eventWindows[0].start:",
     ["no offset"]),
    (with_changes(window={"start": "2027-02-30T08:00", "end": "2027-03-02T08:00"}),
     "prescale:eventWindows[0].start:", ["not a real date-time"]),
    # cron mixed with a date-time
    (with_changes(window={"start": "2027-03-02T08:00"}), "prescale:eventWindows[0].end:",
     ["two crons", "two local date-times"]),
    # amounts
    (with_changes(window={"nodes": 0}), "prescale:eventWindows[0].nodes:", ["must be at least 1", "(got 0)"]),
    (with_changes(window={"nodes": -3}), "prescale:eventWindows[0].nodes:", ["-3"]),
    (with_changes(window={"capacity": {"cpu": "8", "memory": "32Gi"}}), "prescale:eventWindows[0]:",
     ["exactly one of nodes", "got both"]),
    (with_changes(window={"nodes": None}), "prescale:eventWindows[0]:", ["exactly one of nodes", "got neither"]),
    (with_changes(window={"nodes": None, "capacity": {"cpu": "8", "memory": "256GB"}}),
     "prescale:eventWindows[0].capacity.memory:", ["'256GB'", "Ki Mi Gi"]),
    (with_changes(window={"nodes": None, "capacity": {"cpu": "600", "memory": "32Gi"}}),
     "prescale:eventWindows[0].capacity.cpu:", ["'600'", "above", "'512'"]),
    (with_changes(window={"nodes": None, "capacity": {"cpu": "-8", "memory": "32Gi"}}),
     "prescale:eventWindows[0].capacity.cpu:", ["'-8'", "greater than zero"]),
    (with_changes(window={"nodes": 20}, pool={"limits": {"cpu": "512", "memory": "2048Gi", "nodes": 10}}),
     "prescale:eventWindows[0].nodes:", ["20", "limit of 10 nodes"]),
    # lead time
    (with_changes(window={"leadTime": "ten minutes"}), "prescale:eventWindows[0].leadTime:", ["'ten minutes'"]),
    (with_changes(window={"leadTime": "-10m"}), "prescale:eventWindows[0].leadTime:", ["'-10m'"]),
    (with_changes(window={"leadTime": "90s"}), "prescale:eventWindows[0].leadTime:", ["whole minutes"]),
    (with_changes(window={"leadTime": 10}), "prescale:eventWindows[0].leadTime:",
     ['10 is a number, not a duration: write it in quotes with its unit, like "10m"']),
    (with_changes(pool={"expireAfter": 720}), "prescale:nodePools[0].expireAfter:", ['like "720m" or "720h"']),
    # versions
    (with_changes(prescale__karpenter={"version": "v1.14.1"}), "prescale:karpenter.version:", ["'v1.14.1'"]),
    (with_changes(prescale__keda={"version": "2.20"}), "prescale:keda.version:", ["'2.20'", "MAJOR.MINOR.PATCH"]),
    (with_changes(prescale__karpenter={"version": "0.37.0"}), "prescale:karpenter.version:", ["karpenter.sh/v1"]),
    (with_changes(prescale__keda={"version": "2.16.1"}), "prescale:keda.version:", ["#6886"]),
    # capacity types
    (with_changes(pool={"capacityTypes": ["ondemand"]}), "prescale:nodePools[0].capacityTypes[0]:",
     ["must be one of on-demand, spot, reserved", "did you mean 'on-demand'?", "'ondemand'"]),
    (with_changes(pool={"capacityTypes": []}), "prescale:nodePools[0].capacityTypes:", ["at least 1 item"]),
    (with_changes(pool={"capacityTypes": ["spot", "spot"]}), "prescale:nodePools[0].capacityTypes:",
     ["more than once"]),
    # pools
    (with_changes(window={"nodePool": "events"}), "prescale:eventWindows[0].nodePool:",
     ["'events'", "allowed: 'event'"]),
    (with_changes(pool={"amiAlias": "al2023@latest-ish"}), "prescale:nodePools[0].amiAlias:", ["al2023"]),
    (with_changes(pool={"consolidateAfter": "soon"}), "prescale:nodePools[0].consolidateAfter:", ["'soon'"]),
    # cluster
    (with_changes(prescale__cluster={"name": "prescale-dev", "kubernetesVersion": 1.34}),
     "prescale:cluster.kubernetesVersion:", ["must be text in quotes", "1.34"]),
    (with_changes(prescale__cluster={"name": "prescale-dev", "kubernetesVersion": "1.29"}),
     "prescale:cluster.kubernetesVersion:", ["'1.29'"]),
    (with_changes(prescale__cluster={"name": "prescale-dev", "vpcId": "vpc-0123456789abcdef0"}),
     "prescale:cluster:", ["vpcId and privateSubnetIds go together"]),
    (with_changes(prescale__cluster={"name": "prescale-dev", "create": False, "vpcCidr": "10.1.0.0/16"}),
     "prescale:cluster:", ["vpcCidr applies only when create is true"]),
    (with_changes(prescale__cluster={"name": "prescale-dev", "create": False, "vpcCidr": "10.1.0.0/16",
                                     "natGateways": "single"}),
     "prescale:cluster:", ["natGateways, vpcCidr apply only when create is true"]),
    (with_changes(prescale__cluster={"name": "prescale-dev", "publicAccessCidrs": ["10.0.0.0/33"]}),
     "prescale:cluster.publicAccessCidrs[0]:", ["'10.0.0.0/33'", "CIDR"]),
    (with_changes(prescale__cluster={"name": "prescale-dev", "systemNodeGroup": {"minSize": 1}}),
     "prescale:cluster.systemNodeGroup.minSize:", ["must be at least 2"]),
    (with_changes(aws__region="Seoul"), "aws:region:", ["'Seoul'"]),
])
def test_each_rule_names_key_value_and_allowed(raw, path, fragments):
    problem = only_problem(raw)
    assert problem.startswith(path), problem
    for fragment in fragments:
        assert fragment in problem, (fragment, problem)


def cluster(**keys) -> dict:
    return with_changes(prescale__cluster={"name": "prescale-dev", **keys})


# Each says what to write, in the stack file's terms, with an example where a format is asked for.
@pytest.mark.parametrize("raw, path, fragments", [
    (cluster(name="bad name"), "prescale:cluster.name:", ["'bad name' must be a cluster name like \"prescale-prod\"",
                                                          "2 to 39 letters, digits and '-'"]),
    (cluster(kubernetesVersion="1.29"), "prescale:cluster.kubernetesVersion:", ['"1.30" to "1.36", in quotes']),
    (cluster(vpcId="vpc-xyz", privateSubnetIds=["subnet-0123abcd", "subnet-4567abcd"]), "prescale:cluster.vpcId:",
     ['like "vpc-0123456789abcdef0"']),
    (cluster(vpcId="vpc-0123abcd", privateSubnetIds=["subnet-1", "subnet-4567abcd"]),
     "prescale:cluster.privateSubnetIds[0]:", ["'subnet-1' must be a subnet id like \"subnet-0123456789abcdef0\""]),
    (cluster(adminRoleArns=["arn:aws:iam::123456789012:user/ops"]), "prescale:cluster.adminRoleArns[0]:",
     ['must be an IAM role ARN like "arn:aws:iam::123456789012:role/platform-admin"']),
    (cluster(systemNodeGroup={"instanceTypes": ["M7i.large"]}), "prescale:cluster.systemNodeGroup.instanceTypes[0]:",
     ['must be an EC2 instance type like "m7i.large"']),
    (with_changes(aws__region="Seoul"), "aws:region:", ['like "ap-northeast-2" or "us-east-1"']),
    (with_changes(pool={"instanceCategories": ["C"]}), "prescale:nodePools[0].instanceCategories[0]:",
     ['lowercase letters like "c", "m" or "r"']),
    (with_changes(pool={"amiAlias": "al2@latest"}), "prescale:nodePools[0].amiAlias:",
     ['like "al2023@v20260828" or "bottlerocket@v1.30.0"']),
    (with_changes(pool={"taints": [{"key": "dedicated team"}]}), "prescale:nodePools[0].taints[0].key:",
     ['like "dedicated" or "example.com/dedicated"']),
    (cluster(create="on"), "prescale:cluster.create:", ["Pulumi's YAML 1.2 reads yes, no, on and off as text"]),
    (cluster(availabilityZones=True), "prescale:cluster.availabilityZones:", ["not true or false", "(got true)"]),
    (with_changes(prescale__eventWindows=[None]), "prescale:eventWindows[0]:",
     ["must be a map of keys (name, nodePool, timezone, ", "this entry is empty (got null)"]),
    (with_changes(prescale__pricing={"vcpuHour": 0}), "prescale:pricing.vcpuHour:", ["must be more than 0 (got 0)"]),
    (with_changes(prescale__placeholders={"image": ""}), "prescale:placeholders.image:", ["must not be empty"]),
])
def test_problems_say_what_to_write_not_the_librarys_words(raw, path, fragments):
    problem = only_problem(raw)
    assert problem.startswith(path), problem
    for fragment in fragments:
        assert fragment in problem, (fragment, problem)
    assert not re.search(r"Input should|String should|should match pattern|\^|\\d|\[A-Za-z|None|True", problem), problem


def test_missing_required_keys():
    raw = with_changes()
    del raw["prescale:cluster"], raw["aws:region"]
    found = problems(raw)
    assert any(p.startswith("aws:region: required key is missing") for p in found)
    assert any(p.startswith("prescale:cluster: required key is missing") for p in found)


def test_duplicate_names():
    raw = with_changes()
    raw["prescale:eventWindows"].append(dict(raw["prescale:eventWindows"][0]))
    raw["prescale:nodePools"].append(dict(raw["prescale:nodePools"][0]))
    found = problems(raw)
    assert "prescale:nodePools[1].name: 'event' is already used by prescale:nodePools[0]; names must be unique" in found
    assert any(p.startswith("prescale:eventWindows[1].name: 'lunch-rush' is already used") for p in found)


def test_every_problem_is_reported_at_once():
    raw = with_changes(prescale__typo={}, window={"timezone": "Mars/Base", "nodes": 0})
    raw["prescale:eventWindows"].append({"name": "two", "nodePool": "event", "timezone": "UTC",
                                         "start": "@hourly", "end": "0 1 * * *", "nodes": 1})
    raw["prescale:keda"] = {"version": "latest"}
    found = problems(raw)
    paths = sorted(p.split(": ")[0] for p in found)
    assert paths == ["prescale:eventWindows[0].nodes", "prescale:eventWindows[0].timezone",
                     "prescale:eventWindows[1].start", "prescale:keda.version", "prescale:typo"]
    with pytest.raises(ConfigError, match=r"5 problems\); nothing was registered"):
        load_stack_config(raw, NOW)


def paths(found: list[str]) -> list[str]:
    return [problem.split(": ")[0] for problem in found]


def test_a_refused_window_does_not_hide_the_rules_across_keys_of_the_others():
    raw = with_changes(window={"timezone": "Asia/Seol"})
    raw["prescale:eventWindows"] += [{"name": "big", "nodePool": "event", "timezone": "UTC", "start": "0 8 * * *",
                                      "end": "0 9 * * *", "nodes": 300},
                                     {"name": "typo", "nodePool": "events", "timezone": "UTC", "start": "0 8 * * *",
                                      "end": "0 9 * * *", "nodes": 1}]
    assert paths(problems(raw)) == ["prescale:eventWindows[0].timezone", "prescale:eventWindows[2].nodePool",
                                    "prescale:eventWindows[1].nodes"]  # indices as written, the refused one skipped


def test_a_refused_section_does_not_hide_the_rules_that_do_not_need_it():
    raw = with_changes(prescale__cluster={"name": "prescale-dev", "create": False},
                       prescale__karpenter={"install": False, "version": "1.14.1"},
                       prescale__keda={"version": "2.16.1"}, prescale__placeholders={"failsafeGrace": "2h"},
                       window={"nodes": 300})
    assert paths(problems(raw)) == ["prescale:keda.version", "prescale:karpenter.version",
                                    "prescale:karpenter.nodeRoleName", "prescale:eventWindows[0].nodes"]


def test_rules_that_need_a_refused_value_are_skipped():
    """A pool with refused limits hides nothing about itself (windows on it are not 'on an unknown pool' nor above
    its limits), refused placeholders leave sizes and the failsafe unchecked, a refused KEDA the cron commas."""
    raw = with_changes(pool={"limits": {"cpu": "1", "nodes": "2"}}, window={"nodes": 600, "start": "15 11 * * 1,3",
                                                                          "end": "30 11 * * 1,3"},
                       prescale__keda={"install": False, "version": "2.1"})
    assert paths(problems(raw)) == ["prescale:keda.version", "prescale:nodePools[0].limits.nodes"]


def test_a_pool_refused_for_another_key_still_has_its_limits_checked():
    """Its weight refused, the pool's limits are still valid: a window alone above them is refused in the same run,
    as is one whose own time zone is refused (the window's times are not what its size needs)."""
    raw = with_changes(pool={"limits": {"cpu": "1"}, "weight": 0}, window={"nodes": 600, "timezone": "Asia/Seol"})
    assert paths(problems(raw)) == ["prescale:nodePools[0].weight", "prescale:eventWindows[0].timezone",
                                    "prescale:eventWindows[0].nodes"]
    raw = with_changes(pool={"name": "Event"}, prescale__placeholders={"nodeSize": {"cpu": "100"}},
                       window={"nodes": 600})
    assert paths(problems(raw)) == ["prescale:nodePools[0].name", "prescale:placeholders.nodeSize.memory"]
    raw = with_changes(prescale__nodePools={"name": "event"})
    assert paths(problems(raw)) == ["prescale:nodePools"]


def test_weekend_window_and_cross_midnight_are_fine():
    for start, end in (("0 18 * * 5", "0 6 * * 1"), ("0 22 * * *", "0 6 * * *"), ("0 9 * * 1-5", "0 17 * * 1-5")):
        config = load_stack_config(with_changes(window={"start": start, "end": end}), NOW)
        assert (config.event_windows[0].start, config.event_windows[0].end) == (start, end)


def test_lead_time_that_breaks_alternation_is_refused():
    # 23h50m before 11:15 is 11:25 the day before, inside the previous occurrence: KEDA would hold the
    # window open for five minutes only.
    problem = only_problem(with_changes(window={"leadTime": "23h50m"}))
    assert problem.startswith("prescale:eventWindows[0].leadTime: '23h50m'") and "less than 23h45m" in problem


def test_no_windows_and_other_namespaces_are_fine():
    raw = with_changes(prescale__eventWindows=[], pulumi__tags={"team": "platform"})
    assert load_stack_config(raw, NOW).event_windows == []


def test_existing_cluster_mode_needs_only_a_name():
    config = load_stack_config(with_changes(prescale__cluster={"name": "shared-prod", "create": False}), NOW)
    assert config.cluster.create is False and config.cluster.name == "shared-prod"


def test_keda_values_with_install_false_are_refused_even_when_empty():
    """An empty map is still values for a chart prescale does not install: the stack says something it does not do."""
    raw = with_changes(prescale__cluster={"name": "prescale-dev", "create": False},
                       prescale__karpenter={"install": False, "nodeRoleName": "KarpenterNodeRole"},
                       prescale__keda={"install": False, "version": "2.20.2", "values": {}})
    assert paths(problems(raw)) == ["prescale:keda.values"]
