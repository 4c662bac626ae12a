"""What failed validation on its own (:mod:`prescale.model.checks.refused`), as the cross-key rules see it: valid
list entries keep their indices in the stack file past a refused one, a refused entry or section serves exactly the
rules that read none of its refused keys, and a window's pool is unknown only where a refused pool may be it."""

from prescale.model.checks.refused import NOTHING_REFUSED, Partial, Refused
from prescale.model.config import STRATEGIES_CONTEXT, ClusterConfig, KarpenterConfig, NodePoolConfig, StackConfig
from prescale.model.strategies import STRATEGIES

CONTEXT = {STRATEGIES_CONTEXT: STRATEGIES}


def node_pool(name: str) -> NodePoolConfig:
    return NodePoolConfig.model_validate({"name": name, "limits": {"cpu": "100"}}, context=CONTEXT)


def stack(**cluster) -> StackConfig:
    return StackConfig.model_validate({"region": "ap-northeast-2", "cluster": {"name": "prescale-test", **cluster}},
                                      context=CONTEXT)


def test_nothing_refused_hands_every_entry_on_with_its_own_index_and_every_section_as_it_is():
    pools = [node_pool("a"), node_pool("b")]
    assert list(NOTHING_REFUSED.entries("node_pools", pools)) == [(0, pools[0]), (1, pools[1])]
    assert list(NOTHING_REFUSED.entries("node_pools", pools, needs={"name"})) == [(0, pools[0]), (1, pools[1])]
    config = stack()
    assert NOTHING_REFUSED.view(config, cluster={"create"}, karpenter={"install"}) is config
    assert NOTHING_REFUSED.fields("karpenter", KarpenterConfig) == frozenset()
    assert not NOTHING_REFUSED.pool("event")


def test_entries_after_refused_ones_keep_their_indices_in_the_stack_file():
    """Entries 0 and 2 were refused: the valid ones are 1, 3 and 4, however many there are."""
    pools = [node_pool("b"), node_pool("d"), node_pool("e")]
    refused = Refused(node_pools=frozenset({0, 2}))
    assert list(refused.entries("node_pools", pools)) == [(1, pools[0]), (3, pools[1]), (4, pools[2])]
    assert list(refused.entries("event_windows", pools)) == [(0, pools[0]), (1, pools[1]), (2, pools[2])]


def test_a_refused_entry_serves_a_rule_that_reads_none_of_its_refused_keys_in_index_order():
    valid, salvaged = [node_pool("b")], node_pool("a")  # nodePools[0] refused for its consolidateAfter
    refused = Refused(node_pools=frozenset({0}), pool_names=frozenset({"a"}),
                      partial={("node_pools", 0): Partial(salvaged, frozenset({"consolidate_after"}))})
    assert list(refused.entries("node_pools", valid, needs={"name", "requirements"})) == [(0, salvaged), (1, valid[0])]
    assert list(refused.entries("node_pools", valid, needs={"name", "consolidate_after"})) == [(1, valid[0])]
    assert list(refused.entries("node_pools", valid)) == [(1, valid[0])]  # without needs: the valid ones only
    partial = Partial(salvaged, frozenset({"limits"}))
    assert partial.serves({"name"}) and not partial.serves({"name", "limits"})


def test_a_refused_section_is_seen_as_far_as_it_still_serves_the_rule_and_not_at_all_beyond():
    config = stack()  # its cluster the default, in place of the refused one
    salvaged = ClusterConfig(name="prescale-test", create=False)  # cluster refused for its kubernetesVersion
    refused = Refused(sections=frozenset({"cluster"}),
                      partial={("cluster", None): Partial(salvaged, frozenset({"kubernetes_version"}))})
    seen = refused.view(config, cluster={"create", "auto_mode"})
    assert seen is not None and seen.cluster is salvaged and seen.karpenter is config.karpenter
    assert refused.view(config, cluster={"create", "kubernetes_version"}) is None
    assert refused.view(config, karpenter={"install"}) is config  # a section not refused: as it is
    assert refused.fields("cluster", ClusterConfig) == frozenset({"kubernetes_version"})
    wholly = Refused(sections=frozenset({"karpenter"}))  # nothing salvaged
    assert wholly.view(config, karpenter=()) is None
    assert wholly.fields("karpenter", KarpenterConfig) == frozenset(KarpenterConfig.model_fields)


def test_a_pool_is_unknown_only_where_a_refused_pool_may_be_it():
    named = Refused(node_pools=frozenset({0}), pool_names=frozenset({"event"}))
    assert named.pool("event") and not named.pool("batch")
    assert Refused(node_pools=frozenset({0}), pool_names=frozenset({None})).pool("batch")  # its name refused too
    assert Refused(sections=frozenset({"node_pools"})).pool("batch")  # the whole list refused
