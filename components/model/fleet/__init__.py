"""The fleet: what runs on the nodes and what the nodes are. A pool's requirements, the EC2 instance types it can
launch (:mod:`.instances`, from Karpenter's own list), placeholder sizes, addresses and capacity reservations. Pure
arithmetic on the config model, with the quantities and label keys of :mod:`prescale.model.values`.
"""
