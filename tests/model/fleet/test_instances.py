"""EC2 instance data: Karpenter's reference, as generated into the project, and what fits on the allowed types."""

from decimal import Decimal

import pytest
from prescale.model.config import NodePoolConfig
from prescale.model.fleet.ec2_instance_types import INSTANCE_TYPES
from prescale.model.fleet.instances import fit_problem, instance_type, instance_types, pool_launchable
from prescale.model.fleet.sizing import PlaceholderPlan, pods_per_node
from prescale.model.values.quantity import MIB

from tools.ec2_instance_types_gen import parse_network_limits, parse_reference, render_module, table_rows


def allowed_instance_types(categories: tuple[str, ...], architectures: tuple[str, ...]):
    pool = NodePoolConfig(name="p", limits={"cpu": "1"}, instance_categories=list(categories),
                          architectures=list(architectures))
    return pool_launchable(pool).types

GIB = Decimal(2**30)

# Two entries of Karpenter v1.14's website/content/en/v1.14/reference/instance-types.md, as published.
REFERENCE = """## c7i Family
### `c7i.large`
#### Labels
 | Label | Value |
 |--|--|
 |karpenter.k8s.aws/instance-category|c|
 |karpenter.k8s.aws/instance-cpu|2|
 |karpenter.k8s.aws/instance-memory|4096|
 |kubernetes.io/arch|amd64|
 |node.kubernetes.io/instance-type|c7i.large|
#### Resources
 | Resource | Quantity |
 |--|--|
 |cpu|1930m|
 |ephemeral-storage|17Gi|
 |memory|3114Mi|
 |pods|29|
### `c7i.48xlarge`
#### Labels
 | Label | Value |
 |--|--|
 |karpenter.k8s.aws/instance-category|c|
 |karpenter.k8s.aws/instance-cpu|192|
 |karpenter.k8s.aws/instance-memory|393216|
 |kubernetes.io/arch|amd64|
#### Resources
 | Resource | Quantity |
 |--|--|
 |cpu|191450m|
 |memory|355262Mi|
 |pods|737|
"""


# The same two types in the VPC CNI v1.23.0's pkg/vpc/vpc_ip_resource_limit.go, as published (one abridged).
NETWORK_LIMITS = """var instanceNetworkingLimits = map[string]InstanceTypeLimits{
	"c7i.48xlarge": {
		ENILimit:                15,
		IPv4Limit:               50,
		DefaultNetworkCardIndex: 0,
		NetworkCards: []NetworkCard{
			{
				MaximumNetworkInterfaces: 15,
				NetworkCardIndex:         0,
			},
		},
		HypervisorType: "nitro",
		IsBareMetal:    false,
	},
	"c7i.large": {
		ENILimit:                3,
		IPv4Limit:               10,
		DefaultNetworkCardIndex: 0,
	},
}
"""


def test_the_generator_reads_labels_allocatable_resources_and_network_interfaces():
    rows = table_rows(parse_reference(REFERENCE), parse_network_limits(NETWORK_LIMITS))
    assert rows == [("c7i.48xlarge", "c", "amd64", 192, 393216, 191450, 355262, 15, 50),
                    ("c7i.large", "c", "amd64", 2, 4096, 1930, 3114, 3, 10)]
    namespace: dict = {}
    exec(render_module(rows, "a test"), namespace)
    assert namespace["INSTANCE_TYPES"] == tuple(rows)


@pytest.mark.parametrize("limits, problem", [
    ({"c7i.large": (3, 10)}, "c7i.48xlarge: not in the VPC CNI's limits"),
    ({"c7i.large": (3, 10), "c7i.48xlarge": (15, 49)},
     "c7i.48xlarge: Karpenter lists 737 pods, the CNI's 15 interfaces × 49 addresses give 722"),
], ids=["missing", "disagreeing"])
def test_the_generator_refuses_sources_that_disagree(limits, problem):
    with pytest.raises(ValueError, match=problem):
        table_rows(parse_reference(REFERENCE), limits)


def test_the_shipped_table_is_karpenters_list_with_the_cnis_interfaces():
    rows = {row[0]: row for row in INSTANCE_TYPES}
    assert len(rows) == len(INSTANCE_TYPES) > 1000
    assert rows["c7i.48xlarge"] == ("c7i.48xlarge", "c", "amd64", 192, 393216, 191450, 355262, 15, 50)
    assert rows["m7g.large"][1:3] == ("m", "arm64")
    assert rows["m5.large"][7:] == (3, 10)  # 29 pods: the CNI's misc/eni-max-pods.txt
    assert all(0 < row[5] < row[3] * 1000 and 0 < row[6] < row[4] for row in INSTANCE_TYPES)  # overhead subtracted
    assert all(row[7] >= 1 and row[8] >= 2 for row in INSTANCE_TYPES)


def test_the_pools_categories_and_architectures_filter_the_types():
    types = allowed_instance_types(("c", "m"), ("arm64",))
    assert types and {(t.category, t.architecture) for t in types} == {("c", "arm64"), ("m", "arm64")}
    assert allowed_instance_types(("q",), ("amd64",)) == ()


def test_a_pod_fits_when_one_type_holds_both_its_cpu_and_memory():
    types = allowed_instance_types(("c",), ("amd64",))
    assert fit_problem(types, Decimal(380), 700 * GIB) is None  # a 384-vCPU c type, 768 GiB
    # 380 CPU fit one type and 1 TiB another (none: c types stop at 768 GiB), never both on one.
    problem = fit_problem(types, Decimal(380), 1024 * GIB)
    assert problem.startswith("fits no instance type the pool allows: the closest, c8ib.96xlarge (384 vCPU, 768Gi;")
    assert "allowed: at most 382970m CPU and 718756Mi on c8ib.96xlarge" in problem


def kube_reserved_millicores(vcpus: int) -> int:
    """Karpenter's kube-reserved CPU (aws/karpenter-provider-aws v1.14.1, pkg/providers/instancetype/types.go): 6 % of
    the first core, 1 % of the second, 0.5 % of the next two and 0.25 % of the rest, each share rounded down."""
    millicores, reserved = vcpus * 1000, 0
    for start, end, share in ((0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025)):
        if millicores >= start:
            reserved += int((min(millicores, end) - start) * share)
    return reserved


def test_the_capacity_limits_count_is_the_allocatable_plus_karpenters_reservations_for_every_type():
    """What NodePool limits count (vCPUs; memory less the VM overhead, and 64Mi more on Graviton) is the table's
    allocatable plus kube-reserved (11Mi per pod + 255Mi; the CPU shares above) and the 100Mi eviction threshold,
    for every type: the same VM overhead as the allocatable figures Karpenter publishes."""
    for instance in instance_types():
        pods = instance.network_interfaces * (instance.ipv4_per_interface - 1) + 2  # AL2023's max pods (VPC CNI)
        cpu, memory = instance.capacity
        assert cpu * 1000 - instance.allocatable_cpu * 1000 == kube_reserved_millicores(instance.vcpus), instance.name
        assert (memory - instance.allocatable_memory) / MIB == 11 * pods + 255 + 100, instance.name
    assert instance_type("m7g.large").capacity[1] == (8192 - 64 - 610) * MIB  # ⌈8128Mi × 0.075⌉ = 610Mi


def test_the_daemonset_allowance_is_256_mebibytes():
    """c7i.large offers 3114Mi: beside DaemonSets a pod of 2858Mi fits and one of 2859Mi does not (256 MB, 244Mi,
    would let it)."""
    room = instance_type("c7i.large").room
    assert pods_per_node(PlaceholderPlan(1, "1", "2858Mi", one_per_node=True), room) == 1
    assert pods_per_node(PlaceholderPlan(1, "1", "2859Mi", one_per_node=True), room) == 0
    assert room[0] == Decimal("1.73")  # 1930m less 200m
