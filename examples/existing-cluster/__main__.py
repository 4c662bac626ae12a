"""A platform team's own Pulumi program that adds prescale's event windows to a cluster it already runs.

It brings its own cluster (looked up by name) and its own Kubernetes provider, and its Karpenter and KEDA were
installed long ago by other means: prescale is used as a library and adds only the scheduled capacity (node
pools, placeholders, ScaledObjects, failsafes), validated all or nothing from this stack's ``prescale:`` keys.
"""

import json

import prescale
import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from prescale.platform.cluster import exec_kubeconfig

now = prescale.evaluation_time()
capacity_config = prescale.load_capacity_config(prescale.read_raw_config(), now)

cluster = aws.eks.get_cluster_output(name=pulumi.Config().require("clusterName"))
kubeconfig = pulumi.Output.all(cluster.name, cluster.endpoint, cluster.certificate_authorities[0].data).apply(
    lambda values: json.dumps(exec_kubeconfig(*values, region=aws.config.region)))
provider = k8s.Provider("shop-cluster", kubeconfig=pulumi.Output.secret(kubeconfig))

capacity = prescale.deploy_capacity(
    capacity_config, prescale.Platform(cluster_name=cluster.name, kubernetes_provider=provider), now)

pulumi.export("armedWindows", sorted(capacity.windows))
pulumi.export("idleWindows", capacity.idle_windows)
